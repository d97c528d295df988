package rules_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// TestParseReading: rules/testdata/reading/parse.json.
func TestParseReading(t *testing.T) {
	const path = "testdata/reading/parse.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Note    string
			Reading json.RawMessage
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
		_, err := rules.ParseReading(rules.ReadingFile, tc.Reading)
		switch {
		case tc.Error == "" && err != nil:
			t.Errorf("%s: %s: %v", path, tc.Note, err)
		case tc.Error != "" && err == nil:
			t.Errorf("%s: %s: loads, want an error with %q", path, tc.Note, tc.Error)
		case tc.Error != "" && !(strings.HasPrefix(err.Error(), rules.ReadingFile+": ") && strings.Contains(err.Error(), tc.Error)):
			t.Errorf("%s: %s: error %q, want it to start with the file and hold %q", path, tc.Note, err, tc.Error)
		}
	}
}

// TestDefaultReading: the built-in pack's reading vocabulary loads with the
// pack, names only the pack's concepts, and its words make patterns.
func TestDefaultReading(t *testing.T) {
	p, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	if p.Reading == nil {
		t.Fatalf("the built-in pack has no %s", rules.ReadingFile)
	}
	for _, bad := range p.Reading.Check(p) {
		t.Error(bad)
	}
	if len(p.Reading.Words()) < 100 {
		t.Errorf("%s: %d words; the vocabulary did not load", rules.ReadingFile, len(p.Reading.Words()))
	}
	// A concept the pack does not know is reported with its field.
	r := *p.Reading
	r.Demographics = append([]rules.Demographic{{Concept: "no such concept", Words: []string{"x"}}}, r.Demographics...)
	if bad := r.Check(p); len(bad) != 1 || !strings.Contains(bad[0], "demographics[0].concept") {
		t.Errorf("Check with an unknown concept = %q, want one problem naming demographics[0].concept", bad)
	}
}

func TestWordsPattern(t *testing.T) {
	re := regexp.MustCompile(`(?i)^(?:` + rules.WordsPattern([]string{"stop", "stopped", "discontinu*", "s-Cr", "a.b"}) + `)$`)
	for s, want := range map[string]bool{"stop": true, "Stopped": true, "discontinued": true, "discontinu": true,
		"s-cr": true, "a.b": true, "axb": false, "stops": false} {
		if re.MatchString(s) != want {
			t.Errorf("WordsPattern: %q matches %v, want %v", s, !want, want)
		}
	}
}
