package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// Under a plan heading a procedure with a "planned" form in the pack reads
// as that form; the procedure itself stays unstated.
func TestPlanHeadingGivesPlannedForm(t *testing.T) {
	prog := program(t)
	for _, tc := range []struct {
		text, concept string
		want          bool
	}{
		{"CCS, refractory angina. Plan: PCI with IVUS guidance next week.", "planned percutaneous coronary intervention", true},
		{"CCS, refractory angina. Plan: PCI with IVUS guidance next week.", "percutaneous coronary intervention", false},
		{"CCS, refractory angina. PCI with IVUS guidance last week.", "planned percutaneous coronary intervention", false},
		// A finding that schedules itself is intended too.
		{"CCS, multivessel CAD. For CABG next month.", "planned coronary artery bypass graft", true},
		{"CCS, multivessel CAD. For CABG next month.", "coronary artery bypass graft", false},
		{"CCS, multivessel CAD. CABG scheduled.", "planned coronary artery bypass graft", true},
		{"CCS, multivessel CAD. CABG in 2015.", "coronary artery bypass graft", true},
		// A recommendation or the patient's choice intends it too.
		{"CCS, 3VD. CABG recommended; he agrees to CABG.", "planned coronary artery bypass graft", true},
		{"CCS, 3VD. CABG recommended; he agrees to CABG.", "coronary artery bypass graft", false},
		// A plan block's items are intended; a test in it is still the
		// test the patient is to undergo.
		{"Suspected CCS.\nPlan:\n- PCI to LAD\n- ICA via radial", "planned percutaneous coronary intervention", true},
		{"Suspected CCS.\nPlan:\n- PCI to LAD\n- ICA via radial", "percutaneous coronary intervention", false},
		{"Suspected CCS.\nPlan:\n- PCI to LAD\n- ICA via radial", "invasive coronary angiography", true},
		// Family history is a relative's.
		{"Suspected CCS.\nFHx: premature MI", "myocardial infarction", false},
		{"Suspected CCS.\nPMH: premature MI", "myocardial infarction", true},
	} {
		res, err := prog.Ask(context.Background(), "t", tc.text)
		require.NoError(t, err)
		got := false
		for _, e := range res.Evidence {
			if e.Concept == tc.concept && e.Present {
				got = true
			}
		}
		require.Equalf(t, tc.want, got, "%q: %s", tc.text, tc.concept)
	}
}
