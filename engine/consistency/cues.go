package consistency

import (
	"sort"
	"strings"
)

// Cue lists in the style of NegEx/ConText. They are generic: no cue names
// a disease, so they carry over to any guideline.

type cueKind uint8

const (
	kindNegation cueKind = iota + 1
	kindUncertainty
	kindEither      // "documented or suspected": both certainties
	kindPseudo      // looks like a cue but is not ("not only"); consumed, no scope
	kindTermination // ends the scope of other cues ("except")
	kindExperiencer // someone other than the patient ("father had an MI")
)

type direction uint8

const (
	forward  direction = 1 << iota // scopes over what follows ("no MI")
	backward                       // scopes over what precedes ("MI was ruled out")
	both     = forward | backward
)

type cueDef struct {
	words []string // lower-case tokens
	text  string
	kind  cueKind
	dir   direction
}

var negationForward = []string{
	"no", "not", "without", "w/o", "denies", "denied", "denying", "deny",
	"negative for", "absence of", "absent", "free of", "ruled out", "rules out",
	"no history of", "no hx of", "no h/o", "no evidence of", "no sign of", "no signs of",
	"no symptoms of", "no known", "no prior", "no previous", "never", "never had",
	"nor", "neither", "lack of", "lacks", "lacking", "nil",
	"no longer", "does not have", "did not have", "not known to have", "unremarkable for",
	"fails to reveal", "failed to reveal", "no suspicion of", "no clinical suspicion of",
}

var negationBackward = []string{
	"ruled out", "was ruled out", "is ruled out", "has been ruled out", "were ruled out",
	"excluded", "was excluded", "is excluded", "has been excluded", "were excluded",
	"absent", "is absent", "was absent", "not present", "is not present", "not seen",
	"not detected", "not found", "not demonstrated", "denied", "resolved",
}

var uncertaintyForward = []string{
	"suspected", "suspect", "suspicion of", "suspicious for", "suspicious of", "possible",
	"possibly", "probable", "probably", "likely", "unlikely", "presumed", "presumably",
	"presumptive", "putative", "suggestive of", "suggesting", "suggests", "suggest",
	"rule out", "r/o", "to rule out", "to exclude", "evaluate for", "evaluation for",
	"workup for", "work-up for", "concern for", "concerning for",
	"questionable", "query", "?", "cannot exclude", "can't exclude", "cannot rule out",
	"can not rule out", "could not exclude", "may have", "might have", "may be", "could be",
	"differential diagnosis", "ddx", "uncertain", "unclear", "equivocal", "doubtful", "question of",
	"indeterminate", "not excluded", "not ruled out", "points to", "point to", "pointing to",
}

// uncertaintyBackward: bare "possible", "likely" or "probable" after a
// finding usually modify the next phrase ("fatigue as a possible angina
// equivalent"), so only their "is …" forms look back.
var uncertaintyBackward = []string{
	"suspected", "is suspected", "was suspected", "are suspected", "is possible",
	"is likely", "is unlikely", "is probable", "?", "uncertain", "is uncertain", "remains uncertain",
	"unclear", "is unclear", "remains unclear",
	"cannot be excluded", "can not be excluded", "could not be excluded", "cannot be ruled out",
	"can not be ruled out", "could not be ruled out", "not excluded", "not ruled out",
	"to be excluded", "to be ruled out", "is questionable",
	"is not excluded", "is not ruled out", "remains possible", "not confirmed", "unconfirmed",
}

// eitherForward accept an assertion and a suspicion alike.
var eitherForward = []string{
	"documented or suspected", "suspected or documented", "known or suspected",
	"suspected or known", "established or suspected", "suspected or established",
	"confirmed or suspected", "suspected or confirmed", "proven or suspected",
	"suspected or proven", "suspected or diagnosed", "diagnosed or suspected",
}

var pseudo = []string{
	"not only", "no increase", "no change", "no significant change", "no interval change",
	"not necessarily", "gram negative", "gram-negative", "without difficulty", "not cause",
	"not drain", "not extend", "no suspicious change", "not certain if", "not certain whether",
	"no further change", "not appear", "not been able", "not able to be",
	// Recommendation wording that guideline contexts carry: "may be"
	// here qualifies the action, not a finding.
	"may be considered", "may be used", "may be offered", "may be performed", "may be useful",
	"may be appropriate", "may be reasonable", "may be indicated",
}

