package evidence

import (
	"strings"
	"unicode"
)

// capsMinLetters: an all-capitals name word this long or longer is an
// abbreviation whose case is part of it.
const capsMinLetters = 3

// capsUnstated reports whether phrase, a name the mention matched, holds
// an abbreviation written in capitals ("DOE") that the mention states
// only as an ordinary word: a word in title case or one that only stems
// to it ("Does he need ...", a person's name "Lima"). An abbreviation is
// written in capitals, or in lower case letter for letter ("cabg"); a
// sentence's first word or a name in title case is a word of its own.
func capsUnstated(mention, phrase string) bool {
	for _, w := range strings.FieldsFunc(phrase, notAlnum) {
		if !allCaps(w) {
			continue
		}
		seen, stated := false, false
		for _, t := range strings.FieldsFunc(mention, notAlnum) {
			if len(t) < len(w) || !strings.EqualFold(t[:len(w)], w) {
				continue
			}
			seen = true
			if allCaps(t[:len(w)]) || strings.ToLower(t) == strings.ToLower(w) && strings.ToLower(t) == t {
				stated = true
				break
			}
		}
		if seen && !stated {
			// Only words that merely begin with it: a word spelled out
			// for it ("drug-eluting stent" for "DES") is no such word.
			return true
		}
	}
	return false
}

func notAlnum(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// allCaps: capsMinLetters letters or more, every letter a capital.
func allCaps(w string) bool {
	n := 0
	for _, r := range w {
		if unicode.IsLetter(r) {
			if !unicode.IsUpper(r) {
				return false
			}
			n++
		}
	}
	return n >= capsMinLetters
}
