package engine

import (
	"path/filepath"
	"testing"
)

// TestTitleGuesses: testdata/title/ask.json, text in, the answer's
// evidence out ("concept|present").
func TestTitleGuesses(t *testing.T) {
	var cases []readerCase
	path := filepath.Join("..", "title", "ask.json")
	readCaseFile(t, "", path, &cases)
	if len(cases) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	checkCases(t, "testdata/title/ask.json", cases, func(tc readerCase) map[string]bool { return askFacts(t, tc) })
}
