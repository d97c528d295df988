package engine

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// nameTokens is a cheap necessary condition for a vessel name in a text,
// checked before the anatomy patterns run (most cases name no vessel, and
// the patterns' alternations cost a regexp scan each).
//
// Every pattern, and the anchor search of a report without a name, ends
// its vessel group (?P<v>) at \b and starts it at a word start or right
// after a segment word glued onto it ("pLAD"): whatever precedes the group
// in a pattern ends in a non-word character (\b, \s, %, /, &, "and\b").
// So the ASCII word token (a maximal run of [0-9A-Za-z_], the characters
// \b knows) holding the start of the name is the name's first word, after
// at most the word-character tail of a segment word. Matching is
// case-insensitive: tokens are lowered, and a text holding a non-ASCII
// character that case-folds to an ASCII letter (the Kelvin sign, the long
// s) goes to the patterns unfiltered.
type nameTokens struct {
	heads  map[string]bool // lower-case token that starts a name
	digits map[string]bool // lower-case token that, plus one digit, is a name ("D#")
}

// newNameTokens returns nil (no filter) when a name or segment word is not
// ASCII: the token argument above holds for ASCII words only.
func newNameTokens(names, segWords []string) *nameTokens {
	for _, w := range append(append([]string(nil), names...), segWords...) {
		for i := 0; i < len(w); i++ {
			if w[i] >= 0x80 {
				return nil
			}
		}
	}
	tails := map[string]bool{"": true}
	for _, s := range segWords {
		s = strings.ToLower(s)
		i := len(s)
		for i > 0 && wordByte(s[i-1]) {
			i--
		}
		tails[s[i:]] = true
	}
	t := &nameTokens{heads: map[string]bool{}, digits: map[string]bool{}}
	for _, n := range names {
		n = strings.ToLower(n)
		i := 0
		for i < len(n) && wordByte(n[i]) {
			i++
		}
		head := n[:i]
		digit := n[i:] == "#"
		if head == "" {
			return nil // a name that starts with no word character
		}
		for tail := range tails {
			if digit {
				t.digits[tail+head] = true
			} else {
				t.heads[tail+head] = true
			}
		}
	}
	return t
}

func wordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// foldsToASCII holds the non-ASCII runes that (?i) matches against an
// ASCII letter.
var foldsToASCII = func() map[rune]bool {
	m := map[rune]bool{}
	for c := rune('A'); c <= 'z'; c++ {
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f >= 0x80 {
				m[f] = true
			}
		}
	}
	return m
}()

// mayName reports whether text may hold a vessel name; false means none of
// the anatomy patterns can match it. A nil filter passes every text.
func (t *nameTokens) mayName(text string) bool {
	if t == nil {
		return true
	}
	var buf [32]byte
	for i := 0; i < len(text); {
		c := text[i]
		if c >= utf8.RuneSelf {
			r, w := utf8.DecodeRuneInString(text[i:])
			if foldsToASCII[r] {
				return true
			}
			i += w
			continue
		}
		if !wordByte(c) {
			i++
			continue
		}
		j := i
		for j < len(text) && wordByte(text[j]) {
			j++
		}
		if j-i <= len(buf) {
			tok := buf[:j-i]
			for k := range tok {
				b := text[i+k]
				if b >= 'A' && b <= 'Z' {
					b += 'a' - 'A'
				}
				tok[k] = b
			}
			if t.heads[string(tok)] {
				return true
			}
			if n := len(tok); n > 1 && tok[n-1] >= '0' && tok[n-1] <= '9' && t.digits[string(tok[:n-1])] {
				return true
			}
		} else {
			return true // longer than any name: not worth lowering, read it
		}
		i = j
	}
	return false
}
