package evidence

import (
	_ "embed"
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/internal/memo"
)

// Covers reports whether a mention expresses one of a concept's phrases
// (its name, the guideline wordings, its lexicon synonyms): every content
// word of some phrase occurs in the mention, up to spelling, plural and a
// shared stem. The mention may say more ("s/p CABG 2015" covers "CABG");
// it may not say less ("s/p CABG" does not cover "coronary artery bypass
// graft failure", "LVEF 30%" does not cover "preserved LVEF").
//
// This is the deterministic stand-in for the reference system's LLM,
// which rejected or renamed wrong candidates: grounding keeps three
// candidate concepts per finding, and only those the words support may
// become evidence.
//
// A long phrase (three or more content words) is also covered when two
// thirds of its words are and none of the missing ones is a modifier that
// changes meaning (low/high, preserved/reduced, failure, planned,
// suspected, proximal, three, …) or a number ("rosuvastatin 40 mg" is not
// covered by "rosuvastatin 10 mg"): "a condition likely to prevent adequate
// CT image quality" covers "condition preventing adequate computed
// tomography image quality". An acronym in the mention covers the words
// it abbreviates ("PCI" covers "percutaneous coronary intervention").
func Covers(mention string, phrases []string) (bool, string) {
	return covers(mention, phrases, false, "", nil)
}

// CoversAll is Covers without the two-thirds allowance: every content word
// of the phrase must be stated.
func CoversAll(mention string, phrases []string) (bool, string) {
	return covers(mention, phrases, true, "", nil)
}

// CoversAmong is Covers for the phrases of concept key among a pack's
// names: the two-thirds allowance holds only where the words the mention
// states are no other concept's name as well (Names).
func CoversAmong(mention string, phrases []string, key string, names *Names) (bool, string) {
	return covers(mention, phrases, false, key, names)
}

func covers(mention string, phrases []string, all bool, key string, names *Names) (bool, string) {
	mk := keysOfMention(mention)
	m := mk.words
	var vocab []string
	for _, p := range phrases {
		vocab = append(vocab, phraseOf(p).words...)
	}
	for _, p := range phrases {
		if pi := phraseOf(p); mayCover(mk, pi) && coversPhrase(m, mk.title, pi, all, mention, key, names, vocab) && sidesAgree(mention, pi) && !deniedModifier(mention, pi) {
			return true, p
		}
	}
	return false, ""
}

// denials are the words that deny the modifier right after them.
var denials = map[string]bool{"not": true, "non": true, "no": true}

