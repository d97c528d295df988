package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRegimenEvidence: antithrombotic drugs stated as taken together make
// DAPT or a combination regimen; stopped, planned or refused drugs do not.
func TestRegimenEvidence(t *testing.T) {
	prog := program(t)
	for _, tc := range []struct {
		text    string
		want    []string
		wantNot []string
	}{
		{"CCS, PCI 6 weeks ago. On aspirin 75 mg + Brilinta 90 mg bd.",
			[]string{"dual antiplatelet therapy", "ticagrelor-based dual antiplatelet therapy", "combination antithrombotic therapy"}, nil},
		{"Meds: aspirin 75 mg, Plavix 75 mg, Crestor 20 mg.",
			[]string{"dual antiplatelet therapy", "combination antithrombotic therapy"}, []string{"ticagrelor-based dual antiplatelet therapy"}},
		{"AF. Discharged on Xarelto + clopidogrel.",
			[]string{"combination antithrombotic therapy"}, []string{"dual antiplatelet therapy"}},
		{"CCS. Now aspirin 75 mg monotherapy.", nil, []string{"combination antithrombotic therapy"}},
		{"CCS on aspirin. Clopidogrel stopped in 2019.", nil, []string{"combination antithrombotic therapy"}},
		{"CCS on aspirin. Plan: add ticagrelor.", nil, []string{"combination antithrombotic therapy"}},
	} {
		res, err := prog.Ask(context.Background(), "t", tc.text)
		require.NoError(t, err)
		got := map[string]bool{}
		for _, e := range res.Evidence {
			if strings.HasPrefix(e.Via, "definition: ") && e.Present {
				got[e.Concept] = true
			}
		}
		for _, w := range tc.want {
			require.Truef(t, got[w], "%q: want %s, got %v", tc.text, w, got)
		}
		for _, w := range tc.wantNot {
			require.Falsef(t, got[w], "%q: must not give %s", tc.text, w)
		}
	}
}
