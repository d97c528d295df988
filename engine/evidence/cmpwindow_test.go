package evidence

import (
	"math/rand"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// comparatorWhole is comparatorBefore as first written: every pattern run
// over the whole prefix.
func comparatorWhole(prefix string) string {
	p := strings.TrimRight(prefix, " ")
	if strings.HasSuffix(p, "->") || arrowAfterValue.MatchString(p) {
		return ""
	}
	for _, c := range cmpWords {
		if c.re.MatchString(p) {
			return c.op
		}
	}
	return ""
}

// maxBytes is the most bytes a match of r can take (r has no repetition),
// every letter written as its widest case fold where r folds case.
func maxBytes(t *testing.T, r *syntax.Regexp) int {
	widest := func(c rune, fold bool) int {
		n := utf8.RuneLen(c)
		for f := unicode.SimpleFold(c); fold && f != c; f = unicode.SimpleFold(f) {
			n = max(n, utf8.RuneLen(f))
		}
		return n
	}
	switch r.Op {
	case syntax.OpLiteral:
		n := 0
		for _, c := range r.Rune {
			n += widest(c, r.Flags&syntax.FoldCase != 0)
		}
		return n
	case syntax.OpCharClass:
		n := 0
		for i := 0; i+1 < len(r.Rune); i += 2 {
			n = max(n, utf8.RuneLen(min(r.Rune[i+1], utf8.MaxRune)))
		}
		return n
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpAlternate:
		n := 0
		for _, s := range r.Sub {
			n = max(n, maxBytes(t, s))
		}
		return n
	case syntax.OpConcat:
		n := 0
		for _, s := range r.Sub {
			n += maxBytes(t, s)
		}
		return n
	case syntax.OpCapture, syntax.OpQuest:
		return maxBytes(t, r.Sub[0])
	case syntax.OpRepeat:
		if r.Max >= 0 {
			return r.Max * maxBytes(t, r.Sub[0])
		}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	}
	t.Fatalf("maxBytes: %s (op %v) has no bounded width", r, r.Op)
	return 0
}

// TestCmpWindow: comparatorBefore (the reversed patterns on the reversed
// last cmpWindow bytes, or the patterns on those bytes where they are not
// valid UTF-8) reads what the patterns read on the whole prefix. The
// window holds the longest alternative written with its widest case
// folds, and random prefixes (comparator words and arrows amid filler,
// upper case, folded letters, broken UTF-8, trailing white space of every
// kind, cut anywhere) read the same either way.
func TestCmpWindow(t *testing.T) {
	for _, c := range cmpWords {
		re, err := syntax.Parse(c.re.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		var alts []*syntax.Regexp
		var walk func(r *syntax.Regexp)
		walk = func(r *syntax.Regexp) {
			if r.Op == syntax.OpAlternate {
				alts = append(alts, r.Sub...)
				return
			}
			for _, s := range r.Sub {
				walk(s)
			}
		}
		walk(re)
		if len(alts) == 0 {
			t.Fatalf("%s: no alternatives found", c.re)
		}
		for _, a := range alts {
			if n := maxBytes(t, a); n > cmpWindow {
				t.Errorf("%s: alternative %s may take %d bytes, over cmpWindow %d", c.re, a, n, cmpWindow)
			}
		}
	}
	words := []string{"at most", "no more than", "up to", "max.", "≤", "<=", "=<", "≥", ">=", "=>", "at least", "min",
		"less than", "below", "under", "reduced to below", "above", "over", "in excess of", ">", "<", "->", "-",
		"EF", "LVEF of", "eGFR", "was", "AT LEAST", "Reduced To Below", "\u212a", "\u017f", "ſo", "é", "12", "50%", "\xe2\x89", "\xa4", "\x89", "\xe2",
		" ", "  ", "\t", "\n", "\r", "\f", ",", ".", "ab"}
	rng := rand.New(rand.NewSource(12))
	n := 0
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for k := rng.Intn(40); k >= 0; k-- {
			b.WriteString(words[rng.Intn(len(words))])
			if rng.Intn(3) == 0 {
				b.WriteByte(' ')
			}
		}
		s := b.String()
		if rng.Intn(4) == 0 {
			s = s[:rng.Intn(len(s)+1)]
		}
		got, want := comparatorBefore(s), comparatorWhole(s)
		if got != want {
			t.Fatalf("comparatorBefore(%q) = %q, the whole prefix reads %q", s, got, want)
		}
		if len(s) > cmpWindow && want != "" {
			n++
		}
	}
	if n < 1000 {
		t.Fatalf("only %d long prefixes held a comparator: the test does not reach the window", n)
	}
}
