// Package corpus reads the grounding test corpus for the equivalence tests
// of the grounding packages (a fast path checked against the code as first
// written, over every finding).
package corpus

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// Findings reads a findings file (grounding/testdata/findings.txt): one
// finding per line, as the extraction step writes them for the vignettes
// and the dev documents; empty lines and "#" comments are skipped.
func Findings(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
