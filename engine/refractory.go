package engine

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/rules"
)

// ViaRefractory starts the Via (trace text) of an item read from symptoms
// stated to persist despite therapy.
const ViaRefractory = "refractory: "

// refractoryVocab is the pack's refractory vocabulary (meta/reading.json
// refractory) compiled: "<symptom> ... <link> ... <therapy>" within one
// sentence, the symptom at most 80 characters before the link and the
// therapy at most 60 after it. The therapy must be named; words the pack
// lists as other therapies ("despite aspirin") make the statement say
// nothing of the therapy the symptom persists on.
type refractoryVocab struct {
	re, not *regexp.Regexp
	// adjacent: "<symptom> ... <adjacent link> <therapy>", the therapy
	// right after the link; notPersisting: words between the symptom and
	// such a link that say the symptom is controlled or the therapy new.
	adjacent, notPersisting *regexp.Regexp
	// concepts each symptom word (lower case) gives.
	concepts map[string][]string
}

func compileRefractory(r *rules.Refractory) (*refractoryVocab, error) {
	if r == nil {
		return nil, nil
	}
	v := &refractoryVocab{concepts: map[string][]string{}}
	var sym []string
	for _, g := range r.Symptoms {
		for _, w := range g.Words {
			sym = append(sym, w)
			v.concepts[strings.ToLower(w)] = g.Concepts
		}
	}
	src := `(?i)\b(` + rules.WordsPattern(sym) + `)\b[^.;]{0,80}?\b(` + rules.WordsPattern(r.Links) + `)\b[^.;]{0,60}?\b(` +
		rules.WordsPattern(r.Therapies) + `)\b`
	var err error
	if v.re, err = regexp.Compile(src); err != nil {
		return nil, fmt.Errorf("%s: refractory: the words make no valid pattern: %w", rules.ReadingFile, err)
	}
	if len(r.AdjacentLinks) > 0 {
		src := `(?i)\b(` + rules.WordsPattern(sym) + `)\b[^.;]{0,80}?\b(` + rules.WordsPattern(r.AdjacentLinks) + `)\s+(` +
			rules.WordsPattern(r.Therapies) + `)\b`
		if v.adjacent, err = regexp.Compile(src); err != nil {
			return nil, fmt.Errorf("%s: refractory.adjacent_links: the words make no valid pattern: %w", rules.ReadingFile, err)
		}
	}
	if len(r.NotPersisting) > 0 {
		if v.notPersisting, err = regexp.Compile(`(?i)\b(?:` + rules.WordsPattern(r.NotPersisting) + `)\b`); err != nil {
			return nil, fmt.Errorf("%s: refractory.not_persisting: the words make no valid pattern: %w", rules.ReadingFile, err)
		}
	}
	if len(r.NotTherapies) > 0 {
		if v.not, err = regexp.Compile(`(?i)\b(?:` + rules.WordsPattern(r.NotTherapies) + `)\b`); err != nil {
			return nil, fmt.Errorf("%s: refractory.not_therapies: the words make no valid pattern: %w", rules.ReadingFile, err)
		}
	}
	return v, nil
}

// refractoryStage reads symptoms stated to persist despite therapy.
type refractoryStage struct{ p *Program }

func (refractoryStage) Name() string          { return "refractory" }
func (refractoryStage) Reads() read.Input     { return read.Text }
func (refractoryStage) Emits() []patient.Kind { return []patient.Kind{patient.KindProblem} }

// Satisfies: symptoms persisting despite named therapy state the
// refractoriness the condition's qualifiers ask for, and need no stated
// absence.
func (refractoryStage) Satisfies(eval.Cond) consistency.Checks {
	return consistency.Checks{Qualifier: true, Absence: true}
}

func (r refractoryStage) Read(c *read.Case) []patient.Fact {
	return r.p.refractoryEvidence(r, c.Text, c.Findings)
}

// refractoryEvidence reads "angina despite bisoprolol 10 mg, amlodipine
// 10 mg" or "CCS class III on three antianginals" as the concepts the
// pack's symptom group gives (symptoms refractory to therapy, symptomatic,
// and for an angina word inadequately controlled angina). A negated,
// planned or relative's finding gives nothing.
func (p *Program) refractoryEvidence(r read.Reader, text string, findings []extract.Finding) []patient.Fact {
	v := p.reading.refractory
	if v == nil {
		return nil
	}
	var out []patient.Fact
	done := map[string]bool{}
	matches := v.re.FindAllStringSubmatchIndex(text, -1)
	if v.adjacent != nil {
		for _, m := range v.adjacent.FindAllStringSubmatchIndex(text, -1) {
			// "angina well controlled on bisoprolol" or "angina,
			// started on nicorandil" is no refractory symptom.
			if v.notPersisting == nil || !v.notPersisting.MatchString(text[m[3]:m[4]]) {
				matches = append(matches, m)
			}
		}
	}
	for _, m := range matches {
		span := text[m[0]:m[1]]
		// Other therapies count only after the link ("despite aspirin"):
		// "angina after CABG despite a beta-blocker" persists on the
		// beta-blocker.
		link := text[m[4]:m[1]]
		if v.not != nil && v.not.MatchString(link) {
			continue
		}
		f := findingAt(findings, m[2])
		if f == nil || !asserted(text, *f) {
			continue
		}
		for _, c := range v.concepts[strings.ToLower(text[m[2]:m[3]])] {
			key, ok := p.keys[rules.NormalizeName(c)]
			if !ok || done[key] {
				continue
			}
			done[key] = true
			e := eval.Evidence{ID: f.ID, ConceptKey: key, Concept: p.names[key], Text: f.Text, Present: true,
				Via: ViaRefractory + "'" + span + "' (" + rules.ReadingFile + " refractory)"}
			out = append(out, read.Fact(r, patient.KindProblem, e, patient.Span{Start: m[0], End: m[1]}))
		}
	}
	return out
}
