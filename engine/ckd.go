package engine

import (
	"regexp"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/rules"
)

// CKD stages are pack data: meta/hierarchy.json "values" say what eGFR
// band a stated stage implies (KDIGO G categories), and the lexicon names
// the stages ("CKD 3b", "on dialysis"); eval.Derive reads them.

// ungroundedStage keeps a measurement the pack has no concept for from
// grounding to a neighbouring one (meta/reading.json ungrounded: a serum
// creatinine value is not an eGFR, and eGFR is never computed from it).
type ungroundedStage struct{}

func (ungroundedStage) Name() string          { return "ungrounded" }
func (ungroundedStage) Reads() read.Input     { return read.Finding }
func (ungroundedStage) Emits() []patient.Kind { return nil }

// Satisfies nothing: the reader only takes anchors away.
func (ungroundedStage) Satisfies(eval.Cond) consistency.Checks { return consistency.Checks{} }

// compileUngrounded: "[qualifier ]<glued><word>" then a number, at the
// start of the finding ("serum creatinine 150", "s-Cr: 180"); a term
// needs its glued prefix and no number ("low-MI imaging"). A vessel
// (site, the anatomy reader's vessel names) may stand between the name and
// the number: where a value was measured does not change what it is
// ("Fractional flow reserve LAD: 0.91", "FFR in the mid LAD 0.80").
func compileUngrounded(us []rules.UngroundedValue, site string) []*regexp.Regexp {
	at := ""
	if site != "" {
		at = `(?:[\s:,(-]*(?:(?:in|of|at)\s+)?(?:the\s+)?(?:` + site + `)\b\)?)?`
	}
	var out []*regexp.Regexp
	for _, u := range us {
		src := `(?i)^`
		if len(u.Qualifiers) > 0 {
			src += `(?:(?:` + rules.WordsPattern(u.Qualifiers) + `)\s+)?`
		}
		if u.Term {
			// A term: its glued prefix is what makes it one, no value.
			src += `(?:` + rules.WordsPattern(u.Glued) + `)(?:` + rules.WordsPattern(u.Words) + `)\b`
			out = append(out, regexp.MustCompile(src))
			continue
		}
		if len(u.Glued) > 0 {
			src += `(?:` + rules.WordsPattern(u.Glued) + `)?`
		}
		value := `\d`
		if len(u.Values) > 0 {
			// Only these values ground to nothing ("CAD-RADS N", "0"); the
			// scale's other grades state what they grade.
			value = `(?:` + rules.WordsPattern(u.Values) + `)\b`
		}
		src += `(?:` + rules.WordsPattern(u.Words) + `)\b` + at + `[\s:=]*(?:of\s+)?` + value
		out = append(out, regexp.MustCompile(src)) // literal words only: always compiles
	}
	return out
}

// ungrounded reports whether a finding is a measurement that grounds to
// nothing.
func (p *Program) ungrounded(finding string) bool {
	for _, re := range p.reading.ungrounded {
		if re.MatchString(finding) {
			return true
		}
	}
	return false
}
