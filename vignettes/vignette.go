// Package vignettes builds and checks the evaluation vignettes: one-sentence
// patient cases ("Patient with …", 3–4 findings, 9–39 words) generated
// deterministically from the pack's input concepts and a curated table of
// clinician clause wording, plus hand-written paraphrases. Every vignette
// stores the input nodes it was written to state, so the reference standard
// can be computed from them (package reference) instead of from the text.
package vignettes

import (
	"github.com/executablekg/execkg/internal/jsonl"
	"io"
	"strings"
)

// Categories of vignettes and their case-id prefixes.
const (
	Near       = "near"
	Synonym    = "synonym"
	Paraphrase = "paraphrase"
)

// Counts the generator produces per category.
const (
	NearCount       = 70
	SynonymCount    = 20
	ParaphraseCount = 10
)

// Style limits of a vignette.
const (
	MinFindings = 3
	MaxFindings = 4
	MinWords    = 9
	MaxWords    = 39
	Opening     = "Patient with "
)

// Vignette is one evaluation case.
type Vignette struct {
	CaseID   string `json:"case_id"`
	Category string `json:"category"`
	Question string `json:"question"`
	Intended []Node `json:"intended"`
	// Base and Substitution describe a synonym vignette: the near vignette
	// it rewrites and the one term it replaces.
	Base         string        `json:"base,omitempty"`
	Substitution *Substitution `json:"substitution,omitempty"`
}

// Node is one input node a vignette was written to state.
type Node struct {
	// ConceptKey matches the pack's rules.ConceptKey of the conditions the
	// node addresses; Concept is the canonical name, for reading.
	ConceptKey string `json:"concept_key"`
	Concept    string `json:"concept"`
	// Operator is PRESENT or ABSENT for a stated or negated finding, and
	// the comparator of a stated value otherwise ("=" for "an LVEF of
	// 35%", "<" for "LVEF < 35%").
	Operator string `json:"operator"`
	// Value and Unit as written in the question (Unit "" for unitless).
	Value *float64 `json:"value,omitempty"`
	Unit  string   `json:"unit,omitempty"`
	// Present is false only for a negated finding.
	Present bool `json:"present"`
	// Targets lists the pack conditions a value was chosen to satisfy
	// ("> 15 %", "<= 85 %"); the validator checks the value does.
	Targets []string `json:"targets,omitempty"`
	// Text is the clause of the question that states the node.
	Text string `json:"text"`
	// DaysAgo dates the node's event this many days before the case date,
	// for a condition with a time window; the clause says it in words
	// ("3 months ago").
	DaysAgo *float64 `json:"days_ago,omitempty"`
}

// Substitution is the term a synonym vignette replaced.
type Substitution struct {
	Concept string `json:"concept"`
	From    string `json:"from"`
	To      string `json:"to"`
}

// Numeric reports whether the node states a value.
func (n Node) Numeric() bool { return n.Value != nil }

// Marshal writes vignettes as JSON lines, one per vignette, in order. The
// encoding is stable (struct field order, no HTML escaping), so
// regenerating gives byte-identical files.
func Marshal(vs []Vignette) ([]byte, error) { return jsonl.Marshal(vs) }

// Decode reads JSON lines of vignettes; name is used in errors.
func Decode(name string, r io.Reader) ([]Vignette, error) {
	return jsonl.Read[Vignette](name, r, jsonl.Options{Strict: true, Want: `{"case_id","category","question","intended":[…]}`}, nil)
}

// Words counts the words of a question as the style rule does: runs of
// non-space characters.
func Words(q string) int { return len(strings.Fields(q)) }

// Sentence joins clauses into the house style:
// "Patient with A, B, C and D."
func Sentence(clauses []string) string {
	switch len(clauses) {
	case 0:
		return strings.TrimSpace(Opening) + "."
	case 1:
		return Opening + clauses[0] + "."
	}
	return Opening + strings.Join(clauses[:len(clauses)-1], ", ") + " and " + clauses[len(clauses)-1] + "."
}
