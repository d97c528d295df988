package evidence

import (
	"context"
	"encoding/json"
	"os"
	"testing"
)

// TestSpellingSlips: testdata/typos.json, a small pack's names and
// mentions in; what Corrected repairs and whether step (iv) then takes the
// pair as evidence out.
func TestSpellingSlips(t *testing.T) {
	const path = "testdata/typos.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Note  string              `json:"note"`
		Names map[string][]string `json:"names"`
		Cases []struct {
			Mention string `json:"mention"`
			Concept string `json:"concept"`
			Fixed   string `json:"fixed"`
			Want    bool   `json:"want"`
			Note    string `json:"note"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	names := NewNames(f.Names)
	for _, c := range f.Cases {
		phrases, ok := f.Names[c.Concept]
		if !ok {
			t.Errorf("%s: %q: concept %q is not among the names; add it", path, c.Mention, c.Concept)
			continue
		}
		fixed, changed := names.Corrected(c.Mention)
		if !changed {
			fixed = ""
		}
		if fixed != c.Fixed {
			t.Errorf("%s: Corrected(%q) = %q, want %q (%s)", path, c.Mention, fixed, c.Fixed, c.Note)
		}
		for _, covering := range []*Phrases{nil, NewPhrases(phrases)} {
			items, err := Deterministic{}.FormatCase(context.Background(), c.Mention, []Pair{{FindingID: "f0", Text: c.Mention,
				Anchor: Anchor{ConceptKey: c.Concept, Concept: c.Concept, Phrases: phrases, Names: names, Covering: covering}}})
			if err != nil {
				t.Fatal(err)
			}
			got := len(items) > 0 && items[0].Rejected == ""
			if got != c.Want {
				t.Errorf("%s: %q as %q (covering %v): evidence %v, want %v (%s)", path, c.Mention, c.Concept, covering != nil, got, c.Want, c.Note)
			}
		}
	}
}
