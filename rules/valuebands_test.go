package rules_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
)

// TestValueBands: rules/testdata/hierarchy/value_bands.json.
func TestValueBands(t *testing.T) {
	const path = "testdata/hierarchy/value_bands.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type bounds struct {
		Lo       float64 `json:"lo"`
		LoStrict bool    `json:"lo_strict"`
		Hi       float64 `json:"hi"`
		HiStrict bool    `json:"hi_strict"`
	}
	var file struct {
		Note  string `json:"note"`
		Cases []struct {
			Note      string          `json:"note"`
			Hierarchy json.RawMessage `json:"hierarchy"`
			Error     string          `json:"error"`
			Bounds    *bounds         `json:"bounds"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &file); err != nil || len(file.Cases) == 0 {
		t.Fatalf("%s: %v (or no cases)", path, err)
	}
	for _, tc := range file.Cases {
		h, err := rules.ParseHierarchy("meta/hierarchy.json", tc.Hierarchy)
		if tc.Error != "" {
			if err == nil || !strings.Contains(err.Error(), tc.Error) {
				t.Errorf("%s: %s: error %v, want one containing %q", path, tc.Note, err, tc.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %s: unexpected error %v", path, tc.Note, err)
			continue
		}
		v := h.Values[0]
		lo, loStrict, hi, hiStrict := v.Bounds()
		if lo == nil || hi == nil {
			t.Errorf("%s: %s: bounds %v %v, want both", path, tc.Note, lo, hi)
			continue
		}
		got := bounds{*lo, loStrict, *hi, hiStrict}
		if got != *tc.Bounds {
			t.Errorf("%s: %s: bounds %+v, want %+v", path, tc.Note, got, *tc.Bounds)
		}
	}
}
