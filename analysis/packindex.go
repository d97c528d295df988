package analysis

import (
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/rules"
)

// PackIndex looks rules and conditions up by id, for reading traces
// against the pack they were produced from.
type PackIndex struct {
	Pack  *rules.Pack
	Rules []eval.Rule
	// RuleByID and RulesByRow index Rules.
	RuleByID   map[string]*eval.Rule
	RulesByRow map[string][]*eval.Rule
	// Cond maps a decision id to its condition.
	Cond map[string]eval.Cond
	// RuleOfCond maps a decision id to its rule id.
	RuleOfCond map[string]string
	// Table maps a row id to its table's file name.
	Table map[string]string
	// NameOfKey and KeyOfName are the pack's concept index (for is-a
	// derivation), computed once rather than per re-scored case.
	NameOfKey, KeyOfName map[string]string
}

// NewPackIndex indexes a pack.
func NewPackIndex(p *rules.Pack) *PackIndex {
	ix := &PackIndex{Pack: p, RuleByID: map[string]*eval.Rule{}, RulesByRow: map[string][]*eval.Rule{},
		Cond: map[string]eval.Cond{}, RuleOfCond: map[string]string{}, Table: map[string]string{}}
	ix.NameOfKey, ix.KeyOfName = p.ConceptIndex()
	refs := p.Rules()
	ix.Rules = make([]eval.Rule, len(refs))
	for i, r := range refs {
		ix.Rules[i] = eval.FromRuleRef(r)
		ix.Table[r.RowID] = r.Table.File
	}
	for i := range ix.Rules {
		r := &ix.Rules[i]
		ix.RuleByID[r.ID] = r
		ix.RulesByRow[r.RowID] = append(ix.RulesByRow[r.RowID], r)
		for _, c := range r.Conds {
			ix.Cond[c.DecisionID] = c
			ix.RuleOfCond[c.DecisionID] = r.ID
		}
	}
	return ix
}

// Keys lists the concept keys a rule tests.
func (ix *PackIndex) Keys(ruleID string) []string {
	r := ix.RuleByID[ruleID]
	if r == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range r.Conds {
		if !seen[c.ConceptKey] {
			seen[c.ConceptKey] = true
			out = append(out, c.ConceptKey)
		}
	}
	return out
}
