package llm

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine/patient"
)

const letter = "PMH:\nNSTEMI 2018 -> PCI to LAD.\nHTN.  Type 2   diabetes.\nMedications:\nAspirin 75 mg od. Bisoprolol stopped (fatigue).\nFamily history: father MI at 50.\nLVEF 45% on echo 3 weeks ago."

// fact is a reply fact with the usual defaults.
func fact(words, kind, status string) readFact {
	return readFact{Words: words, Kind: kind, Status: status, Certainty: "confirmed", Experiencer: "patient", Comparator: "="}
}

func replyJSON(fs ...readFact) string {
	if fs == nil {
		fs = []readFact{}
	}
	b, _ := json.Marshal(readReply{Facts: fs})
	return string(b)
}

func TestReadPatientPlacesFacts(t *testing.T) {
	lvef := fact("LVEF 45%", "measurement", "active")
	lvef.Value, lvef.Unit, lvef.Date, lvef.Section = num(45), "%", "3 weeks ago", ""
	nstemi := fact("NSTEMI 2018", "procedure", "history")
	nstemi.Date, nstemi.Section = "2018", "PMH:"
	dm := fact("type 2 diabetes", "problem", "active") // case and spacing differ from the text
	dm.Section = "PMH"
	bis := fact("Bisoprolol stopped", "medication", "stopped")
	bis.Section = "Medications"
	father := fact("father MI at 50", "problem", "history")
	father.Experiencer = "relative"
	f := newFake(t, func(int64, seenRequest) fakeReply {
		return fakeReply{content: replyJSON(nstemi, fact("HTN", "problem", "active"), dm,
			fact("Aspirin 75 mg od", "medication", "taking"), bis, father, lvef)}
	})
	c := newClient(t, testConfig(f))
	r := c.PatientReader()
	m, err := r.ReadPatient(context.Background(), "c1", letter)
	require.NoError(t, err)
	require.NoError(t, m.Validate())
	assert.Empty(t, m.Dropped)
	require.Len(t, m.Facts, 7)
	for _, x := range m.Facts {
		assert.Equal(t, x.Text, letter[x.Spans[0].Start:x.Spans[0].End], "a fact's text is the document's words at its span")
		assert.Equal(t, "ollama:qwen3:32b:"+ReadPromptVersion, x.Reader)
		assert.Empty(t, x.ConceptKey, "the reader names no concept: the engine grounds")
	}
	assert.Equal(t, "Type 2   diabetes", m.Facts[2].Text)
	assert.Equal(t, "pmh", m.Facts[2].Section)
	assert.Equal(t, "pmh", m.Facts[0].Section)
	assert.Equal(t, "2018", letter[m.Facts[0].Spans[1].Start:m.Facts[0].Spans[1].End])
	assert.Equal(t, patient.StatusStopped, m.Facts[4].Status)
	assert.Equal(t, "medications", m.Facts[4].Section)
	assert.Equal(t, patient.Relative, m.Facts[5].Experiencer)
	assert.Equal(t, "", m.Facts[5].Section, "a heading the document does not write before the fact is not kept")
	assert.Equal(t, 45.0, *m.Facts[6].Value)
	assert.Equal(t, "3 weeks ago", letter[m.Facts[6].Spans[1].Start:m.Facts[6].Spans[1].End])
	assert.True(t, m.Facts[6].Present)

	// One call, with the generated schema as format and in the prompt.
	require.Equal(t, int64(1), f.calls.Load())
	req := f.requests()[0]
	assert.JSONEq(t, string(readSchema.raw), string(req.Format))
	assert.True(t, strings.HasPrefix(req.Messages[0].Content, readSystemHead), "the system prompt is the rules, then the schema")
	assert.Contains(t, req.Messages[0].Content, `"enum":["=","<","<=",">",">="]`)
	assert.Contains(t, req.user(), letter)
	assert.Equal(t, map[string]any{"temperature": 0.0, "seed": 42.0}, req.Raw["options"])
}

