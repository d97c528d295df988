package engine

import (
	"strings"

	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/grounding"
)

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

// dateGap is what may stand between a value and its continuation: space,
// punctuation and a date in numbers ("(2020), ", " (2019: ").
const dateGap = " \t,;:()/0123456789"

// bareDate: a finding that is only a date or number in numbers ("2020",
// "03/2019").
func bareDate(s string) bool {
	return strings.TrimSpace(s) != "" && strings.Trim(s, dateGap+".-") == ""
}

// datedValue: a value opened by its date and a colon ("2019: 30%").
func datedValue(s string) bool {
	c := strings.IndexByte(s, ':')
	return c > 0 && bareDate(s[:c]) && strings.ContainsAny(s[c:], "0123456789")
}

func hasArrow(s string) bool {
	for _, a := range trendArrows {
		if strings.Contains(s, a) {
			return true
		}
	}
	return false
}

// continuedMeasure: a finding that is only a value opened by an arrow or a
// now word ("BMI 41, now 29", "LVEF 35% (2020), now 50%", "LVEF 42% (2022)
// -> 30% this admission") states a later value of the measure the finding
// right before it names (a bare date between them aside); one right after
// the measure's bare name and a date is its value ("LVEF (2019: 30%)"); the splitter cut the measure's name off. It returns
// that measure's anchor. The later value then supersedes the earlier one
// (supersede: a now word, or a date).
func (p *Program) continuedMeasure(text string, prev extract.Finding, prevAnchors []grounding.Anchor, f extract.Finding, anchors []grounding.Anchor) (grounding.Anchor, bool) {
	if prev.Start < 0 || f.Start < prev.End || f.Start > len(text) || len(prevAnchors) == 0 {
		return grounding.Anchor{}, false
	}
	a := prevAnchors[0]
	if len(p.units[a.ConceptKey]) == 0 || strings.Trim(text[prev.End:f.Start], dateGap) != "" && !hasArrow(text[prev.End:f.Start]) {
		return grounding.Anchor{}, false
	}
	for _, b := range anchors {
		if len(p.units[b.ConceptKey]) > 0 {
			return grounding.Anchor{}, false // it names a measure of its own
		}
	}
	rest := strings.TrimSpace(f.Text)
	arrow := false
	for _, ar := range trendArrows {
		if strings.HasPrefix(rest, ar) {
			rest, arrow = strings.TrimSpace(rest[len(ar):]), true
			break
		}
	}
	d := strings.IndexAny(rest, "0123456789")
	if d < 0 {
		return grounding.Anchor{}, false
	}
	lead := strings.TrimSpace(rest[:d])
	arrow = arrow || hasArrow(text[prev.End:f.Start])
	switch {
	case lead == "" && arrow:
	case lead == "" && !strings.ContainsAny(prev.Text, "0123456789") && !bareDate(f.Text) &&
		(strings.ContainsAny(text[prev.End:f.Start], "0123456789") || datedValue(rest)):
		// "LVEF (2019: 30%)": the measure named without a value, its
		// value after a date.
	case lead != "" && len(strings.Fields(lead)) <= 3 && (p.reading.now != nil && p.reading.now.MatchString(lead) ||
		p.reading.later != nil && p.reading.later.MatchString(lead)):
	default:
		return grounding.Anchor{}, false
	}
	return a, true
}
