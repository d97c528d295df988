// Package documents is the real-world document benchmark: clinic letters,
// discharge summaries, shorthand notes, GP referrals, imaging and cath-lab
// reports and Heart Team notes, written blind by clinicians who saw only
// the paraphrased catalogue, each labelled with the rows that must and must
// not apply. The corpus is split once into dev (develop freely), test
// (measured sparingly, every measurement logged) and final (measured once).
// See README.md beside this file for how it was written and labelled.
package documents

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
)

// Data holds the shipped splits, so every command works from the binary.
//
//go:embed dev.jsonl test.jsonl final.jsonl fhir-dev.jsonl fhir-test.jsonl
var Data embed.FS

// Splits in the order they may be measured.
const (
	Dev   = "dev"
	Test  = "test"
	Final = "final"
	// FHIRDev and FHIRTest are coded EHR records (FHIR R4 Bundles),
	// written and labelled blind like the documents: develop on fhir-dev,
	// measure fhir-test sparingly (logged).
	FHIRDev  = "fhir-dev"
	FHIRTest = "fhir-test"
)

// Splits lists the shipped split names.
var Splits = []string{Dev, Test, Final, FHIRDev, FHIRTest}

// Logged reports whether measuring split is logged (every held-out split).
func Logged(split string) bool { return split != Dev && split != FHIRDev }

// FHIRStyle is the style of a record given as a FHIR Bundle, not text.
const FHIRStyle = "fhir"

// RepoDir is this package's directory relative to the repository root;
// the measurement log is written there.
const RepoDir = "vignettes/documents"

// Styles are the six real-world document styles.
var Styles = []string{"clinic_letter", "discharge_summary", "shorthand_note", "gp_referral", "report", "heart_team"}

// Document is one labelled clinical document.
type Document struct {
	DocID string `json:"doc_id"`
	Style string `json:"style"`
	// Date is the document's date (YYYY-MM-DD): the "today" that its
	// relative times ("PCI 6 weeks ago") refer to.
	Date string `json:"date"`
	Text string `json:"text,omitempty"`
	// Bundle is a FHIR R4 Bundle (style "fhir"), read instead of a text.
	Bundle  json.RawMessage `json:"bundle,omitempty"`
	Must    []string        `json:"must"`
	MustNot []string        `json:"must_not"`
	Why     string          `json:"why"`
	// Writer names the blind writer (W1…W4) whose labels these were
	// before adjudication.
	Writer string `json:"writer,omitempty"`
}

// Load returns a shipped split.
func Load(split string) ([]Document, error) {
	name := split + ".jsonl"
	b, err := Data.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("documents: no split %q (have %s)", split, strings.Join(Splits, ", "))
	}
	return Decode(path.Join(RepoDir, name), bytes.NewReader(b))
}

// LoadFile reads documents from a JSON-lines file.
func LoadFile(p string) ([]Document, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(p, f)
}

// Decode reads JSON lines; errors name the file and line.
func Decode(name string, r io.Reader) ([]Document, error) {
	var out []Document
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var d Document
		if err := json.Unmarshal(b, &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		out = append(out, d)
	}
	return out, sc.Err()
}

// Problem is one thing wrong with a document, located by file and doc id.
type Problem struct {
	DocID string
	Field string
	Msg   string
}

func (p Problem) Error() string { return fmt.Sprintf("%s: %s: %s", p.DocID, p.Field, p.Msg) }

// Validate checks documents against a pack's row ids: unique ids, a known
// style, an ISO date, 5–80 lines of text (real letters and summaries run long), row ids that exist, and must and
// must_not disjoint.
func Validate(docs []Document, rowExists func(string) bool) []Problem {
	var out []Problem
	seen := map[string]bool{}
	styles := map[string]bool{}
	for _, s := range Styles {
		styles[s] = true
	}
	for _, d := range docs {
		add := func(field, format string, a ...any) {
			out = append(out, Problem{DocID: d.DocID, Field: field, Msg: fmt.Sprintf(format, a...)})
		}
		if d.DocID == "" {
			add("doc_id", "empty")
		}
		if seen[d.DocID] {
			add("doc_id", "duplicate id")
		}
		seen[d.DocID] = true
		if !styles[d.Style] && d.Style != FHIRStyle {
			add("style", "%q is not one of %s, %s", d.Style, strings.Join(Styles, ", "), FHIRStyle)
		}
		if !isDate(d.Date) {
			add("date", "%q is not YYYY-MM-DD", d.Date)
		}
		if d.Style == FHIRStyle {
			var head struct {
				ResourceType string `json:"resourceType"`
			}
			if err := json.Unmarshal(d.Bundle, &head); err != nil || head.ResourceType != "Bundle" {
				add("bundle", "a fhir record holds a FHIR R4 Bundle (resourceType \"Bundle\")")
			}
			if d.Text != "" {
				add("text", "a fhir record is coded data only; put no text beside its bundle")
			}
		} else if n := strings.Count(strings.TrimRight(d.Text, "\n"), "\n") + 1; n < 5 || n > 80 {
			add("text", "%d lines; documents have 5–80", n)
		}
		must := map[string]bool{}
		for _, r := range d.Must {
			if !rowExists(r) {
				add("must", "unknown row id %q", r)
			}
			must[r] = true
		}
		for _, r := range d.MustNot {
			if !rowExists(r) {
				add("must_not", "unknown row id %q", r)
			}
			if must[r] {
				add("must_not", "%q is also a must row", r)
			}
		}
	}
	return out
}

func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, c := range s {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Measurement is one logged scoring of a split (test and final are
// measured sparingly; every measurement is appended to the log).
type Measurement struct {
	Time      string  `json:"time"`
	Commit    string  `json:"commit"`
	Split     string  `json:"split"`
	Docs      int     `json:"docs"`
	MustHit   int     `json:"must_hit"`
	Must      int     `json:"must"`
	Violated  int     `json:"violated"`
	MustNot   int     `json:"must_not"`
	Clean     int     `json:"clean_docs"`
	Recall    float64 `json:"must_recall"`
	Violation float64 `json:"violation_rate"`
	Note      string  `json:"note,omitempty"`
}

// LogFile is the measurement log, relative to the repository root.
const LogFile = RepoDir + "/measurements.jsonl"

// ReadLog reads a measurement log; a missing file is an empty log.
func ReadLog(p string) ([]Measurement, error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Measurement
	for i, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var m Measurement
		if err := json.Unmarshal(l, &m); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", p, i+1, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// AppendLog appends one measurement and syncs the file.
func AppendLog(p string, m Measurement) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// StylesOf returns the styles present in docs, in Styles order.
func StylesOf(docs []Document) []string {
	have := map[string]bool{}
	for _, d := range docs {
		have[d.Style] = true
	}
	var out []string
	for _, s := range Styles {
		if have[s] {
			out = append(out, s)
		}
	}
	var extra []string
	for s := range have {
		if !contains(Styles, s) {
			extra = append(extra, s)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
