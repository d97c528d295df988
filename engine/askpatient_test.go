package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/internal/jsonl"
	"github.com/stretchr/testify/require"
)

// The text path and AskPatient share every stage after reading: a text
// case's own patient model (its read facts), asked again, answers the same.
func TestAskPatientOnTextModelsAnswersAsAsk(t *testing.T) {
	p := program(t)
	ctx := context.Background()
	for _, file := range []string{"testdata/cases.jsonl", "testdata/clinician_dev.jsonl"} {
		for _, c := range readSpecs(t, file) {
			res, err := p.Ask(ctx, c.CaseID, c.Question)
			require.NoError(t, err)
			require.NotNil(t, res.Patient, c.CaseID)
			require.NoError(t, res.Patient.Validate(), c.CaseID)
			m := *res.Patient
			m.Facts = nil
			for _, f := range res.Patient.Facts {
				if f.Reader != "derive" {
					m.Facts = append(m.Facts, f)
				}
			}
			again, err := p.AskPatient(ctx, &m)
			require.NoError(t, err, c.CaseID)
			require.Equal(t, res.PredictedRowIDs, again.PredictedRowIDs, "%s: %s", c.CaseID, c.Question)
		}
	}
}

// Coded facts: testdata/patients/*.json, a model in, rows that must and
// must not fire out.
func TestAskPatientCoded(t *testing.T) {
	p := program(t)
	b, err := os.ReadFile("testdata/patients/coded.json")
	require.NoError(t, err)
	var cases []struct {
		Name    string        `json:"name"`
		Model   patient.Model `json:"model"`
		Must    []string      `json:"must"`
		MustNot []string      `json:"must_not"`
	}
	require.NoError(t, json.Unmarshal(b, &cases))
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			before, _ := json.Marshal(c.Model)
			res, err := p.AskPatient(context.Background(), &c.Model, engine.EvalTrace(true))
			require.NoError(t, err)
			after, _ := json.Marshal(c.Model)
			require.JSONEq(t, string(before), string(after), "AskPatient must not modify the caller's model")
			for _, r := range c.Must {
				require.Contains(t, res.PredictedRowIDs, r)
			}
			for _, r := range c.MustNot {
				require.NotContains(t, res.PredictedRowIDs, r)
			}
			for _, rec := range res.Recommendations {
				for _, fc := range rec.FiredBy {
					for _, e := range fc.Evidence {
						require.NotEmpty(t, e.ID, "fired evidence cites its record")
					}
				}
			}
		})
	}
}

type failingExtractor struct{}

func (failingExtractor) Name() string { return "failing" }
func (failingExtractor) Extract(context.Context, string) ([]extract.Finding, error) {
	return nil, errors.New("model unavailable")
}

func TestStageErrors(t *testing.T) {
	p, err := engine.NewDefault(context.Background(), engine.WithExtractor(failingExtractor{}))
	require.NoError(t, err)
	defer p.Close()
	_, err = p.Ask(context.Background(), "c1", "stable angina")
	var se *engine.StageError
	require.ErrorAs(t, err, &se)
	require.Equal(t, engine.StageRead, se.Stage)
	require.Equal(t, "c1", se.CaseID)
	require.ErrorContains(t, err, "model unavailable")

	_, err = program(t).AskPatient(context.Background(), &patient.Model{CaseID: "c2", Facts: []patient.Fact{{Kind: "gene"}}})
	require.ErrorAs(t, err, &se)
	require.Equal(t, engine.StageRead, se.Stage)
	require.ErrorContains(t, err, "fact 0")
}

// Events arrive in stage order; every fired row is a fired event, every
// step (v) refusal a rejected one; the JSON trace holds the same events.
func TestTracerEvents(t *testing.T) {
	p := program(t)
	var col engine.Collector
	res, err := p.Ask(context.Background(), "c1", "Stable angina, no diabetes, father had an MI, on aspirin; probable heart failure.",
		engine.EvalTracer(&col), engine.EvalTrace(true))
	require.NoError(t, err)
	ev := col.Events()
	require.NotEmpty(t, ev)
	order := map[engine.Stage]int{}
	for i, s := range engine.Stages {
		order[s] = i
	}
	fired := map[string]bool{}
	kinds := map[engine.EventKind]int{}
	for i, e := range ev {
		require.Equal(t, "c1", e.CaseID)
		if i > 0 {
			require.LessOrEqual(t, order[ev[i-1].Stage], order[e.Stage], "events in stage order")
		}
		if e.Kind == engine.EventFired {
			fired[e.RowID] = true
		}
		kinds[e.Kind]++
	}
	for _, r := range res.PredictedRowIDs {
		require.True(t, fired[r], r)
	}
	require.Positive(t, kinds[engine.EventRead])
	require.Positive(t, kinds[engine.EventDropped], "the father's MI is dropped")
	require.Equal(t, len(res.Trace.Rejected), kinds[engine.EventRejected])
	require.Equal(t, ev, res.Trace.Events)

	// Per call: off for this call, on the same Program.
	res, err = p.Ask(context.Background(), "c1", "Stable angina.", engine.EvalTrace(false))
	require.NoError(t, err)
	require.Nil(t, res.Trace)
}

func TestEvaluateLeavesCallersEvidence(t *testing.T) {
	ev := []eval.Evidence{{ID: "e1", Concept: "chronic coronary syndrome", Present: true}}
	res, err := program(t).Evaluate(context.Background(), "c1", ev)
	require.NoError(t, err)
	require.Empty(t, ev[0].ConceptKey, "Evaluate must not write into the caller's slice")
	require.NotEmpty(t, res.PredictedRowIDs)
	require.NotNil(t, res.Patient)
}

func readSpecs(t *testing.T, file string) []caseSpec {
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	out, err := jsonl.Read[caseSpec](file, f, jsonl.Options{}, nil)
	require.NoError(t, err)
	require.NotEmpty(t, out)
	return out
}
