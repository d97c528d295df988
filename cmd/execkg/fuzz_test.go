package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzContext: `execkg context` (line parser and the consistency analyser
// behind it) never panics; it exits 0 or 1 (a malformed line) and writes
// only JSON lines. Seeds are in testdata/fuzz/FuzzContext.
func FuzzContext(f *testing.F) {
	f.Add([]byte(`{"text":"No history of diabetes, but possible CCS.","target":"diabetes"}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		old := stdin
		stdin = bytes.NewReader(in)
		defer func() { stdin = old }()
		var so, se bytes.Buffer
		rc := run([]string{"context", "--keep-going"}, &so, &se)
		if rc != 0 && rc != 1 && !strings.Contains(se.String(), "read stdin") {
			t.Fatalf("exit %d: %s", rc, se.String())
		}
		for _, l := range bytes.Split(bytes.TrimSpace(so.Bytes()), []byte("\n")) {
			if len(l) > 0 && !json.Valid(l) {
				t.Fatalf("not JSON: %q", l)
			}
		}
	})
}
