package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/patient"
)

// readCase is one case of testdata/read/cases.json: a clinician dev case
// or a dev document, the facts the fake model replies for it (fields left
// out take the defaults of a plain confirmed fact of the patient), the
// words that must be dropped as not in the text, and what the answer is
// compared with: "rows" (the deterministic read's rows, exactly) or
// "must" (no fewer must-include hits and no more must-not violations than
// the deterministic read).
type readCase struct {
	Source  string     `json:"source"`
	CaseID  string     `json:"case_id"`
	Compare string     `json:"compare"`
	Facts   []readFact `json:"facts"`
	Dropped []string   `json:"dropped"`

	text, date    string
	must, mustNot []string
}

var caseSources = map[string]string{
	"clinician_dev": "../testdata/clinician_dev.jsonl",
	"documents_dev": "../../vignettes/documents/dev.jsonl",
}

func loadReadCases(t *testing.T) []readCase {
	t.Helper()
	b, err := os.ReadFile("testdata/read/cases.json")
	require.NoError(t, err)
	var cs []readCase
	require.NoError(t, json.Unmarshal(b, &cs))
	byID := map[string]map[string]any{}
	for src, path := range caseSources {
		f, err := os.Open(path)
		require.NoError(t, err, "source %s", src)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var raw map[string]any
			require.NoError(t, json.Unmarshal(sc.Bytes(), &raw), path)
			id, _ := raw["case_id"].(string)
			if id == "" {
				id, _ = raw["doc_id"].(string)
			}
			byID[src+"/"+id] = raw
		}
		f.Close()
	}
	strs := func(v any) []string {
		var out []string
		for _, x := range v.([]any) {
			out = append(out, x.(string))
		}
		return out
	}
	for i := range cs {
		c := &cs[i]
		raw, ok := byID[c.Source+"/"+c.CaseID]
		require.True(t, ok, "testdata/read/cases.json case %d: no case %s in source %q", i, c.CaseID, c.Source)
		c.text, _ = raw["question"].(string)
		if c.text == "" {
			c.text, _ = raw["text"].(string)
		}
		c.date, _ = raw["date"].(string)
		c.must, c.mustNot = strs(raw["must"]), strs(raw["must_not"])
		for j := range c.Facts {
			f := &c.Facts[j]
			if f.Status == "" {
				f.Status = map[string]string{"medication": "taking", "procedure": "done"}[f.Kind]
				if f.Status == "" {
					f.Status = "active"
				}
			}
			if f.Certainty == "" {
				f.Certainty = "confirmed"
			}
			if f.Experiencer == "" {
				f.Experiencer = "patient"
			}
			if f.Comparator == "" {
				f.Comparator = "="
			}
		}
		require.Contains(t, []string{"rows", "must"}, c.Compare, c.CaseID)
	}
	return cs
}

// programs builds the deterministic program and one reading with an LLM
// client pointed at the fake (once per test binary: building is slow).
var programs struct {
	once sync.Once
	det  *engine.Program
	err  error
}

func deterministic(t *testing.T) *engine.Program {
	t.Helper()
	programs.once.Do(func() { programs.det, programs.err = engine.NewDefault(context.Background()) })
	require.NoError(t, programs.err)
	return programs.det
}

