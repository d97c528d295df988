package evidence

import (
	_ "embed"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/executablekg/execkg/grounding/textnorm"
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
	m := wordsOfMention(mention)
	for _, p := range phrases {
		if coversPhrase(m, phraseOf(p), all, mention, key, names) {
			return true, p
		}
	}
	return false, ""
}

// Phrases are phrases read once for Covers: a concept's names, tested
// against many mentions without looking each phrase up again.
type Phrases struct {
	texts []string
	infos []phraseInfo
}

// NewPhrases reads ps (kept, not copied).
func NewPhrases(ps []string) *Phrases {
	out := &Phrases{texts: ps, infos: make([]phraseInfo, len(ps))}
	for i, p := range ps {
		out.infos[i] = phraseOf(p)
	}
	return out
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
	m := wordsOfMention(mention)
	for i := range ps.infos {
		if coversPhrase(m, ps.infos[i], all, mention, key, names) {
			return true, ps.texts[i]
		}
	}
	return false, ""
}

// coversPhrase: the mention (its content words m) states the phrase pi:
// all of its words, or with all false two thirds of three or more, none
// of the missing ones critical and, with names, the stated words no other
// concept's name as well.
func coversPhrase(m []string, pi phraseInfo, all bool, mention, key string, names *Names) bool {
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
	coverAcronyms(m, pw, pi.gap, pi.acr, covered)
	n, words, modifierMissing := 0, 0, false
	for i, c := range covered {
		if c {
			n++
			if !hasDigit(pw[i]) {
				words++
			}
		} else if critical[i] {
			modifierMissing = true
		}
	}
	if n == len(pw) {
		return true
	}
	// A number qualifies what a phrase names (a type, grade or dose): the
	// stated two thirds must hold two words besides it, so "Type 2
	// respiratory failure" does not state "type 2 diabetes".
	if !all && len(pw) >= 3 && 3*n >= 2*len(pw) && words >= 2 && !modifierMissing {
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
func coverAcronyms(m, pw []string, gap []int, acr []bool, covered []bool) {
	for _, w := range m {
		if len(w) < 3 || len(w) > 6 || isNum(w) {
			continue
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
				for j := 0; j < len(w); j++ {
					covered[i+j] = true
				}
			}
		}
	}
}

// modifiers change what a phrase means; a phrase missing one of them is
// another concept ("heart failure" vs "heart failure with preserved
// ejection fraction"). Generic words only, data in modifiers.json.
var modifiers = loadModifiers()

//go:embed modifiers.json
var modifiersJSON []byte

func loadModifiers() map[string]bool {
	var f struct {
		About  string              `json:"about"`
		Groups map[string][]string `json:"groups"`
	}
	if err := json.Unmarshal(modifiersJSON, &f); err != nil {
		panic("engine/evidence/modifiers.json: " + err.Error() + "; fix the file ({\"about\", \"groups\": {name: [words]}})")
	}
	m := map[string]bool{}
	for _, ws := range f.Groups {
		for _, w := range ws {
			m[w] = true
		}
	}
	return m
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
	for _, w := range textnorm.Tokens(s) {
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
	for _, w := range textnorm.Tokens(s) {
		if textnorm.StopWords[w] || fillers[w] {
			continue
		}
		out = append(out, w)
	}
	return out
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
// letters covering three quarters of the shorter word and at least half of
// the longer one (ischemia/ischemic, vasospasm/vasospastic). Numbers must be equal.
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
	short, long := min(len(a), len(b)), max(len(a), len(b))
	// The longer word may add no more letters than the stem has: beyond
	// that it is a compound of the stem with another word ("artery" is no
	// "arteriosclerosis", whose stem is only "arter").
	return n >= 5 && 4*n >= 3*short && long-n <= n
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
