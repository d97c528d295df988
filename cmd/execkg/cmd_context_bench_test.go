package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const benchRows = `{"id":"1","genre":"note","text":"No murmurs, rubs, gallops.","target":"gallops","negated":true,"uncertain":false,"hypothetical":false,"experiencer":"patient","kind":"list_negation"}
{"id":"2","genre":"note","text":"Father had an MI at 52.","target":"MI","negated":false,"uncertain":false,"hypothetical":false,"experiencer":"other","kind":"family"}
{"id":"3","genre":"note","text":"Chest pain on exertion.","target":"Chest pain","negated":false,"uncertain":false,"hypothetical":false,"experiencer":"patient","kind":"affirmed"}
`

// fakePython stands in for an interpreter with medspaCy: it answers
// every row as negated, then the closing line.
func fakePython(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "python")
	script := "#!/bin/sh\n" +
		`while read -r line; do echo '{"found":true,"negated":true,"uncertain":false,"hypothetical":false,"experiencer":"patient"}'; done` + "\n" +
		`echo '{"done":true,"seconds":0.5,"rows":3,"medspacy":"fake"}'` + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestContextBenchSideBySide(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "rows.jsonl")
	if err := os.WriteFile(corpus, []byte(benchRows), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "log.md")
	var out, errb bytes.Buffer
	py := fakePython(t, dir)
	for try := 0; ; try++ {
		out.Reset()
		os.Remove(logPath)
		if code := run([]string{"context-bench", "--python", py, "--min-seconds", "0", "--log", logPath, corpus}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		// A freshly written executable can be "text file busy" while
		// another test forks (golang/go#22315); try again.
		if !strings.Contains(out.String(), "text file busy") || try == 5 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	s := out.String()
	for _, want := range []string{
		"3 rows, 3 kinds",
		"execkg P", "medspaCy P",
		// execkg: negated 1/1 right; the fake marks all three negated.
		"negated       1      1.000     1.000  1.000  0.333       1.000  0.500",
		"experiencer   1      1.000     1.000  1.000  0.000       0.000  0.000",
		"sentences/s", "6", // fake: 3 rows in 0.5 s
		"list_negation", "family", "affirmed",
		"medspaCy timing: medspaCy fake, 1 pass in 0.50 s",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	log, err := os.ReadFile(logPath)
	if err != nil || !strings.Contains(string(log), "commit") || !strings.Contains(string(log), "medspaCy P") {
		t.Errorf("log %q, %v", log, err)
	}
}

func TestContextBenchSkipsMedspacy(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "rows.jsonl")
	if err := os.WriteFile(corpus, []byte(benchRows), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvMedspacyPython, "")
	var out, errb bytes.Buffer
	if code := run([]string{"context-bench", "--min-seconds", "0", corpus}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "medspaCy: skipped: no Python with medspaCy") || strings.Contains(out.String(), "medspaCy P") {
		t.Errorf("want a skip line and execkg alone:\n%s", out.String())
	}
	out.Reset()
	if code := run([]string{"context-bench", "--min-seconds", "0", "--python", filepath.Join(dir, "no-such-python"), corpus}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "medspaCy: skipped:") {
		t.Errorf("a missing interpreter should be skipped with its reason:\n%s", out.String())
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id":"1"}`+"\n"), 0o644)
	errb.Reset()
	if code := run([]string{"context-bench", bad}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "bad.jsonl line 1") {
		t.Errorf("bad corpus: exit %d, stderr %q", code, errb.String())
	}
}
