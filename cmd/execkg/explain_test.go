package main

import (
	"bytes"
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
	assert.NotContains(t, out, "table_13.json::row_5", "the reference's false positive")
}
