package llm

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine/evidence"
)

var (
	lvef = evidence.Anchor{ConceptKey: "sct:250908004", Concept: "Left ventricular ejection fraction", Units: []string{"%"}}
	egfr = evidence.Anchor{ConceptKey: "sct:405004009", Concept: "Glomerular filtration rate", Units: []string{"mL/min/1.73 m2"}}
	dm   = evidence.Anchor{ConceptKey: "sct:73211009", Concept: "Diabetes mellitus"}
	hf   = evidence.Anchor{ConceptKey: "sct:84114007", Concept: "Heart failure"}
)

const fmtCase = "Patient with heart failure, an LVEF of 37%, eGFR 24 and no diabetes."

func fmtPairs() []evidence.Pair {
	return []evidence.Pair{
		{FindingID: "f0", Text: "heart failure", Anchor: hf},
		{FindingID: "f1", Text: "an LVEF of 37%", Anchor: lvef},
		{FindingID: "f2", Text: "eGFR 24", Anchor: egfr},
		{FindingID: "f3", Text: "no diabetes", Anchor: dm, Negated: true},
		{FindingID: "f1", Text: "an LVEF of 37%", Anchor: egfr}, // a near-miss anchor
	}
}

func TestFormatGoodReply(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(strconv.FormatBool(stream), func(t *testing.T) {
			f := newFake(t, func(int64, seenRequest) fakeReply {
				return fakeReply{content: evidenceJSON(
					ev{pair: 0, about: true, present: true},
					ev{pair: 1, about: true, present: true, value: num(37), unit: "percent"},
					ev{pair: 2, about: true, present: true, value: num(24), unit: ""},
					// The model ignores the negation: Go overrides it.
					ev{pair: 3, about: true, present: true, value: num(1), unit: ""},
					ev{pair: 4, about: false, present: true, value: num(37), unit: "%"},
				)}
			})
			cfg := testConfig(f)
			cfg.Stream = stream
			c := newClient(t, cfg)
			got, err := c.Formatter().FormatCase(context.Background(), fmtCase, fmtPairs())
			require.NoError(t, err)
			want := []evidence.Item{
				{FindingID: "f0", Text: "heart failure", ConceptKey: hf.ConceptKey, Concept: hf.Concept, Present: true},
				{FindingID: "f1", Text: "an LVEF of 37%", ConceptKey: lvef.ConceptKey, Concept: lvef.Concept, Present: true,
					Value: num(37), Unit: "%", Comparator: "="},
				{FindingID: "f2", Text: "eGFR 24", ConceptKey: egfr.ConceptKey, Concept: egfr.Concept, Present: true,
					Value: num(24), Unit: "mL/min/1.73 m2", Comparator: "=", Note: "unit not written; assumed mL/min/1.73 m2 from the guideline condition"},
				{FindingID: "f3", Text: "no diabetes", ConceptKey: dm.ConceptKey, Concept: dm.Concept, Present: false,
					Note: "negated in the case text; the model's presence or value is overridden"},
				// pair 4: not about its concept, so no item.
			}
			assert.Equal(t, want, got)
			assert.Equal(t, int64(1), f.calls.Load(), "one call for all pairs")
			assert.Equal(t, int64(1), c.Stats().Rejected)

			r := f.requests()[0]
			assert.Equal(t, map[string]any{"temperature": 0.0, "seed": 42.0}, r.Raw["options"])
			assert.Equal(t, false, r.Raw["think"])
			s, err := formatSchema(5)
			require.NoError(t, err)
			assert.JSONEq(t, string(s.raw), string(r.Format))
			u := r.user()
			assert.Contains(t, u, fmtCase)
			assert.Contains(t, u, `1. finding: "an LVEF of 37%"; concept: "Left ventricular ejection fraction"; units: "%"`)
			assert.Contains(t, u, `3. finding: "no diabetes"; concept: "Diabetes mellitus"; units: none`)
		})
	}
}

