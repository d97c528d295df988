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
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/grounding/textnorm"
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
	// concepts each symptom word (lower case) gives.
	concepts map[string][]string
	// near: "<symptom> <bare link> <therapy>" side by side (rules.RefractoryNear);
	// nearGives the concepts (keys normalised) such a statement may give;
	// undo the words after the symptom that take it back.
	near, undo *regexp.Regexp
	nearGives  map[string]bool
	// after: "<therapy> ... <outcome>" (rules.RefractoryAfter), giving
	// afterGives' concepts at the therapy's finding.
	after      *regexp.Regexp
	afterGives []string
	// before: "<link> ... <therapy> ... <symptom>" (rules.RefractoryBefore),
	// the symptom's group's concepts at the symptom's finding.
	before *regexp.Regexp
	// links, nearLinks and outcomes are the link words of re and near
	// and the outcome words of after as mayHold reads them: a text
	// holding none cannot match (nil: always run).
	links, nearLinks, outcomes, beforeLinks []string
	// split: no word of the patterns holds "." or ";", so no match does
	// (the gaps between the words exclude both), and the patterns may be
	// run on each stretch of text between them (sentenceMatches).
	split bool
}

// literalWords are words of a WordsPattern for mayHold (lower case, a
// trailing "*" cut); nil when one is not plain ASCII, whose case folding
// mayHold does not copy.
func literalWords(ws []string) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		w = strings.ToLower(strings.TrimSuffix(w, "*"))
		for i := 0; i < len(w); i++ {
			if w[i] >= 0x80 {
				return nil
			}
		}
		if w == "" {
			return nil
		}
		out = append(out, w)
	}
	return out
}

// mayMatch: the text may hold one of the link words (always when words is nil).
func mayMatch(text string, words []string) bool { return words == nil || mayHold(text, words) }

// sentenceMatches is re.FindAllStringSubmatchIndex(text, -1) for a
// refractory pattern that only runs where the text may hold one of words.
// With split, no match holds "." or ";", so the pattern is run on each
// stretch between them that may hold one of the words (a boundary \b
// reads the same there: the byte before or after a stretch is no word
// byte), and a letter's sentences without a link word cost no scan.
func sentenceMatches(re *regexp.Regexp, text string, words []string, split bool) [][]int {
	if !split {
		if !mayMatch(text, words) {
			return nil
		}
		return re.FindAllStringSubmatchIndex(text, -1)
	}
	var out [][]int
	for lo := 0; lo < len(text); {
		hi := strings.IndexAny(text[lo:], ".;")
		if hi < 0 {
			hi = len(text)
		} else {
			hi += lo
		}
		if s := text[lo:hi]; s != "" && mayMatch(s, words) {
			for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
				for k := range m {
					if m[k] >= 0 {
						m[k] += lo
					}
				}
				out = append(out, m)
			}
		}
		lo = hi + 1
	}
	return out
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
	v.links = literalWords(r.Links)
	v.split = true
	for _, ws := range [][]string{sym, r.Links, r.Therapies} {
		for _, w := range ws {
			v.split = v.split && !strings.ContainsAny(w, ".;")
		}
	}
	src := `(?i)\b(` + rules.WordsPattern(sym) + `)\b[^.;]{0,80}?\b(` + rules.WordsPattern(r.Links) + `)\b[^.;]{0,60}?\b(` +
		rules.WordsPattern(r.Therapies) + `)\b`
	var err error
	if v.re, err = regexp.Compile(src); err != nil {
		return nil, fmt.Errorf("%s: refractory: the words make no valid pattern: %w", rules.ReadingFile, err)
	}
	if len(r.NotTherapies) > 0 {
		if v.not, err = regexp.Compile(`(?i)\b(?:` + rules.WordsPattern(r.NotTherapies) + `)\b`); err != nil {
			return nil, fmt.Errorf("%s: refractory.not_therapies: the words make no valid pattern: %w", rules.ReadingFile, err)
		}
	}
	if n := r.Near; n != nil {
		// Only spaces, commas or hyphens between symptom and link, and at
		// most a dose word ("low-dose") between link and therapy.
		v.nearLinks = literalWords(n.Links)
		for _, w := range n.Links {
			v.split = v.split && !strings.ContainsAny(w, ".;")
		}
		src := `(?i)\b(` + rules.WordsPattern(sym) + `)[\s,\-]{1,3}(` + rules.WordsPattern(n.Links) + `)\b[^.;,]{0,15}?\b(` +
			rules.WordsPattern(r.Therapies) + `)\b`
		if v.near, err = regexp.Compile(src); err != nil {
			return nil, fmt.Errorf("%s: refractory.near: the words make no valid pattern: %w", rules.ReadingFile, err)
		}
		if len(n.Undo) > 0 {
			if v.undo, err = regexp.Compile(`(?i)\b(?:` + rules.WordsPattern(n.Undo) + `)\b`); err != nil {
				return nil, fmt.Errorf("%s: refractory.near.undo: the words make no valid pattern: %w", rules.ReadingFile, err)
			}
		}
		v.nearGives = map[string]bool{}
		for _, c := range n.Concepts {
			v.nearGives[rules.NormalizeName(c)] = true
		}
	}
	if a := r.After; a != nil {
		src := `(?i)\b(` + rules.WordsPattern(r.Therapies) + `)\b[^.;]{0,60}?\b(` + rules.WordsPattern(a.Outcomes) + `)\b`
		if v.after, err = regexp.Compile(src); err != nil {
			return nil, fmt.Errorf("%s: refractory.after: the words make no valid pattern: %w", rules.ReadingFile, err)
		}
		v.afterGives = a.Concepts
		for _, w := range a.Outcomes {
			v.split = v.split && !strings.ContainsAny(w, ".;")
		}
		if len(a.Outcomes) > 0 { // none: the pattern's empty group matches anywhere
			v.outcomes = literalWords(a.Outcomes)
		}
	}
	if b := r.Before; b != nil {
		src := `(?i)\b(` + rules.WordsPattern(b.Links) + `)\b[^.;]{0,60}?\b(` + rules.WordsPattern(r.Therapies) + `)\b[^.;]{0,80}?\b(` +
			rules.WordsPattern(sym) + `)\b`
		if v.before, err = regexp.Compile(src); err != nil {
			return nil, fmt.Errorf("%s: refractory.before: the words make no valid pattern: %w", rules.ReadingFile, err)
		}
		for _, w := range b.Links {
			v.split = v.split && !strings.ContainsAny(w, ".;")
		}
		v.beforeLinks = literalWords(b.Links)
	}
	return v, nil
}

