package evidence

import (
	"sort"
	"strings"

	"github.com/executablekg/execkg/internal/memo"
)

// Names is every concept's phrases of a pack, to tell whether the words a
// mention states single out one concept. The two-thirds allowance of
// Covers lets a long phrase in without some of its words. Where the
// mention reads just as well, by the same allowance, as another concept's
// name that holds the words it states but none of those it leaves out,
// the words left out are what tell the two concepts apart, and the
// mention states neither: "Low risk" is two thirds of "low risk of
// bleeding" and of "low operative risk", so it is neither low bleeding
// risk nor low surgical risk. Safe for concurrent use.
type Names struct {
	byKey map[string][]string // concept key → its phrases
	// words: byKey's phrases' content words (phraseOf), and first the
	// first bytes they start with (firstBytes), index by index.
	words map[string][][]string
	first map[string][]uint64
	keys  []string // sorted, for a deterministic scan
	// vocab: every content word of every phrase (Named).
	vocab map[string]bool
	// memo: key, stated and missing words, mention → the answer; bounded,
	// as mentions are case text.
	memo *memo.Map[string, bool]
	// long: vocab's words of typoMin letters or more by first letter,
	// sorted; typos: a mention word → the pack word it is a slip of, or
	// "" (Corrected).
	long  map[byte][]string
	known map[byte][]string // vocab by first letter
	typos *memo.Map[string, string]
}

// NewNames indexes a pack's phrases (concept key → names, wordings,
// synonyms).
func NewNames(phrases map[string][]string) *Names {
	n := &Names{byKey: map[string][]string{}, words: map[string][][]string{}, first: map[string][]uint64{}, memo: memo.New[string, bool](4096), vocab: map[string]bool{}}
	for k, ps := range phrases {
		for _, p := range ps {
			if ws := phraseOf(p).words; len(ws) > 0 {
				for _, w := range ws {
					n.vocab[w] = true
				}
				n.byKey[k] = append(n.byKey[k], p)
				n.words[k] = append(n.words[k], ws)
				n.first[k] = append(n.first[k], firstBytes(ws))
			}
		}
		n.keys = append(n.keys, k)
	}
	sort.Strings(n.keys)
	n.long, n.typos = map[byte][]string{}, memo.New[string, string](4096)
	// Only a word that is a concept's name by itself ("diltiazem") is a
	// slip's target: words that only qualify a name ("typical",
	// "walking") are words of plain English, whose near neighbours are
	// other plain words ("topical", "waking"), not slips.
	n.known = map[byte][]string{}
	for w := range n.vocab {
		if w != "" {
			n.known[w[0]] = append(n.known[w[0]], w)
		}
	}
	seen := map[string]bool{}
	for _, k := range n.keys {
		for _, ws := range n.words[k] {
			if len(ws) == 1 && len(ws[0]) >= typoMin && !isNum(ws[0]) && !seen[ws[0]] {
				seen[ws[0]] = true
				n.long[ws[0][0]] = append(n.long[ws[0][0]], ws[0])
			}
		}
	}
	for _, ws := range n.long {
		sort.Strings(ws)
	}
	return n
}

// heldByAnother reports whether a concept other than key has a phrase
// that holds every stated word and none of the missing ones (up to
// spelling, plural and stem) and that the mention covers by the
// two-thirds allowance too. A rival the mention states whole is the
// concept it names, judged as its own anchor ("?CCS" states chronic
// coronary syndrome, and suspected chronic coronary syndrome through its
// '?'); a rival holding the missing words too is a narrower concept
// ("reduction of LDL-C from baseline" for "LDL 4.6"), not one they tell
// apart.
func (n *Names) heldByAnother(key string, stated, missing []string, mention string) bool {
	if n == nil || len(stated) == 0 {
		return false
	}
	id := key + "\x00" + strings.Join(stated, "\x00") + "\x01" + strings.Join(missing, "\x00") + "\x01" + mention
	if v, ok := n.memo.Get(id); ok {
		return v
	}
	held := false
	var need uint64 // the stated words' first bytes (an empty one needs none)
	for _, w := range stated {
		if w != "" {
			need |= 1 << (w[0] & 63)
		}
	}
	for _, k := range n.keys {
		if k == key || held {
			continue
		}
		first := n.first[k]
		for i, rp := range n.byKey[k] {
			// A phrase with no word starting as a stated word does holds
			// not that word (sameWord): no sibling.
			if first[i]&need != need || !sibling(n.words[k][i], stated, missing) {
				continue
			}
			whole, _ := covers(mention, []string{rp}, true, "", nil)
			if most, _ := covers(mention, []string{rp}, false, "", nil); most && !whole {
				held = true
				break
			}
		}
	}
	n.memo.Put(id, held)
	return held
}

// firstBytes is the set of the words' first bytes (mod 64), every byte
// where a word is empty: sameWord holds only for two words with one first
// byte, or where one of them is empty.
func firstBytes(ws []string) uint64 {
	var m uint64
	for _, w := range ws {
		if w == "" {
			return ^uint64(0)
		}
		m |= 1 << (w[0] & 63)
	}
	return m
}

// sibling: pw holds every stated word and no missing one.
func sibling(pw, stated, missing []string) bool {
	for _, w := range stated {
		if !hasWord(pw, w) {
			return false
		}
	}
	for _, w := range missing {
		if hasWord(pw, w) {
			return false
		}
	}
	return true
}

// Named reports whether w is a content word of some concept's phrase: a
// word that names something in the pack ("atrial", "ectopic" is not;
// "now", "improved" are not).
func (n *Names) Named(w string) bool {
	if n == nil {
		return true
	}
	return n.vocab[w]
}
