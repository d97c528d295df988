package llm

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine/extract"
)

const vignette = "Patient with decompensated heart failure, an LVEF of 37%, no  diabetes and a clinical likelihood of obstructive CAD of 90%."

func TestExtractGoodReply(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "single", true: "streamed"}[stream], func(t *testing.T) {
			f := newFake(t, func(int64, seenRequest) fakeReply {
				// Model wording: one finding reworded, one with different
				// case and collapsed spaces, one with a trailing period.
				return fakeReply{content: findingsJSON("decompensated heart failure", "an LVEF of 37%",
					"No diabetes", "clinical likelihood of obstructive CAD 90%", "clinical likelihood of obstructive CAD of 90%.")}
			})
			cfg := testConfig(f)
			cfg.Stream = stream
			c := newClient(t, cfg)
			got, err := c.Extractor().Extract(context.Background(), vignette)
			require.NoError(t, err)
			want := []extract.Finding{
				{ID: "f0", Text: "decompensated heart failure", Start: 13, End: 40},
				{ID: "f1", Text: "an LVEF of 37%", Start: 42, End: 56},
				{ID: "f2", Text: "no  diabetes", Start: 58, End: 70},
				{ID: "f3", Text: "clinical likelihood of obstructive CAD 90%", Start: -1, End: -1},
				{ID: "f4", Text: "clinical likelihood of obstructive CAD of 90%", Start: 77, End: 122},
			}
			assert.Equal(t, want, got)
			for _, g := range got {
				if g.Start >= 0 {
					assert.Equal(t, g.Text, vignette[g.Start:g.End])
				}
			}
			assert.Equal(t, int64(1), f.calls.Load())
			assert.Equal(t, "ollama:qwen3:32b:"+ExtractPromptVersion, c.Extractor().Name())

			// The request the server saw.
			r := f.requests()[0]
			assert.Equal(t, "qwen3:32b", r.Model)
			assert.Equal(t, map[string]any{"temperature": 0.0, "seed": 42.0}, r.Raw["options"])
			assert.Equal(t, false, r.Raw["think"])
			assert.Equal(t, stream, r.Raw["stream"])
			assert.JSONEq(t, string(extractSchema.raw), string(r.Format))
			assert.Contains(t, r.user(), vignette)
			require.Len(t, r.Messages, 2)
			assert.Equal(t, extractSystem, r.Messages[0].Content)
		})
	}
}

// The schema sent is the one generated from the reply type: an object
// with a required "findings" array of {"text": non-empty string} and
// nothing else.
func TestExtractSchemaShape(t *testing.T) {
	var s map[string]any
	require.NoError(t, json.Unmarshal(extractSchema.raw, &s))
	assert.Equal(t, "object", s["type"])
	assert.Equal(t, []any{"findings"}, s["required"])
	assert.Equal(t, false, s["additionalProperties"])
	items := s["properties"].(map[string]any)["findings"].(map[string]any)["items"].(map[string]any)
	assert.Equal(t, []any{"text"}, items["required"])
	assert.Equal(t, 1.0, items["properties"].(map[string]any)["text"].(map[string]any)["minLength"])
}

func TestExtractOptions(t *testing.T) {
	f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: findingsJSON("x")} })
	cfg := testConfig(f)
	cfg.Seed, cfg.NumCtx, cfg.Think = 7, 8192, true
	c := newClient(t, cfg)
	_, err := c.Extractor().Extract(context.Background(), "Patient with x.")
	require.NoError(t, err)
	r := f.requests()[0]
	assert.Equal(t, map[string]any{"temperature": 0.0, "seed": 7.0, "num_ctx": 8192.0}, r.Raw["options"])
	assert.Equal(t, true, r.Raw["think"])
}

// A reasoning model's <think> block in the content is not the answer.
func TestExtractStripsThinking(t *testing.T) {
	f := newFake(t, func(int64, seenRequest) fakeReply {
		return fakeReply{content: "<think>\nThe case lists one finding.\n</think>\n\n" + findingsJSON("stable angina")}
	})
	c := newClient(t, testConfig(f))
	got, err := c.Extractor().Extract(context.Background(), "Patient with stable angina.")
	require.NoError(t, err)
	assert.Equal(t, []extract.Finding{{ID: "f0", Text: "stable angina", Start: 13, End: 26}}, got)
}

