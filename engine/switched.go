package engine

import (
	"strings"
	"time"

	"github.com/executablekg/execkg/engine/extract"
)

// switchRole reads a done change of drug in a medication finding's words
// (reading.json switched): -1 when the drug the names locate was the one
// stopped (named between the cue and the first "to" word), +1 when it is
// the one taken now (named right after that word), 0 when the words state no
// switch of it or a not-taken cue before the switch makes it a plan
// ("will be switched").
func (p *Program) switchRole(words string, names []string) int {
	r := p.reading
	if r.switched == nil || r.switchedTo == nil {
		return 0
	}
	m := r.switched.FindStringIndex(words)
	if m == nil || r.notTakenIn(words[:m[0]]) {
		return 0
	}
	to := r.switchedTo.FindStringIndex(words[m[1]:])
	if to == nil {
		return p.switchedFromRole(words, m, names)
	}
	toStart, toEnd := m[1]+to[0], m[1]+to[1]
	lower := strings.ToLower(words)
	role := 0
	for _, n := range names {
		for _, sp := range namedAll(lower, words, n) {
			switch {
			case sp[0] >= toEnd && len(strings.Fields(words[toEnd:sp[0]])) <= 2:
				// the drug switched to, right after the word ("to
				// low-dose ticagrelor"); one named later ("due to
				// clopidogrel resistance") is no target
				return 1
			case sp[0] >= m[1] && sp[1] <= toStart:
				role = -1
			}
		}
	}
	return role
}

// switchedFromRole reads a switch with no "to" word whose cue is followed
// by a from word (reading.json switched.from): the drug named before the
// cue is the one taken now, one named after the from word the one stopped
// ("ticagrelor 90 mg bd (switched from clopidogrel)", a medication list's
// item). m is the cue's span in words.
func (p *Program) switchedFromRole(words string, m []int, names []string) int {
	r := p.reading
	if r.switchedFrom == nil {
		return 0
	}
	from := r.switchedFrom.FindStringIndex(words[m[1]:])
	if from == nil {
		return p.switchedDirectRole(words, m, names)
	}
	fromEnd := m[1] + from[1]
	lower := strings.ToLower(words)
	role := 0
	for _, n := range names {
		for _, sp := range namedAll(lower, words, n) {
			switch {
			case sp[1] <= m[0]:
				role = 1
			case sp[0] >= fromEnd && role == 0:
				role = -1
			}
		}
	}
	return role
}

// switchedDirectRole reads a switch with neither a to nor a from word
// whose cue takes the drug stopped as its object (reading.json
// switched.direct): a drug named right after the cue (at most two words
// on) is the one stopped, one named before the cue the one taken now
// ("amlodipine 10 mg (replaced diltiazem in 2024)").
func (p *Program) switchedDirectRole(words string, m []int, names []string) int {
	r := p.reading
	if r.switchedDirect == nil || !r.switchedDirect.MatchString(strings.TrimSpace(words[m[0]:m[1]])) {
		return 0
	}
	lower := strings.ToLower(words)
	role := 0
	for _, n := range names {
		for _, sp := range namedAll(lower, words, n) {
			switch {
			case sp[0] >= m[1] && len(strings.Fields(words[m[1]:sp[0]])) <= 2:
				return -1
			case sp[1] <= m[0]:
				role = 1
			}
		}
	}
	return role
}

// switchOrder reports whether a finding that switches away from its drug
// is the document's order to switch now (reading.json switched: 'Plan:
// switch warfarin to rivaroxaban'): the switch cue opens the finding, no
// negation comes right before it, and neither its sentence before it nor
// its clause names a time to come. The order stops the drug switched
// from, as a stop order does (stopSupersede), so the list's reading of it
// is what the patient took until now.
func (p *Program) switchOrder(text string, f extract.Finding, clause string, date time.Time) bool {
	r := p.reading
	if r.switchOrder == nil || !r.switchOrder.MatchString(f.Text) {
		return false
	}
	before := ""
	if f.Start > 0 && f.Start <= len(text) {
		before = text[strings.LastIndexAny(text[:f.Start], ".;\n")+1 : f.Start]
	}
	if r.stopOrderNegated != nil && r.stopOrderNegated.MatchString(before) || r.notTakenIn(before) {
		return false
	}
	if laterOrder.MatchString(before) || laterOrder.MatchString(clause) {
		return false
	}
	if w := p.whenOf(clause, date); w != nil && w.From.After(noon(date)) {
		return false
	}
	return true
}