// experiencerForward/Backward: ConText's "experiencer" — the finding is a
// relative's, not the patient's ("father had an MI at 52", "MI in his
// brother", "family history of premature CAD").
var experiencerForward = []string{
	"father", "mother", "brother", "sister", "sibling", "siblings", "parent", "parents",
	"son", "daughter", "grandfather", "grandmother", "uncle", "aunt", "cousin", "relative",
	"relatives", "family history of", "family hx of", "fhx of", "fh of", "fhx", "family history",
	"first-degree relative", "first degree relative", "his father", "her father", "his mother", "her mother",
}

var experiencerBackward = []string{
	"in father", "in his father", "in her father", "in mother", "in his mother", "in her mother",
	"in a brother", "in his brother", "in her brother", "in a sister", "in his sister", "in her sister",
	"in a sibling", "in siblings", "in a first-degree relative", "in first-degree relatives", "in the family",
	"in a relative", "in relatives",
}

var termination = []string{
	"except", "except for", "apart from", "aside from", "other than", "besides",
	"save for",
}

// cues is every definition, longest first so "no history of" wins over
// "no" and "cannot be excluded" over "excluded".
var cues = buildCues()

// cuesByFirst indexes cues by their first word (longest first within), so
// matching tries only the cues that can start at a token.
var cuesByFirst = func() map[string][]int {
	m := map[string][]int{}
	for i, d := range cues {
		m[d.words[0]] = append(m[d.words[0]], i)
	}
	return m
}()

func buildCues() []cueDef {
	merged := map[string]*cueDef{}
	add := func(list []string, kind cueKind, dir direction) {
		for _, s := range list {
			ws := make([]string, 0, 4)
			for _, t := range tokenizeCue(s) {
				ws = append(ws, t)
			}
			k := strings.Join(ws, " ")
			if d, ok := merged[k]; ok {
				if d.kind != kind {
					// A phrase may be a cue of only one kind; uncertainty
					// lists hold "not excluded", negation lists do not.
					panic("consistency: cue " + k + " listed under two kinds")
				}
				d.dir |= dir
				continue
			}
			merged[k] = &cueDef{words: ws, text: k, kind: kind, dir: dir}
		}
	}
	add(negationForward, kindNegation, forward)
	add(negationBackward, kindNegation, backward)
	add(uncertaintyForward, kindUncertainty, forward)
	add(uncertaintyBackward, kindUncertainty, backward)
	add(eitherForward, kindEither, forward)
	add(pseudo, kindPseudo, 0)
	add(termination, kindTermination, 0)
	add(experiencerForward, kindExperiencer, forward)
	add(experiencerBackward, kindExperiencer, backward)
	out := make([]cueDef, 0, len(merged))
	for _, d := range merged {
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].words) != len(out[j].words) {
			return len(out[i].words) > len(out[j].words)
		}
		return out[i].text < out[j].text
	})
	return out
}

func tokenizeCue(s string) []string {
	var out []string
	for _, t := range tokenize(s) {
		out = append(out, t.low)
	}
	return out
}

// cueHit is one cue found in a text: tokens [first, last].
type cueHit struct {
	def         *cueDef
	first, last int
	dir         direction // resolved direction ("?" depends on spacing)
	from, to    int       // scope: token range [from, to)
}

// window caps a cue's scope (in tokens), as NegEx does, so a cue early in
// a long run-on clause does not reach findings far away.
const window = 8

