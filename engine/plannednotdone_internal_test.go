package engine

import (
	"testing"
	"time"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
	"github.com/stretchr/testify/require"
)

// TestPlannedNotDoneAfterMention: with a PCI the document plans, a
// mention that times something after a PCI ("Cardiac rehab after PCI") is
// of the one to come, even when the document lends it its own date (a
// report's procedure); a mention that states its date ("rehab after PCI
// on 12/03/2026") and one that names no "after" keep their PCI done.
func TestPlannedNotDoneAfterMention(t *testing.T) {
	p, _ := readerProgram(t)
	key := func(name string) string {
		k, ok := p.keys[rules.NormalizeName(name)]
		require.True(t, ok, "the pack has no concept %q", name)
		return k
	}
	pci, planned := key("percutaneous coronary intervention"), key("planned percutaneous coronary intervention")
	lent := &eval.When{From: time.Date(2026, 9, 29, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 9, 29, 0, 0, 0, 0, time.UTC)}
	ev := []eval.Evidence{
		{ID: "f1", Text: "Elective CTO PCI of RCA", Concept: p.names[planned], ConceptKey: planned, Present: true},
		{ID: "f2", Text: "Cardiac rehab after PCI", Concept: p.names[pci], ConceptKey: pci, Present: true, When: lent},
		{ID: "f3", Text: "rehab after PCI on 12/03/2026", Concept: p.names[pci], ConceptKey: pci, Present: true, When: lent},
		{ID: "f4", Text: "PCI to the LAD", Concept: p.names[pci], ConceptKey: pci, Present: true, When: lent},
	}
	var dropped []patient.Dropped
	out, _ := p.plannedNotDone(append([]eval.Evidence(nil), ev...), nil, &Trace{}, &dropped)
	ids := map[string]bool{}
	for _, e := range out {
		ids[e.ID] = true
	}
	require.False(t, ids["f2"], "'Cardiac rehab after PCI' is the planned PCI")
	require.True(t, ids["f1"] && ids["f3"] && ids["f4"], "the plan, a dated mention and a plain one stay: %v", ids)
	// Without a plan nothing is dropped.
	out, _ = p.plannedNotDone(append([]eval.Evidence(nil), ev[1:]...), nil, &Trace{}, &dropped)
	require.Len(t, out, 3)
}
