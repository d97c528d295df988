package engine

import (
	"strings"

	"github.com/executablekg/execkg/engine/eval"
)

// ownClauseEnd: where a drug's own clause ends after its name, before the
// next drug of a list ("Atorvastatin 80 mg - max dose; ezetimibe 10 mg
// added today", "bisoprolol 5 + amlodipine 5 started today"): notation,
// not clinical words.
func ownClauseEnd(s string) int {
	end := len(s)
	for _, stop := range []string{";", ",", ". ", "+", "\n", " and ", " & "} {
		if i := strings.Index(s, stop); i >= 0 && i < end {
			end = i
		}
	}
	return end
}

// begunNow returns the words of a medication finding that begin the drug
// in this document (meta/reading.json begun_now), or "": a cue in the
// drug's own clause after its name ("ezetimibe 10 mg added today",
// "Bisoprolol 2.5 mg OD (NEW)"), or a cue right before its name with a
// now word after it ("Adding ezetimibe 10 mg daily today"). The drug is
// taken from now on, but has no course yet whose result a row judges
// (rules.Window.Course): "ezetimibe 10 mg od (added 01/25)" is a course.
func (p *Program) begunNow(words string, names []string) string {
	if p.reading.begunAfter == nil || len(names) == 0 {
		return ""
	}
	lower := strings.ToLower(words)
	first, last := -1, -1
	for _, n := range names {
		for _, sp := range namedAll(lower, words, n) {
			if first < 0 || sp[0] < first {
				first, last = sp[0], sp[1]
			}
		}
	}
	if first < 0 {
		return ""
	}
	after := words[last:]
	after = after[:ownClauseEnd(after)]
	if m := p.reading.begunAfter.FindStringIndex(after); m != nil {
		return after[m[0]:m[1]]
	}
	if p.reading.begunBefore == nil || p.reading.now == nil {
		return ""
	}
	before := words[:first]
	if k := strings.LastIndexAny(before, ",;:(."); k >= 0 {
		before = before[k+1:]
	}
	if m := p.reading.begunBefore.FindStringIndex(before); m != nil && strings.TrimSpace(before[m[1]:]) == "" && p.reading.now.MatchString(after) {
		return strings.TrimSpace(before[m[0]:]) + " … " + strings.TrimSpace(p.reading.now.FindAllString(after, 1)[0])
	}
	return ""
}

// begunThroughout marks begun every present, undated mention of a drug
// the document begins or raises now (keys): the start is the document's
// word on when the course of it begins, so "on ezetimibe" elsewhere in
// the letter is no course whose result a row can judge. A mention dated
// to the past ("ezetimibe since 2022") keeps its course.
func begunThroughout(ev []eval.Evidence, keys map[string]bool) []eval.Evidence {
	if len(keys) == 0 {
		return ev
	}
	for i := range ev {
		if e := &ev[i]; keys[e.ConceptKey] && e.Present && e.When == nil && e.Value == nil {
			e.Begun = true
		}
	}
	return ev
}
