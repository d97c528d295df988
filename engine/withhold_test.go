package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine"
)

// A row that would give what the record says the patient does not
// tolerate is withheld, with the fact that stopped it; the alternative the
// guideline names for that patient still fires.
func TestRecommendationWithheldForRecordedIntolerance(t *testing.T) {
	bundle := func(allergy bool) []byte {
		b := `{"resourceType": "Bundle", "type": "collection", "entry": [
 {"resource": {"resourceType": "Patient", "id": "p", "gender": "male", "birthDate": "1960-01-01"}},
 {"resource": {"resourceType": "Condition", "id": "mi", "clinicalStatus": {"coding": [{"code": "active"}]},
   "code": {"coding": [{"system": "http://snomed.info/sct", "code": "22298006", "display": "Myocardial infarction"}]}, "onsetDateTime": "2021-03-01"}}`
		if allergy {
			b += `,
 {"resource": {"resourceType": "AllergyIntolerance", "id": "asa", "clinicalStatus": {"coding": [{"code": "active"}]},
   "verificationStatus": {"coding": [{"code": "confirmed"}]},
   "code": {"coding": [{"system": "http://snomed.info/sct", "code": "387458008", "display": "Aspirin"}]}}}`
		}
		return []byte(b + "]}")
	}
	p := program(t)
	date := engine.EvalDate(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	const aspirinRow = "table_17.json::row_0"
	plain, err := p.AskFHIR(context.Background(), "no-allergy", bundle(false), date)
	require.NoError(t, err)
	require.Contains(t, plain.PredictedRowIDs, aspirinRow, "lifelong aspirin after MI")
	assert.Empty(t, plain.Withheld)

	res, err := p.AskFHIR(context.Background(), "allergy", bundle(true), date)
	require.NoError(t, err)
	assert.NotContains(t, res.PredictedRowIDs, aspirinRow)
	for _, r := range res.Recommendations {
		assert.NotEqual(t, aspirinRow, r.RowID)
	}
	require.Len(t, res.Withheld, 1)
	w := res.Withheld[0]
	assert.Equal(t, aspirinRow, w.RowID)
	assert.Equal(t, "aspirin", w.Concept)
	assert.Contains(t, w.Reason, "AllergyIntolerance/asa")
	assert.Contains(t, res.PredictedRowIDs, "table_17.json::row_1", "clopidogrel, the alternative to aspirin, still applies")
}

// withholdCase is one case of testdata/withhold/cases.json.
type withholdCase struct {
	Name     string            `json:"name"`
	Text     string            `json:"text,omitempty"`
	FHIR     []json.RawMessage `json:"fhir,omitempty"`
	Withheld []string          `json:"withheld,omitempty"`
	Returned []string          `json:"returned,omitempty"`
	// NotReturned: rows neither returned nor withheld.
	NotReturned []string          `json:"not_returned,omitempty"`
	Cautions    map[string]string `json:"cautions,omitempty"`
	// NoCautions: rows returned without any caution.
	NoCautions []string `json:"no_cautions,omitempty"`
	Facts      []string `json:"facts,omitempty"`
	NoFacts    []string `json:"no_facts,omitempty"`
}

// Recorded intolerances, coded, named by a resource's words or written in
// text, withhold the rows that would give the drug (its regimens and its
// class members included) and put a caution on rows they only put in
// doubt: testdata/withhold/cases.json.
func TestWithholdCases(t *testing.T) {
	const path = "testdata/withhold/cases.json"
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var file struct {
		Note  string         `json:"note"`
		Cases []withholdCase `json:"cases"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&file), path)
	require.NotEmpty(t, file.Cases, path)
	p := program(t)
	date := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range file.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			var res *engine.Result
			var err error
			if tc.Text != "" {
				res, err = p.AskOn(context.Background(), "withhold", tc.Text, date)
			} else {
				entries := []string{`{"resource": {"resourceType": "Patient", "id": "p", "gender": "male", "birthDate": "1960-01-01"}}`}
				for _, r := range tc.FHIR {
					entries = append(entries, `{"resource": `+string(r)+`}`)
				}
				bundle := `{"resourceType": "Bundle", "type": "collection", "entry": [` + strings.Join(entries, ",") + `]}`
				res, err = p.AskFHIR(context.Background(), "withhold", []byte(bundle), engine.EvalDate(date))
			}
			require.NoError(t, err)
			withheld := map[string]engine.Withheld{}
			for _, w := range res.Withheld {
				withheld[w.RowID] = w
			}
			returned := map[string]engine.Recommendation{}
			for _, r := range res.Recommendations {
				returned[r.RowID] = r
			}
			for _, id := range tc.Withheld {
				assert.Contains(t, withheld, id, "%s: %s should be withheld", path, id)
				assert.NotContains(t, res.PredictedRowIDs, id, "%s: a withheld row is no predicted row", path)
			}
			for _, id := range tc.Returned {
				assert.Contains(t, returned, id, "%s: %s should be returned", path, id)
			}
			for _, id := range tc.NotReturned {
				assert.NotContains(t, returned, id, "%s: %s should not be returned", path, id)
			}
			for id, words := range tc.Cautions {
				r, ok := returned[id]
				if !assert.True(t, ok, "%s: %s should be returned with a caution", path, id) {
					continue
				}
				var reasons []string
				for _, c := range r.Cautions {
					reasons = append(reasons, c.Reason)
				}
				assert.Contains(t, strings.Join(reasons, " | "), words, "%s: %s's caution", path, id)
			}
			for _, id := range tc.NoCautions {
				if r, ok := returned[id]; assert.True(t, ok, "%s: %s should be returned", path, id) {
					assert.Empty(t, r.Cautions, "%s: %s should carry no caution", path, id)
				}
			}
			have := map[string]bool{}
			for _, f := range res.Patient.Facts {
				have[f.Concept+"|"+string(f.Status)] = true
			}
			for _, f := range tc.Facts {
				assert.True(t, have[f], "%s: the model should hold %s", path, f)
			}
			for _, f := range tc.NoFacts {
				assert.False(t, have[f], "%s: the model should not hold %s", path, f)
			}
		})
	}
}
