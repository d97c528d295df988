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
