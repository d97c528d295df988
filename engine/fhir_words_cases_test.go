package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine"
)

// wordsCase is one case of testdata/fhirwords/cases.json: resources coded
// outside the value sets, the facts their words must and must not give,
// the dropped readings and the rows.
type wordsCase struct {
	Name      string          `json:"name"`
	Finding   string          `json:"finding"`
	Date      string          `json:"date"`
	Resources []wordsResource `json:"resources"`
	Facts     []wordsFact     `json:"facts"`
	NoFacts   []wordsFact     `json:"no_facts"`
	Dropped   []struct {
		Resource int    `json:"resource"`
		Contains string `json:"contains"`
	} `json:"dropped"`
	Must    []string `json:"must"`
	MustNot []string `json:"must_not"`
	// Count: how many facts of a concept a resource's words give.
	Count []struct {
		Resource int    `json:"resource"`
		Concept  string `json:"concept"`
		N        int    `json:"n"`
	} `json:"count"`
}

type wordsResource struct {
	Type         string `json:"type"`
	Words        string `json:"words"`
	Status       string `json:"status"`
	Verification string `json:"verification"`
	System       string `json:"system"`
	Code         string `json:"code"`
	// An Observation's value: free text, or a quantity in a UCUM unit.
	ValueString string   `json:"value_string"`
	Value       *float64 `json:"value"`
	Unit        string   `json:"unit"`
	// A coded value (valueCodeableConcept with one coding).
	ValueCoding *struct {
		System  string `json:"system"`
		Code    string `json:"code"`
		Display string `json:"display"`
	} `json:"value_coding"`
}

type wordsFact struct {
	Resource  int    `json:"resource"`
	Concept   string `json:"concept"`
	Status    string `json:"status"`
	Certainty string `json:"certainty"`
}

// bundle builds the case's record: a Patient and each resource with a
// local code (urn:local, in no value set) unless the case gives one.
func (c wordsCase) bundle(t *testing.T) []byte {
	entries := []any{map[string]any{"resource": map[string]any{"resourceType": "Patient", "id": "p", "gender": "male", "birthDate": "1960-01-01"}}}
	for i, r := range c.Resources {
		system, code := "urn:local", "999999"
		if r.Code != "" {
			system, code = r.System, r.Code
		}
		cc := map[string]any{"coding": []any{map[string]any{"system": system, "code": code, "display": r.Words}}}
		res := map[string]any{"resourceType": r.Type, "id": fmt.Sprintf("r%d", i), "subject": map[string]any{"reference": "Patient/p"}}
		switch r.Type {
		case "Condition":
			st, ver := r.Status, r.Verification
			if st == "" {
				st = "active"
			}
			if ver == "" {
				ver = "confirmed"
			}
			res["clinicalStatus"] = map[string]any{"coding": []any{map[string]any{"code": st}}}
			res["verificationStatus"] = map[string]any{"coding": []any{map[string]any{"code": ver}}}
			res["code"] = cc
		case "MedicationStatement", "MedicationRequest":
			st := r.Status
			if st == "" {
				st = "active"
			}
			res["status"], res["medicationCodeableConcept"] = st, cc
			if r.Type == "MedicationRequest" {
				res["intent"] = "order"
			}
		case "AllergyIntolerance":
			st, ver := r.Status, r.Verification
			if st == "" {
				st = "active"
			}
			if ver == "" {
				ver = "confirmed"
			}
			res["clinicalStatus"] = map[string]any{"coding": []any{map[string]any{"code": st}}}
			res["verificationStatus"] = map[string]any{"coding": []any{map[string]any{"code": ver}}}
			res["patient"], res["code"] = res["subject"], cc
			delete(res, "subject")
		case "ServiceRequest":
			st := r.Status
			if st == "" {
				st = "active"
			}
			res["status"], res["intent"], res["code"] = st, "order", cc
		case "Observation":
			res["status"], res["code"], res["effectiveDateTime"] = "final", cc, "2026-11-20"
			switch {
			case r.ValueString != "":
				res["valueString"] = r.ValueString
			case r.Value != nil:
				res["valueQuantity"] = map[string]any{"value": *r.Value, "unit": r.Unit, "system": "http://unitsofmeasure.org", "code": r.Unit}
			case r.ValueCoding != nil:
				res["valueCodeableConcept"] = map[string]any{"coding": []any{map[string]any{"system": r.ValueCoding.System, "code": r.ValueCoding.Code, "display": r.ValueCoding.Display}}}
			}
		default:
			require.Failf(t, "unknown resource type", "%s: resource %d: type %q; use Condition, MedicationStatement, MedicationRequest, AllergyIntolerance, ServiceRequest or Observation", c.Name, i, r.Type)
		}
		entries = append(entries, map[string]any{"resource": res})
	}
	b, err := json.Marshal(map[string]any{"resourceType": "Bundle", "type": "collection", "entry": entries})
	require.NoError(t, err)
	return b
}

