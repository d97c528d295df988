package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// The engine knows no guideline: no concept name, lexicon synonym or
// antonym, and no drug, brand, vessel or reader word of the pack's meta
// data may stand in a string literal (regular expressions included) of a
// non-test Go file under engine/. The vocabulary is the pack's own, read
// from the built-in pack, so a word added to the pack is checked too.

// genericWords are pack terms that are ordinary English (or ordinary
// notation) the engine may use for their ordinary meaning. Each says why;
// the list is short on purpose: a clinical word belongs in the pack.
var genericWords = map[string]string{
	// Function words and ordinary verbs of any text that the pack also
	// uses as cues (meta/reading.json).
	"will": "modal verb (English grammar: a future, not a drug status)", "would": "modal verb", "should": "modal verb",
	"until": "preposition of time", "prior": "time adverb ('prior to', the dating cues of recency.go)",
	"previously": "time adverb", "formerly": "time adverb", "instead": "adverb", "held": "ordinary verb",
	"despite": "preposition (verbatim.go: a relation word between phrases)",
	// Time words the pack's past and now cues (meta/reading.json) share
	// with the engine's dating grammar (when.go, recency.go, extract.go).
	"now": "time adverb (when.go, recency.go: a date relative to the case)", "today": "time adverb (when.go, recency.go)",
	"previous": "time adjective (recency.go, extract.go: 'the previous 3 months')", "remote": "time adjective (recency.go)",
	"history of": "dating phrase of recency.go ('history of' an event long ago)", "h/o": "the abbreviation of 'history of' (extract.go's abbreviation list)",
	// The patient model's own kinds and statuses (engine/patient, issue 12
	// item 1): generic to every guideline, and the trace says them.
	"medication": "patient.KindMedication, the model's fact kind", "stopped": "patient.StatusStopped (and 'stopped before' a deadline)",
	"refused": "patient.StatusRefused", "not tolerated": "patient.StatusNotTolerated, said in trace text",
	"done":      "patient.StatusDone, said in trace text (the pack's stopped cues read a course 'done' as over)",
	"completed": "a FHIR event status ('completed', engine/fhir), as the pack's stopped cues read a course 'completed' as over",
	"complete":  "ordinary adjective (a reply complete, engine/llm)",
	"plan":      "the document section kind 'plan' (issue 12 item 2), said in trace text",
	// The pack language's action intents (rules.Intent*, intent.go), the
	// same for every guideline.
	"stop": "intent STOP", "avoid": "intent AVOID", "switch": "intent SWITCH TO",
	"continue": "intent CONTINUE", "reduce": "intent REDUCE",
	"add": "ordinary verb: the pack cues an order to add a drug (meta/reading.json not_taken); the engine says it in error messages ('add it to ...')",
	// Ordinary verbs the pack's drug-order cues share with engine text.
	"reduced": "comparator phrase 'reduced to below' (evidence/measure.go)",
	"hold":    "ordinary verb: a FHIR request status 'on-hold', a store message",
	"off":     "ordinary adverb: a configuration switch value (llm/config.go)",
}

// pendingFiles are engine files another helper is moving their clinical
// words out of (issue 12); each entry names the owner. TEMPORARY: the lead
// removes this list after merging their branches, and the test then scans
// those files like every other.
var pendingFiles = map[string]string{}

// packVocabulary returns every built-in pack's vocabulary: concept names of
// the rules and the hierarchy, lexicon concepts, synonyms and antonyms,
// the anatomy words and the reading words, each with where it comes from.
func packVocabulary(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, id := range packs.IDs() {
		p, err := packs.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		lex, err := lexicon.LoadBuiltin(id)
		if err != nil {
			t.Fatal(err)
		}
		addPackVocabulary(out, id, p, lex)
	}
	return out
}

// addPackVocabulary adds one pack's words to out.
func addPackVocabulary(out map[string]string, id string, p *rules.Pack, lex *lexicon.Lexicon) {
	add := func(from string, ws ...string) {
		for _, w := range ws {
			w = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(w, "*"), "#"))
			if _, ok := out[strings.ToLower(w)]; !ok && w != "" {
				out[strings.ToLower(w)] = id + ": " + from
			}
		}
	}
	names, _ := p.ConceptIndex()
	for _, n := range names {
		add("concept name (rule tables / meta/hierarchy.json)", n)
	}
	for _, c := range lex.Concepts {
		add("concept name (meta/lexicon.json)", c.Concept)
		add("synonym of "+c.Concept+" (meta/lexicon.json)", c.Synonyms...)
		add("antonym of "+c.Concept+" (meta/lexicon.json)", c.Antonyms...)
	}
	if p.Hierarchy == nil {
		return
	}
	if a := p.Hierarchy.Anatomy; a != nil {
		for _, v := range a.Vessels {
			add("vessel word (meta/hierarchy.json anatomy)", v.Name)
			add("vessel word (meta/hierarchy.json anatomy)", v.Words...)
			add("vessel word (meta/hierarchy.json anatomy)", v.Branches...)
		}
		for _, s := range a.Segments {
			add("segment word (meta/hierarchy.json anatomy)", s.Words...)
		}
		for _, ws := range [][]string{a.Nouns, a.NounsBefore, a.LesionWords, a.OccludedBefore, a.OccludedAfter, a.NotNative} {
			add("lesion word (meta/hierarchy.json anatomy)", ws...)
		}
	}
	if p.Reading != nil {
		add("reader word ("+rules.ReadingFile+")", p.Reading.Words()...)
	}
}

