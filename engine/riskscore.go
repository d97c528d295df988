package engine

import (
	"slices"

	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// withoutScoreSubject drops the procedures of a finding that names a
// surgical risk score (meta/reading.json risk_scores): "STS PROM (CABG):
// 1.1 %" is the predicted risk of the operation, which the statement
// neither reports done nor plans.
func (p *Program) withoutScoreSubject(text string, anchors []grounding.Anchor) []grounding.Anchor {
	// Only a procedure's anchor is dropped: the score is looked for only
	// where there is one.
	if !slices.ContainsFunc(anchors, func(a grounding.Anchor) bool { return p.roles[a.ConceptKey] == rules.RoleProcedure }) ||
		!p.namesRiskScore(text) {
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

// namesRiskScore: the text states one of the risk scores whole.
func (p *Program) namesRiskScore(text string) bool {
	for _, k := range p.riskScores {
		if c := p.covering[k]; c != nil {
			if ok, _ := c.CoversAll(text); ok {
				return true
			}
		}
	}
	return false
}

// leadIn is the text of a finding's clause up to the finding's end: from
// the last comma, semicolon, line break or full stop before it (a stop
// followed by a space, not a decimal point), across parentheses, so that a
// procedure split off inside a score's parenthesis ("EuroSCORE II (CABG +
// AVR) 4.2%") is read with the score named before it.
func leadIn(text string, start, end int) string {
	if start < 0 || end > len(text) || start >= end {
		return ""
	}
	s := start
	for s > 0 {
		c := text[s-1]
		if c == ',' || c == ';' || c == '\n' || (c == '.' && s < len(text) && (text[s] == ' ' || text[s] == '\n')) {
			break
		}
		s--
	}
	return text[s:end]
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
