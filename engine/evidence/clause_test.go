package evidence

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

// TestClauseLends: testdata/clause.json, findings read in their clause.
func TestClauseLends(t *testing.T) {
	const path = "testdata/clause.json"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct {
			Text    string   `json:"text"`
			Clause  string   `json:"clause"`
			Phrases []string `json:"phrases"`
			Others  []string `json:"others"` // other concepts' phrases of the pack
			Want    bool     `json:"want"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%s: %v (want {note, cases: [{text, clause, phrases, want}]})", path, err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s: no cases", path)
	}
	for i, c := range f.Cases {
		names := NewNames(map[string][]string{"name:x": c.Phrases, "name:other": c.Others})
		a := Anchor{ConceptKey: "name:x", Concept: "x", Phrases: c.Phrases, Names: names}
		items, err := Deterministic{}.FormatCase(context.Background(), c.Clause, []Pair{{FindingID: "f1", Text: c.Text, Clause: c.Clause, Anchor: a}})
		if err != nil {
			t.Fatal(err)
		}
		got := len(items) > 0 && items[0].Rejected == ""
		if got != c.Want {
			t.Errorf("%s cases[%d]: %q in %q gives evidence = %v, want %v", path, i, c.Text, c.Clause, got, c.Want)
		}
	}
}