// The schema is the patient model's: its enums are the model's constants,
// so a reply the schema admits always makes a valid model.
func TestReadSchemaFromPatientTypes(t *testing.T) {
	var s map[string]any
	require.NoError(t, json.Unmarshal(readSchema.raw, &s))
	props := s["properties"].(map[string]any)["facts"].(map[string]any)["items"].(map[string]any)["properties"].(map[string]any)
	for field, want := range map[string][]any{"kind": readKinds, "status": readStatuses, "certainty": readCertainties, "experiencer": readExperiencers} {
		assert.ElementsMatch(t, want, props[field].(map[string]any)["enum"], field)
	}
	for _, k := range readKinds {
		m := &patient.Model{CaseID: "x", Facts: []patient.Fact{{Kind: patient.Kind(k.(string)), Reader: "r"}}}
		m.Facts[0].ID = "f0"
		assert.NoError(t, m.Validate())
	}
	for _, st := range readStatuses {
		m := &patient.Model{CaseID: "x", Facts: []patient.Fact{{Kind: patient.KindOther, Status: patient.Status(st.(string)), Reader: "r"}}}
		m.Facts[0].ID = "f0"
		assert.NoError(t, m.Validate())
	}
	assert.NotContains(t, props, "concept")
	assert.NotContains(t, props, "concept_key")
}

// Invented facts (words the document does not hold, words found only
// inside a longer word) are dropped with the reason; the rest is kept.
func TestReadPatientDropsInventedFacts(t *testing.T) {
	const doc = "MINOCA 2021. No angina. Aspirin is contraindicated (GI bleed)."
	f := newFake(t, func(int64, seenRequest) fakeReply {
		return fakeReply{content: replyJSON(
			fact("MI", "problem", "history"),                           // only inside MINOCA
			fact("stable angina", "problem", "active"),                 // not written
			fact("on clopidogrel 75 mg", "medication", "taking"),       // invented drug
			fact("no  ANGINA", "problem", "absent"),                    // found, ignoring case and spacing
			fact("Aspirin", "medication", "contraindicated"),           // found
			fact("Aspirin is contraindicated", "medication", "taking"), // found: the engine's checks judge it
		)}
	})
	c := newClient(t, testConfig(f))
	m, err := c.PatientReader().ReadPatient(context.Background(), "c2", doc)
	require.NoError(t, err)
	var dropped []string
	for _, d := range m.Dropped {
		dropped = append(dropped, d.Text)
		assert.Contains(t, d.Reason, "not in the document")
	}
	assert.Equal(t, []string{"MI", "stable angina", "on clopidogrel 75 mg"}, dropped)
	require.Len(t, m.Facts, 3)
	assert.Equal(t, "No angina", m.Facts[0].Text)
	assert.False(t, m.Facts[0].Present)
	assert.Equal(t, patient.StatusContraindicated, m.Facts[1].Status)
	assert.Equal(t, []string{"f0", "f1", "f2"}, []string{m.Facts[0].ID, m.Facts[1].ID, m.Facts[2].ID})
}

