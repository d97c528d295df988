package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestActionSummarySaysTheIntent(t *testing.T) {
	got := ActionSummary([]Action{
		{Concept: "dual antiplatelet therapy", Intent: "stop", Context: "end DAPT 1–3 months after PCI"},
		{Concept: "single antiplatelet therapy", Intent: "continue"},
		{Concept: "ivabradine", Intent: "avoid", Relation: "CONTRAINDICATES"},
		{Concept: "aspirin", Relation: "RECOMMENDS_USAGE"},
	})
	require.Equal(t, "STOP dual antiplatelet therapy (end DAPT 1–3 months after PCI); CONTINUE single antiplatelet therapy; "+
		"AVOID (do not start, perform or combine) ivabradine; recommends usage aspirin", got)
}
