package fulltext

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/executablekg/execkg/grounding/textnorm"
)

// units that may follow a number in a finding; longest first so
// "mL/min/1.73 m2" is removed whole. Text is folded (lower case, ² → 2)
// before matching.
const unitPattern = `ml/min/1[.,]73\s*m\^?2|ml/min|mmol/l|mmol/mol|mg/dl|mg/l|ng/l|ng/ml|pg/ml|umol/l|` +
	`kg/m\^?2|g/dl|g/l|mm\s?hg|bpm|beats?/min|/min|min/week|minutes?|mins?|hours?|hrs?|h|days?|d|` +
	`weeks?|wks?|months?|mo|years?\s+old|years?|yrs?|y/o|yo|y|ms|mv|mm|cm|kg|mg|ug|mcg|g|ml|l|iu|units?|au|points?|x`

// numberRe matches an optional comparator, a number or range, and an
// optional unit.
var numberRe = regexp.MustCompile(`(?:(?:<=|>=|=<|=>|!=|<|>|=|~|\+/-)\s*)?[-+]?\b\d+(?:[.,]\d+)?(?:\s*(?:-|to|and)\s*\d+(?:[.,]\d+)?)?(?:\s*%|\s*(?:` + unitPattern + `)\b)?`)

// comparatorTail matches a comparator or linking word left just before a
// removed number ("LVEF of 37%", "eGFR below 30").
var comparatorTail = regexp.MustCompile(`(?:\b(?:greater|more|less|lower|higher|bigger|smaller)\s+than|\bat\s+(?:least|most)|\bup\s+to|\bequal\s+to|\b(?:above|below|over|under|exceeding|within|of|is|was|about|approximately|around|measured\s+at|measuring|reaching|reduced\s+to|increased\s+to|at)|[:=])\s*$`)

// keepBefore are words after which a number is part of a name (type 2
// diabetes, class 3, stage 4 CKD), not a value.
var keepBefore = map[string]bool{
	"type": true, "grade": true, "stage": true, "class": true, "phase": true,
	"lead": true, "leads": true, "part": true, "factor": true, "degree": true,
}

// negationRe matches negation cues as whole words. Prefixes such as "non-"
// stay: non-obstructive and non-diagnostic are concept words.
var negationRe = regexp.MustCompile(`\b(?:no\s+(?:evidence|signs?|history|symptoms?)\s+of|negative\s+for|absence\s+of|free\s+of|ruled\s+out|rules\s+out|no|not|without|w/o|denies|denied|deny|denying|never|nor|none|absent|excluded|neither)\b`)

// edgeWords are connectors left dangling at either end once values and
// negations are gone.
var edgeWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "with": true, "and": true, "or": true,
	"at": true, "is": true, "was": true, "has": true, "had": true, "to": true, "in": true,
	"on": true, "for": true, "by": true, "but": true, "as": true, "be": true, "are": true,
	"were": true, "value": true, "measured": true, "within": true,
}

// QueryText turns a patient finding into grounding query text: negation
// cues, numbers with their comparators and units, and dangling connectors
// are removed, so "no eGFR below 30 mL/min/1.73 m²" and "eGFR of 24" both
// search for "egfr". Numbers that are part of a name (type 2 diabetes,
// 12-lead ECG, CHA2DS2-VASc) are kept. The result is folded to lower case
// (textnorm.Fold) but keeps hyphens and slashes; both channels normalise it
// further.
func QueryText(finding string) string {
	s := textnorm.Fold(finding)

	// Remove numbers right to left, so earlier offsets stay valid. Every
	// match holds a digit.
	var locs [][]int
	if strings.ContainsAny(s, "0123456789") {
		locs = numberRe.FindAllStringIndex(s, -1)
	}
	s = dropNumbers(s, locs)
	if hasNegationWord(s) {
		s = negationRe.ReplaceAllString(s, " ")
	}

	// Stray comparator symbols and punctuation at word edges.
	words := strings.Fields(s)
	out := words[:0]
	for _, w := range words {
		w = strings.Trim(w, "<>=!~:;,.?()[]{}\"'/+*")
		if w == "" || w == "-" {
			continue
		}
		out = append(out, w)
	}
	for len(out) > 0 && edgeWords[out[0]] {
		out = out[1:]
	}
	for len(out) > 0 && edgeWords[out[len(out)-1]] {
		out = out[:len(out)-1]
	}
	return strings.Join(out, " ")
}

// negationStarts are the words a negationRe match starts with ("w" of
// "w/o"): every match begins with one of them as a whole regexp word.
var negationStarts = map[string]bool{
	"no": true, "negative": true, "absence": true, "free": true, "ruled": true, "rules": true,
	"not": true, "without": true, "w": true, "denies": true, "denied": true, "deny": true,
	"denying": true, "never": true, "nor": true, "none": true, "absent": true,
	"excluded": true, "neither": true,
}

// hasNegationWord reports whether s has a word (a run of regexp word
// characters, [0-9A-Za-z_]) that can start a negationRe match, so the
// regexp runs only where it may match.
func hasNegationWord(s string) bool {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isRegexpWord(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && negationStarts[s[start:i]] {
			return true
		}
		start = -1
	}
	return false
}

func isRegexpWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[len(f)-1], "-,;:()")
}

func isWordByte(c byte) bool { return isLetter(c) || (c >= '0' && c <= '9') }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' }

// dropNumbers removes the number matches at locs (numberRe's, in order)
// right to left, so earlier offsets stay valid; numbers that are part of
// a word, an ordinal or a kept name stay.
func dropNumbers(s string, locs [][]int) string {
	for i := len(locs) - 1; i >= 0; i-- {
		a, b := locs[i][0], locs[i][1]
		d := a // first digit of the match
		for d < b && !unicode.IsDigit(rune(s[d])) {
			d++
		}
		if d == a && d > 0 && isWordByte(s[d-1]) {
			continue // digit inside a word: cha2ds2, hba1c
		}
		if b < len(s) && (isWordByte(s[b]) || (s[b] == '-' && b+1 < len(s) && isLetter(s[b+1]))) {
			continue // 2nd, 12-lead, 3-vessel
		}
		if keepBefore[lastWord(s[:a])] {
			continue
		}
		if m := comparatorTail.FindStringIndex(s[:a]); m != nil {
			a = m[0]
		}
		s = s[:a] + " " + s[b:]
	}
	return s
}