// A reply that is not JSON, or breaks the schema, is never retried (at
// temperature 0 it would come again): strict mode fails the case with the
// *ReplyError inside a *CallError, lenient mode logs it and asks for the
// deterministic readers with a *FallbackError.
func TestReadPatientMalformedReply(t *testing.T) {
	bad := map[string]string{
		"not JSON":         `{"facts":[{"words":"HTN"`,
		"unknown kind":     `{"facts":[{"words":"HTN","kind":"disease","status":"active","certainty":"confirmed","experiencer":"patient","value":null,"unit":"","comparator":"=","date":"","section":""}]}`,
		"missing field":    `{"facts":[{"words":"HTN","kind":"problem"}]}`,
		"empty words":      `{"facts":[{"words":"","kind":"problem","status":"active","certainty":"confirmed","experiencer":"patient","value":null,"unit":"","comparator":"=","date":"","section":""}]}`,
		"invented concept": `{"facts":[{"words":"HTN","concept_key":"sct:1","kind":"problem","status":"active","certainty":"confirmed","experiencer":"patient","value":null,"unit":"","comparator":"=","date":"","section":""}]}`,
	}
	for name, content := range bad {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: content} })
			cfg := testConfig(f)
			cfg.Strict = true
			cfg.FailLogPath = filepath.Join(t.TempDir(), "fail.jsonl")
			c := newClient(t, cfg)
			_, err := c.PatientReader().ReadPatient(context.Background(), "c3", "HTN.")
			var ce *CallError
			require.ErrorAs(t, err, &ce)
			var re *ReplyError
			require.ErrorAs(t, err, &re)
			assert.Equal(t, "read", ce.Kind)
			assert.Contains(t, err.Error(), "part 1 of 1")
			assert.Equal(t, int64(1), f.calls.Load(), "an invalid reply is not retried")
			assert.Len(t, readLines(t, cfg.FailLogPath), 1)

			cfg.Strict = false
			c = newClient(t, cfg)
			m, err := c.PatientReader().ReadPatient(context.Background(), "c3", "HTN.")
			assert.Nil(t, m)
			var fb *FallbackError
			require.ErrorAs(t, err, &fb)
			assert.True(t, fb.Fallback())
			assert.ErrorAs(t, err, &re)
			lines := readLines(t, cfg.FailLogPath)
			require.Len(t, lines, 2)
			assert.Equal(t, "deterministic readers", lines[1]["fallback"])
			assert.Equal(t, int64(1), c.Stats().Fallbacks)
			assert.Equal(t, 0, c.Stats().CacheEntries, "an invalid reply is not cached")
		})
	}
}

// A document longer than the chunk size is read in parts cut at paragraph
// breaks, one call each; a fact is placed only in the part the model was
// shown, so words borrowed from another part are dropped.
func TestReadPatientChunks(t *testing.T) {
	paras := []string{"History:\nHTN. Smoker.", "Medications:\nAspirin 75 mg. Atorvastatin 40 mg.", "Plan:\nCCTA next month."}
	doc := strings.Join(paras, "\n\n")
	f := newFake(t, func(_ int64, r seenRequest) fakeReply {
		u := r.user()
		switch {
		case strings.Contains(u, "History:"):
			assert.NotContains(t, u, "Aspirin")
			return fakeReply{content: replyJSON(fact("HTN", "problem", "active"), fact("Smoker", "problem", "active"))}
		case strings.Contains(u, "Medications:"):
			assert.NotContains(t, u, "HTN")
			// "HTN" is in the document, but not in this part.
			return fakeReply{content: replyJSON(fact("Aspirin 75 mg", "medication", "taking"), fact("HTN", "problem", "active"),
				fact("Atorvastatin 40 mg", "medication", "taking"))}
		default:
			return fakeReply{content: replyJSON(fact("CCTA next month", "procedure", "planned"))}
		}
	})
	cfg := testConfig(f)
	cfg.ChunkBytes = 50
	c := newClient(t, cfg)
	m, err := c.PatientReader().ReadPatient(context.Background(), "c4", doc)
	require.NoError(t, err)
	assert.Equal(t, int64(3), f.calls.Load())
	for _, r := range f.requests() {
		assert.Contains(t, r.user(), "part ")
	}
	var texts []string
	for _, x := range m.Facts {
		texts = append(texts, x.Text)
	}
	assert.Equal(t, []string{"HTN", "Smoker", "Aspirin 75 mg", "Atorvastatin 40 mg", "CCTA next month"}, texts)
	require.Len(t, m.Dropped, 1)
	assert.Equal(t, "HTN", m.Dropped[0].Text)
	assert.Equal(t, strings.Index(doc, "Aspirin"), m.Facts[2].Spans[0].Start)
}