// deniedModifier: the mention states a modifier of the phrase only as
// denied, where the phrase itself does not deny it ("non-obstructive"):
// bound to "non" ("non-proximal LAD" for "proximal LAD stenosis",
// "non-ST elevation MI" for "ST-elevation MI"), or after "not" or "no"
// that follows other words of the phrase and ends it ("surgical risk not
// high" for "high surgical risk"). Then the mention says the other thing.
// A "not" or "no" before the phrase's words ("not high bleeding risk",
// "No DM", "Bleeding risk: not high bleeding risk") denies the whole
// phrase, which the negation check reads.
func deniedModifier(mention string, pi phraseInfo) bool {
	ws := strings.FieldsFunc(strings.ToLower(mention), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	inPhrase := func(x string) bool {
		for _, w := range pi.words {
			if !denials[w] && sameWord(x, w) {
				return true
			}
		}
		return false
	}
	for j := 1; j < len(ws); j++ {
		neg := ws[j-1]
		if !denials[neg] {
			continue
		}
		if neg != "non" {
			before, after := false, false
			for k := 0; k < j-1; k++ {
				before = before || inPhrase(ws[k])
			}
			for k := j + 1; k < len(ws); k++ {
				after = after || inPhrase(ws[k])
			}
			if !before || after {
				continue
			}
		}
		for i, w := range pi.words {
			if !pi.critical[i] || denials[w] || isNum(w) || !sameWord(ws[j], w) {
				continue
			}
			if i > 0 && denials[pi.words[i-1]] {
				continue // the phrase denies it too
			}
			return true
		}
	}
	return false
}

// Phrases are phrases read once for Covers: a concept's names, tested
// against many mentions without looking each phrase up again.
type Phrases struct {
	texts []string
	infos []phraseInfo
	vocab []string // every phrase's content words (compoundOfOther)
	// byKey and byPair index the phrases for mayCover (nil for a list of
	// one): the phrases holding each word key, and those of three words
	// or more whose initials hold each pair of adjacent letters. nkeys
	// counts the phrases' keys.
	byKey  map[string][]int
	byPair map[[2]byte][]int
	nkeys  int
}

// indexFrom is the number of phrases from which NewPhrases indexes them.
const indexFrom = 2

// NewPhrases reads ps (kept, not copied).
func NewPhrases(ps []string) *Phrases {
	out := &Phrases{texts: ps, infos: make([]phraseInfo, len(ps))}
	for i, p := range ps {
		out.infos[i] = phraseOf(p)
		out.vocab = append(out.vocab, out.infos[i].words...)
	}
	if len(ps) >= indexFrom {
		out.index()
	}
	return out
}

func (ps *Phrases) index() {
	ps.byKey, ps.byPair = map[string][]int{}, map[[2]byte][]int{}
	for i, pi := range ps.infos {
		ps.nkeys += len(pi.keys)
		for _, k := range pi.keys {
			if l := ps.byKey[k]; len(l) == 0 || l[len(l)-1] != i {
				ps.byKey[k] = append(l, i)
			}
		}
		if len(pi.words) < 3 {
			continue // an acronym is three letters or more, one a word
		}
		for j := 0; j+1 < len(pi.initials); j++ {
			pr := [2]byte{pi.initials[j], pi.initials[j+1]}
			if l := ps.byPair[pr]; len(l) == 0 || l[len(l)-1] != i {
				ps.byPair[pr] = append(l, i)
			}
		}
	}
}

// candidates marks the phrases mayCover(mk, phrase) holds for, into buf
// (grown when short): through the index (a phrase sharing a key with the
// mention, or whose initials hold an acronym of it and so the acronym's
// first two letters) where the mention has fewer keys than the phrases,
// else phrase by phrase.
func (ps *Phrases) candidates(mk *mentionKeys, buf []bool) []bool {
	n := len(ps.infos)
	if cap(buf) < n {
		buf = make([]bool, n)
	}
	c := buf[:n]
	if ps.byKey == nil || ps.nkeys <= len(mk.keyList) {
		for i := range ps.infos {
			c[i] = mayCover(mk, ps.infos[i])
		}
		return c
	}
	clear(c)
	for _, k := range mk.keyList {
		for _, i := range ps.byKey[k] {
			c[i] = true
		}
	}
	for _, w := range mk.acr {
		for _, i := range ps.byPair[[2]byte{w[0], w[1]}] {
			if !c[i] && len(w) <= len(ps.infos[i].words) && strings.Contains(ps.infos[i].initials, w) {
				c[i] = true
			}
		}
	}
	return c
}

// Len is the number of phrases (0 for nil).
func (ps *Phrases) Len() int {
	if ps == nil {
		return 0
	}
	return len(ps.texts)
}

// Covers is Covers(mention, the phrases).
func (ps *Phrases) Covers(mention string) (bool, string) { return ps.covers(mention, false, "", nil) }

// CoversAll is CoversAll(mention, the phrases).
func (ps *Phrases) CoversAll(mention string) (bool, string) { return ps.covers(mention, true, "", nil) }

// CoversAmong is CoversAmong(mention, the phrases, key, names).
func (ps *Phrases) CoversAmong(mention, key string, names *Names) (bool, string) {
	return ps.covers(mention, false, key, names)
}

func (ps *Phrases) covers(mention string, all bool, key string, names *Names) (bool, string) {
	if ps.Len() == 0 {
		return false, ""
	}
	mk := keysOfMention(mention)
	m := mk.words
	var buf [64]bool
	may := ps.candidates(mk, buf[:0])
	for i := range ps.infos {
		if may[i] && coversPhrase(m, mk.title, ps.infos[i], all, mention, key, names, ps.vocab) && sidesAgree(mention, ps.infos[i]) && !deniedModifier(mention, ps.infos[i]) {
			return true, ps.texts[i]
		}
	}
	return false, ""
}

// coversPhrase: the mention (its content words m, its titleWords title)
// states the phrase pi: all of its words, or with all false two thirds of
// three or more, none of the missing ones critical and, with names, the
// stated words no other concept's name as well.
func coversPhrase(m []string, title map[string]bool, pi phraseInfo, all bool, mention, key string, names *Names, vocab []string) bool {
	pw, critical := pi.words, pi.critical
	if len(pw) == 0 {
		return false
	}
	var buf [16]bool
	covered := buf[:0]
	if len(pw) > len(buf) {
		covered = make([]bool, 0, len(pw))
	}
	for _, w := range pw {
		covered = append(covered, hasWord(m, w))
	}
	for i, j := range pi.joined {
		// A hyphenated compound is one word: "high-risk patient" is not
		// stated by "high cardiovascular risk".
		// Acronyms joined ("CACS-CL") name a method, said either way
		// ("CACS-weighted CL").
		if j && !pi.acr[i] && !pi.acr[i+1] && covered[i] && covered[i+1] && !adjacent(m, pw[i], pw[i+1]) {
			covered[i], covered[i+1] = false, false
		}
	}
	runs := coverAcronymRuns(m, pw, pi.gap, pi.acr, covered, title)
	if compoundOfOther(mention, m, pw, vocab, pi.fillerNouns) {
		return false
	}
	n, words, modifierMissing := 0, 0, false
	for i, c := range covered {
		if c {
			n++
			if !hasDigit(pw[i]) && !romanNumeral(pw[i]) {
				words++
			}
		} else if critical[i] && !saidAlike(m, pw[i]) || (i == pi.head && headReplaced(m, pw, i)) {
			modifierMissing = true
		}
	}
	if n == len(pw) {
		return true
	}
	// A number qualifies what a phrase names (a type, grade or dose): the
	// stated two thirds must hold two words besides it, so "Type 2
	// respiratory failure" does not state "type 2 diabetes". A Roman
	// numeral is such a number: "type II" of another classification does
	// not state "type II diabetes".
	// The allowance counts an abbreviation hyphenated to a one-letter
	// part as one word: "LDL-C" states one of the two words of "LDL-C
	// reduction", not two of three.
	// An acronym that alone states a run of the phrase's words is one
	// word too: "LIMA" states one word of "left internal mammary artery
	// graft", not four of five.
	total := len(pw)
	if lj := mergeJoins(letterJoins(pw, pi.joined), runs); lj != nil {
		total -= joins(lj)
		n = compoundCount(pw, lj, covered)
	}
	if !all && total >= 3 && 3*n >= 2*total && words >= 2 && !modifierMissing && !substituted(m, pw, covered) && !rivalKind(m, pw, covered) {
		if names != nil {
			var stated, missing []string
			for i, c := range covered {
				if c {
					stated = append(stated, pw[i])
				} else {
					missing = append(missing, pw[i])
				}
			}
			if names.heldByAnother(key, stated, missing, mention) {
				return false
			}
		}
		return true
	}
	return false
}

// letterJoins keeps the hyphen joins with a one-letter part ("LDL-C"),
// or nil when there is none.
func letterJoins(pw []string, joined []bool) []bool {
	var out []bool
	for i, j := range joined {
		if j && (len(pw[i]) == 1 || len(pw[i+1]) == 1) {
			if out == nil {
				out = make([]bool, len(joined))
			}
			out[i] = true
		}
	}
	return out
}

// mergeJoins joins the words either a or b joins (nil when both are).
func mergeJoins(a, b []bool) []bool {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := make([]bool, len(a))
	for i := range a {
		out[i] = a[i] || b[i]
	}
	return out
}

// joins counts the hyphen joins of a phrase's words.
func joins(joined []bool) int {
	n := 0
	for _, j := range joined {
		if j {
			n++
		}
	}
	return n
}

// compoundCount counts the covered words of a phrase, a hyphenated
// compound as one word, covered when all its parts are.
func compoundCount(pw []string, joined, covered []bool) int {
	n := 0
	for i := 0; i < len(pw); {
		j := i
		for j < len(joined) && joined[j] {
			j++
		}
		all := true
		for k := i; k <= j; k++ {
			all = all && covered[k]
		}
		if all {
			n++
		}
		i = j + 1
	}
	return n
}

// substituted reports whether the mention puts a word of its own where
// the phrase has a word the mention leaves out: right after the stated
// phrase word before it, up to the stated word after it.
// "left inframammary pain" names another site than "left arm pain",
// "type 1 MI" another disease than "type 1 diabetes": the two-thirds
// allowance is for a phrase said with fewer words, not for a different
// word in its place. A number is a value, no substitute.
func substituted(m, pw []string, covered []bool) bool {
	at := func(w string) int {
		for k, x := range m {
			if sameWord(x, w) {
				return k
			}
		}
		return -1
	}
	// own: mention word k is a word of its own in the place of missing
	// phrase word i: no phrase word, no spelling variant of the missing
	// one (same first four letters: "revascularisation"), not its
	// abbreviation ("CT" for "computed tomography"), no verb form and no
	// generic word.
	own := func(k, i int) bool {
		if k < 0 || k >= len(m) || isNum(m[k]) || hasWord(pw, m[k]) {
			return false
		}
		w := m[k]
		if len(w) >= 4 && len(pw[i]) >= 4 && w[:4] == pw[i][:4] {
			return false
		}
		if participle(w) || participle(pw[i]) {
			return false // a verb said otherwise ("settling" for "relieved") is a paraphrase
		}
		if textnorm.GenericWords[w] || textnorm.GenericWords[pw[i]] {
			return false // "therapy" for "drugs" names nothing else
		}
		for st := i - len(w) + 1; len(w) >= 2 && st <= i; st++ {
			if st < 0 || st+len(w) > len(pw) {
				continue
			}
			ini := true
			for j := 0; j < len(w); j++ {
				if pw[st+j] == "" || pw[st+j][0] != w[j] {
					ini = false
					break
				}
			}
			if ini {
				return false
			}
		}
		return true
	}
	for i, c := range covered {
		if c {
			continue
		}
		if i == 0 || !covered[i-1] {
			continue // words before a phrase's first vary freely ("the same discomfort walking")
		}
		k := at(pw[i-1])
		if k < 0 || !own(k+1, i) {
			continue
		}
		// Inside the phrase only, the mention's own words running up to
		// the next phrase word ("left inframammary pain" for "left arm
		// pain"). At the phrase's end a noun said otherwise is often the
		// same thing ("polymorphism" for "allele").
		if i+1 < len(pw) && covered[i+1] {
			if n := at(pw[i+1]); n > k+1 {
				sub := true
				for j := k + 1; j < n; j++ {
					sub = sub && own(j, i)
				}
				if sub {
					return true
				}
			}
		}
	}
	return false
}

// headReplaced: the mention leaves out the head pw[head] of a compound
// phrase and states a word of its own between the phrase words it does
// state: the stated words narrow another thing, which that word names.
// "mid inferolateral segments" is a myocardial territory, not the "mid
// segment lesion" of a coronary artery. A mention that only leaves the
// head unsaid ("max dose" in a statin line), puts a value after the
// stated words ("proximal LAD 85%"), or says the head another way (same
// first four letters: "calcification" for "calcium") still states the
// phrase, and words outside the stated ones belong to the rest of the
// clause ("invasive coronary function testing (coronary flow reserve)").
// Own words are as substituted's: no phrase word, no abbreviation or
// short shorthand (under five letters: "dz", "prox"), no number, no verb
// form, no modifier and no generic word.
func headReplaced(m, pw []string, head int) bool {
	h := pw[head]
	for _, w := range m {
		if len(w) >= 4 && len(h) >= 4 && w[:4] == h[:4] {
			return false
		}
	}
	// The stated words' span: where the mention first states each.
	lo, hi := -1, -1
	for _, p := range pw {
		for k, w := range m {
			if sameWord(w, p) {
				if lo < 0 || k < lo {
					lo = k
				}
				if k > hi {
					hi = k
				}
				break
			}
		}
	}
	if lo < 0 {
		return false
	}
	for k := lo + 1; k < hi; k++ {
		w := m[k]
		if isNum(w) || hasDigit(w) || len(w) < 5 {
			continue
		}
		if hasWord(pw, w) || textnorm.GenericWords[w] || modifiers[w] || participle(w) || initialsOf(pw, w) {
			continue
		}
		return true
	}
	return false
}

// titleWords are the words of s written in title case only (a capital,
// then lower case: "San", "Mission") or in lower case only ("see",
// "sat"), lower-cased, or nil: such a word is a name, a sentence's first
// word or an ordinary word, never initials that the phrase does not list
// itself, which are written in capitals ("PCI", "SAT", "pLAD"). Lower-case
// shorthand ("pci", "cabg") is read through the names that list it (a
// lexicon synonym "PCI" is a word of the phrase, matched in any case), not
// as the initials of a phrase's words: on the dev documents every
// lower-case word read as initials was an ordinary word ("please see
// below" as "suitable for exercise ECG", "long spells sat at the desk" as
// "single antithrombotic therapy", "est. PASP" as "equivocal stress test",
// "tds" as "turned down surgery"). A word also written otherwise in s is
// left out.
func titleWords(s string) map[string]bool {
	var out, other map[string]bool
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) {
		r, n := utf8.DecodeRuneInString(f)
		low := strings.ToLower(f)
		if f == low || n < len(f) && unicode.IsUpper(r) && strings.ToLower(f[n:]) == f[n:] {
			if out == nil {
				out = map[string]bool{}
			}
			out[low] = true
		} else {
			if other == nil {
				other = map[string]bool{}
			}
			other[low] = true
		}
	}
	for w := range other {
		delete(out, w)
	}
	return out
}

