// Package read is the contract between the engine and its readers: the
// components that read a case (its text and findings, one finding, or what
// grounding and other readers already made of it) into facts of the
// patient model. A reader declares what it reads, which kinds of fact it
// emits and which step (v) checks its facts already satisfy, so that step
// (v) asks the reader, by its name on the evidence, instead of parsing the
// evidence's trace text. The guideline words a reader reads with are pack
// data (rules.Reading, meta/reading.json); a reader holds none.
package read

import (
	"time"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
)

// Input is what a reader reads.
type Input string

const (
	// Text: the whole case text with its extracted findings.
	Text Input = "text"
	// Finding: one finding at a time, during grounding.
	Finding Input = "finding"
	// Evidence: the evidence grounding and earlier readers made.
	Evidence Input = "evidence"
)

// Reader is one reader of a case.
type Reader interface {
	// Name identifies the reader; it is what eval.Evidence.DerivedBy and
	// patient.Fact.Reader hold for the reader's facts.
	Name() string
	// Reads says what the reader reads.
	Reads() Input
	// Emits lists the kinds of fact the reader makes.
	Emits() []patient.Kind
	// Satisfies returns the step (v) checks whose point the reader's
	// facts make in the patient's own words, for condition c: a fact of
	// the reader that fails one of them is let through (the derivation
	// states what the check looks for in the condition's wording).
	Satisfies(c eval.Cond) consistency.Checks
}

// Case is what a case reader reads.
type Case struct {
	Text     string
	Findings []extract.Finding
	// Evidence is what grounding and the readers before this one made.
	Evidence []eval.Evidence
	// Date is the case date relative dates count from.
	Date time.Time
}

// CaseReader reads a whole case (Reads Text or Evidence).
type CaseReader interface {
	Reader
	Read(c *Case) []patient.Fact
}

// Has reports whether a set of checks holds the named check
// (consistency.CheckQualifier, ...).
func Has(set consistency.Checks, check string) bool {
	switch check {
	case consistency.CheckCertainty:
		return set.Certainty
	case consistency.CheckNegation:
		return set.Negation
	case consistency.CheckQualifier:
		return set.Qualifier
	case consistency.CheckAbsence:
		return set.Absence
	}
	return false
}

// Fact makes a reader's fact from an evidence item: the item is marked
// as the reader's (DerivedBy, Reader) so that step (v) can ask the reader.
func Fact(r Reader, kind patient.Kind, e eval.Evidence, spans ...patient.Span) patient.Fact {
	e.DerivedBy = r.Name()
	return patient.Fact{Evidence: e, Kind: kind, Reader: r.Name(), Spans: spans}
}

// Evidences returns the evidence items of facts, in order.
func Evidences(fs []patient.Fact) []eval.Evidence {
	out := make([]eval.Evidence, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.Evidence)
	}
	return out
}

// Registry is the readers of a program by name, for step (v).
type Registry map[string]Reader

// Add registers readers; a repeated name panics (a programming error).
func (g Registry) Add(rs ...Reader) {
	for _, r := range rs {
		if _, ok := g[r.Name()]; ok {
			panic("read: two readers named " + r.Name())
		}
		g[r.Name()] = r
	}
}

// Satisfied reports whether evidence derived by a registered reader makes
// the point of the failed check for condition c itself. Evidence no
// reader made (DerivedBy empty) satisfies nothing.
func (g Registry) Satisfied(e eval.Evidence, check string, c eval.Cond) bool {
	r, ok := g[e.DerivedBy]
	return ok && Has(r.Satisfies(c), check)
}
