package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/fhir"
)

type fhirCase struct {
	Name string   `json:"name"`
	Date string   `json:"date"`
	Text string   `json:"text"`
	Rows []string `json:"rows"`
}

func fhirCases(t *testing.T) []fhirCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("fhir", "testdata", "cases.json"))
	require.NoError(t, err)
	var f struct {
		Cases []fhirCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	require.NotEmpty(t, f.Cases)
	return f.Cases
}

func firedRows(res *engine.Result) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, r := range res.Recommendations {
		if !seen[r.RowID] {
			seen[r.RowID] = true
			out = append(out, r.RowID)
		}
	}
	sort.Strings(out)
	return out
}

// Every fixture bundle fires the rows its case lists, the equivalent
// text case fires the same rows, and every fired condition's coded
// evidence cites the resource it came from.
func TestFHIRBundlesMatchText(t *testing.T) {
	p := program(t)
	ctx := context.Background()
	for _, c := range fhirCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			date, err := time.Parse("2006-01-02", c.Date)
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join("fhir", "testdata", c.Name+".json"))
			require.NoError(t, err)
			res, err := p.AskFHIR(ctx, c.Name, b, engine.EvalDate(date))
			require.NoError(t, err)
			require.NotNil(t, res.Patient)
			assert.Equal(t, "fhir", res.Patient.Source)
			assert.Equal(t, c.Rows, firedRows(res), "bundle %s", c.Name)
			resources := map[string]string{}
			for _, f := range res.Patient.Facts {
				if f.Reader == fhir.ReaderName || f.Reader == fhir.WordsReaderName {
					resources[f.ID] = f.Resource
				}
			}
			for _, r := range res.Recommendations {
				for _, fc := range r.FiredBy {
					for _, e := range fc.Evidence {
						if e.Via == "" { // a stated fact, not a derivation
							assert.NotEmpty(t, resources[e.ID], "%s: %s cites fact %s without a resource", r.RowID, fc.Concept, e.ID)
						}
					}
				}
			}
			require.NotEmpty(t, c.Text, "case %s has no equivalent text", c.Name)
			tres, err := p.AskOn(ctx, c.Name, c.Text, date)
			require.NoError(t, err)
			assert.Equal(t, firedRows(tres), firedRows(res), "bundle %s and its text %q fire different rows", c.Name, c.Text)
		})
	}
}

// A malformed bundle fails in the read stage with the located error.
func TestAskFHIRReadError(t *testing.T) {
	p := program(t)
	_, err := p.AskFHIR(context.Background(), "bad", []byte(`{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Observation","id":"o","valueQuantity":{"value":"x"}}}]}`))
	require.Error(t, err)
	var se *engine.StageError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, engine.StageRead, se.Stage)
	var fe *fhir.Error
	require.True(t, errors.As(err, &fe), "%v", err)
	assert.Equal(t, "Observation/o", fe.Resource)
	assert.Equal(t, "valueQuantity.value", fe.Field)
}
