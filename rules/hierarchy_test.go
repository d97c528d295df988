package rules_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
)

// TestCurrentOnly: rules/testdata/hierarchy/current_only.json.
func TestCurrentOnly(t *testing.T) {
	const path = "testdata/hierarchy/current_only.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Note  string `json:"note"`
		Cases []struct {
			Note      string          `json:"note"`
			Hierarchy json.RawMessage `json:"hierarchy"`
			Error     string          `json:"error"`
			Current   map[string]bool `json:"current"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &file); err != nil || len(file.Cases) == 0 {
		t.Fatalf("%s: %v (or no cases)", path, err)
	}
	for _, tc := range file.Cases {
		h, err := rules.ParseHierarchy("meta/hierarchy.json", tc.Hierarchy)
		switch {
		case tc.Error == "" && err != nil:
			t.Errorf("%s: %s: unexpected error %v", path, tc.Note, err)
			continue
		case tc.Error != "" && (err == nil || !strings.Contains(err.Error(), tc.Error)):
			t.Errorf("%s: %s: error %v, want one containing %q", path, tc.Note, err, tc.Error)
			continue
		case err != nil:
			continue
		}
		for c, want := range tc.Current {
			if got := h.IsCurrentOnly(c); got != want {
				t.Errorf("%s: %s: IsCurrentOnly(%q) = %v, want %v", path, tc.Note, c, got, want)
			}
		}
	}
}
