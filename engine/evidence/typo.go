package evidence

import (
	"strings"
)

// Spelling slips: a dictated or typed record misspells a long word by one
// letter ("vasospastic anjina", "infract"). Step (iv) asks a mention to
// state every word of a concept's name, so a slip in one word loses the
// whole mention. Corrected repairs such a slip, narrowly: a mention word
// of six letters or more that no pack phrase holds (not even up to
// spelling, plural or stem: sameWord) becomes the pack word one edit away
// (a letter changed, added, dropped or two neighbours swapped) with the
// same first letter, when exactly one pack word that is a concept's name
// by itself is. Words that only qualify names ("typical", "walking") are
// plain English whose neighbours are plain words too ("topical",
// "waking"), so they are no target. A word with two such
// neighbours is left as written, and so is every word the pack knows.
// The caller uses the corrected mention only where the written one states
// no name and the corrected one states a name whole (CoversAll): a slip
// never completes a phrase by the two-thirds allowance.

// typoMin is the shortest word Corrected repairs: in shorter words one
// letter is too much of the word to be a slip.
const typoMin = 6

// Corrected returns mention with its slips repaired (see above) and
// whether it repaired any. Nil Names repairs nothing.
func (n *Names) Corrected(mention string) (string, bool) {
	if n == nil {
		return mention, false
	}
	var b strings.Builder
	changed := false
	last := 0
	for i := 0; i < len(mention); {
		if !asciiLetter(mention[i]) {
			i++
			continue
		}
		j := i
		for j < len(mention) && asciiLetter(mention[j]) {
			j++
		}
		if j-i >= typoMin && (j == len(mention) || mention[j] < 0x80) && (i == 0 || mention[i-1] < 0x80) {
			if fix := n.correction(strings.ToLower(mention[i:j])); fix != "" {
				b.WriteString(mention[last:i])
				b.WriteString(fix)
				last = j
				changed = true
			}
		}
		i = j
	}
	if !changed {
		return mention, false
	}
	b.WriteString(mention[last:])
	return b.String(), true
}

func asciiLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// correction is the pack word a lower-case ASCII word w is a slip of, or
// "" (memoised).
func (n *Names) correction(w string) string {
	if n.vocab[w] {
		return ""
	}
	if fix, ok := n.typos.Get(w); ok {
		return fix
	}
	fix := ""
	if ws := contentWords(w); len(ws) == 1 && ws[0] == w {
		for _, v := range n.long[w[0]] {
			if oneEdit(w, v) {
				if fix != "" {
					fix = ""
					break
				}
				fix = v
			}
		}
		if fix != "" {
			// A word the pack knows up to spelling, plural or stem
			// ("anginal") is no slip.
			for _, v := range n.known[w[0]] {
				if sameWord(v, w) {
					fix = ""
					break
				}
			}
		}
	}
	n.typos.Put(w, fix)
	return fix
}

// oneEdit: a and b (ASCII, first letters equal) differ by exactly one
// edit: a letter changed, added or dropped, or two neighbours swapped.
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	la, lb := len(a), len(b)
	if la > lb {
		a, b, la, lb = b, a, lb, la
	}
	if lb-la > 1 {
		return false
	}
	i := 0
	for i < la && a[i] == b[i] {
		i++
	}
	if la == lb {
		if a[i+1:] == b[i+1:] {
			return true // changed
		}
		return i+1 < la && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // swapped
	}
	return a[i:] == b[i+1:] // added
}
