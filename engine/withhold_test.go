package engine_test

import (
	"context"
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
