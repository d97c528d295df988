package engine

import (
	"path/filepath"
	"testing"
)

// TestSpokenOfAsRisk: testdata/hypothetical/ask.json, text in, the
// answer's evidence out ("concept|present").
func TestSpokenOfAsRisk(t *testing.T) {
	var cases []readerCase
	path := filepath.Join("..", "hypothetical", "ask.json")
	readCaseFile(t, "", path, &cases)
	if len(cases) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	checkCases(t, "testdata/hypothetical/ask.json", cases, func(tc readerCase) map[string]bool { return askFacts(t, tc) })
}