// findCues matches cues left to right, longest first, never across a
// clause boundary; matched tokens are consumed, so a pseudo-cue hides the
// "not" inside it. Then each cue's scope is set.
func findCues(ts []token) []cueHit {
	var hits []cueHit
	for i := 0; i < len(ts); {
		if ts[i].boundary {
			i++
			continue
		}
		matched := false
		for _, k := range cuesByFirst[ts[i].low] {
			d := &cues[k]
			n := len(d.words)
			if i+n > len(ts) {
				continue
			}
			ok := true
			for j := 0; j < n; j++ {
				t := ts[i+j]
				if t.boundary || t.low != d.words[j] {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			h := cueHit{def: d, first: i, last: i + n - 1, dir: d.dir}
			if d.text == "?" {
				// "?ACS" looks forward, "ACS?" back, a free-standing "?"
				// forward when a finding follows, else back.
				next := i+1 < len(ts) && ts[i+1].word && ts[i+1].start == ts[i].end
				prev := i > 0 && ts[i-1].word && ts[i-1].end == ts[i].start
				switch {
				case next:
					h.dir = forward
				case prev:
					h.dir = backward
				default:
					h.dir = resolveBoth(ts, i+1)
				}
			}
			if d.dir == both && d.text != "?" { // "?" resolved above
				h.dir = resolveBoth(ts, i+n)
			}
			hits = append(hits, h)
			i += n
			matched = true
			break
		}
		if !matched {
			i++
		}
	}
	for k := range hits {
		setScope(ts, hits, k)
	}
	return append(hits, prefixNegations(ts)...)
}

// nonPrefix is the cue of a word negated by its own prefix: "non-diabetic"
// states that diabetes is absent, "non-smoker" that smoking is. The cue
// scopes over its own word only, so "non-ST-elevation MI" or
// "non-obstructive CAD" (the head is MI, CAD) are not negated; an
// upper-case remainder ("non-HDL", "non-LM") names a thing, not its
// absence.
var nonPrefix = &cueDef{words: []string{"non-"}, text: "non-", kind: kindNegation, dir: forward}

func prefixNegations(ts []token) []cueHit {
	var out []cueHit
	for i, t := range ts {
		if !t.word || !strings.HasPrefix(t.low, "non-") || len(t.low) < len("non-")+4 {
			continue
		}
		rest := t.low[len("non-"):]
		raw := t.raw[len("non-"):]
		if raw != rest || strings.ContainsAny(rest, "-/0123456789") {
			continue
		}
		out = append(out, cueHit{def: nonPrefix, first: i, last: i, dir: forward, from: i, to: i + 1})
	}
	return out
}

// setScope: forward cues reach from just after their first word (so "no
// history of MI" covers "history of MI") to the clause end, a termination
// cue or the window; backward cues reach back to the clause start, a
// termination cue or the window.
func setScope(ts []token, hits []cueHit, k int) {
	h := &hits[k]
	switch h.def.kind {
	case kindPseudo, kindTermination:
		h.from, h.to = h.first, h.first
		return
	}
	c := ts[h.first].clause
	from, to := h.first, h.first
	if h.dir&forward != 0 {
		end := h.last + 1
		for end < len(ts) && ts[end].clause == c && end-h.last <= window && !terminates(hits, end) {
			end++
		}
		if h.def.kind == kindNegation {
			end = listEnd(ts, end)
		}
		from, to = h.first+1, end
	}
	if h.dir&backward != 0 {
		start := h.first
		for start > 0 && ts[start-1].clause == c && h.first-start < window && !terminatesBefore(hits, start-1) {
			start--
		}
		from = start
		if h.dir&forward == 0 {
			to = h.first
		}
	}
	h.from, h.to = from, to
}

// listEnd extends a negation over a list that continues after a comma:
// "no prior MI, PCI or CABG" negates all three. The rest must be short
// items separated by commas and close with "or"/"nor" before the sentence
// ends; "no diabetes, hypertension" (no closing "or") is left alone, as
// the second item may well be asserted.
func listEnd(ts []token, end int) int {
	if end >= len(ts) || ts[end].low != "," {
		return end
	}
	i, items, words, sawOr := end, 0, 0, false
	for i < len(ts) {
		t := ts[i]
		switch {
		case t.low == ",":
			if words == 0 && items > 0 {
				return end
			}
			items++
			words = 0
		case t.low == "or" || t.low == "nor":
			sawOr = true
			words = 0
		case t.boundary: // sentence end, ";" or a clause word ("and", "but", "with")
			if sawOr && words > 0 {
				return i
			}
			return end
		case t.word:
			words++
			if words > 3 {
				return end
			}
		}
		i++
	}
	if sawOr && words > 0 {
		return i
	}
	return end
}

// terminates reports whether a termination cue starts at token i.
func terminates(hits []cueHit, i int) bool {
	for _, h := range hits {
		if h.def.kind == kindTermination && h.first == i {
			return true
		}
	}
	return false
}

// terminatesBefore reports whether token i ends a termination cue.
func terminatesBefore(hits []cueHit, i int) bool {
	for _, h := range hits {
		if h.def.kind == kindTermination && h.last == i {
			return true
		}
	}
	return false
}

// covers reports whether the hit's scope includes token i.
func (h cueHit) covers(i int) bool { return i >= h.from && i < h.to }

// followers may follow a finding's cue without being the finding
// ("CCS suspected given typical angina").
var followers = map[string]bool{"given": true, "clinically": true, "based": true, "today": true, "previously": true, "initially": true}

// resolveBoth picks the direction of a cue listed both ways ("suspected",
// "denied", "ruled out"): followed by a finding word it looks forward
// ("suspected CCS"), else back ("CCS suspected", "CCTA may be considered
// in suspected CCS" keeps CCTA out of the scope).
func resolveBoth(ts []token, next int) direction {
	if next < len(ts) && !ts[next].boundary && ts[next].content() && !followers[ts[next].low] {
		return forward
	}
	return backward
}

// cueAt returns the cue whose own words include token i, or nil.
func cueAt(hits []cueHit, i int) *cueHit {
	for k := range hits {
		if i >= hits[k].first && i <= hits[k].last {
			return &hits[k]
		}
	}
	return nil
}

// inCue reports whether token i belongs to some cue's own words.
func inCue(hits []cueHit, i int) bool {
	for _, h := range hits {
		if i >= h.first && i <= h.last {
			return true
		}
	}
	return false
}

// Qualifiers recognised in clauses and condition wording.
type qualKind uint8

const (
	qualCourse    qualKind = iota + 1 // chronic, acute, stable, refractory, …
	qualSeverity                      // mild, moderate, severe
	qualCertainty                     // established, documented, known, …
)

var qualifiers = map[string]qualKind{
	"chronic": qualCourse, "acute": qualCourse, "subacute": qualCourse, "hyperacute": qualCourse,
	"stable": qualCourse, "unstable": qualCourse, "decompensated": qualCourse, "compensated": qualCourse,
	"recurrent": qualCourse, "refractory": qualCourse, "persistent": qualCourse, "paroxysmal": qualCourse,
	"permanent": qualCourse, "new-onset": qualCourse, "long-standing": qualCourse, "intermittent": qualCourse,
	// "resting" findings (ST depression on the resting ECG) differ from
	// those on exercise or stress testing.
	"resting": qualCourse,
	"severe":  qualSeverity, "mild": qualSeverity, "moderate": qualSeverity,
	"established": qualCertainty, "documented": qualCertainty, "known": qualCertainty,
	"confirmed": qualCertainty, "proven": qualCertainty,
}

// qualifierSpellings write a qualifier word differently; they count on
// both sides.
var qualifierSpellings = map[string]string{
	"new onset": "new-onset", "newonset": "new-onset",
	"long standing": "long-standing", "longstanding": "long-standing",
	"chronically": "chronic",
	"at rest":     "resting",
}

// qualifierDescriptions describe a qualifier in other words ("de novo" is
// new-onset, "despite therapy" and "insufficient response" a refractory
// course). They satisfy a condition's qualifier in the case text but do
// not add one to a condition, whose wording may paraphrase ("persists
// despite therapy") what its concept names once ("refractory").
var qualifierDescriptions = map[string]string{
	"new": "new-onset", "de novo": "new-onset",
	"despite": "refractory", "resistant": "refractory", "uncontrolled": "refractory",
	"insufficient response": "refractory", "inadequate response": "refractory",
	"responds insufficiently": "refractory", "respond insufficiently": "refractory",
	"not respond": "refractory", "not responding": "refractory", "not controlled": "refractory",
	"not adequately controlled": "refractory", "poorly controlled": "refractory",
	"persist": "persistent", "persists": "persistent", "persisting": "persistent", "persisted": "persistent",
	"recurring": "recurrent", "recurrence": "recurrent", "recurrences": "recurrent",
	"rest": "resting", "baseline": "resting",
}

// maxQualifierWords is the longest qualifier phrase.
const maxQualifierWords = 3

// qualifierStarts holds every first word of a qualifier or phrase, so
// most tokens are rejected without building phrases.
var qualifierStarts = func() map[string]bool {
	m := map[string]bool{}
	for _, tab := range []map[string]string{qualifierSpellings, qualifierDescriptions} {
		for k := range tab {
			m[strings.Fields(k)[0]] = true
		}
	}
	for k := range qualifiers {
		m[k] = true
	}
	return m
}()

// qualifierAt returns the qualifier starting at token i and its length in
// tokens, trying longer phrases first. Descriptions count only when
// described is set (case text, not condition wording).
func qualifierAt(ts []token, i int, described bool) (string, int) {
	if !ts[i].word || !qualifierStarts[ts[i].low] {
		return "", 0
	}
	for n := maxQualifierWords; n >= 1; n-- {
		if i+n > len(ts) {
			continue
		}
		words := make([]string, 0, n)
		ok := true
		for j := i; j < i+n; j++ {
			if !ts[j].word || ts[j].boundary && j > i {
				ok = false
				break
			}
			words = append(words, ts[j].low)
		}
		if !ok {
			continue
		}
		w := strings.Join(words, " ")
		if q, found := qualifierSpellings[w]; found {
			return q, n
		}
		if q, found := qualifierDescriptions[w]; found && described {
			return q, n
		}
		if _, found := qualifiers[w]; found && n == 1 {
			return w, 1
		}
	}
	return "", 0
}
