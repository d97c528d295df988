package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/executablekg/execkg/engine/patient"
)

// referenceValues drops the values a finding writes as a target, goal or
// reference range (meta/reading.json references: "Target LDL-C <1.4
// mmol/L", "LDL goal <1.8"): a treatment target or a laboratory's normal
// range is never a value of the patient. The value is dropped only where
// the cue stands right before that very number; other values of the
// finding stay ("LDL-C 2.6 mmol/L, target <1.4" keeps 2.6).
func (p *Program) referenceValues(m *patient.Model) []edit {
	re := p.reading.reference
	if re == nil {
		return nil
	}
	var edits []edit
	kept := m.Facts[:0:0]
	for _, f := range m.Facts {
		if f.Kind != patient.KindMeasurement || f.Value == nil || f.Via != "" {
			kept = append(kept, f)
			continue
		}
		cue := ""
		for _, sm := range re.FindAllStringSubmatch(f.Text, -1) {
			if v, err := strconv.ParseFloat(strings.ReplaceAll(sm[1], ",", "."), 64); err == nil && v == *f.Value {
				cue = strings.TrimSpace(sm[0])
				break
			}
		}
		if cue == "" {
			kept = append(kept, f)
			continue
		}
		m.Dropped = append(m.Dropped, patient.Dropped{Text: f.Text, Resource: f.Resource, Reader: f.Reader,
			Reason: fmt.Sprintf("'%s' writes a target or reference value, not the patient's %s; the value is not used", cue, f.Concept)})
		edits = append(edits, edit{was: f.Evidence})
	}
	m.Facts = kept
	return edits
}
