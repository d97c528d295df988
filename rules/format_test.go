package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Format must round-trip every table of the built-in pack.
func TestFormatRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("packs/esc-ccs-2024/table_*.json")
	if len(files) == 0 {
		t.Fatal("no pack files found")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tb, err := Parse(filepath.Base(f), data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out, err := Format(tb)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(filepath.Base(f), out)
		if err != nil {
			t.Fatalf("%s: formatted output does not parse: %v\n%s", f, err, out)
		}
		if len(tb.Footnotes) == 0 {
			tb.Footnotes = nil // "footnotes": [] and no key mean the same
		}
		if !reflect.DeepEqual(tb, back) {
			t.Errorf("%s: round trip changed the table", f)
		}
	}
}
