package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
)

// Readers' tests are data: testdata/readers/<reader name>/facts.json holds
// case texts and the facts the reader must (want) and must not (not) make
// of them, as "concept|present" for readers that make evidence, and
// "<finding>|<status>" for the readers that judge a finding (ungrounded,
// medication-status). Each registered reader has a folder; a folder that
// names no reader fails. Other files in a folder test a reader's helpers
// (stenoses.json, phrases.json, ...).

const readersDir = "testdata/readers"

// readerCase is one case of a facts.json.
type readerCase struct {
	Text string   `json:"text"`
	Date string   `json:"date,omitempty"` // YYYY-MM-DD; empty: today
	Want []string `json:"want"`
	Not  []string `json:"not"`
	Note string   `json:"note,omitempty"` // why the case is there
}

// readCaseFile decodes testdata/readers/<reader>/<name> ({"note", "cases"}).
func readCaseFile(t *testing.T, reader, name string, cases any) string {
	t.Helper()
	path := filepath.Join(readersDir, reader, name)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&struct {
		Note  string `json:"note"`
		Cases any    `json:"cases"`
	}{Cases: cases}); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return path
}

var (
	readerProgOnce sync.Once
	readerProg     *Program
	readerProgErr  error
)

// recorder wraps a case reader and keeps the facts it made in the last
// case, so a test sees the reader's own output (with its DerivedBy).
type recorder struct {
	read.CaseReader
	mu  sync.Mutex
	got []patient.Fact
}

func (r *recorder) Read(c *read.Case) []patient.Fact {
	fs := r.CaseReader.Read(c)
	r.mu.Lock()
	r.got = append(r.got, fs...)
	r.mu.Unlock()
	return fs
}

// readerProgram is the built-in pack's program with recording case
// readers; tests using it run one case at a time.
func readerProgram(t *testing.T) (*Program, map[string]*recorder) {
	t.Helper()
	readerProgOnce.Do(func() {
		readerProg, readerProgErr = NewDefault(context.Background())
		if readerProgErr != nil {
			return
		}
		for i, round := range readerProg.rounds {
			for j, r := range round {
				readerProg.rounds[i][j] = &recorder{CaseReader: r}
			}
		}
	})
	if readerProgErr != nil {
		t.Fatal(readerProgErr)
	}
	recs := map[string]*recorder{}
	for _, round := range readerProg.rounds {
		for _, r := range round {
			rec := r.(*recorder)
			rec.got = nil
			recs[rec.Name()] = rec
		}
	}
	return readerProg, recs
}

func factKey(concept string, present bool) string {
	if present {
		return concept + "|true"
	}
	return concept + "|false"
}

// readFacts runs one reader on a case and returns its facts as strings.
func readFacts(t *testing.T, name string, tc readerCase) map[string]bool {
	t.Helper()
	p, recs := readerProgram(t)
	date := time.Now().UTC()
	if tc.Date != "" {
		d, err := time.Parse(time.DateOnly, tc.Date)
		if err != nil {
			t.Fatalf("%s: date %q: %v", name, tc.Date, err)
		}
		date = d
	}
	got := map[string]bool{}
	if rec, ok := recs[name]; ok {
		if _, err := p.AskOn(context.Background(), "t", tc.Text, date); err != nil {
			t.Fatal(err)
		}
		for _, f := range rec.got {
			if f.Reader != name || f.DerivedBy != name {
				t.Errorf("%s: %q: fact %q is marked reader %q, derived by %q", name, tc.Text, f.Concept, f.Reader, f.DerivedBy)
			}
			got[factKey(f.Concept, f.Present)] = true
		}
		return got
	}
	findings, err := p.cfg.extractor.Extract(context.Background(), tc.Text)
	if err != nil {
		t.Fatal(err)
	}
	ctext := consistency.NewText(tc.Text)
	for _, f := range findings {
		switch name {
		case "antonym":
			for _, e := range p.antonymEvidence(f.ID, f.Text, ctext.Analyze(f.Text).Negated) {
				if e.DerivedBy != name {
					t.Errorf("antonym: %q: item %q is derived by %q", tc.Text, e.Concept, e.DerivedBy)
				}
				got[factKey(e.Concept, e.Present)] = true
			}
		case "demographics":
			if a, _, ok := p.demographicAnchor(tc.Text, f.Start, f.End, f.Text); ok {
				got[factKey(a.Concept, true)] = true
			}
		case "ungrounded":
			if p.ungrounded(f.Text) {
				got[f.Text+"|ungrounded"] = true
			}
		case "medication-status":
			if p.stopped(f.Text) {
				got[f.Text+"|stopped"] = true
			}
			if f.Start >= 0 && p.notTaken(tc.Text, f.Start) {
				got[f.Text+"|not-taken"] = true
			}
		case "when":
			if w := p.whenOf(f.Text, documentDate(tc.Text, date)); w != nil {
				got[f.Text+"|"+w.From.Format(time.DateOnly)+".."+w.To.Format(time.DateOnly)] = true
			} else {
				got[f.Text+"|undated"] = true
			}
		default:
			t.Fatalf("%s/%s: no driver for reader %q; add one to readFacts", readersDir, name, name)
		}
	}
	return got
}

