// Package evidence is step (iv): a finding and one of its concept anchors
// become structured evidence {concept, present, value, unit, comparator}.
// The deterministic formatter parses number, unit and comparator from the
// patient's own words; it never invents a value.
package evidence

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/executablekg/execkg/rules/units"
)

// Measure is one number read from a mention, with its unit as written
// (Unit) and canonical (Canon), and a comparator when the value is stated
// as a bound ("LVEF < 35%", "eGFR below 30").
type Measure struct {
	Value      float64
	Unit       string
	Canon      string
	Comparator string
	Start, End int
}

// Units recognised after a number, longest first so "mL/min/1.73 m²" is
// not read as "mL". Spellings are folded by units.Canonical afterwards.
var unitPatterns = []string{
	`ml\s*/\s*min(?:ute)?\s*(?:/|per)\s*1[.,]73\s*(?:m\s*(?:²|\^?2)|sq\.?\s*m)`,
	`ml\s*/\s*min`,
	`kg\s*/\s*m\s*(?:²|\^?2)`,
	`mmol\s*/\s*mol`, `mmol\s*/\s*l`, `mg\s*/\s*dl`, `µmol\s*/\s*l`, `umol\s*/\s*l`, `mg\s*/\s*l`, `g\s*/\s*dl`, `g\s*/\s*l`,
	`ng\s*/\s*l`, `ng\s*/\s*ml`, `pg\s*/\s*ml`,
	`min(?:utes?|s)?\s*/\s*(?:week|wk)`, `minutes?\s+(?:per|a)\s+week`,
	`beats?\s*/\s*min(?:ute)?`, `bpm`,
	`mm\s*hg`, `mv`, `msec`, `ms`, `mm`, `cm`, `kg`, `mg`,
	`%`, `percent`, `per\s*cent`,
	`years?[\s-]*old`, `years?`, `yrs?`, `y/?o\b`, `y\b`,
	`points?`,
}

var (
	numRe  = regexp.MustCompile(`[-−–]?\d+(?:[.,]\d+)?`)
	unitRe = regexp.MustCompile(`(?i)^\s*(?:-\s*)?(` + strings.Join(unitPatterns, "|") + `)`)
	// An ordinal class: a scale named by its acronym ("NYHA II") or the
	// word class, grade or stage ("class III"), then a roman numeral.
	romanRe  = regexp.MustCompile(`\b(?:[A-Z]{2,6}\s+(?:(?i:class)\s*)?|(?i:class|grade|stage)\s*(?:(?i:class)\s*)?)((?i:i{1,3}|iv))\b(?:\s*[-–/]\s*((?i:i{1,3}|iv))\b)?`)
	ofTotal  = regexp.MustCompile(`^\s*(?:out of|of|/)\s*\d+`)
	rangeSep = regexp.MustCompile(`^\s*(?:-|–|to)\s*$`)
)

// numberSpelling writes a number's minus signs and decimal comma as
// ParseFloat reads them (built once: a Replacer compiles its table).
var numberSpelling = strings.NewReplacer("−", "-", "–", "-", ",", ".")

// arrowAfterValue: "=>" right after a number (and its unit) is a trend
// arrow, not "at least".
var arrowAfterValue = regexp.MustCompile(`\d\s*[^\s\d=]{0,6}\s*=>$`)

// comparator words, checked right before the number (longest first).
var cmpWords = []struct {
	re *regexp.Regexp
	op string
}{
	{regexp.MustCompile(`(?i)(?:≤|<=|=<|at most|no more than|not more than|up to|maximum of|max\.?)\s*$`), "<="},
	{regexp.MustCompile(`(?i)(?:≥|>=|=>|at least|no less than|not less than|minimum of|min\.?)\s*$`), ">="},
	{regexp.MustCompile(`(?i)(?:<|less than|lower than|below|under|fewer than|reduced to below)\s*$`), "<"},
	{regexp.MustCompile(`(?i)(?:>|more than|greater than|higher than|above|over|beyond|exceeding|exceeds|in excess of)\s*$`), ">"},
}

// cmpWindow bounds a comparator word's length in bytes: the longest
// cmpWords alternative (16 characters) written with letters that fold to
// three-byte runes under (?i), with room to spare (TestCmpWindow).
const cmpWindow = 64

