package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine"
)

// TestFHIRPackCases: FHIR records, coded or named by their words, read
// into the facts and rows the pack's data give them
// (testdata/fhir-pack/cases.json).
func TestFHIRPackCases(t *testing.T) {
	const path = "testdata/fhir-pack/cases.json"
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var file struct {
		Cases []struct {
			Name      string                       `json:"name"`
			Date      string                       `json:"date"`
			Resources []json.RawMessage            `json:"resources"`
			Facts     []string                     `json:"facts"`
			NoFacts   []string                     `json:"no_facts"`
			Must      []string                     `json:"must"`
			MustNot   []string                     `json:"must_not"`
			Intents   map[string]map[string]string `json:"intents"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &file), path)
	require.NotEmpty(t, file.Cases, path)
	p := program(t)
	for i, c := range file.Cases {
		date := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		if c.Date != "" {
			date, err = time.Parse("2006-01-02", c.Date)
			require.NoError(t, err, "%s case %d: date", path, i)
		}
		entries := []map[string]json.RawMessage{{"resource": json.RawMessage(`{"resourceType": "Patient", "id": "p", "gender": "male", "birthDate": "1960-01-01"}`)}}
		for _, r := range c.Resources {
			entries = append(entries, map[string]json.RawMessage{"resource": r})
		}
		bundle, err := json.Marshal(map[string]any{"resourceType": "Bundle", "type": "collection", "entry": entries})
		require.NoError(t, err)
		res, err := p.AskFHIR(context.Background(), "fhir-pack", bundle, engine.EvalDate(date))
		require.NoError(t, err, "%s case %d (%s)", path, i, c.Name)
		present := map[string]bool{}
		for _, f := range res.Patient.Facts {
			if f.Present {
				present[f.Concept] = true
			}
		}
		for _, k := range c.Facts {
			assert.True(t, present[k], "%s case %d (%s): no present fact %q", path, i, c.Name, k)
		}
		for _, k := range c.NoFacts {
			assert.False(t, present[k], "%s case %d (%s): present fact %q", path, i, c.Name, k)
		}
		got := map[string]bool{}
		for _, r := range res.PredictedRowIDs {
			got[r] = true
		}
		for _, r := range c.Must {
			assert.True(t, got[r], "%s case %d (%s): missing row %s", path, i, c.Name, r)
		}
		for _, r := range c.MustNot {
			assert.False(t, got[r], "%s case %d (%s): must not return %s", path, i, c.Name, r)
		}
		for row, want := range c.Intents {
			seen := map[string]string{}
			for _, rec := range res.Recommendations {
				if rec.RowID == row {
					for _, a := range rec.Actions {
						seen[a.Concept] = a.Intent
					}
				}
			}
			for concept, intent := range want {
				assert.Equal(t, intent, seen[concept], "%s case %d (%s): intent of %s in %s", path, i, c.Name, concept, row)
			}
		}
	}
}
