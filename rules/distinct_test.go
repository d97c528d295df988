package rules_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
)

// TestDistinctSections: a hierarchy's "distinct" pairs load and answer
// IsDistinct one way round only, or the file fails naming the entry and
// what to fix (rules/testdata/distinct/sections.json).
func TestDistinctSections(t *testing.T) {
	const path = "testdata/distinct/sections.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Note        string
			Hierarchy   json.RawMessage
			Error       string
			Distinct    [][2]string `json:"distinct"`
			NotDistinct [][2]string `json:"not_distinct"`
		}
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(file.Cases) < 2 {
		t.Fatalf("%s holds %d cases", path, len(file.Cases))
	}
	for _, tc := range file.Cases {
		h, err := rules.ParseHierarchy("meta/hierarchy.json", tc.Hierarchy)
		switch {
		case tc.Error == "" && err != nil:
			t.Errorf("%s: %s: unexpected error %v", path, tc.Note, err)
			continue
		case tc.Error != "" && err == nil:
			t.Errorf("%s: %s: want an error naming %q, got none", path, tc.Note, tc.Error)
			continue
		case tc.Error != "":
			if !strings.HasPrefix(err.Error(), "meta/hierarchy.json: ") || !strings.Contains(err.Error(), tc.Error) {
				t.Errorf("%s: %s: want an error naming the file and %q, got %v", path, tc.Note, tc.Error, err)
			}
			continue
		}
		for _, p := range tc.Distinct {
			if !h.IsDistinct(p[0], p[1]) {
				t.Errorf("%s: %s: IsDistinct(%q, %q) = false, want true", path, tc.Note, p[0], p[1])
			}
		}
		for _, p := range tc.NotDistinct {
			if h.IsDistinct(p[0], p[1]) {
				t.Errorf("%s: %s: IsDistinct(%q, %q) = true, want false", path, tc.Note, p[0], p[1])
			}
		}
		names, _ := h.MemberConcepts(map[string]string{})
		for _, p := range tc.Distinct {
			found := false
			for _, n := range names {
				found = found || n == p[0]
			}
			if !found {
				t.Errorf("%s: %s: MemberConcepts lacks %q, so no case could state it", path, tc.Note, p[0])
			}
		}
	}
}
