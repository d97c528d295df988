package evidence

import (
	"strings"
	"sync"

	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/internal/memo"
)

// phraseCache holds each phrase's content words and acronyms. The phrases
// covers reads are a pack's concept phrases, few and read again for every
// finding of every case, so each is read once (per process). Both values
// are only read afterwards.
var phraseCache sync.Map // string → phraseInfo

type phraseInfo struct {
	words []string
	// critical[i]: words[i] is a modifier, a number or an acronym of the
	// phrase, which the two-thirds allowance may not leave out.
	critical []bool
	// gap[i] is how many stop words lie between words[i] and words[i+1].
	gap []int
	// acr[i]: words[i] is written as an acronym in the phrase ("ACS").
	acr []bool
	// joined[i]: words[i] and words[i+1] are one hyphenated compound of
	// the phrase ("high-risk"), nil when it has none.
	joined []bool
	// weighs: the phrase weighs one side against another (sides), whose
	// content words are before and after.
	weighs        bool
	before, after []string
	// keys are the words' match keys (wordKeys) and initials their first
	// letters, for mayCover.
	keys     []string
	initials string
	// head is the index of the phrase's head noun, which the two-thirds
	// allowance may not leave out, or -1 (headOf).
	head int
	// fillerNouns are the phrase's hyphenated compounds said right before
	// a filler noun ("high-risk patient"), which its content words drop:
	// compoundOfOther tells the noun a mention says after the compound
	// against it.
	fillerNouns []compound
}

// phraseWords returns contentWords(p) and which of them are critical.
func phraseWords(p string) ([]string, []bool) {
	pi := phraseOf(p)
	return pi.words, pi.critical
}

func phraseOf(p string) phraseInfo {
	if v, ok := phraseCache.Load(p); ok {
		return v.(phraseInfo)
	}
	pi := phraseInfo{}
	pi.words, pi.gap = contentWordsGaps(p)
	acr := acronyms(p)
	pi.critical = make([]bool, len(pi.words))
	pi.acr = make([]bool, len(pi.words))
	for i, w := range pi.words {
		pi.critical[i] = modifiers[w] || isNum(w) || acr[w]
		pi.acr[i] = acr[w]
	}
	pi.joined = hyphenJoins(p, pi.words)
	pi.before, pi.after, pi.weighs = sides(p)
	ini := make([]byte, len(pi.words))
	for i, w := range pi.words {
		pi.keys = append(pi.keys, wordKeys(w)...)
		if w != "" {
			ini[i] = w[0]
		}
	}
	pi.initials = string(ini)
	pi.head = headOf(pi.words, pi.gap)
	pi.fillerNouns = fillerNounsOf(p)
	phraseCache.Store(p, pi)
	return pi
}

// fillerNounsOf lists p's hyphenated compounds of two content words said
// right before a filler noun (fillers, no stop word): the compound, the
// noun as next.
func fillerNounsOf(p string) []compound {
	if !strings.Contains(p, "-") {
		return nil
	}
	var out []compound
	fields := strings.Fields(p)
	for i := 0; i+1 < len(fields); i++ {
		cw, ok := hyphenPair(fields[i])
		toks := textnorm.Tokens(fields[i+1])
		if !ok || len(toks) != 1 || !fillers[toks[0]] || textnorm.StopWords[toks[0]] {
			continue
		}
		out = append(out, compound{a: cw[0], b: cw[1], next: toks[0]})
	}
	return out
}

// hyphenPair is the two content words of a hyphenated field f ("high-risk")
// that does not end its clause or aside (no closing punctuation), or false.
func hyphenPair(f string) ([]string, bool) {
	if !strings.Contains(f, "-") || strings.ContainsAny(f[len(f)-1:], ",;:.()[]/") {
		return nil, false
	}
	cw := contentWords(f)
	return cw, len(cw) == 2
}

// hyphenJoins marks the content words of p that a hyphen joins to the
// next ("high-risk patient": high, risk), or nil.
func hyphenJoins(p string, words []string) []bool {
	if !strings.Contains(p, "-") || len(words) < 2 {
		return nil
	}
	var seq []string
	var joined []bool
	for _, field := range strings.Fields(p) {
		cw := contentWords(field)
		for k, w := range cw {
			if len(seq) > 0 {
				joined = append(joined, k > 0 && strings.Contains(field, "-"))
			}
			seq = append(seq, w)
		}
	}
	if len(seq) != len(words) {
		return nil // the words read across fields; no compound to tell
	}
	for i := range seq {
		if seq[i] != words[i] {
			return nil
		}
	}
	return joined
}