// adjacent: the mention states a, then b right after it.
func adjacent(m []string, a, b string) bool {
	for k := 0; k+1 < len(m); k++ {
		if sameWord(m[k], a) && sameWord(m[k+1], b) {
			return true
		}
	}
	return false
}

// participle: an English verb form ending in -ing or -ed ("settling",
// "relieved", "provoked").
func participle(w string) bool {
	return len(w) >= 5 && (strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ed"))
}

// acronyms are the phrase's upper-case words ("CCTA", "PCI"): each names
// one test, procedure or vessel, so a phrase missing one names another
// thing ("CCTA is non-diagnostic" is not "SPECT non-diagnostic").
func acronyms(phrase string) map[string]bool {
	var m map[string]bool
	for _, w := range acronymRe.FindAllString(phrase, -1) {
		for _, t := range textnorm.Tokens(w) {
			if m == nil {
				m = map[string]bool{}
			}
			m[t] = true
		}
	}
	return m
}

var acronymRe = regexp.MustCompile(`\b[A-Z][A-Z0-9]*[A-Z][A-Z0-9]*\b`)

// coverAcronyms marks runs of phrase words whose initials are a word of
// the mention. An acronym is made of adjacent words, skipping at most one
// function word between two of them ("ischaemia with non-obstructive
// coronary arteries" is INOCA); initials scattered across a phrase are a
// coincidence ("prn" is not "pain radiating to the neck"). A word that is
// itself an acronym is no initial of another ("PSA" is not "presentation
// suggesting ACS").
func coverAcronyms(m, pw []string, gap []int, acr []bool, covered []bool, title map[string]bool) {
	coverAcronymRuns(m, pw, gap, acr, covered, title)
}

// coverAcronymRuns is coverAcronyms, returning the runs an acronym alone
// states (none of their words stated otherwise) as joins between their
// words, like a hyphen's, or nil: the two-thirds allowance counts such a
// run as one word, so "good LIMA" states one word of "previous left
// internal mammary artery graft", not four of five.
func coverAcronymRuns(m, pw []string, gap []int, acr []bool, covered []bool, title map[string]bool) []bool {
	var runs []bool
	for _, w := range m {
		if len(w) < 3 || len(w) > 6 || len(w) > len(pw) || isNum(w) || textnorm.Pronouns[w] {
			continue // a pronoun is no abbreviation ("her" is no "high event risk")
		}
		if title[w] {
			continue // a word in title or lower case is a name or a word, not initials ("San Francisco", "see below")
		}
		for i := 0; i+len(w) <= len(pw); i++ {
			match := true
			for j := 0; j < len(w); j++ {
				if pw[i+j] == "" || pw[i+j][0] != w[j] || acr[i+j] || j > 0 && gap[i+j-1] > 1 {
					match = false
					break
				}
			}
			if match {
				alone := true
				for j := 0; j < len(w); j++ {
					alone = alone && !covered[i+j]
				}
				for j := 0; j < len(w); j++ {
					covered[i+j] = true
				}
				if alone {
					if runs == nil {
						runs = make([]bool, len(pw)-1)
					}
					for j := 0; j+1 < len(w); j++ {
						runs[i+j] = true
					}
				}
			}
		}
	}
	return runs
}

// rivalKind reports whether the mention names another kind of finding
// than a word the phrase has and the mention leaves out: "moderate
// coronary calcification" says what the wall holds, not "moderate
// coronary stenosis", a narrowing of the lumen. The two-thirds allowance
// is for a phrase said with fewer words ("proximal LAD not involved" for
// a proximal LAD stenosis), not for a rival word said in its place,
// wherever the mention puts it. Kinds are in modifiers.json "kinds": a
// word of one kind is a rival of every other kind's words, not of its own
// ("narrowing" says "stenosis").
func rivalKind(m, pw []string, covered []bool) bool {
	for i, c := range covered {
		if c {
			continue
		}
		g, ok := kinds[pw[i]]
		if !ok {
			continue
		}
		for _, x := range m {
			if h, ok := kinds[x]; ok && h != g && !hasWord(pw, x) {
				return true
			}
		}
	}
	return false
}

// modifiers change what a phrase means; a phrase missing one of them is
// another concept ("heart failure" vs "heart failure with preserved
// ejection fraction"). Generic words only, data in modifiers.json.
var modifiers, kinds = loadModifiers()

// comparisons are the verbs that weigh one side against another
// (modifiers.json "comparisons"; sidesAgree).
// judges are the verbs that say someone weighs ("judged to outweigh"):
// on either side of the comparison they weigh nothing.
var comparisons, judges = loadComparisons()

func loadComparisons() (map[string]bool, map[string]bool) {
	var f struct {
		Comparisons []string `json:"comparisons"`
		Judges      []string `json:"judges"`
	}
	if err := json.Unmarshal(modifiersJSON, &f); err != nil {
		panic("engine/evidence/modifiers.json: " + err.Error())
	}
	set := func(ws []string) map[string]bool {
		m := make(map[string]bool, len(ws))
		for _, w := range ws {
			m[w] = true
		}
		return m
	}
	return set(f.Comparisons), set(f.Judges)
}

// comparedRe finds a '>' written between two words ("bleeding risk >
// ischaemic risk"), which weighs one side against the other; before a
// number it is a value's comparator and is not matched.
var comparedRe = regexp.MustCompile(`[A-Za-z)]\s*>\s*[A-Za-z(]`)

// sides splits s at its first comparison (a comparisons verb or a '>'
// between words) into the content words before and after it; ok is false
// when s weighs nothing.
func sides(s string) (before, after []string, ok bool) {
	toks := textnorm.Tokens(s)
	if loc := comparedRe.FindStringIndex(s); loc != nil {
		at := strings.IndexByte(s[loc[0]:loc[1]], '>') + loc[0]
		// A verb before the '>' is the first comparison.
		if pre := contentWords(s[:at]); !anyComparison(pre) {
			return pre, contentWords(s[at+1:]), true
		}
	}
	for i, w := range toks {
		if comparisons[w] {
			return contentWords(strings.Join(toks[:i], " ")), contentWords(strings.Join(toks[i+1:], " ")), true
		}
	}
	return nil, nil, false
}

func anyComparison(ws []string) bool {
	for _, w := range ws {
		if comparisons[w] {
			return true
		}
	}
	return false
}

// namesOwn: the words m hold a word of side that the other side lacks.
func namesOwn(m, side, other []string) bool {
	for _, w := range side {
		if !textnorm.GenericWords[w] && !judges[w] && !hasWord(other, w) && hasWord(m, w) {
			return true
		}
	}
	return false
}

// sidesAgree: where both the phrase and the mention weigh one thing
// against another ("judged to outweigh the bleeding risk"), every word
// the phrase has on one side only, and the mention on one side only, is
// on the phrase's side: "bleeding risk judged > ischaemic risk" puts the
// bleeding risk where the phrase has the ischaemic one, the opposite
// judgement. A mention that weighs nothing fails only where it names the
// own words of both sides.
// The phrase's sides are read once with its words (phraseOf).
func sidesAgree(mention string, pi phraseInfo) bool {
	if !pi.weighs {
		return true
	}
	pb, pa := pi.before, pi.after
	mb, ma, ok := sides(mention)
	if !ok {
		// A mention that weighs nothing states neither judgement where
		// it names the risks of both sides ("bleeding/thrombotic
		// risk"): which one outweighs the other is what the phrase
		// adds. A mention naming one side only is not tested.
		m := contentWords(mention)
		return !(namesOwn(m, pb, pa) && namesOwn(m, pa, pb))
	}
	// A judging verb ("judged", "felt") says that someone weighs, not
	// what is weighed.
	wrong := func(w string, own, other []string) bool {
		return !judges[w] && !hasWord(own, w) && hasWord(other, w)
	}
	for _, w := range pb {
		if !textnorm.GenericWords[w] && !hasWord(pa, w) && wrong(w, mb, ma) {
			return false
		}
	}
	for _, w := range pa {
		if !textnorm.GenericWords[w] && !hasWord(pb, w) && wrong(w, ma, mb) {
			return false
		}
	}
	return true
}

// alike are, for each word of a modifiers.json "alike" set, the other
// words of its sets: they state it in other words ("settling with" says
// "relieved by", "on hills" says "on walking").
var alike = loadAlike()

func loadAlike() map[string][]string {
	var f struct {
		Alike [][]string `json:"alike"`
	}
	if err := json.Unmarshal(modifiersJSON, &f); err != nil {
		panic("engine/evidence/modifiers.json: " + err.Error() + "; alike is a list of word sets")
	}
	out := map[string][]string{}
	for _, set := range f.Alike {
		for _, w := range set {
			for _, x := range set {
				if x != w {
					out[w] = append(out[w], x)
				}
			}
		}
	}
	return out
}

// saidAlike: the mention's words m state the modifier w in other words.
func saidAlike(m []string, w string) bool {
	for _, x := range alike[w] {
		if hasWord(m, x) {
			return true
		}
	}
	return false
}

//go:embed modifiers.json
var modifiersJSON []byte

// loadModifiers reads the modifier words and the kinds: each word of a
// kinds set keyed to its set's name (rivalKind).
func loadModifiers() (map[string]bool, map[string]string) {
	var f struct {
		About            string              `json:"about"`
		Groups           map[string][]string `json:"groups"`
		Kinds            map[string][]string `json:"kinds"`
		ComparisonsAbout string              `json:"comparisons_about"`
		Comparisons      []string            `json:"comparisons"`
	}
	if err := json.Unmarshal(modifiersJSON, &f); err != nil {
		panic("engine/evidence/modifiers.json: " + err.Error() + "; fix the file ({\"about\", \"groups\": {name: [words]}, \"kinds\": {name: [words]}})")
	}
	m := map[string]bool{}
	for _, ws := range f.Groups {
		for _, w := range ws {
			m[w] = true
		}
	}
	k := map[string]string{}
	for name, ws := range f.Kinds {
		for _, w := range ws {
			if prev, dup := k[w]; dup {
				panic("engine/evidence/modifiers.json: kinds word " + w + " is in both " + prev + " and " + name + "; keep it in one set")
			}
			k[w] = name
		}
	}
	return m, k
}

// fillers carry no concept: determiners, "history of", "known", "patient".
var fillers = map[string]bool{
	"patient": true, "pt": true, "history": true, "hx": true, "known": true, "documented": true,
	"presence": true, "evidence": true, "diagnosis": true, "diagnosed": true, "prior": true,
	"previous": true, "previously": true, "s": true, "p": true, "status": true, "post": true,
}

// contentWordsGaps is contentWords with, for each word but the last, the
// number of stop words between it and the next.
func contentWordsGaps(s string) ([]string, []int) {
	var out []string
	var gap []int
	skipped := 0
	for _, w := range numberUnitTokens(s) {
		if textnorm.StopWords[w] || fillers[w] {
			skipped++
			continue
		}
		if len(out) > 0 {
			gap = append(gap, skipped)
		}
		skipped = 0
		out = append(out, w)
	}
	return out, gap
}

func contentWords(s string) []string {
	var out []string
	for _, w := range numberUnitTokens(s) {
		if textnorm.StopWords[w] || fillers[w] {
			continue
		}
		out = append(out, w)
	}
	return out
}

// numberUnitTokens is textnorm.Tokens with a number written against its
// unit ("80mg", "5mcg", "10ml") read as the number and the unit, as
// "80 mg" reads: the number is what a name's number ("atorvastatin 80")
// is compared with. Only a token of digits then letters is split: two or
// more letters, or a one-letter unit ("48h", "5g", "4x"), and
// not an ordinal: "3b" is a stage ("CKD 3b"), not 3 of "b", and "3rd" is
// no unit.
func numberUnitTokens(s string) []string {
	toks := textnorm.Tokens(s)
	var out []string // nil while no token needs splitting
	for i, t := range toks {
		j := 0
		for j < len(t) && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		if j == 0 || j == len(t) || len(t)-j < 2 && !oneLetterUnit[t[j:]] || !lettersOnly(t[j:]) || ordinalSuffix[t[j:]] {
			if out != nil {
				out = append(out, t)
			}
			continue
		}
		if out == nil {
			out = append(make([]string, 0, len(toks)+1), toks[:i]...)
		}
		out = append(out, t[:j], t[j:])
	}
	if out == nil {
		return toks
	}
	return out
}

// oneLetterUnit: the one-letter units a number is written against (hours,
// days, grams, litres, times: "3-4x/wk"); other letters after a number
// name a grade or stage ("3b", "2a").
var oneLetterUnit = map[string]bool{"h": true, "d": true, "g": true, "l": true, "x": true}

// ordinalSuffix: the endings of "1st", "2nd", "3rd", "4th".
var ordinalSuffix = map[string]bool{"st": true, "nd": true, "rd": true, "th": true}

// lettersOnly: s is lower-case ASCII letters only.
func lettersOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

func hasWord(ws []string, w string) bool {
	for _, x := range ws {
		if sameWord(x, w) {
			return true
		}
	}
	return false
}

// sameWord: equal up to a plural "s" or a shared stem of five or more
// letters covering three quarters of the shorter word and half the longer
// (ischemia/ischemic, vasospasm/vasospastic). Numbers must be equal.
func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	// Every rule below needs the first letters equal (a lone "s" trims
	// to ""; the other word's differing first letter keeps it non-empty),
	// and most pairs differ there.
	if a != "" && b != "" && a[0] != b[0] {
		return false
	}
	if isNum(a) || isNum(b) {
		return false
	}
	a, b = strings.TrimSuffix(a, "s"), strings.TrimSuffix(b, "s")
	if a == b {
		return true
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	short := min(len(a), len(b))
	// The stem is half the longer word too: "artery" is no stem of
	// "arteriosclerosis", nor "calcium" of "calcification".
	return n >= 5 && 4*n >= 3*short && 2*n >= max(len(a), len(b))
}

func isNum(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	return s != ""
}

// hasDigit reports whether a word holds a digit ("2", "II" does not).
func hasDigit(w string) bool { return strings.ContainsAny(w, "0123456789") }

// romanNumeral reports whether w is a Roman numeral of a type or grade, I
// to XII, in either case.
func romanNumeral(w string) bool {
	switch strings.ToLower(w) {
	case "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii":
		return true
	}
	return false
}

// compoundOfOther reports whether the mention says two of the phrase's
// words as a hyphenated compound of words that qualifies a noun of its
// own, right after it: "high-risk plaque features" says that the plaque is
// high-risk, which states neither "high-risk patient" nor "high event
// risk"; an adjective compound is said of the word it stands before. The
// noun is the mention's own when it is no word of any of the concept's
// phrases (vocab: "high-risk features" is said of what "high-risk features
// on testing" names), no initials of phrase words ("high-risk PCI"), no
// number and no generic word. Where the phrase goes on after the compound
// with a noun the mention does not state, the mention's noun stands in its
// place, a noun said otherwise ("loss-of-function polymorphism" for
// "loss-of-function allele"). Acronyms joined by a hyphen ("RF-CL
// likelihood", "LIMA-LAD") are a name, not an adjective.
//
// Where the phrase says the compound right before a filler noun of its own
// ("high-risk patient", fillerNouns), which its content words drop, a
// mention saying the compound before another noun qualifies that noun
// ("high-risk features", "high-risk plaque"): the phrase has no content
// word after the compound to tell them apart, so the noun is tested
// against the filler whatever other phrases the concept has.
func compoundOfOther(mention string, m, pw, vocab []string, fillerNouns []compound) bool {
	for _, c := range compoundsOfMention(mention) {
		if !hasWord(pw, c.a) || !hasWord(pw, c.b) {
			continue
		}
		if fn, ok := fillerNounOf(fillerNouns, c); ok {
			if !sameWord(fn, c.next) && !isNum(c.next) && !textnorm.GenericWords[c.next] && !fillers[c.next] && !initialsOf(pw, c.next) {
				return true
			}
			continue
		}
		if at := wordAt(pw, c.b); at >= 0 && at+1 < len(pw) && !hasWord(m, pw[at+1]) {
			continue // a noun said otherwise in the phrase's place ("loss-of-function polymorphism" for "… allele")
		}
		if hasWord(vocab, c.next) || isNum(c.next) || textnorm.GenericWords[c.next] || initialsOf(pw, c.next) {
			continue
		}
		return true
	}
	return false
}

// fillerNounOf is the filler noun the phrase says after the compound of
// c's words, if it says one.
func fillerNounOf(fillerNouns []compound, c compound) (string, bool) {
	for _, f := range fillerNouns {
		if sameWord(f.a, c.a) && sameWord(f.b, c.b) {
			return f.next, true
		}
	}
	return "", false
}

// compound is a hyphenated compound of two content words (a, b) a
// mention says right before a word of its own (next): what
// compoundOfOther tests against each phrase.
type compound struct{ a, b, next string }

// mentionCompounds memoises compoundsOf: a mention is tested against every
// phrase of every candidate concept. Bounded, as mentions are case text.
var mentionCompounds = memo.New[string, []compound](2048)

// compoundsOfMention returns compoundsOf(mention), shared: do not modify it.
func compoundsOfMention(mention string) []compound {
	if !strings.Contains(mention, "-") {
		return nil
	}
	if c, ok := mentionCompounds.Get(mention); ok {
		return c
	}
	c := compoundsOf(mention)
	mentionCompounds.Put(mention, c)
	return c
}

// compoundsOf lists the mention's hyphenated compounds of two content
// words (three letters or more each, no acronym) that qualify the word
// after them: a compound that ends its clause or aside is said of nothing
// after it, and one before a stop word ("high-risk on testing") or a
// non-letter is no adjective of a noun. The tests that need the phrase are
// compoundOfOther's.
func compoundsOf(mention string) []compound {
	var out []compound
	fields := strings.Fields(mention)
	for i := 0; i+1 < len(fields); i++ {
		f := fields[i]
		cw, ok := hyphenPair(f)
		if !ok || len(cw[0]) < 3 || len(cw[1]) < 3 {
			continue
		}
		if acr := acronyms(f); acr[cw[0]] || acr[cw[1]] {
			continue
		}
		nf := fields[i+1]
		if c := nf[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			continue
		}
		nw := contentWords(nf)
		if len(nw) == 0 || len(textnorm.Tokens(nf)) != len(nw) {
			continue
		}
		out = append(out, compound{a: cw[0], b: cw[1], next: nw[0]})
	}
	return out
}

// wordAt is the index of w among ws (up to spelling), or -1.
func wordAt(ws []string, w string) int {
	for i, x := range ws {
		if sameWord(x, w) {
			return i
		}
	}
	return -1
}

// initialsOf: w is the initials of consecutive phrase words ("pci").
func initialsOf(pw []string, w string) bool {
	if len(w) < 2 {
		return false
	}
	for i := 0; i+len(w) <= len(pw); i++ {
		ok := true
		for j := 0; j < len(w) && ok; j++ {
			ok = pw[i+j] != "" && pw[i+j][0] == w[j]
		}
		if ok {
			return true
		}
	}
	return false
}

// touches: text states at least one word of phrase, spelt out or in
// initials ("PCI" for "percutaneous coronary intervention").
func touches(text, phrase string) bool {
	m := wordsOfMention(text)
	pi := phraseOf(phrase)
	covered := make([]bool, len(pi.words))
	for i, w := range pi.words {
		if hasWord(m, w) {
			return true
		}
		covered[i] = false
	}
	coverAcronyms(m, pi.words, pi.gap, pi.acr, covered, titleWords(text))
	for _, c := range covered {
		if c {
			return true
		}
	}
	return false
}

// hasOwnWord: text holds a content word that is no number, no generic
// word and no modifier, and that names something among the pack's phrases
// (names; any word when nil), and no number: a value ("now 50%", "now 75
// on bisoprolol", "improved to 50% on treatment") continues the measure
// its clause names.
func hasOwnWord(text string, names *Names) bool {
	if strings.IndexFunc(text, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0 {
		return false
	}
	for _, w := range wordsOfMention(text) {
		if !isNum(w) && !hasDigit(w) && !textnorm.GenericWords[w] && !modifiers[w] && names.Named(w) {
			return true
		}
	}
	return false
}

// partlyStated: the finding shares with the phrase only the words that
// date it or say it is done again (againWord), its clause states the rest, and the finding names something
// else of its own: in "X discussed with the family yesterday (Dr Y)" the
// fragment "family yesterday (Dr Y)" holds the time word of "X
// yesterday" but dates the talk with the family, not X. A fragment
// holding no word of its own ("yesterday" cut off "X, yesterday") still
// dates the event its clause names.
func partlyStated(text, phrase string) bool {
	if whole, _ := CoversAll(text, []string{phrase}); whole {
		return false
	}
	pw := phraseOf(phrase).words
	var rest []string
	shared := false
	for _, w := range wordsOfMention(text) {
		if !hasWord(pw, w) {
			rest = append(rest, w)
			continue
		}
		if !whenWord.MatchString(w) && !againWord.MatchString(w) {
			return false
		}
		shared = true
	}
	return shared && len(rest) > 0 && hasOwnWord(strings.Join(rest, " "), nil)
}

// whenWord: a word that says when something happened, not what.
var whenWord = regexp.MustCompile(`(?i)^(?:today|yesterday|tonight|recent|recently|week|weeks|month|months|day|days|ago|last|earlier)$`)

// againWord: a word that says an act is done once more, not which act: in
// "X gives better survival and fewer repeat admissions" the fragment holds
// the "repeat" of "repeat X" but repeats the admissions, not X.
var againWord = regexp.MustCompile(`(?i)^(?:repeat|repeated|redo|re-do|second|further|another|again)$`)
