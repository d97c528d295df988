package engine

import "testing"

// Which concepts are intentions themselves is the pack's data
// (planned_concepts in meta/sections.json).
func TestPlannedConcept(t *testing.T) {
	p := readingProgram(t, map[string]string{"planned percutaneous coronary intervention": "name:planned percutaneous coronary intervention"})
	if !p.doc.PlannedConcept("planned percutaneous coronary intervention") || p.doc.PlannedConcept("percutaneous coronary intervention") {
		t.Error("PlannedConcept")
	}
	if !p.doc.PlannedConcept("candidate for myocardial revascularization") {
		t.Error("a candidate is an intention")
	}
}