// mentionWords memoises contentWords of mentions: a finding's clause is
// checked against each of its anchors' names, by the verbatim reader, the
// formatter and step (v). Bounded, as mentions are case text.
var mentionWords = memo.New[string, []string](2048)

// wordsOfMention returns contentWords(s), shared: do not modify it.
func wordsOfMention(s string) []string {
	if w, ok := mentionWords.Get(s); ok {
		return w
	}
	w := contentWords(s)
	mentionWords.Put(s, w)
	return w
}

// wordKeys are the keys any word sameWord matches w with shares with it:
// w without a plural "s" and, when that is five letters or more, its first
// five (a shared stem starts with five equal letters). Equal keys are
// necessary for sameWord, not sufficient.
func wordKeys(w string) []string {
	t := strings.TrimSuffix(w, "s")
	if len(t) >= 5 {
		return []string{t, t[:5]}
	}
	return []string{t}
}

// mentionKeys is what covers reads of a mention: its content words, their
// keys (wordKeys) and the words coverAcronyms may read as initials.
type mentionKeys struct {
	words   []string // wordsOfMention
	keys    map[string]bool
	keyList []string // keys' members, each once
	acr     []string
	// title is titleWords of the mention, read once per mention rather
	// than once per phrase it is tested against (nil from keysOf).
	title map[string]bool
}

// keysMemo memoises keysOf, bounded like mentionWords.
var keysMemo = memo.New[string, *mentionKeys](2048)

// keysOfMention returns keysOf(s), shared: do not modify it.
func keysOfMention(s string) *mentionKeys {
	if k, ok := keysMemo.Get(s); ok {
		return k
	}
	k := keysOf(wordsOfMention(s))
	k.title = titleWords(s)
	keysMemo.Put(s, k)
	return k
}

func keysOf(m []string) *mentionKeys {
	mk := &mentionKeys{words: m, keys: make(map[string]bool, 2*len(m))}
	for _, w := range m {
		for _, k := range wordKeys(w) {
			if !mk.keys[k] {
				mk.keys[k] = true
				mk.keyList = append(mk.keyList, k)
			}
		}
		if len(w) >= 3 && len(w) <= 6 && !isNum(w) && !textnorm.Pronouns[w] {
			mk.acr = append(mk.acr, w)
		}
	}
	return mk
}

// mayCover is a quick test that the mention (its keys mk) may state a
// word of the phrase: a mention word shares a key with a phrase word
// (every sameWord pair does), or is a run of the phrase's initials
// (every acronym coverAcronyms reads is). coversPhrase needs one covered
// word at least, so a phrase failing mayCover is not covered; one passing
// it is judged in full.
func mayCover(mk *mentionKeys, pi phraseInfo) bool {
	for _, k := range pi.keys {
		if mk.keys[k] {
			return true
		}
	}
	for _, w := range mk.acr {
		if len(w) <= len(pi.words) && strings.Contains(pi.initials, w) {
			return true
		}
	}
	return false
}

// headOf returns the index of the head noun of a compound phrase, or -1.
// In a run of three or more content words with no word between them
// ("mid segment lesion", "left ventricular thrombus") the last word names
// the thing and the others only narrow it: a mention stating the narrowing
// words without the head ("mid inferolateral segments") names another
// thing, so the two-thirds allowance may not leave the head out. A
// generic head ("disease", "therapy", "score") or a number does not name
// the thing by itself and keeps the allowance ("high intensity statin"
// still states "high-intensity statin therapy"). Phrases with a
// preposition or article inside ("stenosis of a mid coronary segment")
// are not read for a head.
func headOf(words []string, gap []int) int {
	if len(words) < 3 {
		return -1
	}
	for _, g := range gap {
		if g != 0 {
			return -1
		}
	}
	last := len(words) - 1
	w := words[last]
	if isNum(w) || hasDigit(w) || textnorm.GenericWords[w] {
		return -1
	}
	return last
}
