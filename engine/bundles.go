package engine

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/executablekg/execkg/engine/consistency"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/graph"
)

// lent is the embedded store itself, which lends its bundles without
// copying them (the engine only reads them). Only the concrete type: a
// store that wraps one and overrides Bundles must be asked through Bundles.
func (p *Program) lent() (*graph.Memory, bool) {
	m, ok := p.store.(*graph.Memory)
	return m, ok
}

// bundles is step (iii): the rule bundles of the concept keys, in rule id
// order, shared with the store when it lends them.
func (p *Program) bundles(ctx context.Context, keys []string) ([]*graph.Bundle, error) {
	if m, ok := p.lent(); ok {
		return m.SharedBundles(ctx, keys)
	}
	bs, err := p.store.Bundles(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := make([]*graph.Bundle, len(bs))
	for i := range bs {
		out[i] = &bs[i]
	}
	return out, nil
}

// rule is ruleOf compiled once per shared bundle: a bundle lent by the
// store is immutable and a reload makes new ones, so its address is the
// key. A copied bundle (another store) is converted each time.
func (p *Program) rule(b *graph.Bundle) eval.Rule {
	if _, ok := p.lent(); !ok {
		return ruleOf(*b)
	}
	if r, ok := p.rules.load(b); ok {
		return r
	}
	r := ruleOf(*b)
	for i := range r.Conds {
		// Step (v) judges each condition compiled: compiled here once,
		// it is carried with the condition to the Admit hook.
		c := &r.Conds[i]
		c.Tag = p.compile(consistency.Condition{Concept: c.Concept, Wording: c.Wording, Context: c.Context, Operator: c.Operator})
	}
	return p.rules.store(b, r.Prepared())
}

// cowMap is a map read without a lock, for entries that are made once and
// then read in every case (a case reads a hundred rules): a store copies
// the map, a load reads the current copy.
type cowMap[K comparable, V any] struct {
	mu sync.Mutex
	m  atomic.Pointer[map[K]V]
}

func (c *cowMap[K, V]) load(k K) (V, bool) {
	if m := c.m.Load(); m != nil {
		v, ok := (*m)[k]
		return v, ok
	}
	var zero V
	return zero, false
}

// store adds v for k and returns it, or returns the value stored first.
func (c *cowMap[K, V]) store(k K, v V) V {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	if old != nil {
		if w, ok := (*old)[k]; ok {
			return w
		}
	}
	var m map[K]V
	if old == nil {
		m = map[K]V{k: v}
	} else {
		m = make(map[K]V, len(*old)+1)
		for x, y := range *old {
			m[x] = y
		}
		m[k] = v
	}
	c.m.Store(&m)
	return v
}
