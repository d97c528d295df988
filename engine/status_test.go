package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine"
)

// statusCase is one case of testdata/status/cases.json: a text or a FHIR
// Bundle, the facts ("concept|status", or "concept=value unit" for a
// value) the model must and must not hold, the rows that must and must
// not fire, and words a dropped reading's reason must hold.
type statusCase struct {
	Name    string          `json:"name"`
	Note    string          `json:"note"`
	Text    string          `json:"text,omitempty"`
	FHIR    json.RawMessage `json:"fhir,omitempty"`
	Facts   []string        `json:"facts,omitempty"`
	NoFacts []string        `json:"no_facts,omitempty"`
	Rows    []string        `json:"rows,omitempty"`
	NoRows  []string        `json:"no_rows,omitempty"`
	Dropped []string        `json:"dropped,omitempty"`
}

// TestStatusAndCurrency: a fact stated of the past (history, resolved)
// of a concept that holds only while current (meta/hierarchy.json
// current_only) fires no row and makes no definition; a stated sinus
// rhythm excludes a fast irregular heart rate; the latest dated value of
// a measure is used; an implausible value is refused or, for a fraction
// in percent, converted; a completed MedicationRequest states nothing.
func TestStatusAndCurrency(t *testing.T) { runStatusCases(t, "testdata/status/cases.json") }

// TestRowCases: testdata/rows/*.json, case texts in, the facts and rows
// out (statusCase), one file per mechanism that changes which rows fire.
func TestRowCases(t *testing.T) {
	files, err := filepath.Glob("testdata/rows/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files, "testdata/rows holds no case files")
	for _, f := range files {
		runStatusCases(t, f)
	}
}

// runStatusCases runs the cases of one statusCase file ({"note", "cases"}).
func runStatusCases(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	var file struct {
		Note  string       `json:"note"`
		Cases []statusCase `json:"cases"`
	}
	require.NoError(t, dec.Decode(&file), path)
	require.NotEmpty(t, file.Cases)
	p := program(t)
	date := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range file.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			var res *engine.Result
			var err error
			switch {
			case tc.Text != "" && tc.FHIR == nil:
				res, err = p.AskOn(context.Background(), tc.Name, tc.Text, date)
			case tc.FHIR != nil && tc.Text == "":
				res, err = p.AskFHIR(context.Background(), tc.Name, tc.FHIR, engine.EvalDate(date))
			default:
				t.Fatalf("%s case %s: give text or fhir, one of them", path, tc.Name)
			}
			require.NoError(t, err)
			have := map[string]bool{}
			for _, f := range res.Patient.Facts {
				have[f.Concept+"|"+string(f.Status)] = true
				if f.Value != nil {
					have[fmt.Sprintf("%s=%g %s", f.Concept, *f.Value, f.Unit)] = true
				}
			}
			for _, w := range tc.Facts {
				if !have[w] {
					t.Errorf("case %s: the model lacks %q; it holds %v", tc.Name, w, statusKeys(have))
				}
			}
			for _, w := range tc.NoFacts {
				if have[w] {
					t.Errorf("case %s: the model holds %q, which it must not", tc.Name, w)
				}
			}
			for _, r := range tc.Rows {
				if !slices.Contains(res.PredictedRowIDs, r) {
					t.Errorf("case %s: row %s does not fire; fired %v", tc.Name, r, res.PredictedRowIDs)
				}
			}
			for _, r := range tc.NoRows {
				if slices.Contains(res.PredictedRowIDs, r) {
					t.Errorf("case %s: row %s fires, which it must not", tc.Name, r)
				}
			}
			for _, d := range tc.Dropped {
				found := false
				for _, x := range res.Patient.Dropped {
					found = found || strings.Contains(x.Reason, d)
				}
				if !found {
					t.Errorf("case %s: no dropped reading says %q; dropped %+v", tc.Name, d, res.Patient.Dropped)
				}
			}
		})
	}
}

func statusKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
