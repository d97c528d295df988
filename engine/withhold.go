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

// Caution is a returned row one of whose giving actions the record puts
// in doubt without barring the row: one alternative of several is not
// tolerated ("beta-blocker and/or CCB" with a beta-blocker
// contraindication), a single agent of the class is not tolerated
// (metoprolol for "start a beta-blocker"), or the intolerance is
// unconfirmed.
type Caution struct {
	Concept string `json:"concept"`
	FactID  string `json:"fact_id"`
	Reason  string `json:"reason"`
}

// givingIntents are the intents that give the action's concept.
var givingIntents = map[string]bool{"start": true, "continue": true, "switch": true}

// bar is one fact that stands against giving a concept.
type bar struct {
	fact    patient.Fact
	concept string // the concept barred (the fact's, or the drug a problem bars)
	agent   string // the single agent of concept the fact names, or ""
}

// barring reads off the model what stands against giving a concept,
// keyed by the normalised concept: a drug not tolerated or
// contraindicated, and an active problem the pack declares bars a drug
// (meta/hierarchy.json "bars": "contraindication to beta-blocker").
func (p *Program) barring(m *patient.Model) map[string][]bar {
	out := map[string][]bar{}
	for _, f := range m.Facts {
		if f.Concept == "" || f.Experiencer == patient.Relative {
			continue
		}
		switch {
		case f.Status == patient.StatusNotTolerated || f.Status == patient.StatusContraindicated:
			b := bar{fact: f, concept: f.Concept, agent: p.hierarchy.AgentNamed(f.Concept, f.Text)}
			out[rules.NormalizeName(f.Concept)] = append(out[rules.NormalizeName(f.Concept)], b)
		case f.Status == patient.StatusActive && f.Present && f.Certainty != patient.Refuted:
			if d := p.hierarchy.BarredDrug(f.Concept); d != "" {
				out[rules.NormalizeName(d)] = append(out[rules.NormalizeName(d)], bar{fact: f, concept: d})
			}
		}
	}
	return out
}