// The formatter schema pins the item count and the pair range to the call
// and lists the comparators.
func TestFormatSchemaShape(t *testing.T) {
	s, err := formatSchema(3)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(s.raw, &m))
	evs := m["properties"].(map[string]any)["evidence"].(map[string]any)
	assert.Equal(t, 3.0, evs["minItems"])
	assert.Equal(t, 3.0, evs["maxItems"])
	item := evs["items"].(map[string]any)
	props := item["properties"].(map[string]any)
	assert.Equal(t, 0.0, props["pair"].(map[string]any)["minimum"])
	assert.Equal(t, 2.0, props["pair"].(map[string]any)["maximum"])
	assert.Equal(t, []any{"=", "<", "<=", ">", ">="}, props["comparator"].(map[string]any)["enum"])
	assert.ElementsMatch(t, []any{"pair", "about_concept", "present", "value", "unit", "comparator"}, item["required"])
	assert.Equal(t, false, item["additionalProperties"])
}

func TestFormatBound(t *testing.T) {
	f := newFake(t, func(int64, seenRequest) fakeReply {
		return fakeReply{content: evidenceJSON(ev{pair: 0, about: true, present: true, value: num(35), unit: "%", cmp: "<"})}
	})
	c := newClient(t, testConfig(f))
	got, err := c.Formatter().FormatCase(context.Background(), "Patient with LVEF < 35%.",
		[]evidence.Pair{{FindingID: "f0", Text: "LVEF < 35%", Anchor: lvef}})
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "<", got[0].Comparator)
	assert.Equal(t, 35.0, *got[0].Value)
	// No HTML escaping: the model reads "<", not "\u003c".
	assert.Contains(t, f.requests()[0].user(), `0. finding: "LVEF < 35%"`)
}

// A value for a presence-only concept, or with present=false, is dropped:
// the evaluator counts a stated value as affirmed.
func TestFormatDropsStrayValues(t *testing.T) {
	f := newFake(t, func(int64, seenRequest) fakeReply {
		return fakeReply{content: evidenceJSON(
			ev{pair: 0, about: true, present: true, value: num(2), unit: "years"},
			ev{pair: 1, about: true, present: false, value: num(37), unit: "%"},
		)}
	})
	c := newClient(t, testConfig(f))
	got, err := c.Formatter().FormatCase(context.Background(), "x", []evidence.Pair{
		{FindingID: "f0", Text: "diabetes for 2 years", Anchor: dm},
		{FindingID: "f1", Text: "LVEF 37%", Anchor: lvef},
	})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.True(t, got[0].Present)
	assert.Nil(t, got[0].Value)
	assert.Empty(t, got[0].Unit)
	assert.False(t, got[1].Present)
	assert.Nil(t, got[1].Value)
}

func TestFormatNoPairsNoCall(t *testing.T) {
	f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: "{}"} })
	c := newClient(t, testConfig(f))
	got, err := c.Formatter().FormatCase(context.Background(), fmtCase, nil)
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Equal(t, int64(0), f.calls.Load())
}

