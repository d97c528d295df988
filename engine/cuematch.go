package engine

import (
	"regexp"
	"strings"
	"sync"

	"github.com/executablekg/execkg/rules"
)

// cueMatcher is a list of cue words matched as whole words, case folded
// (`(?i)\b(?:cue|…)\b`, a cue ending in "*" any word it opens), with a
// quick test first: a text in ASCII that holds none of the cues' letters
// (their part before any "*", case folded) cannot match, and most texts a
// reader asks about hold no cue. A case-insensitive alternation has no
// literal prefix the regexp package could look for, so without the test
// every position of every text runs the matcher. Answers are the
// regexp's: the test only skips texts the regexp cannot match.
type cueMatcher struct {
	re *regexp.Regexp
	// opening is re anchored at the text's start (OpensString): a match
	// there is tried at position 0 only, not searched through the text.
	// Compiled on first use: few lists are asked it.
	pat         string
	openingOnce sync.Once
	opening     *regexp.Regexp
	// lits are the cues' literal parts in lower case; nil when a cue has
	// none or is not ASCII (the test is off: every text runs the regexp).
	lits []string
}

func newCueMatcher(cues []string) *cueMatcher {
	pat := rules.WordsPattern(cues)
	m := &cueMatcher{re: regexp.MustCompile(`(?i)\b(?:` + pat + `)\b`), pat: pat} // literal words: always compiles
	lits := make([]string, 0, len(cues))
	for _, c := range cues {
		l := strings.TrimSuffix(c, "*")
		if l == "" || !isASCII(l) {
			return m
		}
		lits = append(lits, strings.ToLower(l))
	}
	m.lits = lits
	return m
}

// mayMatch is false only when s cannot match: s is ASCII (case folding
// is then ASCII's) and holds no cue's literal part in any case.
func (m *cueMatcher) mayMatch(s string) bool {
	if m.lits == nil {
		return true
	}
	var buf [256]byte
	var low []byte
	if len(s) <= len(buf) {
		low = buf[:len(s)]
	} else {
		low = make([]byte, len(s))
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return true
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	for _, l := range m.lits {
		if indexBytes(low, l) {
			return true
		}
	}
	return false
}

// indexBytes: b holds s.
func indexBytes(b []byte, s string) bool {
	n := len(s)
	if n > len(b) {
		return false
	}
	c := s[0]
	for i := 0; i+n <= len(b); i++ {
		if b[i] == c && string(b[i:i+n]) == s {
			return true
		}
	}
	return false
}

// MatchString is regexp's MatchString.
func (m *cueMatcher) MatchString(s string) bool { return m.mayMatch(s) && m.re.MatchString(s) }

// FindStringIndex is regexp's FindStringIndex.
func (m *cueMatcher) FindStringIndex(s string) []int {
	if !m.mayMatch(s) {
		return nil
	}
	return m.re.FindStringIndex(s)
}

// OpensString: s opens with a cue, as FindStringIndex(s) giving a match
// at 0 would say (the leftmost match is at 0 exactly when one starts
// there), at a cost that does not grow with the rest of s.
func (m *cueMatcher) OpensString(s string) bool {
	m.openingOnce.Do(func() { m.opening = regexp.MustCompile(`(?i)\A\b(?:` + m.pat + `)\b`) })
	return m.opening.MatchString(s)
}

// FindAllStringIndex is regexp's FindAllStringIndex.
func (m *cueMatcher) FindAllStringIndex(s string, n int) [][]int {
	if !m.mayMatch(s) {
		return nil
	}
	return m.re.FindAllStringIndex(s, n)
}

// FindAllString is regexp's FindAllString.
func (m *cueMatcher) FindAllString(s string, n int) []string {
	if !m.mayMatch(s) {
		return nil
	}
	return m.re.FindAllString(s, n)
}
