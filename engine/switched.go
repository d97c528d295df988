package engine

import "strings"

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
		return 0
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