func withReader(t *testing.T, c *Client) *engine.Program {
	t.Helper()
	p, err := engine.NewDefault(context.Background(), engine.WithPatientReader(c.PatientReader()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func caseDate(t *testing.T, s string) time.Time {
	if s == "" {
		return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	}
	d, err := time.Parse("2006-01-02", s)
	require.NoError(t, err)
	return d
}

func count(rows, of []string) int {
	in := map[string]bool{}
	for _, r := range rows {
		in[r] = true
	}
	n := 0
	for _, r := range of {
		if in[r] {
			n++
		}
	}
	return n
}

// LLM-read facts, grounded and checked by the engine, give the rows the
// deterministic read gives; the facts the model invented are dropped and
// traced, never evaluated.
func TestReadEngineGivesDeterministicRows(t *testing.T) {
	cases := loadReadCases(t)
	f := newFake(t, func(_ int64, r seenRequest) fakeReply {
		for _, c := range cases {
			if strings.Contains(r.user(), c.text) {
				return fakeReply{content: replyJSON(c.Facts...)}
			}
		}
		t.Errorf("the fake has no reply for %q", r.user())
		return fakeReply{status: 500, errMsg: "no reply"}
	})
	cfg := testConfig(f)
	cfg.Strict = true
	p := withReader(t, newClient(t, cfg))
	det := deterministic(t)
	for _, c := range cases {
		t.Run(c.CaseID, func(t *testing.T) {
			ctx := context.Background()
			want, err := det.AskOn(ctx, c.CaseID, c.text, caseDate(t, c.date))
			require.NoError(t, err)
			var events engine.Collector
			got, err := p.AskOn(ctx, c.CaseID, c.text, caseDate(t, c.date), engine.EvalTracer(&events))
			require.NoError(t, err)

			if os.Getenv("READ_DEBUG") != "" {
				for _, x := range want.Patient.Facts {
					t.Logf("det %s %q -> %s %s %s present=%v", x.ID, x.Text, x.Concept, x.Kind, x.Status, x.Present)
				}
				for _, x := range got.Patient.Facts {
					t.Logf("llm %s %q -> %s %s %s present=%v", x.ID, x.Text, x.Concept, x.Kind, x.Status, x.Present)
				}
			}
			switch c.Compare {
			case "rows":
				assert.Equal(t, want.PredictedRowIDs, got.PredictedRowIDs)
				assert.NotEmpty(t, got.PredictedRowIDs)
			case "must":
				assert.GreaterOrEqual(t, count(got.PredictedRowIDs, c.must), count(want.PredictedRowIDs, c.must), "must-include hits")
				assert.LessOrEqual(t, count(got.PredictedRowIDs, c.mustNot), count(want.PredictedRowIDs, c.mustNot), "must-not violations")
				t.Logf("rows %v / det %v", got.PredictedRowIDs, want.PredictedRowIDs)
				t.Logf("%s: must %d/%d (deterministic %d), must-not %d (deterministic %d)", c.CaseID,
					count(got.PredictedRowIDs, c.must), len(c.must), count(want.PredictedRowIDs, c.must),
					count(got.PredictedRowIDs, c.mustNot), count(want.PredictedRowIDs, c.mustNot))
			}

			// Every fact the reader made points at its words in the text.
			m := got.Patient
			require.NotNil(t, m)
			require.NoError(t, m.Validate())
			reader := "ollama:qwen3:32b:" + ReadPromptVersion
			n := 0
			for _, x := range m.Facts {
				if x.Reader != reader {
					continue
				}
				n++
				require.NotEmpty(t, x.Spans, x.Text)
				assert.Equal(t, x.Text, c.text[x.Spans[0].Start:x.Spans[0].End])
				assert.NotEmpty(t, x.ConceptKey, "the engine grounded %q", x.Text)
			}
			assert.Positive(t, n)
			assert.True(t, strings.HasPrefix(p.Settings(), "reader="+reader+" "), p.Settings())

			// Invented facts are dropped with the reason, traced, and
			// never reach evaluation.
			var dropped []string
			for _, d := range m.Dropped {
				if strings.Contains(d.Reason, "not in the document") {
					dropped = append(dropped, d.Text)
				}
			}
			assert.ElementsMatch(t, c.Dropped, dropped)
			traced := 0
			for _, e := range events.Events() {
				if e.Kind == engine.EventDropped && strings.Contains(e.Detail, "not in the document") {
					traced++
				}
			}
			assert.Equal(t, len(c.Dropped), traced)
			for _, w := range c.Dropped {
				for _, e := range got.Evidence {
					assert.NotEqual(t, w, e.Text, "invented words reached evaluation")
				}
			}
		})
	}
}

// The reader's statuses cannot override the words: negated words are an
// absence, a relative's words are dropped, a planned procedure under a
// plan heading is intended, whatever the model said.
func TestReadEngineDeterministicChecksStillApply(t *testing.T) {
	const doc = "No known CCS. Father: MI at 50.\nPlan: PCI to LAD next month."
	f := newFake(t, func(int64, seenRequest) fakeReply {
		return fakeReply{content: replyJSON(
			fact("known CCS", "problem", "active"),
			fact("MI at 50", "problem", "history"),
			fact("PCI to LAD", "procedure", "done"),
		)}
	})
	p := withReader(t, newClient(t, testConfig(f)))
	res, err := p.Ask(context.Background(), "checks", doc)
	require.NoError(t, err)
	byText := map[string][]patient.Fact{}
	for _, x := range res.Patient.Facts {
		byText[x.Text] = append(byText[x.Text], x)
	}
	require.NotEmpty(t, byText["known CCS"])
	for _, x := range byText["known CCS"] {
		assert.False(t, x.Present, "%s: negated in the text", x.ConceptKey)
		assert.Equal(t, patient.StatusAbsent, x.Status)
	}
	assert.Empty(t, byText["MI at 50"], "a relative's words are not the patient's fact")
	var relative bool
	for _, d := range res.Patient.Dropped {
		relative = relative || d.Text == "MI at 50"
	}
	assert.True(t, relative, "the relative's fact is listed as dropped")
	require.NotEmpty(t, byText["PCI to LAD"])
	for _, x := range byText["PCI to LAD"] {
		present, ok := x.Asserts()
		if ok && present {
			c := strings.ToLower(x.Concept)
			assert.True(t, strings.Contains(c, "planned") || strings.Contains(c, "candidate") || strings.Contains(c, "referral"),
				"under a plan heading only an intention concept is asserted, not %q", x.Concept)
		}
	}
	for _, e := range res.Evidence {
		assert.False(t, e.Text == "known CCS" && e.Present, "negated words gave presence")
	}
	det, err := deterministic(t).Ask(context.Background(), "checks", doc)
	require.NoError(t, err)
	assert.Equal(t, det.PredictedRowIDs, res.PredictedRowIDs)
}

// A failed call: strict fails the case at the read stage with the
// CallError; lenient reads the case the deterministic way and says so in
// the model.
func TestReadEngineFailure(t *testing.T) {
	const doc = "58M, exertional chest tightness relieved by rest. Suspected CCS; RF-CL pre-test likelihood 12%."
	f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: `{"facts":[{"words":"CCS"}]}`} })
	cfg := testConfig(f)
	cfg.Strict = true
	p := withReader(t, newClient(t, cfg))
	_, err := p.Ask(context.Background(), "strict", doc)
	var se *engine.StageError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, engine.StageRead, se.Stage)
	var ce *CallError
	assert.ErrorAs(t, err, &ce)

	cfg.Strict = false
	p = withReader(t, newClient(t, cfg))
	res, err := p.Ask(context.Background(), "lenient", doc)
	require.NoError(t, err)
	det, err := deterministic(t).Ask(context.Background(), "lenient", doc)
	require.NoError(t, err)
	assert.Equal(t, det.PredictedRowIDs, res.PredictedRowIDs)
	assert.NotEmpty(t, res.PredictedRowIDs)
	var noted bool
	for _, d := range res.Patient.Dropped {
		noted = noted || strings.Contains(d.Reason, "read by the deterministic readers")
	}
	assert.True(t, noted)

	// A deadline is a LimitError, not a fallback.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = p.Ask(ctx, "cancelled", doc)
	var le *engine.LimitError
	assert.True(t, errors.As(err, &le), "%v", err)
}