func TestFHIRWordsCases(t *testing.T) {
	const file = "testdata/fhirwords/cases.json"
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var f struct {
		Cases []wordsCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f), file)
	require.NotEmpty(t, f.Cases, file)
	p := program(t)
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			require.NotEmpty(t, c.Resources, "%s: %s: give resources", file, c.Name)
			date := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
			if c.Date != "" {
				date, err = time.Parse("2006-01-02", c.Date)
				require.NoError(t, err, "%s: %s: date", file, c.Name)
			}
			res, err := p.AskFHIR(context.Background(), c.Name, c.bundle(t), engine.EvalDate(date))
			require.NoError(t, err)
			ref := func(i int) string {
				require.Less(t, i, len(c.Resources), "%s: %s: resource %d is not in the case", file, c.Name, i)
				return c.Resources[i].Type + "/r" + fmt.Sprint(i)
			}
			var model []string
			for _, fa := range res.Patient.Facts {
				model = append(model, fmt.Sprintf("%s %s [%s, %s]", fa.Resource, fa.Concept, fa.Status, fa.Certainty))
			}
			holds := func(w wordsFact) bool {
				for _, fa := range res.Patient.Facts {
					// A derived fact keeps no resource: its text is the
					// resource's words.
					if (fa.Resource == ref(w.Resource) || fa.Resource == "" && fa.Text == c.Resources[w.Resource].Words) && fa.Concept == w.Concept &&
						(w.Status == "" || string(fa.Status) == w.Status) && (w.Certainty == "" || string(fa.Certainty) == w.Certainty) {
						return true
					}
				}
				return false
			}
			for _, w := range c.Facts {
				assert.True(t, holds(w), "%s (%s): no fact %+v of %q; the model holds:\n  %s", c.Name, c.Finding, w, c.Resources[w.Resource].Words, strings.Join(model, "\n  "))
			}
			for _, w := range c.NoFacts {
				assert.False(t, holds(w), "%s (%s): fact %+v of %q must not be read", c.Name, c.Finding, w, c.Resources[w.Resource].Words)
			}
			for _, w := range c.Count {
				n := 0
				for _, fa := range res.Patient.Facts {
					if fa.Resource == ref(w.Resource) && fa.Concept == w.Concept {
						n++
					}
				}
				assert.Equal(t, w.N, n, "%s (%s): facts of %s from %q; the model holds:\n  %s", c.Name, c.Finding, w.Concept, c.Resources[w.Resource].Words, strings.Join(model, "\n  "))
			}
			for _, d := range c.Dropped {
				found := false
				var why []string
				for _, dr := range res.Patient.Dropped {
					if dr.Resource == ref(d.Resource) {
						why = append(why, dr.Reason)
						found = found || strings.Contains(dr.Reason, d.Contains)
					}
				}
				assert.True(t, found, "%s (%s): no dropped reading of %s saying %q; dropped: %q", c.Name, c.Finding, ref(d.Resource), d.Contains, why)
			}
			got := map[string]bool{}
			for _, r := range res.PredictedRowIDs {
				got[r] = true
			}
			for _, r := range c.Must {
				assert.True(t, got[r], "%s (%s): missing %s", c.Name, c.Finding, r)
			}
			for _, r := range c.MustNot {
				assert.False(t, got[r], "%s (%s): must not return %s", c.Name, c.Finding, r)
			}
		})
	}
}
