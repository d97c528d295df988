package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeCases(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "cases.jsonl")
	lines := []string{
		`{"case_id":"a","question":"Patient with an eGFR of 24 mL/min/1.73 m²."}`,
		`{"case_id":"b","question":"Patient with suspected CCS and a pre-test likelihood of obstructive CAD of 40%."}`,
		`{"case_id":"c","question":"Patient with no severe obesity."}`,
		`{"case_id":"d","question":"Patient with chronic coronary syndrome and an LDL-C of 2.1 mmol/L on maximum tolerated statin therapy."}`,
	}
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return p
}

func outLines(t *testing.T, p string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var m map[string]any
		require.NoError(t, json.Unmarshal(l, &m), "line %q", l)
		out = append(out, m)
	}
	return out
}

// A batch interrupted mid-write (truncated last line) resumes: finished
// cases are not redone, the broken one is, and every case appears once,
// in input order.
func TestBatchResumes(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	dir := t.TempDir()
	in := writeCases(t, dir)
	out := filepath.Join(dir, "out.jsonl")
	var so, se bytes.Buffer
	require.Equal(t, 0, run([]string{"batch", "--cases", in, "--out", out, "--concurrency", "3"}, &so, &se), se.String())
	full := outLines(t, out)
	require.Len(t, full, 4)
	for i, id := range []string{"a", "b", "c", "d"} {
		assert.Equal(t, id, full[i]["case_id"])
	}
	assert.Equal(t, []any{"table_08.json::row_2"}, full[0]["predicted_row_ids"])

	// Keep two complete lines and half of the third.
	data, _ := os.ReadFile(out)
	parts := bytes.SplitAfter(data, []byte("\n"))
	trunc := append(append(append([]byte{}, parts[0]...), parts[1]...), parts[2][:len(parts[2])/2]...)
	require.NoError(t, os.WriteFile(out, trunc, 0o644))
	so.Reset()
	se.Reset()
	require.Equal(t, 0, run([]string{"batch", "--cases", in, "--out", out}, &so, &se), se.String())
	assert.Contains(t, se.String(), "2 of 4 cases already answered")
	again := outLines(t, out)
	require.Len(t, again, 4)
	for i := range full {
		assert.Equal(t, full[i]["case_id"], again[i]["case_id"])
		assert.Equal(t, full[i]["predicted_row_ids"], again[i]["predicted_row_ids"])
	}
}

// Bad input is refused before anything runs, with file:line for each.
func TestBatchPreflightsInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(`{"case_id":"a","question":"x"}
{"case_id":"a","question":"y"}
{"id":"b"}
`), 0o644))
	out := filepath.Join(dir, "out.jsonl")
	var so, se bytes.Buffer
	assert.Equal(t, 2, run([]string{"batch", "--cases", in, "--out", out}, &so, &se))
	assert.Contains(t, se.String(), "bad.jsonl:2: case_id a repeats line 1")
	assert.Contains(t, se.String(), `bad.jsonl:3: case_id is empty`)
	se.Reset()
	assert.Equal(t, 2, run([]string{"batch", "--strict", "--cases", in, "--out", out}, &so, &se))
	assert.Contains(t, se.String(), `bad.jsonl:3: json: unknown field "id"`)
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "nothing may be written on bad input")
}