// askFacts answers a case with the whole program and returns every
// evidence item as "concept|present" (ask.json: a reader's effect on the
// answer, whoever made the item).
func askFacts(t *testing.T, tc readerCase) map[string]bool {
	t.Helper()
	p, _ := readerProgram(t)
	res, err := p.Ask(context.Background(), "t", tc.Text)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range res.Evidence {
		got[factKey(e.Concept, e.Present)] = true
	}
	return got
}

func TestReaders(t *testing.T) {
	p, _ := readerProgram(t)
	dirs, err := os.ReadDir(readersDir)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		name := d.Name()
		have[name] = true
		if _, ok := p.readers[name]; !ok {
			t.Errorf("%s/%s: no reader of that name (readers: %v)", readersDir, name, sortedReaderNames(p.readers))
			continue
		}
		if _, err := os.Stat(filepath.Join(readersDir, name, "facts.json")); err != nil {
			t.Errorf("%s/%s: no facts.json (text in, facts out)", readersDir, name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			files := []string{"facts.json"}
			if _, err := os.Stat(filepath.Join(readersDir, name, "ask.json")); err == nil {
				files = append(files, "ask.json")
			}
			for _, file := range files {
				var cases []readerCase
				path := readCaseFile(t, name, file, &cases)
				if len(cases) == 0 {
					t.Fatalf("%s holds no cases", path)
				}
				checkCases(t, path, cases, func(tc readerCase) map[string]bool {
					if file == "ask.json" {
						return askFacts(t, tc)
					}
					return readFacts(t, name, tc)
				})
			}
		})
	}
	for _, r := range p.Readers() {
		if _, derived := map[string]bool{eval.ReaderIsA: true, eval.ReaderDefinition: true, eval.ReaderImplied: true}[r.Name()]; derived {
			continue // eval.Derive's own tests (engine/eval/testdata) cover these
		}
		if !have[r.Name()] {
			t.Errorf("reader %q has no %s/%s/facts.json", r.Name(), readersDir, r.Name())
		}
	}
}

func checkCases(t *testing.T, path string, cases []readerCase, run func(readerCase) map[string]bool) {
	t.Helper()
	for _, tc := range cases {
		got := run(tc)
		for _, w := range tc.Want {
			if !got[w] {
				t.Errorf("%s: %q: want %s, got %v", path, tc.Text, w, keysOf(got))
			}
		}
		for _, w := range tc.Not {
			if got[w] {
				t.Errorf("%s: %q: must not give %s", path, tc.Text, w)
			}
		}
	}
}

// TestReadersDeclare: every reader names what it reads and emits known
// kinds; step (v) asks the reader on the evidence, not its Via text.
func TestReadersDeclare(t *testing.T) {
	p, _ := readerProgram(t)
	for _, r := range p.Readers() {
		switch r.Reads() {
		case read.Text, read.Finding, read.Evidence:
		default:
			t.Errorf("reader %s reads %q", r.Name(), r.Reads())
		}
		for _, k := range r.Emits() {
			m := patient.Model{Facts: []patient.Fact{{Evidence: eval.Evidence{ID: "f"}, Kind: k}}}
			if err := m.Validate(); err != nil {
				t.Errorf("reader %s: %v", r.Name(), err)
			}
		}
	}
	c := eval.Cond{Concept: "x"}
	for _, tc := range []struct {
		by, check string
		want      bool
	}{
		{"antonym", consistency.CheckNegation, true},
		{"anatomy", consistency.CheckQualifier, true},
		{"anatomy", consistency.CheckNegation, false},
		{"recency", consistency.CheckAbsence, false},
		{eval.ReaderDefinition, consistency.CheckQualifier, true},
		{eval.ReaderIsA, consistency.CheckQualifier, false},
		{"", consistency.CheckQualifier, false},
	} {
		// The Via text is a decoy: only DerivedBy counts.
		e := eval.Evidence{DerivedBy: tc.by, Via: ViaAntonym + "x"}
		if got := p.readers.Satisfied(e, tc.check, c); got != tc.want {
			t.Errorf("Satisfied(derived by %q, %s) = %v, want %v", tc.by, tc.check, got, tc.want)
		}
	}
	// A stenosis report does not state functional significance (pack data:
	// meta/reading.json anatomy_checks).
	for _, w := range p.reading.anatomyKept {
		if p.readers.Satisfied(eval.Evidence{DerivedBy: "anatomy"}, consistency.CheckQualifier, eval.Cond{Context: "a " + w + " test"}) {
			t.Errorf("anatomy satisfies the qualifier check for a %q context", w)
		}
	}
}

func keysOf(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestRecentPhrase: testdata/readers/recency/phrases.json with the pack's
// window.
func TestRecentPhrase(t *testing.T) {
	p, _ := readerProgram(t)
	var cases []struct{ Text, Want string }
	path := readCaseFile(t, "recency", "phrases.json", &cases)
	if len(cases) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	for _, tc := range cases {
		if got := recentPhrase(tc.Text, p.reading.recentDays); got != tc.Want {
			t.Errorf("%s: recentPhrase(%q) = %q, want %q", path, tc.Text, got, tc.Want)
		}
	}
}