func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		max  int
		want []string
	}{
		{"short", "HTN. DM.", 100, []string{"HTN. DM."}},
		{"off", "HTN. DM.", 0, []string{"HTN. DM."}},
		{"paragraphs", "aaaa\nbbbb\n\ncccc\ndddd\n\neeee", 12, []string{"aaaa\nbbbb\n\n", "cccc\ndddd\n\n", "eeee"}},
		{"lines", "aaaa\nbbbb\ncccc", 10, []string{"aaaa\nbbbb\n", "cccc"}},
		{"sentences", "Aaaa. Bbbb. Cccc.", 12, []string{"Aaaa. Bbbb. ", "Cccc."}},
		{"hard cut at a rune", "ééééé", 3, []string{"é", "é", "é", "é", "é"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			end := 0
			for _, s := range chunks(tc.text, tc.max) {
				assert.Equal(t, end, s.Start, "parts are contiguous")
				end = s.End
				got = append(got, tc.text[s.Start:s.End])
				if tc.max > 0 {
					assert.LessOrEqual(t, s.End-s.Start, tc.max)
				}
			}
			assert.Equal(t, len(tc.text), end)
			assert.Equal(t, tc.want, got)
		})
	}
}

// A document read once is served from the cache: in memory within a run,
// from the cache file in the next run, with no call.
func TestReadPatientCache(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.jsonl")
	f := newFake(t, func(int64, seenRequest) fakeReply {
		return fakeReply{content: replyJSON(fact("HTN", "problem", "active"))}
	})
	cfg := testConfig(f)
	cfg.CachePath = path
	c := newClient(t, cfg)
	m1, err := c.PatientReader().ReadPatient(context.Background(), "c5", "HTN.")
	require.NoError(t, err)
	m2, err := c.PatientReader().ReadPatient(context.Background(), "c5", "HTN.")
	require.NoError(t, err)
	assert.Equal(t, m1, m2)
	assert.Equal(t, int64(1), f.calls.Load())
	assert.Equal(t, int64(1), c.Stats().CacheHits)
	require.NoError(t, c.Close())

	c2 := newClient(t, cfg)
	m3, err := c2.PatientReader().ReadPatient(context.Background(), "c5", "HTN.")
	require.NoError(t, err)
	assert.Equal(t, m1, m3)
	assert.Equal(t, int64(1), f.calls.Load(), "served from the cache file")
	lines := readLines(t, path)
	require.Len(t, lines, 1)
	assert.Equal(t, "read", lines[0]["kind"])
	assert.Equal(t, ReadPromptVersion, lines[0]["prompt_version"])

	// Another chunk size cuts another question: a long document is asked
	// again, a short one is not.
	cfg.ChunkBytes = 2
	c3 := newClient(t, cfg)
	_, err = c3.PatientReader().ReadPatient(context.Background(), "c5", "HTN.")
	require.NoError(t, err)
	assert.Greater(t, f.calls.Load(), int64(1))
}

// The server down: strict fails with the CallError after the retries,
// lenient asks for the fallback; a cancelled context is neither.
func TestReadPatientServerErrors(t *testing.T) {
	f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{status: 503, errMsg: "loading"} })
	cfg := testConfig(f)
	cfg.Strict = true
	c := newClient(t, cfg)
	_, err := c.PatientReader().ReadPatient(context.Background(), "c6", "HTN.")
	var ce *CallError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 3, ce.Attempts)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.PatientReader().ReadPatient(ctx, "c6", "HTN.")
	assert.True(t, errors.Is(err, context.Canceled))
	var fb *FallbackError
	assert.False(t, errors.As(err, &fb))

	// Nothing to read: no call.
	n := f.calls.Load()
	m, err := c.PatientReader().ReadPatient(context.Background(), "c6", "  \n")
	require.NoError(t, err)
	assert.Empty(t, m.Facts)
	assert.Equal(t, n, f.calls.Load())
}