// sentenceEnd is where the sentence holding pos ends (its full stop,
// semicolon or line break), or the end of text.
func sentenceEnd(text string, pos int) int {
	if i := strings.IndexAny(text[pos:], ".;\n"); i >= 0 {
		return pos + i
	}
	return len(text)
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
	type match struct {
		m                   []int
		near, after, before bool
	}
	var ms []match
	for _, m := range sentenceMatches(v.re, text, v.links, v.split) {
		ms = append(ms, match{m: m})
	}
	if v.near != nil {
		for _, m := range sentenceMatches(v.near, text, v.nearLinks, v.split) {
			ms = append(ms, match{m: m, near: true})
		}
	}
	if v.after != nil {
		for _, m := range sentenceMatches(v.after, text, v.outcomes, v.split) {
			ms = append(ms, match{m: m, after: true})
		}
	}
	if v.before != nil {
		for _, m := range sentenceMatches(v.before, text, v.beforeLinks, v.split) {
			// The symptom's group reads as in "<symptom> <link>
			// <therapy>": [2, 3] the symptom, [4, 5] the link to the
			// therapy's end.
			ms = append(ms, match{m: []int{m[0], m[1], m[6], m[7], m[2], m[5]}, before: true})
		}
	}
	for _, mm := range ms {
		m := mm.m
		span := text[m[0]:m[1]]
		if mm.after {
			// The therapy is named first: "amlodipine and ISMN with
			// little benefit" says the symptom it treats persists, unless
			// the therapy is one the pack says is none ("aspirin").
			if v.not != nil && v.not.MatchString(text[m[2]:m[3]]) {
				continue
			}
			f := findingAt(findings, m[2])
			if f == nil || !asserted(text, *f) || conditional(text, *f, text[m[2]:m[3]]) {
				continue
			}
			for _, c := range v.afterGives {
				key, ok := p.keys[rules.NormalizeName(c)]
				if !ok || done[key] {
					continue
				}
				done[key] = true
				e := eval.Evidence{ID: f.ID, ConceptKey: key, Concept: p.names[key], Text: f.Text, Present: true,
					Via: ViaRefractory + "'" + span + "' (" + rules.ReadingFile + " refractory.after)"}
				out = append(out, read.Fact(r, patient.KindProblem, e, patient.Span{Start: m[0], End: m[1]}))
			}
			continue
		}
		// Other therapies count only after the link ("despite aspirin"):
		// "angina after CABG despite a beta-blocker" persists on the
		// beta-blocker.
		link := text[m[4]:m[1]]
		if mm.before {
			link = text[m[4]:m[5]]
		}
		if v.not != nil && v.not.MatchString(link) {
			continue
		}
		if (mm.near || mm.before) && v.undo != nil && v.undo.MatchString(text[m[2]:sentenceEnd(text, m[2])]) {
			continue
		}
		f := findingAt(findings, m[2])
		if f == nil || !asserted(text, *f) || conditional(text, *f, text[m[2]:m[3]]) {
			continue
		}
		for _, c := range v.concepts[strings.ToLower(text[m[2]:m[3]])] {
			if mm.near && !v.nearGives[rules.NormalizeName(c)] {
				continue
			}
			key, ok := p.keys[rules.NormalizeName(c)]
			if !ok || done[key] {
				continue
			}
			done[key] = true
			field := "refractory"
			switch {
			case mm.near:
				field = "refractory.near"
			case mm.before:
				field = "refractory.before"
			}
			e := eval.Evidence{ID: f.ID, ConceptKey: key, Concept: p.names[key], Text: f.Text, Present: true,
				Via: ViaRefractory + "'" + span + "' (" + rules.ReadingFile + " " + field + ")"}
			out = append(out, read.Fact(r, patient.KindProblem, e, patient.Span{Start: m[0], End: m[1]}))
		}
	}
	return out
}