func TestFormatBadReplies(t *testing.T) {
	two := []evidence.Pair{
		{FindingID: "f0", Text: "an LVEF of 37%", Anchor: lvef},
		{FindingID: "f1", Text: "no diabetes", Anchor: dm, Negated: true},
	}
	good0 := ev{pair: 0, about: true, present: true, value: num(37), unit: "%"}
	cases := []struct {
		name, content, want string
	}{
		{"malformed JSON", `{"evidence":[{"pair":0,`, "not valid JSON"},
		{"pair index out of range", evidenceJSON(good0, ev{pair: 2, about: true, present: false}), "violates the reply schema"},
		{"negative pair index", evidenceJSON(good0, ev{pair: -1, about: true}), "violates the reply schema"},
		{"missing field", `{"evidence":[{"pair":0,"about_concept":true,"present":true,"value":37,"unit":"%"},{"pair":1,"about_concept":true,"present":false,"value":null,"unit":"","comparator":"="}]}`, "violates the reply schema"},
		{"value as string", `{"evidence":[{"pair":0,"about_concept":true,"present":true,"value":"37","unit":"%","comparator":"="},{"pair":1,"about_concept":true,"present":false,"value":null,"unit":"","comparator":"="}]}`, "violates the reply schema"},
		{"unknown comparator", evidenceJSON(ev{pair: 0, about: true, present: true, value: num(37), unit: "%", cmp: "≥"}, ev{pair: 1, about: true}), "violates the reply schema"},
		{"too few items", evidenceJSON(good0), "violates the reply schema"},
		{"too many items", evidenceJSON(good0, ev{pair: 1, about: true}, ev{pair: 1, about: true}), "violates the reply schema"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, strict := range []bool{true, false} {
				f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: tc.content} })
				cfg := testConfig(f)
				cfg.Strict = strict
				cfg.FailLogPath = filepath.Join(t.TempDir(), "fail.jsonl")
				c := newClient(t, cfg)
				got, err := c.Formatter().FormatCase(context.Background(), fmtCase, two)
				assert.Equal(t, int64(1), f.calls.Load(), "a bad reply is not retried")
				lines := readLines(t, cfg.FailLogPath)
				require.Len(t, lines, 1)
				assert.Equal(t, "format", lines[0]["kind"])
				assert.Contains(t, lines[0]["error"], tc.want)
				if strict {
					require.Error(t, err)
					assert.Contains(t, err.Error(), tc.want)
					assert.Contains(t, err.Error(), caseHash(fmtCase))
					assert.Nil(t, got)
					assert.NotContains(t, lines[0], "fallback")
					continue
				}
				// Lenient: every finding kept as present without a value,
				// except the negated one.
				require.NoError(t, err)
				require.Len(t, got, 2)
				assert.True(t, got[0].Present)
				assert.Nil(t, got[0].Value)
				assert.Equal(t, lvef.Concept, got[0].Concept)
				assert.Contains(t, got[0].Note, "LLM formatter failed")
				assert.False(t, got[1].Present)
				assert.Equal(t, "present without a value", lines[0]["fallback"])
			}
		})
	}
}

// A schema-valid reply can still answer one pair twice and another not at
// all: the unanswered pair fails alone, naming its finding.
func TestFormatUnansweredPair(t *testing.T) {
	reply := evidenceJSON(ev{pair: 0, about: true, present: true, value: num(37), unit: "%"},
		ev{pair: 0, about: true, present: true, value: num(40), unit: "%"})
	pairs := []evidence.Pair{
		{FindingID: "f0", Text: "an LVEF of 37%", Anchor: lvef},
		{FindingID: "f2", Text: "heart failure", Anchor: hf},
	}
	for _, strict := range []bool{true, false} {
		f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: reply} })
		cfg := testConfig(f)
		cfg.Strict = strict
		cfg.FailLogPath = filepath.Join(t.TempDir(), "fail.jsonl")
		c := newClient(t, cfg)
		got, err := c.Formatter().FormatCase(context.Background(), fmtCase, pairs)
		lines := readLines(t, cfg.FailLogPath)
		require.Len(t, lines, 1)
		assert.Equal(t, "f2", lines[0]["finding"])
		if strict {
			require.Error(t, err)
			assert.Regexp(t, regexp.MustCompile(`finding f2: .*no item for pair 1`), err.Error())
			continue
		}
		require.NoError(t, err)
		require.Len(t, got, 2)
		assert.Equal(t, 37.0, *got[0].Value, "the first item of a pair wins")
		assert.True(t, got[1].Present)
		assert.Nil(t, got[1].Value)
		assert.Contains(t, got[1].Note, "LLM formatter failed")
	}
}
