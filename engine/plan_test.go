package engine

import "testing"

// Which concepts are intentions themselves is the pack's data
// (planned_concepts in meta/sections.json).
func TestPlannedConcept(t *testing.T) {
	p := readingProgram(t, map[string]string{"planned percutaneous coronary intervention": "name:planned percutaneous coronary intervention"})
	if !p.reading.PlannedConcept("planned percutaneous coronary intervention") || p.reading.PlannedConcept("percutaneous coronary intervention") {
		t.Error("PlannedConcept")
	}
	if !p.reading.PlannedConcept("candidate for myocardial revascularization") {
		t.Error("a candidate is an intention")
	}
}
