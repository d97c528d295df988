package engine

import (
	"strings"

	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// Withheld is a fired row whose recommended drug or procedure the patient
// model states the patient does not tolerate or must not have: giving it
// would contradict the record ("start aspirin" for a documented aspirin
// allergy), so the row is not returned but kept here with the fact that
// stopped it. Rows that advise against, or stop, the same concept are
// unaffected.
type Withheld struct {
	RowID  string `json:"row_id"`
	RuleID string `json:"rule_id"`
	Class  string `json:"class"`
	// Grade: as Recommendation.Grade.
	Grade string `json:"grade,omitempty"`
	// Concept is the recommended concept; FactID and Reason name the
	// patient's fact that conflicts with it.
	Concept string `json:"concept"`
	FactID  string `json:"fact_id"`
	Reason  string `json:"reason"`
	Pack    string `json:"pack,omitempty"`
}

// givingIntents are the intents that give the action's concept.
var givingIntents = map[string]bool{"start": true, "continue": true, "switch": true}

// withhold moves out of res.Recommendations every positive row all of
// whose giving actions name a concept (or a kind of one) the model states
// not tolerated or contraindicated, and returns the moved rows.
func (p *Program) withhold(res *Result, m *patient.Model) []Withheld {
	barred := map[string]patient.Fact{} // normalised concept → the fact
	for _, f := range m.Facts {
		if f.Status == patient.StatusNotTolerated || f.Status == patient.StatusContraindicated {
			if f.Concept != "" {
				barred[rules.NormalizeName(f.Concept)] = f
			}
		}
	}
	if len(barred) == 0 {
		return nil
	}
	conflict := func(concept string) (patient.Fact, bool) {
		n := rules.NormalizeName(concept)
		if f, ok := barred[n]; ok {
			return f, true
		}
		for _, b := range p.hierarchy.Broader(n) {
			if f, ok := barred[b]; ok {
				return f, true
			}
		}
		return patient.Fact{}, false
	}
	var out []Withheld
	kept := res.Recommendations[:0]
	for _, r := range res.Recommendations {
		var hit *Withheld
		giving, all := 0, true
		if r.Direction == "POSITIVE" {
			for _, a := range r.Actions {
				if !givingIntents[a.Intent] {
					continue
				}
				giving++
				f, ok := conflict(a.Concept)
				if !ok {
					all = false
					continue
				}
				if hit == nil {
					where := f.Resource
					if where == "" {
						where = "'" + f.Text + "'"
					}
					hit = &Withheld{RowID: r.RowID, RuleID: r.RuleID, Class: r.Class, Grade: r.Grade, Concept: a.Concept, FactID: f.ID, Pack: r.Pack,
						Reason: "the record states " + f.Concept + " " + strings.ReplaceAll(string(f.Status), "-", " ") + " (" + where + "), so " + a.Intent + " " + a.Concept + " is not advised from this row"}
				}
			}
		}
		if giving > 0 && all && hit != nil {
			out = append(out, *hit)
			continue
		}
		kept = append(kept, r)
	}
	res.Recommendations = kept
	return out
}