// vocabularyFinding is one pack word found in engine code.
type vocabularyFinding struct {
	Pos, Word, From, Literal string
}

// scanVocabulary reports every pack word (case-insensitive, at word
// boundaries) in the string literals of Go source src (import paths and
// struct tags are not literals of the program's behaviour and are
// skipped). Words of one or two characters are left out: a letter or a
// two-letter word ("f", "no") is not a term that can be told from
// ordinary code.
func scanVocabulary(t *testing.T, name string, src []byte, vocab map[string]string) []vocabularyFinding {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	skip := map[*ast.BasicLit]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			skip[n.Path] = true
		case *ast.Field:
			if n.Tag != nil {
				skip[n.Tag] = true
			}
		}
		return true
	})
	var out []vocabularyFinding
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || skip[lit] || lit.Kind != token.STRING && lit.Kind != token.CHAR {
			return true
		}
		text, err := strconv.Unquote(lit.Value)
		if err != nil {
			text = lit.Value
		}
		for _, w := range wordsIn(text, vocab) {
			out = append(out, vocabularyFinding{Pos: fset.Position(lit.Pos()).String(), Word: w, From: vocab[w], Literal: text})
		}
		return true
	})
	return out
}

// wordsIn returns the pack words a literal holds: as written, and, for a
// regular expression, in each word the pattern spells out (so that
// `stop(?:ped|s)?` or `statins?` still names its words).
func wordsIn(text string, vocab map[string]string) []string {
	lower := strings.ToLower(text)
	hay := " " + lower + " "
	// A regular expression's literal words: metacharacters become spaces.
	hay += " " + regexMeta.ReplaceAllString(lower, " ") + " "
	var out []string
	for w := range vocab {
		if len(w) <= 2 {
			continue
		}
		if _, ok := genericWords[w]; ok {
			continue
		}
		if containsWord(hay, w) {
			out = append(out, w)
		}
	}
	sort.Strings(out)
	return out
}

var regexMeta = regexp.MustCompile(`\(\?[a-z:]*|\\[bdswBDSW]|[()|?*+\[\]{}^$\\]|\d+,?\d*\}`)

// containsWord: w occurs in hay with no letter, digit or underscore
// either side (an identifier's part is not the word).
func containsWord(hay, w string) bool {
	for from := 0; ; {
		i := strings.Index(hay[from:], w)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(w)
		if (i == 0 || !isAlnum(hay[i-1])) && (j == len(hay) || !isAlnum(hay[j])) {
			return true
		}
		from = i + 1
	}
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// engineGoFiles lists engine/'s non-test Go files (all packages), paths
// relative to engine/, without testdata.
func engineGoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func pending(path string) bool {
	for p := range pendingFiles {
		if path == p || strings.HasSuffix(p, "/") && strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

func TestEngineHoldsNoPackVocabulary(t *testing.T) {
	vocab := packVocabulary(t)
	if len(vocab) < 500 {
		t.Fatalf("the pack's vocabulary has %d words; the lexicon or pack did not load", len(vocab))
	}
	for w, why := range genericWords {
		if _, ok := vocab[w]; !ok {
			t.Errorf("genericWords[%q] (%s): no longer a pack word; remove it from the allowlist", w, why)
		}
	}
	files := engineGoFiles(t)
	scanned := 0
	for _, path := range files {
		if pending(path) {
			continue
		}
		scanned++
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range scanVocabulary(t, "engine/"+path, src, vocab) {
			t.Errorf("%s: string literal %q holds the pack word %q (%s); move it to the pack's meta data (%s, %s or meta/lexicon.json) and read it from there",
				f.Pos, short(f.Literal), f.Word, f.From, rules.ReadingFile, rules.HierarchyFile)
		}
	}
	if scanned < 10 {
		t.Fatalf("scanned %d of %d Go files under engine/; the walk is broken", scanned, len(files))
	}
}

// TestVocabularyScanFails: the scan finds a planted word as a plain
// literal, inside a regular expression's alternation and with a plural
// made optional, and passes a file without one.
func TestVocabularyScanFails(t *testing.T) {
	vocab := packVocabulary(t)
	for _, tc := range []struct {
		src  string
		want string
	}{
		{"package x\nvar drug = \"ticagrelor\"\n", "ticagrelor"},
		{"package x\nimport \"regexp\"\nvar re = regexp.MustCompile(`(?i)\\b(?:despite|bisoprolol)\\b`)\n", "bisoprolol"},
		{"package x\nvar re = `\\b(?:statins?|x)\\b`\n", "statins"},
		{"package x\nvar s = \"chronic coronary syndrome\"\n", "chronic coronary syndrome"},
	} {
		got := scanVocabulary(t, "planted.go", []byte(tc.src), vocab)
		found := false
		for _, f := range got {
			found = found || f.Word == tc.want
		}
		if !found {
			t.Errorf("the scan missed %q in %q (found %+v)", tc.want, tc.src, got)
		}
	}
	clean := "package x\n\ntype T struct {\n\tAge int `json:\"age\"`\n}\n\nvar s = \"the case text\"\n"
	if got := scanVocabulary(t, "clean.go", []byte(clean), vocab); len(got) > 0 {
		t.Errorf("the scan flags a clean file (a struct tag, generic words): %+v", got)
	}
}

func short(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
