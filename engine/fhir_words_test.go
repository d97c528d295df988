package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/fhir"
	"github.com/executablekg/execkg/engine/patient"
)

// A resource coded outside the value sets is read by its words, with the
// record's statuses, the words' own doubt or experiencer, and for a
// measurement the value set's units; words that name nothing, or a
// relative's condition, are dropped with the reason.
func TestFHIRResourceReadByItsWords(t *testing.T) {
	bundle := `{"resourceType": "Bundle", "type": "collection", "entry": [
 {"resource": {"resourceType": "Patient", "id": "p", "gender": "female", "birthDate": "1960-01-01"}},
 {"resource": {"resourceType": "Condition", "id": "ang", "clinicalStatus": {"coding": [{"code": "active"}]},
   "verificationStatus": {"coding": [{"code": "confirmed"}]},
   "code": {"coding": [{"system": "urn:local:problems", "code": "77", "display": "Possible type 2 diabetes mellitus"}]}}},
 {"resource": {"resourceType": "Condition", "id": "fh", "clinicalStatus": {"coding": [{"code": "active"}]},
   "code": {"text": "Family history of myocardial infarction", "coding": [{"system": "urn:local:problems", "code": "78"}]}}},
 {"resource": {"resourceType": "Condition", "id": "two", "clinicalStatus": {"coding": [{"code": "active"}]},
   "code": {"coding": [{"system": "urn:local:problems", "code": "80", "display": "Stable angina, non-obstructive coronary artery disease"}]}}},
 {"resource": {"resourceType": "Condition", "id": "knee", "clinicalStatus": {"coding": [{"code": "active"}]},
   "code": {"coding": [{"system": "urn:local:problems", "code": "79", "display": "Osteoarthritis of knee"}]}}},
 {"resource": {"resourceType": "Observation", "id": "ldl", "status": "final", "effectiveDateTime": "2026-05-02",
   "code": {"coding": [{"system": "urn:local:lab", "code": "LDLC", "display": "LDL cholesterol (calculated)"}]},
   "valueQuantity": {"value": 2.6, "unit": "mmol/L"}}},
 {"resource": {"resourceType": "MedicationRequest", "id": "tic", "status": "draft", "intent": "proposal",
   "medicationCodeableConcept": {"text": "Ticagrelor 90 mg tablets"}}}
]}`
	p := program(t)
	res, err := p.AskFHIR(context.Background(), "words", []byte(bundle), engine.EvalDate(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)))
	require.NoError(t, err)
	byRes := map[string]patient.Fact{}
	concepts := map[string][]string{}
	for _, f := range res.Patient.Facts {
		if f.Reader == fhir.WordsReaderName {
			concepts[f.Resource] = append(concepts[f.Resource], f.Concept)
			assert.Empty(t, f.Code, "%s: a fact named by its words cites no code", f.Resource)
			byRes[f.Resource] = f
		}
	}
	if f, ok := byRes["Condition/ang"]; assert.True(t, ok, "the diabetes condition is read by its words") {
		assert.Equal(t, patient.Suspected, f.Certainty, "the display's 'Possible' holds against verificationStatus confirmed")
	}
	if f, ok := byRes["Observation/ldl"]; assert.True(t, ok, "the local LDL code is read by its display") {
		require.NotNil(t, f.Value)
		assert.InDelta(t, 2.6, *f.Value, 1e-9)
		assert.Equal(t, "mmol/L", f.Unit)
	}
	if f, ok := byRes["MedicationRequest/tic"]; assert.True(t, ok, "the draft order is read by its text") {
		assert.Equal(t, patient.StatusPlanned, f.Status)
	}
	// Words that name two concepts make two facts; a concept named only
	// inside a longer one is not a third.
	assert.ElementsMatch(t, []string{"angina pectoris", "non-obstructive coronary artery disease"}, concepts["Condition/two"])
	assert.NotContains(t, byRes, "Condition/fh")
	assert.NotContains(t, byRes, "Condition/knee")
	why := map[string]string{}
	for _, d := range res.Patient.Dropped {
		why[d.Resource] = d.Reason
	}
	assert.Contains(t, why["Condition/fh"], "someone other than the patient")
	assert.Contains(t, why["Condition/knee"], "name no concept of the pack")
}
