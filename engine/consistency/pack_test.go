package consistency

import (
	"testing"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// A case that states a condition in the condition's own words must never
// be blocked by step (v): the reference run's check removed no reference
// pair, and a block here would be one. ABSENT conditions are stated as
// "without <wording>". Run over every condition of the built-in pack with
// all checks on.
func TestPackWordingPassesOwnCondition(t *testing.T) {
	p, err := packs.Default()
	if err != nil {
		t.Fatalf("load built-in pack: %v", err)
	}
	all := Checks{Certainty: true, Negation: true, Qualifier: true, Absence: true}
	n := 0
	for _, r := range p.Rules() {
		for _, c := range r.Conditions() {
			e := c.Entity
			w := e.EntityOriginal
			text := "Patient with " + w + "."
			if e.LogicStructured.Operator == rules.OpAbsent {
				text = "Patient without " + w + "."
			}
			cond := Condition{Concept: e.Concept(), Wording: w, Context: e.Context, Operator: e.LogicStructured.Operator}
			if v := Check(text, w, cond, all); !v.Pass {
				t.Errorf("%s: %q blocked against its own condition: %s", c.DecisionID, text, v.Reason)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("built-in pack has no conditions")
	}
}

// missingQualifierScan is missingQualifier as it was before the
// condition's qualifiers were read once at Compile: the reference
// TestQualifierRunsKeepVerdicts compares it with.
func missingQualifierScan(cc *Compiled, a analysis, numeric bool) (string, string) {
	have := map[string]bool{}
	for _, q := range a.qualifiers() {
		have[q] = true
	}
	phrases := []analysis{cc.wording, cc.concept}
	if numeric {
		phrases = phrases[1:]
	}
	for _, pa := range phrases {
		phrase, ts := pa.text, pa.toks
		for i := 0; i < len(ts); i++ {
			q, n := qualifierAt(ts, i, false)
			if n == 0 {
				continue
			}
			if numeric && qualifiers[q] == qualSeverity {
				i += n - 1
				continue
			}
			if qualifiers[q] == qualCertainty || have[q] || acronymInClause(ts[i:], a) {
				i += n - 1
				continue
			}
			return q, phrase
		}
	}
	return "", ""
}

// TestQualifierRunsKeepVerdicts: missingQualifier with the condition's
// qualifiers read once (qualifierRuns) and the clause's qualifiers taken
// from its context gives what the scan of the condition's tokens gives,
// for every condition of the built-in pack against the clauses of every
// other condition's wording (and its own), numeric and not; and some
// verdicts name a missing qualifier, some none.
func TestQualifierRunsKeepVerdicts(t *testing.T) {
	p, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Condition]bool{}
	var conds []*Compiled
	var texts []string
	for _, r := range p.Rules() {
		for _, c := range r.Conditions() {
			e := c.Entity
			cond := Condition{Concept: e.Concept(), Wording: e.EntityOriginal, Context: e.Context, Operator: e.LogicStructured.Operator}
			if seen[cond] {
				continue
			}
			seen[cond] = true
			conds = append(conds, Compile(cond))
			texts = append(texts, "Patient with "+e.EntityOriginal+", "+e.Concept()+".")
		}
	}
	missing, none := 0, 0
	for i, text := range texts {
		a := analyse(text, text)
		for _, cc := range conds[max(0, i-40):min(len(conds), i+40)] {
			for _, numeric := range []bool{false, true} {
				gq, gp := missingQualifier(cc, a, a.context(text, []int{a.head()}).Qualifiers, numeric)
				wq, wp := missingQualifierScan(cc, a, numeric)
				if gq != wq || gp != wp {
					t.Fatalf("%q against %+v (numeric %v): %q %q, the scan %q %q", text, cc.cond, numeric, gq, gp, wq, wp)
				}
				if wq != "" {
					missing++
				} else {
					none++
				}
			}
		}
	}
	if missing == 0 || none == 0 {
		t.Fatalf("%d verdicts with a missing qualifier, %d without: both should be some", missing, none)
	}
}
