package engine

import (
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// withoutScoreSubject drops the procedures of a finding that names a
// surgical risk score (meta/reading.json risk_scores): "STS PROM (CABG):
// 1.1 %" is the predicted risk of the operation, which the statement
// neither reports done nor plans.
func (p *Program) withoutScoreSubject(text string, anchors []grounding.Anchor) []grounding.Anchor {
	named := false
	for _, k := range p.riskScores {
		if c := p.covering[k]; c != nil {
			if ok, _ := c.CoversAll(text); ok {
				named = true
				break
			}
		}
	}
	if !named {
		return anchors
	}
	kept := anchors[:0:0]
	for _, a := range anchors {
		if p.roles[a.ConceptKey] != rules.RoleProcedure {
			kept = append(kept, a)
		}
	}
	return kept
}

// riskScoreKeys: the concept keys of the pack's risk scores.
func (p *Program) riskScoreKeys() []string {
	rs := p.pack.Reading
	if rs == nil || rs.RiskScores == nil {
		return nil
	}
	var out []string
	for _, n := range rs.RiskScores.Scores {
		if k, ok := p.keys[rules.NormalizeName(n)]; ok {
			out = append(out, k)
		}
	}
	return out
}
