package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCKDEvidence: a CKD stage gives its eGFR band, which fires the rows
// the band meets (the anatomy reader's cases are
// testdata/readers/anatomy/facts.json).
func TestCKDEvidence(t *testing.T) {
	prog := program(t)
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

func TestCKDStageBands(t *testing.T) {
	// A stated stage gives its KDIGO eGFR band as two bounds, from pack
	// data (meta/hierarchy.json values), traced.
	prog := program(t)
	for _, tc := range []struct {
		text   string
		lo, hi float64 // -1: open
	}{
		{"CKD stage 4", 15, 30},
		{"CKD 3b", 30, 45},
		{"CKD G4", 15, 30},
		{"CKD 3", 30, 60},
		{"chronic kidney disease stage 3a", 45, 60},
		{"end-stage renal failure", -1, 15},
		{"on haemodialysis", -1, 15},
		{"CKD", -2, -2},
	} {
		res, err := prog.Ask(context.Background(), "t", tc.text)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := -2.0, -2.0
		for _, e := range res.Evidence {
			if e.Concept == "estimated glomerular filtration rate" && strings.HasPrefix(e.Via, "implies: ") && e.Value != nil {
				if e.Comparator == ">=" {
					lo = *e.Value
				} else {
					hi = *e.Value
				}
				if tc.lo == -1 && hi != -2 && lo == -2 {
					lo = -1
				}
			}
		}
		if tc.lo == -1 && lo == -2 {
			lo = -1
		}
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("%q: eGFR band [%v, %v), want [%v, %v)", tc.text, lo, hi, tc.lo, tc.hi)
		}
	}
}
