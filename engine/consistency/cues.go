package consistency

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Cue matching and scope in the style of NegEx/ConText. The cue lists and
// the scope settings are data (cues/*.json, read by cuedata.go); they are
// generic: no cue names a disease, so they carry over to any guideline.

type cueKind uint8

const (
	kindNegation cueKind = iota + 1
	kindUncertainty
	kindEither       // "documented or suspected": both certainties
	kindPseudo       // looks like a cue but is not ("not only"); consumed, no scope
	kindTermination  // ends the scope of other cues ("except")
	kindExperiencer  // someone other than the patient ("father had an MI")
	kindHypothetical // a condition, plan or risk, not present now ("if chest pain recurs")
	kindUnlikely     // a probable negation, neither present nor absent ("angina unlikely")
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
	// bidi: scopes both ways at once ("pneumonia versus atelectasis");
	// otherwise a cue listed both ways looks one way, chosen by what
	// follows it.
	bidi bool
	// final: looks back when it closes its clause ("troponin negative",
	// "Allergies: none"); with no other direction it is no cue elsewhere
	// ("negative T waves").
	final bool
	// listHead: governs a following list of any shape ("denies fever,
	// night sweats and weight loss").
	listHead bool
	// self: the word states its own absence ("NKDA").
	self bool
	// condition: opens a condition clause ("if", "once").
	condition bool
	// compound: heads a noun compound, reaching back only over the
	// content words right before it ("MI risk").
	compound bool
	// opener: a cue only where it opens a sentence (opensSentence).
	opener bool
	// closing: the cue as it reads when it closes its clause, of another
	// kind and looking back ("ACS r/o": ruled out; "r/o ACS": a doubt).
	closing *cueDef
}

// cuesByFirst indexes cues by their first word (longest first within), so
// matching tries only the cues that can start at a token.
var cuesByFirst = func() map[string][]int {
	m := map[string][]int{}
	for i, d := range cueRules.defs {
		m[d.words[0]] = append(m[d.words[0]], i)
	}
	return m
}()

// cueHit is one cue found in a text: tokens [first, last].
type cueHit struct {
	def         *cueDef
	first, last int
	dir         direction // resolved direction ("?" depends on spacing)
	from, to    int       // scope: token range [from, to)
	// holeFrom, holeTo: tokens [holeFrom, holeTo) inside the scope that
	// an item governor keeps out ("no change in vision, diplopia": vision).
	holeFrom, holeTo int
	// listed: the scope runs on over a list after the cue's clause
	// (listEnd).
	listed bool
}

