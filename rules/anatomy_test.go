package rules_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
)

// TestAnatomySections: an anatomy section loads, or fails naming the file
// and the field to fix (rules/testdata/anatomy/sections.json).
func TestAnatomySections(t *testing.T) {
	const path = "testdata/anatomy/sections.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Note    string
			Anatomy json.RawMessage
			Error   string
		}
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(file.Cases) < 2 {
		t.Fatalf("%s holds %d cases", path, len(file.Cases))
	}
	for _, tc := range file.Cases {
		src := `{"version":1,"relations":[],"anatomy":` + string(tc.Anatomy) + `}`
		h, err := rules.ParseHierarchy("meta/hierarchy.json", []byte(src))
		switch {
		case tc.Error == "" && err != nil:
			t.Errorf("%s: %s: unexpected error %v", path, tc.Note, err)
		case tc.Error == "" && (h.Anatomy == nil || len(h.Anatomy.Vessels) == 0):
			t.Errorf("%s: %s: the section was not kept", path, tc.Note)
		case tc.Error != "" && err == nil:
			t.Errorf("%s: %s: want an error naming %q, got none", path, tc.Note, tc.Error)
		case tc.Error != "" && !(strings.HasPrefix(err.Error(), "meta/hierarchy.json: anatomy") && strings.Contains(err.Error(), tc.Error)):
			t.Errorf("%s: %s: want an error naming the file and %q, got %v", path, tc.Note, tc.Error, err)
		}
	}
}

func TestVesselCountHolds(t *testing.T) {
	two := 2
	for _, tc := range []struct {
		c    rules.VesselCount
		n    int
		want bool
	}{
		{rules.VesselCount{Min: 2, Max: &two}, 2, true},
		{rules.VesselCount{Min: 2, Max: &two}, 3, false},
		{rules.VesselCount{Min: 2}, 3, true},
		{rules.VesselCount{Min: 2}, 1, false},
	} {
		if got := tc.c.Holds(tc.n); got != tc.want {
			t.Errorf("%+v.Holds(%d) = %v, want %v", tc.c, tc.n, got, tc.want)
		}
	}
}