// The engine checks every reader's spans itself: a reader that brings
// words the text does not hold at their span gets them dropped.
func TestReadEngineChecksSpans(t *testing.T) {
	const doc = "HTN. Suspected CCS."
	r := stubReader{m: &patient.Model{Facts: []patient.Fact{
		{Kind: patient.KindProblem, Spans: []patient.Span{{Start: 0, End: 3}}},                                // HTN
		{Kind: patient.KindProblem, Spans: []patient.Span{{Start: 5, End: 18}}, Certainty: patient.Suspected}, // Suspected CCS
		{Kind: patient.KindProblem, Spans: []patient.Span{{Start: 0, End: 3}}},                                // words below
		{Kind: patient.KindProblem}, // no span
		{Kind: patient.KindProblem, Spans: []patient.Span{{Start: 5, End: 99}}}, // outside
	}}}
	r.m.Facts[2].Text = "diabetes"
	p, err := engine.NewDefault(context.Background(), engine.WithPatientReader(r))
	require.NoError(t, err)
	defer p.Close()
	res, err := p.Ask(context.Background(), "spans", doc)
	require.NoError(t, err)
	var reasons []string
	for _, d := range res.Patient.Dropped {
		reasons = append(reasons, d.Reason)
	}
	sort.Strings(reasons)
	require.Len(t, reasons, 3)
	assert.Contains(t, reasons[0], "lies outside")
	assert.Contains(t, reasons[1], "no span")
	assert.Contains(t, reasons[2], "are not the text's words")
	for _, x := range res.Patient.Facts {
		assert.Contains(t, []string{"HTN", "Suspected CCS"}, x.Text)
	}
	det, err := deterministic(t).Ask(context.Background(), "spans", doc)
	require.NoError(t, err)
	assert.Equal(t, det.PredictedRowIDs, res.PredictedRowIDs)
}

type stubReader struct{ m *patient.Model }

func (stubReader) Name() string { return "stub" }
func (s stubReader) ReadPatient(context.Context, string, string) (*patient.Model, error) {
	cp := *s.m
	cp.Facts = append([]patient.Fact(nil), s.m.Facts...)
	return &cp, nil
}

// The reader's value is used only where the formatter finds none in the
// words and the number is written in their clause; an invented number is
// not.
func TestReadEngineValues(t *testing.T) {
	const doc = "LVEF was measured at 35 on echo. eGFR normal."
	lvef := fact("LVEF", "measurement", "active")
	lvef.Value, lvef.Unit = num(35), "%"
	egfr := fact("eGFR", "measurement", "active")
	egfr.Value, egfr.Unit = num(25), "mL/min/1.73 m2" // not written
	f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: replyJSON(lvef, egfr)} })
	p := withReader(t, newClient(t, testConfig(f)))
	res, err := p.Ask(context.Background(), "values", doc)
	require.NoError(t, err)
	var seen int
	for _, x := range res.Patient.Facts {
		switch x.Text {
		case "LVEF":
			if x.Kind == patient.KindMeasurement && x.Value != nil {
				seen++
				assert.Equal(t, 35.0, *x.Value)
				assert.Equal(t, "%", x.Unit)
			}
		case "eGFR":
			assert.Nil(t, x.Value, "%s: the number 25 is not in the text", x.Concept)
		}
	}
	assert.Equal(t, 1, seen, "the LVEF fact has the value its clause writes")
}