func TestExtractBadReplies(t *testing.T) {
	cases := []struct {
		name, content, want string
	}{
		{"malformed JSON", `{"findings": [{"text": "angina"`, "not valid JSON"},
		{"prose", `The patient has angina.`, "not valid JSON"},
		{"trailing text", findingsJSON("angina") + " done", "not valid JSON"},
		{"missing field", `{"findings":[{}]}`, "violates the reply schema"},
		{"missing findings", `{}`, "violates the reply schema"},
		{"wrong type", `{"findings":[{"text":5}]}`, "violates the reply schema"},
		{"array for object", `{"findings":"angina"}`, "violates the reply schema"},
		{"extra field", `{"findings":[{"text":"angina","negated":false}]}`, "violates the reply schema"},
		{"empty text", `{"findings":[{"text":""}]}`, "violates the reply schema"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: tc.content} })
			dir := t.TempDir()
			cfg := testConfig(f)
			cfg.Strict = true
			cfg.CachePath = filepath.Join(dir, "cache.jsonl")
			cfg.FailLogPath = filepath.Join(dir, "fail.jsonl")
			c := newClient(t, cfg)
			_, err := c.Extractor().Extract(context.Background(), "Patient with angina.")
			require.Error(t, err)
			var ce *CallError
			require.ErrorAs(t, err, &ce)
			var re *ReplyError
			require.ErrorAs(t, err, &re)
			msg := err.Error()
			assert.Contains(t, msg, tc.want)
			assert.Contains(t, msg, f.srv.URL)   // host
			assert.Contains(t, msg, "qwen3:32b") // model
			assert.Contains(t, msg, caseHash("Patient with angina."))
			// Not retried: the model would say the same again.
			assert.Equal(t, int64(1), f.calls.Load())
			// Not cached, but logged.
			assert.Equal(t, 0, c.Stats().CacheEntries)
			lines := readLines(t, cfg.FailLogPath)
			require.Len(t, lines, 1)
			assert.Equal(t, "extract", lines[0]["kind"])
			assert.Equal(t, "qwen3:32b", lines[0]["model"])
			assert.Equal(t, caseHash("Patient with angina."), lines[0]["case_hash"])
			assert.Contains(t, lines[0]["error"], tc.want)
			assert.NotContains(t, lines[0], "fallback")
		})
	}
}

// Lenient mode: a failed extraction falls back to the clause extractor and
// is logged with what replaced it.
func TestExtractLenientFallsBack(t *testing.T) {
	f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: `{"findings":`} })
	cfg := testConfig(f)
	cfg.FailLogPath = filepath.Join(t.TempDir(), "fail.jsonl")
	c := newClient(t, cfg)
	text := "Patient with stable angina and an LVEF of 37%."
	got, err := c.Extractor().Extract(context.Background(), text)
	require.NoError(t, err)
	want, _ := extract.Clauses{}.Extract(context.Background(), text)
	assert.Equal(t, want, got)
	lines := readLines(t, cfg.FailLogPath)
	require.Len(t, lines, 1)
	assert.Equal(t, extract.Clauses{}.Name(), lines[0]["fallback"])
	assert.Equal(t, int64(1), c.Stats().Fallbacks)
}

// A cancelled caller gets its context error, not a fallback.
func TestExtractCancelled(t *testing.T) {
	f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: findingsJSON("x")} })
	c := newClient(t, testConfig(f))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Extractor().Extract(ctx, "Patient with x.")
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), err)
	assert.Equal(t, int64(0), c.Stats().Fallbacks)
}

func TestLocate(t *testing.T) {
	text := "MI in 2019, no MI since; smith has CAD"
	s, e := locate(text, "mi", 0)
	assert.Equal(t, []int{0, 2}, []int{s, e})
	// The next occurrence after the previous finding.
	s, e = locate(text, "MI", 3)
	assert.Equal(t, []int{15, 17}, []int{s, e})
	// Word boundaries: "mi" is not inside "smith".
	s, _ = locate(text, "mi", 18)
	assert.Equal(t, 0, s)
	s, e = locate(text, "cad", 0)
	assert.Equal(t, "CAD", text[s:e])
	s, e = locate(text, "heart failure", 0)
	assert.Equal(t, []int{-1, -1}, []int{s, e})
	// Unicode and punctuation at the edges.
	u := "eGFR of 24 mL/min/1.73 m² (reduced)"
	s, e = locate(u, "24 mL/min/1.73 m²", 0)
	assert.Equal(t, "24 mL/min/1.73 m²", u[s:e])
	s, e = locate(u, "(reduced)", 0)
	assert.Equal(t, "(reduced)", u[s:e])
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "line %q", l)
		out = append(out, m)
	}
	return out
}