// ParseMeasures reads every number of a mention with the unit after it.
// The "1.73" of an eGFR unit and the "16" of "3 of 16 segments" are not
// read as values.
func ParseMeasures(text string) []Measure {
	var out []Measure
	lower := strings.ToLower(text)
	consumed := 0
	for _, m := range numRe.FindAllStringIndex(text, -1) {
		if m[0] < consumed {
			continue
		}
		// Skip digits glued to letters (e.g. "CYP2C19", "SGLT2", "T2DM").
		if m[0] > 0 && isLetter(text[m[0]-1]) && !strings.ContainsRune("-−–", rune(text[m[0]])) {
			continue
		}
		if m[1] < len(text) && isLetter(text[m[1]]) && !startsUnit(lower[m[1]:]) {
			continue
		}
		raw := numberSpelling.Replace(text[m[0]:m[1]])
		// A leading hyphen after a word or number is a dash, not a minus
		// ("II-III", "30-35%").
		start := m[0]
		if strings.HasPrefix(raw, "-") && m[0] > 0 && !isSpace(text[m[0]-1]) {
			raw = raw[1:]
			start = m[0] + len(text[m[0]:m[1]]) - len(raw)
		}
		v, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			continue
		}
		me := Measure{Value: v, Start: start, End: m[1]}
		rest := text[m[1]:]
		if u := unitRe.FindStringSubmatchIndex(rest); u != nil {
			me.Unit = strings.TrimSpace(rest[u[2]:u[3]])
			me.End = m[1] + u[1]
		}
		me.Canon = canonUnit(me.Unit)
		me.Comparator = comparatorBefore(text[:m[0]])
		// "3 of 16 segments": the total is not a value of its own.
		if t := ofTotal.FindStringIndex(lower[me.End:]); t != nil {
			consumed = me.End + t[1]
		}
		if me.End > consumed {
			consumed = me.End
		}
		out = append(out, me)
	}
	// Ranges "30-35%" / "30 to 35 %": the first number takes the unit of
	// the second and both become bounds.
	for i := 0; i+1 < len(out); i++ {
		a, b := &out[i], &out[i+1]
		if a.Unit == "" && b.Unit != "" && a.Comparator == "" && rangeSep.MatchString(text[a.End:b.Start]) {
			a.Unit, a.Canon = b.Unit, b.Canon
			a.Comparator, b.Comparator = ">=", "<="
		}
	}
	// Roman numerals of a class ("NYHA class III", "NYHA II-III").
	for _, m := range romanRe.FindAllStringSubmatchIndex(text, -1) {
		lo := roman(text[m[2]:m[3]])
		if m[4] >= 0 {
			hi := roman(text[m[4]:m[5]])
			out = append(out, Measure{Value: float64(lo), Canon: units.Unitless, Comparator: ">=", Start: m[2], End: m[3]},
				Measure{Value: float64(hi), Canon: units.Unitless, Comparator: "<=", Start: m[4], End: m[5]})
			continue
		}
		out = append(out, Measure{Value: float64(lo), Canon: units.Unitless, Start: m[2], End: m[3]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

func canonUnit(u string) string {
	if u == "" {
		return ""
	}
	l := strings.ToLower(u)
	if strings.Contains(l, "old") || l == "yo" || l == "y/o" {
		return units.Years
	}
	if strings.HasPrefix(l, "point") {
		return units.Unitless
	}
	if strings.Contains(l, "per week") || strings.Contains(l, "a week") {
		return units.MinPerWeek
	}
	return units.Canonical(u)
}

func comparatorBefore(prefix string) string {
	p := strings.TrimRight(prefix, " ")
	// An arrow is a trend ("LVEF 50% -> 34%", "EF 55 => 38"), no comparator.
	// Both patterns end at the end of p ($): arrowAfterValue needs p to
	// end in "=>", and a comparator word ends where p's trailing white
	// space begins, so it lies in p's last cmpWindow bytes before that
	// (the patterns look at nothing before the word). Matching that tail
	// instead of the whole prefix is the same answer, in time independent
	// of how far into the text the number is.
	if strings.HasSuffix(p, "->") || strings.HasSuffix(p, "=>") && arrowAfterValue.MatchString(p) {
		return ""
	}
	tail := strings.TrimRight(p, " \t\n\f\r")
	if len(tail) > cmpWindow {
		tail = tail[len(tail)-cmpWindow:]
		for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
			tail = tail[1:] // a rune the cut split holds no comparator word
		}
	}
	// Allow "of" between the word and the number: "at least of"? no; but
	// "an EF of less than 35%" puts the comparator right before.
	if utf8.ValidString(tail) {
		// The tail read backwards by the reversed patterns: anchored at
		// its end, each is tried once instead of at every offset.
		var buf [cmpWindow]byte
		rev := buf[:0]
		for i := len(tail); i > 0; {
			_, n := utf8.DecodeLastRuneInString(tail[:i])
			rev = append(rev, tail[i-n:i]...)
			i -= n
		}
		for i, c := range cmpWords {
			if cmpWordsRev[i].Match(rev) {
				return c.op
			}
		}
		return ""
	}
	for _, c := range cmpWords {
		if c.re.MatchString(tail) {
			return c.op
		}
	}
	return ""
}

// cmpWordsRev are the cmpWords patterns reversed (reverseRegexp): one
// matches a string reversed rune by rune where its pattern matches the
// string.
var cmpWordsRev = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(cmpWords))
	for i, c := range cmpWords {
		re, err := syntax.Parse(c.re.String(), syntax.Perl)
		if err != nil {
			panic(err)
		}
		out[i] = regexp.MustCompile(reverseRegexp(re).String())
	}
	return out
}()

// reverseRegexp reverses r in place: its language becomes the reversed
// strings of r's (concatenations and literals run backwards, text and line
// anchors swap ends; word boundaries read the same both ways).
func reverseRegexp(r *syntax.Regexp) *syntax.Regexp {
	switch r.Op {
	case syntax.OpLiteral:
		slices.Reverse(r.Rune)
	case syntax.OpConcat:
		slices.Reverse(r.Sub)
	case syntax.OpBeginText:
		r.Op = syntax.OpEndText
	case syntax.OpEndText:
		r.Op = syntax.OpBeginText
	case syntax.OpBeginLine:
		r.Op = syntax.OpEndLine
	case syntax.OpEndLine:
		r.Op = syntax.OpBeginLine
	}
	for _, s := range r.Sub {
		reverseRegexp(s)
	}
	return r
}

func startsUnit(s string) bool { return unitRe.MatchString(s) }

func roman(s string) int {
	switch strings.ToLower(s) {
	case "i":
		return 1
	case "ii":
		return 2
	case "iii":
		return 3
	case "iv":
		return 4
	}
	return 0
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isSpace(c byte) bool  { return c == ' ' || c == '\t' || c == '\n' }
