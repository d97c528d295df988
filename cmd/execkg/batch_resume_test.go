package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func recordsByID(t *testing.T, p string) map[string]map[string]any {
	t.Helper()
	m := map[string]map[string]any{}
	for _, r := range outLines(t, p) {
		m[r["case_id"].(string)] = r
	}
	return m
}

func keyOf(r map[string]any) string {
	k, _ := r["resume_key"].(map[string]any)
	s, _ := k["key"].(string)
	return s
}

// Resume is keyed on what the answer depends on: an edited question or
// other settings recompute the case (and say why); records of cases gone
// from the input are listed on stderr, and --prune removes them.
func TestBatchResumeKey(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	dir := t.TempDir()
	in := writeCases(t, dir)
	out := filepath.Join(dir, "out.jsonl")
	var so, se bytes.Buffer
	require.Equal(t, 0, run([]string{"batch", "--cases", in, "--out", out, "--concurrency", "2"}, &so, &se), se.String())
	first := recordsByID(t, out)
	require.Len(t, first, 4)
	for id, r := range first {
		k := r["resume_key"].(map[string]any)
		assert.NotEmpty(t, k["key"], id)
		assert.NotEmpty(t, k["question_sha256"], id)
		assert.Equal(t, "ESC_CCS_2024", k["pack"], id)
		assert.NotEmpty(t, k["pack_version"], id)
		assert.Contains(t, k["settings"], "closed_world=false", id)
	}

	// Edit b's question: b alone is redone, with its new answer.
	data, _ := os.ReadFile(in)
	edited := strings.Replace(string(data), "pre-test likelihood of obstructive CAD of 40%", "pre-test likelihood of obstructive CAD of 10%", 1)
	require.NoError(t, os.WriteFile(in, []byte(edited), 0o644))
	se.Reset()
	require.Equal(t, 0, run([]string{"batch", "--cases", in, "--out", out}, &so, &se), se.String())
	assert.Contains(t, se.String(), "3 of 4 cases already answered")
	assert.Contains(t, se.String(), "b (the question changed)")
	second := recordsByID(t, out)
	require.Len(t, second, 4)
	assert.NotEqual(t, keyOf(first["b"]), keyOf(second["b"]))
	assert.Contains(t, second["b"]["question"], "10%")
	for _, id := range []string{"a", "c", "d"} {
		assert.Equal(t, keyOf(first[id]), keyOf(second[id]), id)
	}

	// Other settings: every case is redone.
	se.Reset()
	require.Equal(t, 0, run([]string{"batch", "--cases", in, "--out", out, "--closed-world"}, &so, &se), se.String())
	assert.Contains(t, se.String(), "0 of 4 cases already answered")
	assert.Contains(t, se.String(), "redoing 4 case(s)")
	assert.Contains(t, se.String(), "the settings changed")
	for id, r := range recordsByID(t, out) {
		assert.Contains(t, r["resume_key"].(map[string]any)["settings"], "closed_world=true", id)
	}

	// A case gone from the input: listed on stderr and kept, or pruned.
	lines := strings.Split(strings.TrimSpace(edited), "\n")
	require.NoError(t, os.WriteFile(in, []byte(strings.Join(lines[:3], "\n")+"\n"), 0o644))
	se.Reset()
	require.Equal(t, 0, run([]string{"batch", "--cases", in, "--out", out, "--closed-world"}, &so, &se), se.String())
	assert.Contains(t, se.String(), "keeps 1 record(s) of cases not in")
	assert.Contains(t, se.String(), ": d; --prune removes them")
	assert.Len(t, recordsByID(t, out), 4)
	se.Reset()
	require.Equal(t, 0, run([]string{"batch", "--cases", in, "--out", out, "--closed-world", "--prune"}, &so, &se), se.String())
	assert.NotContains(t, se.String(), "not in")
	left := recordsByID(t, out)
	assert.Len(t, left, 3)
	assert.NotContains(t, left, "d")
}

// The project's own vignettes file, with its extra fields, is accepted;
// --strict refuses it and lists only the first 20 problems and a count.
func TestBatchInputFields(t *testing.T) {
	const vig = "../../vignettes/data/vignettes.jsonl"
	cases, err := readBatchCases(vig, false)
	require.NoError(t, err)
	assert.Len(t, cases, 100)
	_, err = readBatchCases(vig, true)
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, "100 bad input line(s)")
	assert.Contains(t, msg, `unknown field "category"`)
	assert.Contains(t, msg, "... and 80 more")
	assert.Equal(t, 20, strings.Count(msg, "vignettes.jsonl:"), "the listing is capped at 20")
}

// A case over --max-bytes or --case-timeout is an error record naming the
// limit; the other cases are answered.
func TestBatchLimits(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	dir := t.TempDir()
	in := writeCases(t, dir)
	out := filepath.Join(dir, "out.jsonl")
	var so, se bytes.Buffer
	assert.Equal(t, 1, run([]string{"batch", "--cases", in, "--out", out, "--max-bytes", "60"}, &so, &se))
	recs := recordsByID(t, out)
	require.Len(t, recs, 4)
	assert.Nil(t, recs["a"]["error"])
	assert.Nil(t, recs["c"]["error"])
	assert.Contains(t, recs["b"]["error"], "over the --max-bytes limit")
	assert.Contains(t, recs["d"]["error"], "the limit is 60")
	assert.Contains(t, so.String(), "2 failed")

	out2 := filepath.Join(dir, "out2.jsonl")
	se.Reset()
	assert.Equal(t, 1, run([]string{"batch", "--cases", in, "--out", out2, "--case-timeout", "1ns"}, &so, &se))
	for id, r := range recordsByID(t, out2) {
		assert.Contains(t, r["error"], "over the --case-timeout limit of 1ns", id)
	}
	assert.Contains(t, se.String(), "over the --case-timeout limit", "failures are reported on stderr as they happen")
}
