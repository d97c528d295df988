package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// withoutGlossedState drops the anchors of the person's states
// (meta/reading.json glossed_states) that the finding text[start:end]
// names only inside a parenthesis right after another thing's words on
// its line: "ECG 12/01 (in clinic, symptom-free)" says the recording was
// made free of symptoms, "one run of SVT (asymptomatic)" what the run was
// like; neither says the person has no symptoms. A parenthesis after the
// person's words ("Mr A (asymptomatic)", "58M (asymptomatic)") still
// speaks of the patient, and so does a name of the state written outside
// one.
func (p *Program) withoutGlossedState(text string, start, end int, anchors []grounding.Anchor) []grounding.Anchor {
	if len(p.glossedStates) == 0 || start < 0 || end > len(text) || start >= end {
		return anchors
	}
	var kept []grounding.Anchor
	dropped := false
	for _, a := range anchors {
		if p.glossedStates[a.ConceptKey] && p.onlyInGloss(text, start, end, a) {
			dropped = true
			continue
		}
		kept = append(kept, a)
	}
	if !dropped {
		return anchors
	}
	return kept
}

// onlyInGloss: every name of the concept the finding writes, or the
// finding itself where it writes none, lies inside a parenthesis that
// glosses a thing before it on its line (glossesThing).
func (p *Program) onlyInGloss(text string, start, end int, a grounding.Anchor) bool {
	lower := strings.ToLower(text[start:end])
	found, outside := false, false
	p.eachName(a, func(_, nl string) {
		if nl == "" {
			return
		}
		for i := 0; i+len(nl) <= len(lower); {
			j := strings.Index(lower[i:], nl)
			if j < 0 {
				break
			}
			at := i + j
			i = at + 1
			if !wordEdge(lower, at-1) || !wordEdge(lower, at+len(nl)) {
				continue
			}
			found = true
			if !p.glossesThing(text, start+at) {
				outside = true
			}
		}
	})
	if !found {
		// The finding states the concept in words of its own
		// ("symptom-free"): judged where the finding is.
		return p.glossesThing(text, start)
	}
	return !outside
}

// wordEdge: byte i of s is outside it or no letter or digit.
func wordEdge(s string, i int) bool {
	if i < 0 || i >= len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError {
		r, _ = utf8.DecodeLastRuneInString(s[:i+1])
	}
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// glossesThing reports whether byte pos of text lies inside a parenthesis
// opened and closed on its line, right after words of the line (no
// other opening before them) that name no person (glossed_states
// persons).
func (p *Program) glossesThing(text string, pos int) bool {
	ls, le := extract.LineAt(text, pos)
	open := -1
	depth := 0
	for i := pos - 1; i >= ls; i-- {
		switch text[i] {
		case ')':
			depth++
		case '(':
			if depth == 0 {
				open = i
			} else {
				depth--
			}
		}
		if open >= 0 {
			break
		}
	}
	if open < 0 || !strings.Contains(text[pos:le], ")") {
		return false
	}
	before := strings.TrimRight(text[ls:open], " \t")
	if before == "" {
		return false
	}
	if r, _ := utf8.DecodeLastRuneInString(before); !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		return false
	}
	words := strings.FieldsFunc(strings.ToLower(before), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		for _, pw := range p.glossPersons {
			if w == pw {
				return false
			}
		}
	}
	if last := words[len(words)-1]; len(last) > 1 && strings.IndexFunc(last, unicode.IsDigit) == 0 {
		// "58M (asymptomatic)": an age with the sex letter is the person.
		if t := strings.TrimLeftFunc(last, unicode.IsDigit); len(t) == 1 && unicode.IsLetter(rune(t[0])) {
			return false
		}
	}
	return true
}

// glossedStateKeys: the concept keys of the pack's glossed states, and
// its person words lower-cased.
func (p *Program) glossedStateKeys() (map[string]bool, []string) {
	rs := p.pack.Reading
	if rs == nil || rs.GlossedStates == nil {
		return nil, nil
	}
	out := map[string]bool{}
	for _, n := range rs.GlossedStates.Concepts {
		if k, ok := p.keys[rules.NormalizeName(n)]; ok {
			out[k] = true
		}
	}
	var persons []string
	for _, w := range rs.GlossedStates.Persons {
		persons = append(persons, strings.ToLower(w))
	}
	return out, persons
}
