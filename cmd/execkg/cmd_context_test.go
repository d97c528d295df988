package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func decodeLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("output line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

func TestContextCommand(t *testing.T) {
	in := `{"text": "EF 30%, no diabetes", "target": "diabetes"}

{"text": "58M, r/o ACS", "target": "acute coronary syndrome"}
{"text": "Patient with decompensated heart failure and angina", "target": "decompensated heart failure"}
{"text": "Patient with angina", "target": "atrial fibrillation"}
`
	var out, errb bytes.Buffer
	code := run([]string{"context", writeTemp(t, in)}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errb.String())
	}
	lines := decodeLines(t, out.String())
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want 4 (blank input lines skipped):\n%s", len(lines), out.String())
	}
	want := []map[string]any{
		{"target": "diabetes", "negated": true, "uncertain": false, "qualifiers": []any{}, "cues": []any{"no"}, "clause": "no diabetes", "found": true, "hypothetical": false, "experiencer": "patient"},
		{"target": "acute coronary syndrome", "negated": false, "uncertain": true, "qualifiers": []any{}, "cues": []any{"r/o"}, "clause": "r/o ACS", "found": true, "hypothetical": false, "experiencer": "patient"},
		{"target": "decompensated heart failure", "negated": false, "uncertain": false, "qualifiers": []any{"decompensated"}, "cues": []any{}, "clause": "decompensated heart failure", "found": true, "hypothetical": false, "experiencer": "patient"},
		{"target": "atrial fibrillation", "negated": false, "uncertain": false, "qualifiers": []any{}, "cues": []any{}, "clause": "", "found": false, "hypothetical": false, "experiencer": "patient"},
	}
	for i := range want {
		wb, _ := json.Marshal(want[i])
		gb, _ := json.Marshal(lines[i])
		if string(wb) != string(gb) {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, gb, wb)
		}
	}
	// Field order is part of the format.
	first := strings.SplitN(out.String(), "\n", 2)[0]
	if !strings.HasPrefix(first, `{"target":"diabetes","negated":true,"uncertain":false,"qualifiers":[],"cues":["no"],"clause":"no diabetes","found":true,"hypothetical":false,"experiencer":"patient"}`) {
		t.Errorf("field order: %s", first)
	}
}

func TestContextCommandMalformed(t *testing.T) {
	in := `{"text": "no diabetes", "target": "diabetes"}
{"text": "broken
{"target": "x"}
{"text": "angina", "target": "  "}
{"text": "possible vasospasm", "target": "vasospasm"}
`
	p := writeTemp(t, in)
	cases := []struct {
		name      string
		args      []string
		code      int
		outLines  int
		errWant   []string
		errAbsent []string
	}{
		{"stop at first", []string{"context", p}, 1, 1,
			[]string{"line 2:", "not a JSON object", "--keep-going"}, []string{"line 3:"}},
		{"keep going", []string{"context", "--keep-going", p}, 1, 2,
			[]string{"line 2:", `line 3: field "text" is missing`, `line 4: field "target" is empty`, "3 malformed line(s)"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, &out, &errb)
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if n := len(decodeLines(t, out.String())); n != c.outLines {
				t.Errorf("output lines %d, want %d:\n%s", n, c.outLines, out.String())
			}
			for _, w := range c.errWant {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
			for _, w := range c.errAbsent {
				if strings.Contains(errb.String(), w) {
					t.Errorf("stderr has %q:\n%s", w, errb.String())
				}
			}
		})
	}
}

func TestContextCommandStdinAndErrors(t *testing.T) {
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader(`{"text": "CCS is suspected", "target": "CCS"}` + "\n")
	var out, errb bytes.Buffer
	if code := run([]string{"context", "-"}, &out, &errb); code != 0 {
		t.Fatalf("stdin: exit %d, %s", code, errb.String())
	}
	if l := decodeLines(t, out.String()); len(l) != 1 || l[0]["uncertain"] != true {
		t.Errorf("stdin output %s", out.String())
	}

	out.Reset()
	errb.Reset()
	if code := run([]string{"context", filepath.Join(t.TempDir(), "missing.jsonl")}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "missing.jsonl") {
		t.Errorf("missing file: exit %d, stderr %s", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"context", "a", "b"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "at most one") {
		t.Errorf("two files: exit %d, stderr %s", code, errb.String())
	}
	errb.Reset()
	out.Reset()
	if code := run([]string{"context", "-h"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "keep-going") {
		t.Errorf("help: exit %d, stdout %s", code, out.String())
	}
}

// With --keep-going, malformed lines are listed up to 20, then counted.
func TestContextCapsErrorListing(t *testing.T) {
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader(strings.Repeat("not json\n", 30) + `{"text": "no CCS", "target": "CCS"}` + "\n")
	var out, errb bytes.Buffer
	code := run([]string{"context", "--keep-going"}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(errb.String(), "stdin line "); n != 20 {
		t.Errorf("%d lines listed, want 20: %s", n, errb.String())
	}
	if !strings.Contains(errb.String(), "30 malformed line(s) skipped") || !strings.Contains(out.String(), `"negated":true`) {
		t.Errorf("stderr %s stdout %s", errb.String(), out.String())
	}
}
