package engine

import (
	"encoding/json"
	"os"
	"testing"
)

// testdata/wordings/cases.json: wordings of the pack's concepts, read by
// the whole program (askFacts).
func TestWordingsCases(t *testing.T) {
	b, err := os.ReadFile("testdata/wordings/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []readerCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("testdata/wordings/cases.json: %v", err)
	}
	for i, c := range file.Cases {
		got := askFacts(t, c)
		for _, w := range c.Want {
			if !got[w] {
				t.Errorf("case %d (%q): want %q", i, c.Text, w)
			}
		}
		for _, n := range c.Not {
			if got[n] {
				t.Errorf("case %d (%q): must not give %q", i, c.Text, n)
			}
		}
	}
}
