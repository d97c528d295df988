package engine

import (
	"regexp"
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
// after a segment word glued onto it ("<segment><vessel>"): whatever precedes the group
// in a pattern ends in a non-word character (\b, \s, %, /, &, "and\b").
// So the ASCII word token (a maximal run of [0-9A-Za-z_], the characters
// \b knows) holding the start of the name is the name's first word, after
// at most the word-character tail of a segment word. Matching is
// case-insensitive: tokens are lowered, and a text holding a non-ASCII
// character that case-folds to an ASCII letter (the Kelvin sign, the long
// s) goes to the patterns unfiltered.
//
// The patterns that open with \b, a list of vessels and a vessel (their
// "named" ones) start every match at a name or a segment word, so at an
// ASCII token that is a name's first word (after a glued segment tail) or
// a segment word's first word: starts lists those offsets, where the
// pattern is tried anchored instead of scanned for over the whole text.
type nameTokens struct {
	heads  map[string]bool // lower-case token that starts a name
	digits map[string]bool // lower-case token that, plus one digit, is a name (a pack name ending "#")
	segs   map[string]bool // lower-case first word of a segment word
	noSegs bool            // a segment word starts with no word character: starts is off
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
	t := &nameTokens{heads: map[string]bool{}, digits: map[string]bool{}, segs: map[string]bool{}}
	for _, w := range segWords {
		w = strings.ToLower(w)
		i := 0
		for i < len(w) && wordByte(w[i]) {
			i++
		}
		if i == 0 {
			t.noSegs = true
		}
		t.segs[w[:i]] = true
	}
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
	found := false
	ok := t.tokens(text, func(_ int, tok []byte) bool {
		found = t.isName(tok)
		return !found
	})
	return !ok || found
}

// starts returns the offsets of the tokens a named pattern's match may
// start at, ascending; ok is false where they cannot be told (the text
// holds a rune that folds to ASCII, a token too long to lower, or a
// segment word starts with no word character): scan the whole text then.
func (t *nameTokens) starts(text string) (at []int, ok bool) {
	if t == nil || t.noSegs {
		return nil, false
	}
	ok = t.tokens(text, func(i int, tok []byte) bool {
		if t.isName(tok) || t.segs[string(tok)] {
			at = append(at, i)
		}
		return true
	})
	return at, ok
}

func (t *nameTokens) isName(tok []byte) bool {
	if t.heads[string(tok)] {
		return true
	}
	n := len(tok)
	return n > 1 && tok[n-1] >= '0' && tok[n-1] <= '9' && t.digits[string(tok[:n-1])]
}

// tokens calls f with the offset and lower-cased bytes of each ASCII word
// token of text until f returns false. It returns false, having stopped,
// where a token cannot be told: a rune that (?i) folds to an ASCII letter,
// or a token longer than its buffer.
func (t *nameTokens) tokens(text string, f func(at int, tok []byte) bool) bool {
	var buf [32]byte
	for i := 0; i < len(text); {
		c := text[i]
		if c >= utf8.RuneSelf {
			r, w := utf8.DecodeRuneInString(text[i:])
			if foldsToASCII[r] {
				return false
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
		if j-i > len(buf) {
			return false
		}
		tok := buf[:j-i]
		for k := range tok {
			b := text[i+k]
			if b >= 'A' && b <= 'Z' {
				b += 'a' - 'A'
			}
			tok[k] = b
		}
		if !f(i, tok) {
			return true
		}
		i = j
	}
	return true
}

// findAllAt is re.FindAllStringSubmatchIndex for a pattern anchored with ^
// whose matches all start at one of starts (ascending) where the unanchored
// pattern's leading \b holds: the leftmost start at or after the end of the
// last match that matches gives the next match, as the scan would find it
// (leftmost-first: the match chosen at a start does not depend on where
// the search began). Matches are never empty.
func findAllAt(anchored *regexp.Regexp, text string, starts []int) [][]int {
	var out [][]int
	pos := 0
	for _, s := range starts {
		if s < pos {
			continue
		}
		m := anchored.FindStringSubmatchIndex(text[s:])
		if m == nil {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += s
			}
		}
		out = append(out, m)
		pos = m[1]
	}
	return out
}

// openingTokens returns the lower-case first tokens of words, for a
// pattern that opens with \b, an alternation of words and then \s: such a
// match starts at an ASCII word token (after \b) that is the first token
// of one of the words, whole (a word's first token ends at the word's end,
// where \s follows, or at a non-word character of the word). Nil (scan
// the text) when a word is empty, not ASCII, starts with no word
// character or ends with "#" (a digit follows: alternation).
func openingTokens(words []string) map[string]bool {
	if len(words) == 0 {
		return nil
	}
	heads := map[string]bool{}
	for _, w := range words {
		if w == "" || strings.HasSuffix(w, "#") {
			return nil
		}
		for i := 0; i < len(w); i++ {
			if w[i] >= utf8.RuneSelf {
				return nil
			}
		}
		w = strings.ToLower(w)
		i := 0
		for i < len(w) && wordByte(w[i]) {
			i++
		}
		if i == 0 {
			return nil
		}
		heads[w[:i]] = true
	}
	return heads
}

// openingStarts caches one text's openingStartsIn for a set of heads.
type openingStarts struct {
	at       []int
	ok, read bool
}

// openingStartsIn returns the offsets of text's ASCII word tokens in heads,
// ascending; ok is false where tokens cannot be told (nameTokens.tokens).
func openingStartsIn(text string, heads map[string]bool) (at []int, ok bool) {
	ok = (*nameTokens)(nil).tokens(text, func(i int, tok []byte) bool {
		if heads[string(tok)] {
			at = append(at, i)
		}
		return true
	})
	return at, ok
}
