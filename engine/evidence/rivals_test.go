package evidence

import (
	"encoding/json"
	"os"
	"testing"
)

// TestCoversAmong: testdata/rivals.json, a small pack's names and
// mentions in, whether the mention covers the concept out.
func TestCoversAmong(t *testing.T) {
	const path = "testdata/rivals.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Note  string              `json:"note"`
		Names map[string][]string `json:"names"`
		Cases []struct {
			Mention   string `json:"mention"`
			Concept   string `json:"concept"`
			Want      bool   `json:"want"`
			Allowance bool   `json:"allowance"`
			Note      string `json:"note"`
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
		if got, _ := Covers(c.Mention, phrases); got != c.Allowance {
			t.Errorf("%s: Covers(%q, %q) = %v, the case says %v; fix its allowance", path, c.Mention, c.Concept, got, c.Allowance)
		}
		if got, _ := CoversAmong(c.Mention, phrases, c.Concept, names); got != c.Want {
			t.Errorf("%s: CoversAmong(%q, %q) = %v, want %v", path, c.Mention, c.Concept, got, c.Want)
		}
	}
}
