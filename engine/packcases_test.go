package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// packCase is one patient of a pack's cases (testdata/packs/<pack>/cases.jsonl):
// the rows that must and must not fire, the grade term output gives a row,
// concepts that must be among a fired row's conditions, and what the pack's
// calculator gives (a value within tolerance, or unknown with a reason).
// FHIR names a bundle (relative to the cases file) that is the same
// patient as coded records: it must meet the same expectations and fire
// the same rows as the question.
type packCase struct {
	CaseID     string              `json:"case_id"`
	Note       string              `json:"note"`
	Question   string              `json:"question"`
	FHIR       string              `json:"fhir"`
	Must       []string            `json:"must"`
	MustNot    []string            `json:"must_not"`
	Grades     map[string]string   `json:"grades"`
	FiredBy    map[string][]string `json:"fired_by"`
	Calculated *struct {
		Concept   string   `json:"concept"`
		Value     *float64 `json:"value"`
		Tolerance float64  `json:"tolerance"`
		Unknown   string   `json:"unknown"`
	} `json:"calculated"`
}

// TestPackCases answers every pack's patients with that pack alone and its
// own lexicon, on a fixed case date.
func TestPackCases(t *testing.T) {
	dirs, err := filepath.Glob("testdata/packs/*")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			p, err := rules.LoadFS(packs.FS(), name)
			require.NoError(t, err)
			lex, err := lexicon.LoadFS(packs.FS(), path.Join(name, "meta", "lexicon.json"))
			require.NoError(t, err)
			prog, err := engine.New(context.Background(), p, engine.WithLexicon(lex), engine.WithTrace(true))
			require.NoError(t, err)
			defer prog.Close()
			f, err := os.Open(filepath.Join(dir, "cases.jsonl"))
			require.NoError(t, err)
			defer f.Close()
			sc := bufio.NewScanner(f)
			n := 0
			for sc.Scan() {
				var c packCase
				require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "line %d", n+1)
				n++
				t.Run(c.CaseID, func(t *testing.T) { checkPackCase(t, prog, dir, c) })
			}
			require.NoError(t, sc.Err())
			require.Positive(t, n)
		})
	}
}

func checkPackCase(t *testing.T, prog *engine.Program, dir string, c packCase) {
	date := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	res, err := prog.AskOn(context.Background(), c.CaseID, c.Question, date)
	require.NoError(t, err)
	checkPackResult(t, c, res)
	if c.FHIR == "" {
		return
	}
	b, err := os.ReadFile(filepath.Join(dir, c.FHIR))
	require.NoError(t, err, "%s: bundle %s", c.CaseID, c.FHIR)
	fres, err := prog.AskFHIR(context.Background(), c.CaseID, b, engine.EvalDate(date))
	require.NoError(t, err, "%s: bundle %s", c.CaseID, c.FHIR)
	require.Equal(t, res.PredictedRowIDs, fres.PredictedRowIDs, "%s: bundle %s and the question fire different rows", c.CaseID, c.FHIR)
	c.CaseID += " (bundle " + c.FHIR + ")"
	checkPackResult(t, c, fres)
}

func checkPackResult(t *testing.T, c packCase, res *engine.Result) {
	got := map[string]bool{}
	for _, id := range res.PredictedRowIDs {
		got[id] = true
	}
	for _, id := range c.Must {
		require.True(t, got[id], "%s (%s): %s must fire; got %v", c.CaseID, c.Note, id, res.PredictedRowIDs)
	}
	for _, id := range c.MustNot {
		require.False(t, got[id], "%s (%s): %s must not fire", c.CaseID, c.Note, id)
	}
	for row, term := range c.Grades {
		found := false
		for _, r := range res.Recommendations {
			if r.RowID == row {
				found = true
				require.Equal(t, term, r.Grade, "%s: grade of %s", c.CaseID, row)
			}
		}
		require.True(t, found, "%s: %s not among the recommendations", c.CaseID, row)
	}
	for row, concepts := range c.FiredBy {
		var seen []string
		for _, r := range res.Recommendations {
			if r.RowID == row {
				for _, fc := range r.FiredBy {
					seen = append(seen, fc.Concept)
				}
			}
		}
		for _, want := range concepts {
			require.Contains(t, seen, want, "%s: %s fired without a trace through %s", c.CaseID, row, want)
		}
	}
	if cc := c.Calculated; cc != nil {
		require.NotNil(t, res.Trace)
		var calc *engine.Calculation
		for i := range res.Trace.Calculations {
			if res.Trace.Calculations[i].Concept == cc.Concept {
				calc = &res.Trace.Calculations[i]
			}
		}
		require.NotNil(t, calc, "%s: no calculation of %s", c.CaseID, cc.Concept)
		if cc.Value != nil {
			require.NotNil(t, calc.Value, "%s: %s unknown: %s", c.CaseID, cc.Concept, calc.Unknown)
			require.LessOrEqual(t, math.Abs(*calc.Value-*cc.Value), cc.Tolerance+1e-9, "%s: %s = %.3f, want %.2f", c.CaseID, cc.Concept, *calc.Value, *cc.Value)
			// The calculated fact is evidence, traced with its inputs.
			traced := false
			for _, e := range res.Evidence {
				traced = traced || e.Concept == cc.Concept && strings.HasPrefix(e.Via, engine.ViaCalculated)
			}
			require.True(t, traced, "%s: the calculated value is not in the evidence", c.CaseID)
			for _, in := range calc.Inputs {
				require.NotNil(t, in.Value, "%s: input %s", c.CaseID, in.Name)
				require.True(t, in.FindingID != "" || in.Default != "", "%s: input %s has neither a finding nor a declared default", c.CaseID, in.Name)
			}
		} else {
			require.Nil(t, calc.Value, "%s: %s must be unknown", c.CaseID, cc.Concept)
			require.Contains(t, calc.Unknown, cc.Unknown, c.CaseID)
		}
	}
}
