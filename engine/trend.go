package engine

import "strings"

// trendArrows mark a change over time in shorthand: each side of one is a
// different time ("LVEF 42% (2022) -> 30% this admission", "ramipril ->
// sacubitril/valsartan"). Notation, not clinical words.
var trendArrows = []string{"-->", "->", "=>", "→"}

// arrowSide is the part of a finding's clause on the finding's own side of
// any trend arrow: the date on the other side dates the other state, so
// "(2022)" dates the 42% and "this admission" the 30%.
func arrowSide(clause, mention string) string {
	at := strings.Index(clause, mention)
	if at < 0 || !hasArrow(clause) {
		return clause
	}
	before, after := clause[:at], clause[at+len(mention):]
	for _, a := range trendArrows {
		if i := strings.LastIndex(before, a); i >= 0 {
			before = before[i+len(a):]
		}
		if i := strings.Index(after, a); i >= 0 {
			after = after[:i]
		}
	}
	return strings.TrimSpace(before + mention + after)
}

func hasArrow(s string) bool {
	for _, a := range trendArrows {
		if strings.Contains(s, a) {
			return true
		}
	}
	return false
}
