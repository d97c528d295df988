package engine

import (
	"strings"
	"testing"
)

func TestInPlan(t *testing.T) {
	for _, c := range []struct {
		text, at string
		want     bool
	}{
		{"Imp: doing well. Plan: stop clopidogrel at 3 months, then aspirin monotherapy.", "aspirin monotherapy", true},
		{"Plan: PCI with IVUS guidance next week; DAPT thereafter.", "DAPT", true},
		{"On aspirin. Plan: PCI next week.", "aspirin", false},
		{"Plan: CCTA. Echo: LVEF 40%.", "LVEF", false},
		{"Explanation - LVEF 40%.", "LVEF", false},
		{"Management plan - ICA.", "ICA", true},
	} {
		if got := inPlan(c.text, strings.Index(c.text, c.at)); got != c.want {
			t.Errorf("inPlan(%q at %q) = %v, want %v", c.text, c.at, got, c.want)
		}
	}
	if !plannedConcept("planned percutaneous coronary intervention") || plannedConcept("percutaneous coronary intervention") {
		t.Error("plannedConcept")
	}
}
