package engine

import (
	"context"

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
	if r, ok := p.rules.Load(b); ok {
		return r.(eval.Rule)
	}
	r, _ := p.rules.LoadOrStore(b, ruleOf(*b))
	return r.(eval.Rule)
}
