package engine

import (
	"regexp"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// Demographic findings are written in a handful of fixed shapes ("67yo",
// "78-year-old", "F") that carry little text for full-text or vector search
// to work with. When a whole finding has one of the pack's shapes
// (meta/reading.json demographics) and the pack tests the concept, the
// concept becomes the finding's first anchor.
type demographicShape struct {
	re      *regexp.Regexp
	concept string // concept name as the pack data writes it
	norm    string // normalised, to look its key up
	only    bool   // the finding grounds to this concept alone
	// after, before: the words one of which must stand right after or
	// before the finding (nil: the shape alone names the concept).
	after, before *regexp.Regexp
}

// compileDemographics compiles the pack's shapes: a pattern as written, a
// word list as the whole finding.
func compileDemographics(ds []rules.Demographic) ([]demographicShape, error) {
	var out []demographicShape
	for i, d := range ds {
		src := d.Pattern
		if src == "" {
			src = `^(?:` + rules.WordsPattern(d.Words) + `)$`
		}
		re, err := regexp.Compile(`(?i)` + src)
		if err != nil {
			return nil, locatedf("demographics[%d] (%s): not a valid pattern: %v", i, d.Concept, err)
		}
		sh := demographicShape{re: re, concept: d.Concept, norm: rules.NormalizeName(d.Concept), only: d.Only}
		if len(d.After) > 0 || d.Before != "" {
			// literal words: always compiles; one not given never matches
			sh.after, sh.before = regexp.MustCompile(`^\b\B`), regexp.MustCompile(`^\b\B`)
			if len(d.After) > 0 {
				sh.after = regexp.MustCompile(`(?i)^[ \t|/-]*(?:` + rules.WordsPattern(d.After) + `)\b`)
			}
			if d.Before != "" {
				if sh.before, err = regexp.Compile(`(?:` + d.Before + `)$`); err != nil {
					return nil, locatedf("demographics[%d] (%s): not a valid before pattern: %v", i, d.Concept, err)
				}
			}
		}
		out = append(out, sh)
	}
	return out, nil
}

// demographicStage names the demographic concept of a finding by its shape.
type demographicStage struct{}

func (demographicStage) Name() string          { return "demographics" }
func (demographicStage) Reads() read.Input     { return read.Finding }
func (demographicStage) Emits() []patient.Kind { return []patient.Kind{patient.KindDemographic} }

// Satisfies nothing: the reader only puts an anchor first; the evidence is
// the formatter's, judged by step (v) as any other.
func (demographicStage) Satisfies(eval.Cond) consistency.Checks { return consistency.Checks{} }

// demographicAnchor returns the anchor a demographic finding (text bytes
// start-end; start < 0: no text around it) must have first, if any, and
// whether it must be its only one.
func (p *Program) demographicAnchor(text string, start, end int, finding string) (a grounding.Anchor, only, ok bool) {
	for _, d := range p.reading.demographics {
		if key, ok := p.keys[d.norm]; ok && d.re.MatchString(finding) && d.beside(text, start, end) {
			return grounding.Anchor{Rank: 1, ConceptKey: key, Concept: d.concept, Score: 1, Channels: []string{"pattern"}}, d.only, true
		}
	}
	return grounding.Anchor{}, false, false
}

// beside: the words the shape needs stand right after or before the
// finding in the text (always, for a shape that needs none).
func (d demographicShape) beside(text string, start, end int) bool {
	if d.after == nil {
		return true
	}
	if start < 0 || end > len(text) || start > end {
		return false
	}
	return d.after.MatchString(text[end:]) || d.before.MatchString(text[:start])
}

// withDemographic puts a finding's demographic anchor first (alone when
// its shape says so).
func (p *Program) withDemographic(text string, start, end int, finding string, anchors []grounding.Anchor) []grounding.Anchor {
	a, only, ok := p.demographicAnchor(text, start, end, finding)
	switch {
	case !ok:
		return anchors
	case only:
		return []grounding.Anchor{a}
	}
	return withFirst(a, anchors)
}

// withFirst puts a first in the anchor list, dropping its duplicate.
func withFirst(a grounding.Anchor, list []grounding.Anchor) []grounding.Anchor {
	out := []grounding.Anchor{a}
	for _, x := range list {
		if x.ConceptKey != a.ConceptKey {
			out = append(out, x)
		}
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// listedValue: finding f is a bare number that continues a list of values
// in its sentence ("eGFR 48, 52", "eGFR 52 (06/2026), 65 (11/2026)"):
// only commas, brackets, digits and dates stand between it and the last
// finding that named a measure (prev, whose anchors are prevAnchors), so
// it is a further value of that measure, not an age.
func (p *Program) listedValue(text string, prev extract.Finding, prevAnchors []grounding.Anchor, f extract.Finding) bool {
	if prev.Start < 0 || f.Start < prev.End || f.Start > len(text) || strings.Trim(f.Text, "0123456789") != "" {
		return false
	}
	measure := len(prevAnchors) > 0 && len(p.units[prevAnchors[0].ConceptKey]) > 0
	if !measure && strings.Trim(prev.Text, "0123456789/.-") == "" {
		// The finding before is a value's date ("52 (06/2026)"): a value
		// stands right before it.
		b := strings.TrimRight(text[:prev.Start], " (")
		measure = b != "" && isDigit(b[len(b)-1])
	}
	if !measure {
		return false
	}
	between := text[prev.End:f.Start]
	return strings.Contains(between, ",") && strings.Trim(between, " \t,;()/0123456789") == ""
}
