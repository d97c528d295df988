package engine

import (
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// packAnatomy is the default pack's anatomy vocabulary.
func packAnatomy(t *testing.T) *rules.Anatomy {
	t.Helper()
	h, err := packs.DefaultHierarchy()
	if err != nil {
		t.Fatal(err)
	}
	if h == nil || h.Anatomy == nil {
		t.Fatalf("%s has no anatomy section", rules.HierarchyFile)
	}
	return h.Anatomy
}

// readCases decodes testdata/readers/anatomy/<name> ({"note", "cases": [...]}).
func readCases(t *testing.T, name string, cases any) {
	t.Helper()
	path := filepath.Join(readersDir, "anatomy", name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &struct {
		Cases any `json:"cases"`
	}{cases}); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestStenoses(t *testing.T) {
	r, err := newAnatomyReader(packAnatomy(t))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Text, Want string }
	readCases(t, "stenoses.json", &cases)
	if len(cases) == 0 {
		t.Fatal("testdata/readers/anatomy/stenoses.json holds no cases")
	}
	for _, tc := range cases {
		var got []string
		for _, s := range r.stenoses(tc.Text) {
			g := fmt.Sprintf("%s:%g", s.Vessel.Name, s.Percent)
			if s.Normal {
				g = s.Vessel.Name + ":normal"
			}
			if s.Segment != "" {
				g += ":" + s.Segment
			}
			if s.significant() {
				g += ":s"
			}
			got = append(got, g)
		}
		if g := strings.Join(got, " "); g != tc.Want {
			t.Errorf("testdata/readers/anatomy/stenoses.json: stenoses(%q) = %q, want %q", tc.Text, g, tc.Want)
		}
	}
}

func TestContradicts(t *testing.T) {
	counts := packAnatomy(t).Counts
	var cases []struct {
		N           int
		Concept     string
		Present     bool
		Contradicts bool
	}
	readCases(t, "contradicts.json", &cases)
	if len(cases) == 0 {
		t.Fatal("testdata/readers/anatomy/contradicts.json holds no cases")
	}
	for _, tc := range cases {
		if got := contradicts(counts, tc.N, tc.Concept, tc.Present); got != tc.Contradicts {
			t.Errorf("testdata/readers/anatomy/contradicts.json: contradicts(%d, %q, %v) = %v, want %v", tc.N, tc.Concept, tc.Present, got, tc.Contradicts)
		}
	}
}

// TestAnatomyVocabularyIsPackData: the engine's Go source names none of
// the pack's vessels: the reader (anatomy.go) in no token or comment, the
// rest of engine/ in no string literal (comments there may give
// examples); the reader's string literals hold none of the other moved
// words (segments, nouns, lesion words, occlusion and not-native words).
func TestAnatomyVocabularyIsPackData(t *testing.T) {
	a := packAnatomy(t)
	var vessels []string
	for _, v := range a.Vessels {
		vessels = append(vessels, v.Name)
		vessels = append(vessels, v.Words...)
		vessels = append(vessels, v.Branches...)
	}
	// The reader must hold none of the other moved words either.
	reader := append([]string(nil), vessels...)
	for _, ws := range [][]string{a.Nouns, a.NounsBefore, a.LesionWords, a.OccludedBefore, a.OccludedAfter, a.NotNative, a.NormalAfter} {
		reader = append(reader, ws...)
	}
	for _, s := range a.Segments {
		reader = append(reader, s.Words...)
	}
	for _, g := range a.Grades {
		reader = append(reader, g.Words...)
	}
	reader = append(reader, a.Negations...)
	pattern := func(words []string) *regexp.Regexp {
		var alt []string
		for _, w := range words {
			w = strings.TrimSuffix(strings.TrimSuffix(w, "#"), ".")
			if len(w) < 2 { // "p", "d": a letter, not a word to find
				continue
			}
			alt = append(alt, regexp.QuoteMeta(w))
		}
		return regexp.MustCompile(`(?i)\b(?:` + strings.Join(alt, "|") + `)\b`)
	}
	vesselRE, readerRE := pattern(vessels), pattern(reader)
	var files []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("found %d Go files under engine/", len(files))
	}
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(path, -1, len(src)), src, nil, scanner.ScanComments)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			// anatomy.go: vessel words in no token or comment, no moved
			// word in a string literal; elsewhere no vessel word in a
			// string literal.
			text, re := lit, vesselRE
			if tok == token.STRING || tok == token.CHAR {
				if u, err := strconv.Unquote(lit); err == nil {
					text = u
				}
				if path == "anatomy.go" {
					re = readerRE
				}
			} else if path != "anatomy.go" {
				continue
			}
			if w := re.FindString(text); w != "" {
				t.Errorf("engine/%s: %q names the pack's anatomy word %q; clinical vocabulary belongs in %s (anatomy)", fset.Position(pos), text, w, rules.HierarchyFile)
			}
		}
	}
}
