package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRefractoryEvidence: symptoms stated to persist despite named
// antianginal or medical therapy read as refractory to GDMT; other
// therapies, negations and plans give nothing.
func TestRefractoryEvidence(t *testing.T) {
	prog := program(t)
	const refractory = "symptoms refractory to guideline-directed medical therapy"
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"CCS with persistent exertional angina despite max-tolerated bisoprolol and amlodipine.", true},
		{"Angina CCS III despite maximal medical therapy.", true},
		{"Symptoms refractory despite triple antianginal therapy (bisoprolol, amlodipine, ISMN).", true},
		{"CCS class III angina on three antianginals.", true},
		{"Chest pain despite aspirin and atorvastatin.", false},
		{"Angina despite PCI to the LAD last year.", false},
		{"No angina despite stopping bisoprolol.", false},
		{"Chest pain on exertion. On bisoprolol.", false},
	} {
		res, err := prog.Ask(context.Background(), "t", tc.text)
		require.NoError(t, err)
		got := false
		for _, e := range res.Evidence {
			if strings.HasPrefix(e.Via, "refractory: ") && e.Concept == refractory && e.Present {
				got = true
			}
		}
		require.Equalf(t, tc.want, got, "%q", tc.text)
	}
}