// findCues matches cues left to right, longest first, never across
// punctuation; matched tokens are consumed, so a pseudo-cue hides the
// "not" inside it. Then each cue's scope is set.
func findCues(ts []token) []cueHit {
	var hits []cueHit
	for i := 0; i < len(ts); {
		if ts[i].boundary && !ts[i].word {
			i++
			continue
		}
		matched := false
		for _, k := range cuesByFirst[ts[i].low] {
			d := &cueRules.defs[k]
			n := len(d.words)
			if i+n > len(ts) {
				continue
			}
			ok := true
			for j := 0; j < n; j++ {
				// A clause word may close a cue ("in keeping with"),
				// punctuation never; it opens only a cue that looks
				// back ("bypass grafts when present"): the clause it
				// opens qualifies the words before it.
				t := ts[i+j]
				if t.boundary && !(t.word && (j > 0 || d.dir == backward)) || t.low != d.words[j] {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			if d.opener && !opensSentence(ts, i) && !(d.final && (i+n >= len(ts) || ts[i+n].boundary)) {
				// An opener that also ends its clause is a value
				// looking back ("CABG declined."), not a fall ("eGFR
				// declined to 38", "pain declined in frequency").
				continue
			}
			if d.kind != kindPseudo && pseudoInside(ts, i+1, i+n) {
				// "has no doubt had": the pseudo-cue "no doubt" starts
				// inside "has no" and wins.
				break
			}
			if d.closing != nil && closesClause(ts, i+n) {
				d = d.closing
			}
			dir := d.dir
			if d.final {
				if closesClause(ts, i+n) {
					dir = backward
				} else if dir == 0 {
					continue
				}
			}
			h := cueHit{def: d, first: i, last: i + n - 1, dir: dir}
			switch {
			case d.text == "?":
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
			case dir == both && !d.bidi:
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
	shieldHypothetical(hits)
	return append(hits, prefixNegations(ts)...)
}

// shieldHypothetical: a doubt or a resolution inside a condition
// describes the condition, not the patient ("MRI if there is further
// concern for malignancy", "once the haematuria has resolved"), so such
// a cue in a condition cue's scope loses its own. Other hypothetical
// cues ("would") do not shield: "I would value your opinion on testing
// for probable angina" is still in doubt.
func shieldHypothetical(hits []cueHit) {
	for i := range hits {
		h := &hits[i]
		if !(h.def.kind == kindUncertainty || h.def.kind == kindNegation && h.dir == backward) {
			continue
		}
		for _, p := range hits {
			if p.def.condition && p.dir&forward != 0 && p.covers(h.first) {
				h.from, h.to = h.first, h.first
				break
			}
		}
	}
}

// pseudoInside reports whether a pseudo-cue starts at a token in
// [from, to) and runs past to-1.
func pseudoInside(ts []token, from, to int) bool {
	for i := from; i < to; i++ {
		for _, k := range cuesByFirst[ts[i].low] {
			d := &cueRules.defs[k]
			if d.kind != kindPseudo || i+len(d.words) <= to || i+len(d.words) > len(ts) {
				continue
			}
			ok := true
			for j, w := range d.words {
				if ts[i+j].boundary && !(j > 0 && ts[i+j].word) || ts[i+j].low != w {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// closesClause reports whether a cue ending before token j ends its
// clause: the text or clause ends there, or only a count follows
// ("troponin negative x2").
func closesClause(ts []token, j int) bool {
	return j >= len(ts) || ts[j].boundary || arrows[ts[j].low] || ts[j].word && (countLike(ts[j].low) && !percentAt(ts, j) || scopeRules.tails[ts[j].low])
}

// countLike: a token of digits, with at most the "x" of a count ("x2",
// "3x", "2/52"), is a count or a date after a cue; a name that only
// holds a digit ("No T2DM", "no PDE5i use", "no 3VD") is a finding the
// cue looks forward to.
func countLike(s string) bool {
	if !hasDigit(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsLetter(r) && r != 'x' && r != '\u00d7' {
			return false
		}
	}
	return true
}

// arrows are the tokens of a chain's arrows (tokenize).
var arrows = map[string]bool{"->": true, "=>": true, "→": true}

// percentAt: a percentage or a percentage range starts at token j
// ("probable 50-69% proximal", "possible 60% LAD stenosis"): a grade the
// cue qualifies, read forward, not a count after a closing cue.
func percentAt(ts []token, j int) bool {
	for k := j; k < len(ts); k++ {
		switch t := ts[k]; {
		case t.low == "%":
			return k > j
		case t.low == "-" || t.low == "–" || t.low == "to":
		case t.word && hasDigit(t.low):
			if strings.HasSuffix(t.low, "%") {
				return true
			}
		default:
			return false
		}
	}
	return false
}

func hasDigit(s string) bool {
	return strings.IndexFunc(s, unicode.IsDigit) >= 0
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
// cue, a governor or the window, then on over a list; backward cues reach
// back to the clause start (over a heading: "Allergies: none"), a
// termination cue or the window, then back over a list.
func setScope(ts []token, hits []cueHit, k int) {
	h := &hits[k]
	switch h.def.kind {
	case kindPseudo, kindTermination:
		h.from, h.to = h.first, h.first
		return
	}
	if h.def.self {
		h.from, h.to = h.first, h.last+1
		return
	}
	if agentBefore(ts, h) || sharedWithPatient(ts, h) {
		h.from, h.to = h.first, h.first
		return
	}
	if h.def.compound {
		stops := cueRules.compoundStops[h.def.kind]
		from := h.first
		for from > 0 && ts[from-1].content() && !stops[ts[from-1].low] && !stopPrefixed(ts[from-1].low, cueRules.compoundStopPrefixes[h.def.kind]) && cueAt(hits, from-1) == nil {
			from--
		}
		h.from, h.to = from, h.first
		return
	}
	from, to := h.first, h.first
	if h.dir&forward != 0 {
		from, to = h.first+1, forwardEnd(ts, hits, k)
	}
	if h.dir&backward != 0 {
		from = backwardStart(ts, hits, k)
		if h.dir&forward == 0 {
			to = h.first
		}
	}
	h.from, h.to = from, to
}

// agentBefore reports whether the cue follows one of its kind's agent
// words ("brought in by his wife", "per her mother").
func agentBefore(ts []token, h *cueHit) bool {
	agent := cueRules.agent[h.def.kind]
	if len(agent) == 0 {
		return false
	}
	p := h.first - 1
	for p >= 0 && scopeRules.determiners[ts[p].low] {
		p--
	}
	return p >= 0 && !ts[p].boundary && agent[ts[p].low]
}

// sharedWithPatient reports whether the cue is joined to the patient as a
// second subject ("he and his father both have CAD"): the finding is the
// patient's as well.
func sharedWithPatient(ts []token, h *cueHit) bool {
	shared := cueRules.shared[h.def.kind]
	if len(shared) == 0 {
		return false
	}
	p := h.first - 1
	for p >= 0 && scopeRules.determiners[ts[p].low] {
		p--
	}
	return p >= 1 && shared[ts[p].low] && !ts[p-1].boundary && cueRules.sentence[h.def.kind][ts[p-1].low]
}

// forwardEnd is where a forward cue's scope ends (exclusive).
func forwardEnd(ts []token, hits []cueHit, k int) int {
	h := &hits[k]
	start := h.last + 1
	if start < len(ts) && ts[start].low == ":" {
		// "Denies: fever, chills", "Family history: MI, stroke": a cue
		// heading a section reaches over its value.
		return sectionEnd(ts, hits, start+1)
	}
	if ends, ok := cueRules.sentence[h.def.kind]; ok {
		sexes, patient := patientSex(ts, h)
		return sentenceEnd(ts, hits, start, ends, sexes, patient)
	}
	if h.def.listHead {
		if e := listParenEnd(ts, start); e > start {
			return e // "risks explained (death/MI/stroke <1%, bleeding)"
		}
	}
	if start < len(ts) && ts[start].low == "\n" && wrapsLine(ts, start) {
		// "She has never had\nan angiogram": the writer's line
		// wrap ends no clause.
		start++
	}
	if start >= len(ts) || ts[start].boundary {
		return start
	}
	c := ts[start].clause
	end, words, gov := start, 0, -1
	bidiStop := cueRules.bidiStops[h.def.kind]
	for end < len(ts) && ts[end].clause == c && end-h.last <= scopeRules.Window && !terminates(hits, end) && !(h.def.condition && habitualAt(ts, h.last+1, end)) {
		if h.def.bidi && end > start && bidiStop[ts[end].low] {
			break // "PCI vs CABG for 3VD": the alternatives end at "for"
		}
		if end > start && forwardStopAt(ts, cueRules.forwardStops[h.def.kind], end) {
			break // "likely CAD given typical angina": the grounds are stated
		}
		if h.def.kind == kindNegation && gov < 0 && ts[end].word {
			words++
			// A governor near the cue, followed by its object, takes
			// the negation for itself: "had no effect on the pain".
			if words <= scopeRules.Governors.Reach {
				next := end+1 < len(ts) && scopeRules.govNext[ts[end+1].low]
				if scopeRules.verbGov[ts[end].low] || next && scopeRules.nounGov[ts[end].low] {
					return end + 1
				}
				if next && scopeRules.itemGov[ts[end].low] {
					gov = end
				}
			}
		}
		end++
	}
	if gov >= 0 {
		h.holeFrom, h.holeTo = gov+1, end
	}
	if takesList(h.def) {
		if e := listEnd(ts, hits, k, end); e != end {
			h.listed, end = true, e
		}
	}
	if cueRules.glosses[h.def.kind] && end > start {
		end = glossEnd(ts, hits, end)
	}
	return end
}

// listParenEnd is where a list head's scope ends when a parenthesis opens
// right after the head, on its line or on the next line of wrapped prose,
// and closes on its line: the parenthesis is the head's list ("risks
// explained (death/MI/stroke <1%, emergency surgery, bleeding)"), figures
// and all, as a gloss of words only is for other cues (glossEnd). j
// itself when no such parenthesis opens at j.
func listParenEnd(ts []token, j int) int {
	i := j
	if i < len(ts) && ts[i].low == "\n" && wrapsLine(ts, i) {
		i++
	}
	if i >= len(ts) || ts[i].raw != "(" || !closesOnLine(ts, i) {
		return j
	}
	for k := i + 1; k < len(ts); k++ {
		if ts[k].raw == ")" {
			return k
		}
	}
	return j
}

// forwardStopAt reports whether one of the phrases starts at token i.
func forwardStopAt(ts []token, stops [][]string, i int) bool {
	for _, p := range stops {
		if wordsAt(ts, i, p) {
			return true
		}
	}
	return false
}

// glossEnd is where a scope ending at end (exclusive) ends once it takes
// in a parenthesis of words only that opens right there: the gloss of
// what the scope governs. A parenthesis holding a number or a cue, or
// left open within the window, is no gloss and end stands.
func glossEnd(ts []token, hits []cueHit, end int) int {
	if end >= len(ts) || ts[end].low != "(" {
		return end
	}
	for j := end + 1; j < len(ts) && j-end <= scopeRules.Window; j++ {
		switch {
		case ts[j].low == ")":
			if j == end+1 {
				return end
			}
			return j
		case ts[j].low == "(" || ts[j].isNum || hasDigit(ts[j].low) || startsAnyCue(hits, j):
			return end
		}
	}
	return end
}

// glossBefore is the token of the "(" of a parenthesis closing right
// before token i, when it glosses the words before it, or -1. A gloss holds
// no cue start. With naming false (the two-sided cues' alternatives:
// "CABG (LIMA-LAD + graft) vs multivessel PCI") it holds no number and no
// nested ")"; with naming true (a postposed cue: "ACS (type 1 MI) felt
// unlikely") it holds words only, follows a word, and a number in it must
// name, not measure: followed by a word ("type 1 MI"), not by a unit sign
// or the closing parenthesis ("CCS (PTP 45%) unlikely" doubts no
// likelihood).
func glossBefore(ts []token, hits []cueHit, i int, naming bool) int {
	if i < 1 || ts[i-1].low != ")" || naming && i < 3 {
		return -1
	}
	for j := i - 2; j >= 0 && !(naming && j == 0) && i-1-j <= scopeRules.Window; j-- {
		if ts[j].low == "(" {
			if j == i-2 || naming && !ts[j-1].word {
				return -1
			}
			return j
		}
		num := ts[j].isNum || hasDigit(ts[j].low)
		switch {
		case startsAnyCue(hits, j):
			return -1
		case naming && (!ts[j].word || num && !ts[j+1].word):
			return -1
		case !naming && (ts[j].low == ")" || num):
			return -1
		}
	}
	return -1
}

// startsAnyCue reports whether a cue of any kind starts at token i.
func startsAnyCue(hits []cueHit, i int) bool {
	for _, h := range hits {
		if h.first == i {
			return true
		}
	}
	return false
}

// stopPrefixed reports whether a word starts with one of the prefixes
// and goes on past it ("post-mi" for "post-").
func stopPrefixed(w string, prefixes []string) bool {
	for _, p := range prefixes {
		if len(w) > len(p) && strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// habitualAt reports whether a habitual main clause ("he gets", "she
// develops") starts at token i of a condition whose own words start at
// token first: after them, not as the condition's own subject and verb
// ("if he gets chest pain, call").
func habitualAt(ts []token, first, i int) bool {
	return i > first && i+1 < len(ts) && ts[i].word && ts[i+1].word && !ts[i+1].boundary &&
		cueRules.habitSubjects[ts[i].low] && cueRules.habitVerbs[ts[i+1].low]
}

// takesList reports whether a cue may run on over a list.
func takesList(d *cueDef) bool {
	switch cueRules.lists[d.kind] {
	case "all":
		return true
	case "heads":
		return d.listHead || d.condition
	}
	return false
}

// sentenceEnd ends a sentence-scope cue ("father had MI, stroke and
// diabetes") at its sentence end or a word that makes the patient the
// subject again. Termination cues do not: "her roommate tested positive
// for influenza" is still the roommate's.
//
// A cue inside a parenthesis ends at the parenthesis' close: the
// relative in "(smoking, hypertension, family history) I get ..." is
// one item of an aside, not the subject of the sentence that follows.
func sentenceEnd(ts []token, hits []cueHit, i int, ends map[string]bool, sexes map[string]string, patient string) int {
	depth := 0
	for j := i; j < len(ts); j++ {
		if ends[ts[j].low] && patient != "" && sexes[ts[j].low] != "" && sexes[ts[j].low] != patient {
			// "her father (he had an MI)": a pronoun of the other sex
			// than the patient's is not the patient.
			continue
		}
		switch ts[j].raw {
		case "(":
			depth++
		case ")":
			if depth == 0 {
				return j
			}
			depth--
		}
		if ends[ts[j].low] || ts[j].boundary && scopeRules.ends[ts[j].low] && ts[j].low != ":" && !wrapsLine(ts, j) && !(depth > 0 && closesOnLine(ts, j)) {
			return j
		}
	}
	return len(ts)
}

// patientSex is the kind's sex words and the patient's sex, read off a
// possessive in the cue hit h or right before it ("her father", "his
// mother"); "" when neither says it.
func patientSex(ts []token, h *cueHit) (map[string]string, string) {
	sexes := cueRules.sexes[h.def.kind]
	if sexes == nil {
		return nil, ""
	}
	for j := h.first - 1; j <= h.last; j++ {
		if j < 0 || !ts[j].word {
			continue
		}
		if s := sexes[ts[j].low]; s != "" && j < h.last {
			return sexes, s
		}
	}
	return nil, ""
}

// closesOnLine reports whether a parenthesis open at ts[j] closes later on
// the same line: a full stop inside it ends an abbreviation or an aside
// ("Brother (62 y.) had a stent"), not the sentence the parenthesis sits
// in, so the relative stays its subject past it.
func closesOnLine(ts []token, j int) bool {
	if ts[j].low == "\n" {
		return false
	}
	for k := j + 1; k < len(ts) && ts[k].low != "\n"; k++ {
		switch ts[k].raw {
		case "(":
			return false
		case ")":
			return true
		}
	}
	return false
}

// wrapLineWords: a line of prose wrapped by its writer holds this many
// words at least.
const wrapLineWords = 8

// wrapsLine reports whether the line break ts[j] only wraps a sentence
// of prose: the line is a long one (wrapLineWords words or more) that
// ends on a word (not a number) or a comma, and the next line goes on
// in lower case, after an opening parenthesis or not ("... and his older
// brother\n(now 47) had a stent", "... and her sister\nhad a stent"). A
// sentence that runs on keeps its subject; a short line (a note's
// shorthand, a list item), a blank line or a new line in capitals starts
// afresh.
func wrapsLine(ts []token, j int) bool {
	if ts[j].low != "\n" || j == 0 || j+1 >= len(ts) {
		return false
	}
	if p := ts[j-1]; p.raw != "," && (!p.word || p.isNum) {
		return false
	}
	words := 0
	for b := j - 1; b >= 0 && ts[b].low != "\n"; b-- {
		if ts[b].word {
			words++
		}
	}
	if words < wrapLineWords {
		return false
	}
	k := j + 1
	if ts[k].raw == "(" && k+1 < len(ts) {
		k++
	}
	if !ts[k].word {
		return false
	}
	r, _ := utf8.DecodeRuneInString(ts[k].raw)
	return unicode.IsLower(r)
}

// sectionEnd ends a heading cue's scope at the end of its sentence, a
// termination cue or the next heading (whose words stay out).
func sectionEnd(ts []token, hits []cueHit, i int) int {
	for j := i; j < len(ts); j++ {
		if terminates(hits, j) {
			return j
		}
		if ts[j].low == ":" {
			b := j
			for b > i && !ts[b-1].boundary {
				b--
			}
			return b
		}
		if ts[j].boundary && scopeRules.ends[ts[j].low] {
			return j
		}
	}
	return len(ts)
}

// backwardStart is where a backward cue's scope starts.
func backwardStart(ts []token, hits []cueHit, k int) int {
	h := &hits[k]
	c, lo := ts[h.first].clause, h.first
	if o := qualifiedBefore(ts, h); o >= 0 {
		// "coronary arteries and bypass grafts (when present)",
		// "stents (if present)": a backward cue opening a clause of
		// its own (a clause word, a parenthesis holding the cue alone)
		// qualifies the clause right before it, not a list before
		// that clause.
		c, start := ts[o].clause, o
		for start > 0 && ts[start-1].clause == c && h.first-start < scopeRules.Window && !terminatesBefore(hits, start-1) {
			start--
		}
		return start
	} else if ts[h.first].boundary {
		return h.first
	}
	if lo >= 2 && !ts[lo-2].boundary && valueAfter(ts, h) {
		// "Allergies: none", "CXR: negative", "Trop I <5, negative",
		// "HIV  Negative": a value alone looks back over its heading.
		c, lo = ts[lo-2].clause, lo-1
	}
	if h.def.bidi && cueRules.glosses[h.def.kind] {
		// "CABG (LIMA-LAD + graft) vs multivessel PCI": the gloss is
		// part of the first alternative, which the cue weighs too.
		if o := glossBefore(ts, hits, lo, false); o > 0 && !ts[o-1].boundary {
			c, lo = ts[o-1].clause, o
		}
	} else if o := glossBefore(ts, hits, lo, true); o > 0 {
		// "ACS (type 1 MI) felt unlikely": the parenthesis glosses the
		// words before it, and the cue looks back over both.
		c, lo = ts[o-1].clause, o
	}
	start := lo
	for start > 0 && ts[start-1].clause == c && h.first-start < scopeRules.Window && !terminatesBefore(hits, start-1) &&
		!(start < h.first && stopPrefixed(ts[start-1].low, cueRules.terminationPrefixes)) &&
		!(h.def.bidi && start < h.first && cueRules.bidiStops[h.def.kind][ts[start-1].low]) {
		start--
	}
	if cueRules.lists[h.def.kind] != "none" {
		start = listStart(ts, hits, k, start)
	}
	return start
}

// qualifiedBefore is the last word of the clause a backward cue that opens
// a clause of its own qualifies, or -1: the cue starts at a clause word
// ("grafts when present", "grafts (when present)") or fills a parenthesis
// alone ("stents (if present)"), and a word comes right before it (or
// before its parenthesis).
func qualifiedBefore(ts []token, h *cueHit) int {
	p := h.first - 1
	switch {
	case ts[h.first].boundary:
		if p >= 0 && ts[p].low == "(" {
			p--
		}
	case p >= 0 && ts[p].low == "(" && h.last+1 < len(ts) && ts[h.last+1].low == ")":
		p--
	default:
		return -1
	}
	if p < 0 || ts[p].boundary {
		return -1
	}
	return p
}

// valueAfter reports whether a backward cue is the value of the label
// before it: after a colon, or alone in its clause after a table cell
// break or (a final cue: "negative", "none") a comma.
func valueAfter(ts []token, h *cueHit) bool {
	switch ts[h.first-1].low {
	case ":":
		return true
	case "\t", "-", "–", "—":
		// A table cell or a spaced dash ("LV thrombus - not seen"): a
		// value that closes its clause reads back over its label.
		return closesClause(ts, h.last+1)
	case ",":
		return h.def.final && closesClause(ts, h.last+1) && !qualifiedAfter(ts, h.last+1)
	}
	return false
}

// qualifiedAfter reports whether a course qualifier opens the words from
// token j: a value after a comma that names another course ("exertional
// chest tightness, nil at rest", "pain on walking, none at night") denies
// the finding in that course, not the finding before the comma.
func qualifiedAfter(ts []token, j int) bool {
	if j >= len(ts) || ts[j].boundary {
		return false
	}
	q, n := qualifierAt(ts, j, true)
	return n > 0 && qualifiers[q] == qualCourse
}

func isSep(t token) bool { return scopeRules.sep[t.low] }

// isEnd reports whether token t ends a list properly: a sentence end, a
// semicolon or colon, or a contrast ("but").
func isEnd(t token) bool { return t.boundary && scopeRules.ends[t.low] }

// listItem scans one list item from token i in direction step (+1 or -1)
// up to the next separator or clause boundary. It returns the token past
// the item, its word count, and whether it can be a list item: short, no
// count or value, no word that asserts ("presents", "on", "a"), no cue of
// the list's own kind (a mixed list "no X, no Y and Z" asserts Z) and no
// termination cue. loose is the same judgement with a tail forgiven: a
// phrase after the item's first word that starts with a tail word ("VT
// on 48 h Holter", "pseudoaneurysm at the femoral access site").
func listItem(ts []token, hits []cueHit, kind cueKind, i, step int) (next, words int, strict, loose bool) {
	strict, loose = true, true
	var seq []int
	for i >= 0 && i < len(ts) && !isSep(ts[i]) && !ts[i].boundary {
		seq = append(seq, i)
		i += step
	}
	if step < 0 {
		for a, b := 0, len(seq)-1; a < b; a, b = a+1, b-1 {
			seq[a], seq[b] = seq[b], seq[a]
		}
	}
	coreWords, inTail := 0, false
	for _, x := range seq {
		t := ts[x]
		bad := startsCue(hits, x, kind) || startsCue(hits, x, kindTermination)
		// The list's first item may open with a determiner ("Her ANA
		// and rheumatoid factor were both negative").
		lead := step < 0 && words == 0 && scopeRules.determiners[t.low]
		if t.word && lead {
			words++
			continue
		}
		if t.word {
			words++
			if !inTail && coreWords > 0 && scopeRules.tails[t.low] {
				inTail = true
			}
			if !inTail {
				coreWords++
			}
			bad = bad || scopeRules.breakers[t.low] || hasDigit(t.low)
		}
		if bad {
			strict = false
			if !inTail {
				loose = false
			}
		}
	}
	max := scopeRules.Lists.MaxItemWords
	strict = strict && words > 0 && words <= max
	loose = loose && coreWords > 0 && coreWords <= max
	return i, words, strict, loose
}

// listOK decides whether a list of extra items (their word counts) may
// take the cue: it ended properly or was closed by a coordinator; without
// a coordinator it needs min_items_without_coordinator items in all (the
// cue's own first); closed by "and", its items must be short unless a
// list head leads it.
func listOK(items []int, proper bool, coord string, head bool) bool {
	if len(items) == 0 || !proper && coord == "" {
		return false
	}
	if coord == "" && len(items)+1 < scopeRules.Lists.MinItemsNoCoord {
		return false
	}
	if scopeRules.conj[coord] && !head {
		// "no heart failure and hypertension" may assert the second:
		// only a longer list of short items ("no nausea, vomiting and
		// diarrhoea") takes a bare cue past "and".
		if len(items)+1 < scopeRules.Lists.MinItemsNoCoord {
			return false
		}
		for _, w := range items {
			if w > scopeRules.Lists.MaxItemWordsAfterAnd {
				return false
			}
		}
	}
	return true
}

// listEnd carries a forward cue over a list that continues after its
// clause: "no murmurs, rubs, gallops", "no prior MI, PCI or CABG",
// "denies nausea, vomiting and diarrhea". end is the plain scope's end.
func listEnd(ts []token, hits []cueHit, k, end int) int {
	h := hits[k]
	if end >= len(ts) || !isSep(ts[end]) || mixedBefore(ts, hits, k) || postPosed(ts, h, end) {
		return end
	}
	var items []int
	i, last, coord, proper := end, end, "", false
	// cut: the first item kept only by forgiving its tail, and where
	// the list ended before it.
	cut, cutEnd := -1, end
	// ranOn: the last item ran into a clause of its own; coordEnd: where
	// the item after the list's last coordinator ends.
	ranOn, coordEnd := false, -1
	for {
		j, c := i, ""
		// A line break that only wraps the prose ("denies chest pain,\n
		// pressure, dyspnoea") goes on with the list.
		for j < len(ts) && (isSep(ts[j]) || j > i && wrapsLine(ts, j)) {
			if scopeRules.coord[ts[j].low] {
				c = ts[j].low
			}
			j++
		}
		if j == i {
			break
		}
		if j >= len(ts) || isEnd(ts[j]) {
			proper = true
			break
		}
		e, words, strict, loose := listItem(ts, hits, h.def.kind, j, 1)
		if !loose {
			// A comma before an item that asserts itself ("no murmurs,
			// rubs, gallops, chest clear") ends the list there as a
			// full stop would; after "and"/"or" it does not.
			proper = c == "" && len(items) > 0
			ranOn = proper
			break
		}
		// A coordinator counts only before an item the list keeps.
		if c != "" {
			coord = c
		}
		if !strict && cut < 0 {
			cut, cutEnd = len(items), last
		}
		items, last = append(items, words), e
		if c != "" {
			coordEnd = e
		}
		if e >= len(ts) || isEnd(ts[e]) {
			proper = true
			break
		}
		if !isSep(ts[e]) {
			if (h.def.listHead || h.def.condition) && len(items) > 1 {
				// A list head's objects end where the last one runs
				// into a clause or parenthesis of its own ("risks
				// including stroke, MI or death (<1%)", "… or MI with
				// surgery"): the clause tells of that item, and the
				// items before it are the head's still.
				proper, ranOn = true, true
				break
			}
			// The item runs into another clause ("hypertension treated
			// with ramipril"): not a list of findings.
			return end
		}
		i = e
	}
	if cut >= 0 && !scopeRules.disj[coord] && !(h.def.listHead && proper && cut < len(items)-1) {
		// Only a list closed by "or" forgives a tail: "no diabetes,
		// hypertension on ramipril" asserts the hypertension. So does a
		// list head's list that runs on past the tailed item to its end
		// ("denies CP, SOB on exertion, palps, syncope"): the items after
		// it are the verb's objects still.
		items, last, proper = items[:cut], cutEnd, false
	}
	if !listOK(items, proper, coord, h.def.listHead) {
		return end
	}
	if h.def.condition && !h.def.listHead && !ranOn {
		// A condition governs a list of conditions only where its
		// sentence goes on past the list to the consequence ("if rest
		// pain, syncope or ACS - do not use this form", "..., call
		// 999"): the words after the coordinated item are that
		// consequence. A list that ends its sentence is the consequence
		// itself ("if symptoms persist, CT or angiography").
		if coordEnd < 0 || coordEnd >= last {
			return end
		}
		last = coordEnd
	}
	return last
}

// postPosed reports whether a cue stands after the subject it denies, its
// own scope up to end (exclusive) holding only predicate words: in "JVP
// not raised, trace pitting oedema to ankles, chest clear" the negation
// is said of the JVP, and the items after the comma are clauses of their
// own, not more objects of the cue. A subject is a word of the cue's
// list item before it that is neither a breaker ("patient", "has") nor
// a determiner, so "patient denies nausea, vomiting" still lists.
func postPosed(ts []token, h cueHit, end int) bool {
	if h.last+1 >= end {
		return false
	}
	for j := h.last + 1; j < end; j++ {
		if ts[j].word && !scopeRules.breakers[ts[j].low] {
			return false
		}
	}
	for p := h.first - 1; p >= 0 && !isSep(ts[p]) && !ts[p].boundary; p-- {
		if ts[p].word && !scopeRules.breakers[ts[p].low] && !scopeRules.determiners[ts[p].low] && !hasDigit(ts[p].low) {
			return true
		}
	}
	return false
}

// listStart carries a backward cue back over a list before its clause:
// "troponin and CK were negative", "murmurs, rubs, gallops: none".
func listStart(ts []token, hits []cueHit, k, start int) int {
	h := hits[k]
	if start == 0 || !isSep(ts[start-1]) {
		return start
	}
	var items []int
	i, first, coord, proper := start, start, "", false
	for {
		j, c := i, ""
		for j > 0 && isSep(ts[j-1]) {
			if scopeRules.coord[ts[j-1].low] && c == "" {
				c = ts[j-1].low
			}
			j--
		}
		if j == i {
			break
		}
		if j == 0 || isEnd(ts[j-1]) {
			proper = true
			break
		}
		b, words, ok, _ := listItem(ts, hits, h.def.kind, j-1, -1)
		if !ok {
			break
		}
		if c != "" && coord == "" {
			coord = c
		}
		items, first = append(items, words), b+1
		if b < 0 || isEnd(ts[b]) {
			proper = true
			break
		}
		if !isSep(ts[b]) {
			return start
		}
		i = b + 1
	}
	// The cue is a predicate over the list ("troponin and CK were
	// negative"), so it takes the list as a list head would.
	if !listOK(items, proper, coord, true) {
		return start
	}
	return first
}

// mixedBefore reports whether the cue follows a list item that opens
// with a cue of its own kind: in "no diabetes, no HF and obesity" each
// "no" holds its own item and obesity is asserted.
func mixedBefore(ts []token, hits []cueHit, k int) bool {
	h := hits[k]
	p := h.first - 1
	if p < 0 || !isSep(ts[p]) {
		return false
	}
	for p >= 0 && isSep(ts[p]) {
		p--
	}
	for p >= 0 && !isSep(ts[p]) && !ts[p].boundary {
		if startsCue(hits, p, h.def.kind) {
			return true
		}
		p--
	}
	return false
}

// startsCue reports whether a cue of the kind starts at token i.
func startsCue(hits []cueHit, i int, kind cueKind) bool {
	for _, h := range hits {
		if h.first == i && h.def.kind == kind {
			return true
		}
	}
	return false
}

// terminates reports whether a termination cue starts at token i.
func terminates(hits []cueHit, i int) bool { return startsCue(hits, i, kindTermination) }

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
func (h cueHit) covers(i int) bool {
	return i >= h.from && i < h.to && !(i >= h.holeFrom && i < h.holeTo)
}

// resolveBoth picks the direction of a cue listed both ways ("suspected",
// "denied", "ruled out"): followed by a finding word it looks forward
// ("suspected CCS"), else back ("CCS suspected", "CCTA may be considered
// in suspected CCS" keeps CCTA out of the scope).
func resolveBoth(ts []token, next int) direction {
	if next < len(ts) && !ts[next].boundary && ts[next].content() && !scopeRules.resolveFollowers[ts[next].low] {
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
	qualRate                          // fast, slow (a rate: "fast irregular heart rate")
)

// qualifiers, qualifierSpellings and qualifierDescriptions are the
// qualifier words of step (v), data in cues/qualifiers.json.
var qualifiers, qualifierSpellings, qualifierDescriptions = must3(loadQualifiers())

// qualifierImplies: the qualifiers a course described in other words
// states beside the one it describes (cues/qualifiers.json
// described_implies: "despite therapy" is refractory, so persistent too).
var qualifierImplies = must(loadQualifierImplies())

// describedAt reports whether the n tokens from i spell a description
// (cues/qualifiers.json descriptions), not a qualifier or its spelling.
func describedAt(ts []token, i, n int) bool {
	if i+n > len(ts) {
		return false
	}
	words := make([]string, n)
	for j := range words {
		words[j] = ts[i+j].low
	}
	key := strings.Join(words, " ")
	_, spelled := qualifierSpellings[key]
	_, described := qualifierDescriptions[key]
	return described && !spelled
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
	// The phrase is spelled into a stack buffer: the map lookups by
	// string(key) copy nothing.
	var buf [64]byte
	for n := maxQualifierWords; n >= 1; n-- {
		if i+n > len(ts) {
			continue
		}
		key := buf[:0]
		ok := true
		for j := i; j < i+n; j++ {
			if !ts[j].word || ts[j].boundary && j > i {
				ok = false
				break
			}
			if j > i {
				key = append(key, ' ')
			}
			key = append(key, ts[j].low...)
		}
		if !ok {
			continue
		}
		if q, found := qualifierSpellings[string(key)]; found {
			return q, n
		}
		if q, found := qualifierDescriptions[string(key)]; found && described {
			return q, n
		}
		if _, found := qualifiers[string(key)]; found && n == 1 {
			return ts[i].low, 1
		}
	}
	return "", 0
}

// opensSentence reports whether token i starts the text or follows a
// full stop, semicolon, colon, exclamation or question mark, a line
// break, or the opening of a remark of its own: a parenthesis or a dash
// set off by spaces ("NSTEMI 2019 (declined angiography)", "NSTEMI -
// declined PCI"), where a verb has no subject before it either.
func opensSentence(ts []token, i int) bool {
	if i == 0 {
		return true
	}
	switch ts[i-1].raw {
	case ".", ";", ":", "!", "?", "\n", "(":
		return true
	case "-", "–", "—":
		return i >= 2 && ts[i-1].start > ts[i-2].end && ts[i].start > ts[i-1].end
	}
	return false
}
