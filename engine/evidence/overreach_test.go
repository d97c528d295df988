package evidence

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// TestOverreach: testdata/overreach.json, mentions that name something
// else than a concept's phrase (grounding over-reach on blind documents)
// and the values read from trends and identifiers.
func TestOverreach(t *testing.T) {
	const path = "testdata/overreach.json"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Covers []struct {
			Mention string   `json:"mention"`
			Phrases []string `json:"phrases"`
			Want    bool     `json:"want"`
		} `json:"covers"`
		Values []struct {
			Mention string   `json:"mention"`
			Units   []string `json:"units"`
			Want    []string `json:"want"`
			// Phrases: the anchor's names (Anchor.Phrases), where a case
			// needs them.
			Phrases []string `json:"phrases"`
			// Scales: plausible ranges by unit (Anchor.Scales).
			Scales map[string][2]float64 `json:"scales"`
		} `json:"values"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("%s: %v (want {note, covers: [{mention, phrases, want}], values: [{mention, units, want}]})", path, err)
	}
	if len(f.Covers) == 0 || len(f.Values) == 0 {
		t.Fatalf("%s: no cases", path)
	}
	for i, c := range f.Covers {
		if got := coversBoth(t, c.Mention, c.Phrases); got != c.Want {
			t.Errorf("%s covers[%d]: Covers(%q, %q) = %v, want %v", path, i, c.Mention, c.Phrases, got, c.Want)
		}
	}
	for i, c := range f.Values {
		a := Anchor{ConceptKey: "name:x", Concept: "x", Units: c.Units, Scales: c.Scales, Phrases: c.Phrases}
		var got []string
		for _, it := range Format("f1", c.Mention, a, false) {
			if it.Value != nil {
				got = append(got, it.Comparator+strconv.FormatFloat(*it.Value, 'f', -1, 64))
			}
		}
		if len(got) != len(c.Want) {
			t.Errorf("%s values[%d]: Format(%q) read %q, want %q", path, i, c.Mention, got, c.Want)
			continue
		}
		for j := range got {
			if got[j] != c.Want[j] {
				t.Errorf("%s values[%d]: Format(%q) read %q, want %q", path, i, c.Mention, got, c.Want)
				break
			}
		}
	}
}
