package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// TestSpokenOfAsRisk: testdata/hypothetical/ask.json, text in, the
// answer's evidence out ("concept|present").
func TestSpokenOfAsRisk(t *testing.T) {
	var cases []readerCase
	path := filepath.Join("..", "hypothetical", "ask.json")
	readCaseFile(t, "", path, &cases)
	if len(cases) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	checkCases(t, "testdata/hypothetical/ask.json", cases, func(tc readerCase) map[string]bool { return askFacts(t, tc) })
}

// TestSpokenOfAsRiskFHIRWords: testdata/hypothetical/fhir_words.json, a
// Condition's words in (an uncoded, active and confirmed Condition), the
// answer's evidence out: the words are judged with the cues text is.
func TestSpokenOfAsRiskFHIRWords(t *testing.T) {
	var cases []readerCase
	path := filepath.Join("..", "hypothetical", "fhir_words.json")
	readCaseFile(t, "", path, &cases)
	if len(cases) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	p, _ := readerProgram(t)
	checkCases(t, "testdata/hypothetical/fhir_words.json", cases, func(tc readerCase) map[string]bool {
		words, err := json.Marshal(tc.Text)
		if err != nil {
			t.Fatal(err)
		}
		bundle := `{"resourceType": "Bundle", "type": "collection", "entry": [
 {"resource": {"resourceType": "Patient", "id": "p", "gender": "male", "birthDate": "1960-01-01"}},
 {"resource": {"resourceType": "Condition", "id": "c", "clinicalStatus": {"coding": [{"code": "active"}]},
   "verificationStatus": {"coding": [{"code": "confirmed"}]},
   "code": {"text": ` + string(words) + `, "coding": [{"system": "urn:local:problems", "code": "999999"}]}}}]}`
		res, err := p.AskFHIR(context.Background(), "words", []byte(bundle), EvalDate(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, e := range res.Evidence {
			got[factKey(e.Concept, e.Present)] = true
		}
		return got
	})
}
