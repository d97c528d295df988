package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestExplainMermaid(t *testing.T) {
	var so, se bytes.Buffer
	require.Equal(t, 0, run([]string{"explain", "table_10.json::row_0"}, &so, &se), se.String())
	out := so.String()
	// AND chain of three conditions: two LEADS_TO, one RESULTS_IN.
	assert.Equal(t, 2, strings.Count(out, `"LEADS_TO"`))
	assert.Equal(t, 1, strings.Count(out, `"RESULTS_IN"`))
	assert.Contains(t, out, "flowchart LR")

	so.Reset()
	require.Equal(t, 0, run([]string{"explain", "--format", "mermaid", "table_08.json::row_2"}, &so, &se), se.String())
	// One OR group of eight: parallel branches, each with its RESULTS_IN.
	assert.Equal(t, 0, strings.Count(so.String(), `"LEADS_TO"`))
	assert.Equal(t, 8, strings.Count(so.String(), `"RESULTS_IN"`))
	assert.Contains(t, so.String(), `"CONTRAINDICATES"`)

	so.Reset()
	se.Reset()
	assert.Equal(t, 1, run([]string{"explain", "table_99.json::row_0"}, &so, &se))
	assert.Contains(t, se.String(), "no row")
}

func TestAskExplainWorkedExample(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	var so, se bytes.Buffer
	code := run([]string{"ask", "--explain", "Patient with decompensated heart failure, fast irregular heart rate, 0.2 mV ST-segment depression on the resting ECG and a clinical likelihood of obstructive CAD of 90%."}, &so, &se)
	require.Equal(t, 0, code, se.String())
	out := so.String()
	assert.Contains(t, out, "✔ table_08.json::row_2  Class III, Level C — AGAINST")
	assert.Contains(t, out, `because fast irregular heart rate PRESENT ← "fast irregular heart rate" (f1)`)
	assert.NotContains(t, out, "✔ table_13.json::row_5", "the reference's false positive")
	// Decompensated heart failure is an acute presentation, not the chronic
	// work-up: the stated likelihood makes no suspected CCS here.
	assert.NotContains(t, out, "✔ table_05.json::row_4")
}

// --explain lists only the blocked evidence that changed a rule's outcome
// (and findings set aside before matching); --explain=all lists all of it.
func TestAskExplainBlockedEvidence(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	const q = "34F referred by GP ?angina. Non-smoker, no DM/HTN, normal lipids. ECG NAD. Plan: CCTA only if symptoms change."
	var def, all, js, se bytes.Buffer
	require.Equal(t, 0, run([]string{"ask", "--explain", q}, &def, &se), se.String())
	require.Equal(t, 0, run([]string{"ask", "--explain=all", q}, &all, &se), se.String())
	require.Equal(t, 0, run([]string{"ask", "--debug", q}, &js, &se), se.String())
	d, a := def.String(), all.String()
	assert.Contains(t, d, "that changed a rule's outcome:")
	assert.Contains(t, d, `"no DM/HTN": negation: 'no' negates the mention in 'no DM/HTN', so it cannot support type 2 diabetes mellitus PRESENT`)
	assert.Contains(t, d, "Findings set aside before matching:\n  ✘ f7 \"CCTA only if symptoms change\"")
	assert.NotContains(t, d, "does not state every word", "anchor mismatches changed no outcome")
	assert.Regexp(t, `\(\d+ more blocked item\(s\) changed no rule's outcome; --explain=all lists them\)`, d)
	assert.Contains(t, a, "all of it:")
	assert.Contains(t, a, "does not state every word")
	assert.Contains(t, a, "[changed an outcome]")
	assert.Greater(t, strings.Count(a, "✘"), strings.Count(d, "✘"))
	for _, l := range strings.Split(d, "\n") {
		if strings.Contains(l, "✘") {
			assert.Contains(t, a, l, "the default lines are a subset of all")
		}
	}

	// The what-if is real: every rejection marked changed_outcome names a
	// decision (or a refusal after the formatter), and some are not marked.
	var res struct {
		Trace struct {
			Rejected []struct {
				DecisionID     string `json:"decision_id"`
				ChangedOutcome bool   `json:"changed_outcome"`
			} `json:"rejected_evidence"`
		} `json:"trace"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &res))
	marked, unmarked := 0, 0
	for _, r := range res.Trace.Rejected {
		if r.ChangedOutcome {
			marked++
		} else {
			unmarked++
		}
	}
	assert.Positive(t, marked)
	assert.Positive(t, unmarked)
	se.Reset()
	assert.Equal(t, 2, run([]string{"ask", "--explain=some", q}, &def, &se))
	assert.Contains(t, se.String(), "want --explain or --explain=all")
}