// conditional reports whether the words at the reader's match (the
// symptom, or the therapy named first) are spoken of as a condition or a
// future inside the finding ("ICA if symptoms not controlled on
// medication", "add a second drug should pain persist despite the
// first"): a condition of a plan states no symptom the patient has. A
// condition followed by a habitual clause stays present (step (v)'s
// hypothetical reading: "if he walks fast he gets pain despite ...").
func conditional(text string, f extract.Finding, words string) bool {
	return consistency.Shared(text).AnalyzeAt(f.Text, words).Hypothetical
}

// withoutSymptomlessRefractory drops the anchors of the concepts the
// refractory reader gives (meta/reading.json refractory.symptoms) from a
// mention that names none of the reader's symptom words, none of its
// symptom equivalents (refractory.equivalents) and none of the concept's
// own wordings: what persists despite therapy must be a symptom,
// so "LVEF <=35% despite >3 months GDMT" states the therapy, not symptoms
// refractory to it. A symptom word is matched at a word's start
// ("symptom" in "symptomatic").
func (p *Program) withoutSymptomlessRefractory(mention string, anchors []grounding.Anchor) []grounding.Anchor {
	r := p.pack.Reading
	if r == nil || r.Refractory == nil || len(anchors) == 0 {
		return anchors
	}
	given := map[string]bool{}
	for _, g := range r.Refractory.Symptoms {
		for _, c := range g.Concepts {
			if k, ok := p.keys[rules.NormalizeName(c)]; ok {
				given[k] = true
			}
		}
	}
	hit := false
	for _, a := range anchors {
		if given[a.ConceptKey] {
			hit = true
			break
		}
	}
	if !hit {
		return anchors
	}
	low := " " + strings.ToLower(mention)
	for _, g := range r.Refractory.Symptoms {
		for _, w := range g.Words {
			if wordStartIn(low, strings.ToLower(w)) {
				return anchors
			}
		}
	}
	for _, w := range r.Refractory.Equivalents {
		if wordStartIn(low, strings.ToLower(w)) {
			return anchors
		}
	}
	hay := " " + textnorm.Normalize(mention) + " "
	kept := anchors[:0:0]
	for _, a := range anchors {
		if given[a.ConceptKey] && !p.statesWording(hay, a.ConceptKey) {
			continue
		}
		kept = append(kept, a)
	}
	return kept
}

// wordStartIn reports whether w occurs in s (lower case, led by a space)
// starting at a word's start.
func wordStartIn(s, w string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return false
		}
		i += from
		if i == 0 || !isWordByte(s[i-1]) {
			return true
		}
		from = i + 1
	}
}

// statesWording reports whether hay (a normalised mention) states one of the
// concept's own wordings word for word.
func (p *Program) statesWording(hay, key string) bool {
	for _, n := range append([]string{p.names[key]}, p.phrases[key]...) {
		if w := textnorm.Normalize(n); w != "" && containsWords(hay, w) {
			return true
		}
	}
	return false
}
