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
		// Step (v) judges each condition compiled: compiled the first
		// time it is judged, it is carried with the condition to the
		// Admit hook (Program.compileCond).
		c := &r.Conds[i]
		c.Tag = &condForm{cond: consistency.Condition{Concept: c.Concept, Wording: c.Wording, Context: c.Context, Operator: c.Operator}}
	}
	return p.rules.store(b, r.Prepared())
}

// condForm is a rule condition's step (v) form, compiled when first asked.
type condForm struct {
	cond consistency.Condition
	cc   atomic.Pointer[consistency.Compiled]
}

// cowMap is a map read without a lock, for entries that are made once and
// then read in every case (a case reads a hundred rules). New entries
// wait under the lock until they are a third of the map's size, then the
// map is copied with them (so all copies together cost a few times the
// map's size); a load reads the current copy, and only a miss there takes
// the lock.
type cowMap[K comparable, V any] struct {
	m       atomic.Pointer[map[K]V]
	mu      sync.Mutex
	pending map[K]V // stored since m was copied; under mu
}

func (c *cowMap[K, V]) load(k K) (V, bool) {
	if m := c.m.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v, true
		}
	}
	c.mu.Lock()
	v, ok := c.pending[k]
	c.mu.Unlock()
	return v, ok
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
	if w, ok := c.pending[k]; ok {
		return w
	}
	if c.pending == nil {
		c.pending = map[K]V{}
	}
	c.pending[k] = v
	n := 0
	if old != nil {
		n = len(*old)
	}
	if len(c.pending) >= max(16, n/3) {
		m := make(map[K]V, n+len(c.pending))
		if old != nil {
			for x, y := range *old {
				m[x] = y
			}
		}
		for x, y := range c.pending {
			m[x] = y
		}
		c.m.Store(&m)
		c.pending = nil
	}
	return v
}