// withhold moves out of res.Recommendations every positive row that
// would give what the model states not tolerated or contraindicated, and
// returns the moved rows; rows it returns with a doubt carry Cautions.
//
// A giving action is barred when its concept, a concept it counts as
// (is-a or composite membership, the relation the deriver uses:
// clopidogrel counts as antiplatelet therapy), or a component of it
// (meta/hierarchy.json "components": DAPT gives aspirin) is barred. The
// actions that are components of another action of the row go with it
// ("DAPT; aspirin; clopidogrel" is one regimen); the row is withheld
// when each of its regimens or lone actions is barred, and otherwise
// returned with a caution on the barred alternative ("beta-blocker
// and/or CCB"). A fact that names one agent of a class ("Metoprolol" for
// beta-blocker) bars the class for no row: the row is returned with a
// caution that names the agent, and so does an intolerance the pack
// declares usually partial (meta/hierarchy.json "partial": statins, whose
// row asks for the maximum tolerated dose). An unconfirmed intolerance
// withholds nothing either: the row is returned with a caution that states the
// certainty, since a Class I row should not disappear on a suspicion.
func (p *Program) withhold(res *Result, m *patient.Model) []Withheld {
	barred := p.barring(m)
	if len(barred) == 0 {
		return nil
	}
	// firm: the bars against a concept that withhold; soft: those that
	// only caution (an agent of the class, an unconfirmed intolerance).
	against := func(concept string) (firm, soft []bar) {
		n := rules.NormalizeName(concept)
		for _, c := range append([]string{n}, p.hierarchy.CountsAs(n)...) {
			for _, b := range barred[c] {
				if b.agent != "" || b.fact.Certainty == patient.Suspected || p.hierarchy.PartialIntolerance(b.concept) {
					soft = append(soft, b)
				} else {
					firm = append(firm, b)
				}
			}
		}
		return firm, soft
	}
	// regimen: the bars against a concept or any of its components.
	var regimen func(concept string, depth int) (firm, soft []bar)
	regimen = func(concept string, depth int) (firm, soft []bar) {
		firm, soft = against(concept)
		if depth > 8 {
			return firm, soft
		}
		for _, c := range p.hierarchy.ComponentsOf(concept) {
			f, s := regimen(c, depth+1)
			firm, soft = append(firm, f...), append(soft, s...)
		}
		return firm, soft
	}
	partOf := func(part, whole string) bool {
		pn := rules.NormalizeName(part)
		for _, c := range p.hierarchy.ComponentsOf(whole) {
			if c == pn {
				return true
			}
			for _, b := range p.hierarchy.CountsAs(pn) {
				if b == c {
					return true
				}
			}
		}
		return false
	}
	var out []Withheld
	kept := res.Recommendations[:0]
	for _, r := range res.Recommendations {
		if r.Direction != "POSITIVE" {
			kept = append(kept, r)
			continue
		}
		var giving []Action
		for _, a := range r.Actions {
			if givingIntents[a.Intent] {
				giving = append(giving, a)
			}
		}
		// Group the actions into regimens: an action that is a component
		// of another giving action of the row belongs to that one.
		head := make([]int, len(giving))
		for i, a := range giving {
			head[i] = i
			for j, b := range giving {
				if i != j && partOf(a.Concept, b.Concept) {
					head[i] = j
					break
				}
			}
		}
		type unit struct {
			firm, soft []bar
			action     Action
		}
		units := map[int]*unit{}
		var order []int
		for i, a := range giving {
			h := head[i]
			u := units[h]
			if u == nil {
				u = &unit{action: giving[h]}
				units[h] = u
				order = append(order, h)
			}
			f, s := regimen(a.Concept, 0)
			u.firm, u.soft = append(u.firm, f...), append(u.soft, s...)
		}
		// A procedure the row performs whose component the record bars
		// (an allergy to the contrast medium CCTA uses) calls for
		// precautions, not for dropping the test: a caution.
		for _, a := range r.Actions {
			if givingIntents[a.Intent] {
				continue
			}
			seen := map[string]bool{}
			for _, c := range p.hierarchy.ComponentsOf(a.Concept) {
				f, s := against(c)
				for _, b := range append(f, s...) {
					if !seen[b.fact.ID] {
						seen[b.fact.ID] = true
						r.Cautions = append(r.Cautions, Caution{Concept: a.Concept, FactID: b.fact.ID,
							Reason: statesBar(b) + ": " + a.Concept + " uses " + b.concept + ", so take the precautions it needs"})
					}
				}
			}
		}
		all := len(order) > 0
		for _, h := range order {
			if len(units[h].firm) == 0 {
				all = false
			}
		}
		if all {
			u := units[order[0]]
			b := u.firm[0]
			out = append(out, Withheld{RowID: r.RowID, RuleID: r.RuleID, Class: r.Class, Grade: r.Grade, Concept: u.action.Concept, FactID: b.fact.ID, Pack: r.Pack,
				Reason: statesBar(b) + ", so " + u.action.Intent + " " + u.action.Concept + " is not advised from this row"})
			continue
		}
		for _, h := range order {
			u := units[h]
			seen := map[string]bool{}
			for _, b := range append(u.firm, u.soft...) {
				if seen[b.fact.ID] {
					continue
				}
				seen[b.fact.ID] = true
				r.Cautions = append(r.Cautions, Caution{Concept: u.action.Concept, FactID: b.fact.ID, Reason: cautionReason(b, u.action, p.hierarchy.PartialIntolerance(b.concept))})
			}
		}
		kept = append(kept, r)
	}
	res.Recommendations = kept
	return out
}

// statesBar says what the record states against giving the bar's concept.
func statesBar(b bar) string {
	f := b.fact
	where := f.Resource
	if where == "" {
		where = "'" + f.Text + "'"
	}
	certainty := ""
	if f.Certainty == patient.Suspected {
		certainty = " (unconfirmed)"
	}
	if f.Status == patient.StatusNotTolerated || f.Status == patient.StatusContraindicated {
		name := f.Concept
		if b.agent != "" {
			name = b.agent + " (a " + f.Concept + ")"
		}
		return "the record states " + name + " " + strings.ReplaceAll(string(f.Status), "-", " ") + certainty + " (" + where + ")"
	}
	return "the record states " + f.Concept + certainty + " (" + where + "), which stands against giving " + b.concept
}

// cautionReason is why a returned row carries a caution; partial: the
// pack declares intolerance of the barred drug usually partial.
func cautionReason(b bar, a Action, partial bool) string {
	switch {
	case b.agent != "":
		return statesBar(b) + ": only that agent is barred, so " + a.Intent + " " + a.Concept + " with another agent"
	case b.fact.Certainty == patient.Suspected:
		return statesBar(b) + ": a possible intolerance, so confirm it before " + a.Intent + " " + a.Concept
	case partial:
		return statesBar(b) + ": intolerance of " + b.concept + " is usually partial, so " + a.Intent + " " + a.Concept + " only as tolerated"
	}
	return statesBar(b) + ": " + a.Intent + " " + a.Concept + " is not advised; the row's other actions stand"
}
