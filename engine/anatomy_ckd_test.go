package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAnatomyAndCKDEvidence: stenosis reports and CKD stages give traced
// evidence, never against a stated item.
func TestAnatomyAndCKDEvidence(t *testing.T) {
	prog := program(t)
	for _, tc := range []struct {
		text    string
		want    []string // "concept|present" of derived items (Via set)
		wantNot []string
	}{
		{"ICA: LAD 80%, RCA 90%", []string{"two-vessel coronary artery disease|true"}, []string{"one-vessel coronary artery disease|true", "three-vessel coronary artery disease|true"}},
		{"ICA: LAD 80%, LCx 75%, RCA 90%", []string{"three-vessel coronary artery disease|true"}, nil},
		{"ICA: pLAD 90%", []string{"proximal left anterior descending coronary artery stenosis|true", "one-vessel coronary artery disease|true"}, nil},
		{"ICA: 80% mid-LAD", []string{"one-vessel coronary artery disease|true"}, []string{"proximal left anterior descending coronary artery stenosis|true"}},
		{"ICA: LM 60%", []string{"left main coronary artery stenosis|true"}, []string{"two-vessel coronary artery disease|true"}},
		{"ICA: LAD 50%, RCA 40%", nil, []string{"one-vessel coronary artery disease|true", "obstructive coronary artery disease|false"}},
		{"ICA: single-vessel disease, LAD 80%, RCA 90%", nil, []string{"two-vessel coronary artery disease|true"}},
		{"occluded SVG-RCA, LVEF 45%", nil, []string{"one-vessel coronary artery disease|true"}},
	} {
		res, err := prog.Ask(context.Background(), "t", tc.text)
		require.NoError(t, err)
		got := map[string]bool{}
		for _, e := range res.Evidence {
			if strings.HasPrefix(e.Via, "anatomy: ") {
				got[e.StandardizedConcept+"|"+map[bool]string{true: "true", false: "false"}[e.Present]] = true
			}
		}
		for _, w := range tc.want {
			require.Truef(t, got[w], "%q: want derived %s, got %v", tc.text, w, got)
		}
		for _, w := range tc.wantNot {
			require.Falsef(t, got[w], "%q: must not derive %s", tc.text, w)
		}
	}
	// eGFR < 30 (table 8 row 2, CCTA not recommended) follows the CKD band.
	const row = "table_08.json::row_2"
	for _, tc := range []struct {
		text  string
		fires bool
	}{
		{"Suspected CCS, chest pain on exertion. CKD G4.", true},
		{"Suspected CCS, chest pain on exertion. On haemodialysis.", true},
		{"Suspected CCS, chest pain on exertion. CKD 3b.", false},
		{"Suspected CCS, chest pain on exertion. CKD.", false},
	} {
		res, err := prog.Ask(context.Background(), "t", tc.text)
		require.NoError(t, err)
		fired := false
		for _, r := range res.PredictedRowIDs {
			fired = fired || r == row
		}
		require.Equalf(t, tc.fires, fired, "%q: %s", tc.text, row)
	}
}
