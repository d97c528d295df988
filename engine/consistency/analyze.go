// Package consistency is step (v) of the query pipeline: before a piece of
// evidence may support a rule condition, the mention it came from is found
// again in the case text and its clause is read for negation, uncertainty
// and qualifiers (ConText/NegEx style). The extractor and the formatter
// can drop the one word that changes the meaning ("suspected", "no",
// "chronic"); this step recovers it from the text.
//
// The cue lists (cues.go) are generic and name no disease.
package consistency

import (
	"slices"
	"sort"
	"strings"
	"sync"
)

// Context is what a text says around a mention.
type Context struct {
	Target string `json:"target"`
	// Found reports whether the mention was located in the text.
	Found bool `json:"found"`
	// Clause is the text of the clause(s) holding the mention.
	Clause    string `json:"clause"`
	Negated   bool   `json:"negated"`
	Uncertain bool   `json:"uncertain"`
	// Either is set when a phrase such as "documented or suspected"
	// scopes over the mention: it is asserted and suspected at once.
	Either bool `json:"either,omitempty"`
	// Other is set when the mention is about someone other than the
	// patient (a relative: ConText's experiencer).
	Other bool `json:"other_experiencer,omitempty"`
	// Hypothetical is set when the mention is spoken of as a condition,
	// a plan or a risk, not as present now ("if chest pain recurs").
	Hypothetical bool `json:"hypothetical,omitempty"`
	// Unlikely is set when the mention is spoken of as probably absent
	// ("angina unlikely"): neither present nor stated absent, so unknown.
	Unlikely bool `json:"unlikely,omitempty"`
	// Qualifiers found in the clause (chronic, acute, stable, severe, …).
	Qualifiers []string `json:"qualifiers"`
	// Cues that scope over the mention, in text order.
	Cues []string `json:"cues"`
}

// Analyze locates target in text (case-insensitive; by token overlap,
// spelling variants and acronyms when not verbatim) and reports its
// clause, the cues scoping over it and the clause's qualifiers. Negation
// and uncertainty are judged at the mention's head, its first word that
// is not part of a cue, so "diabetes without complications" is not a
// negated diabetes while "no history of MI" is a negated MI.
//
// To judge many mentions in one text, build a Text once and call its
// Analyze.
//
// Callers that pass one long case text again and again (a reader asking
// about each finding of a case) get its Text from a small cache of recent
// long texts, so the case is not tokenised once per finding.
func Analyze(text, target string) Context { return recentText(text).Analyze(target) }

// The recent-text cache: a few slots, for texts long enough that reading
// them costs more than the lookup. A Text depends on nothing but its text,
// so a cached one gives exactly the answer a fresh one would.
const (
	recentSlots    = 16
	recentMinBytes = 256
)

var recent struct {
	sync.Mutex
	texts [recentSlots]*Text
	next  int
}

// Shared is the Text the package-level Analyze and Check read text with:
// a caller that judges a case's mentions on its own Text as well (the
// engine's step (v)) shares the one tokenisation with them instead of
// reading the case twice. Its answers are those of NewText(text).
func Shared(text string) *Text { return recentText(text) }

func recentText(text string) *Text {
	if len(text) < recentMinBytes {
		return NewText(text)
	}
	recent.Lock()
	for _, t := range recent.texts {
		if t != nil && t.text == text {
			recent.Unlock()
			return t
		}
	}
	recent.Unlock()
	t := NewText(text)
	recent.Lock()
	recent.texts[recent.next] = t
	recent.next = (recent.next + 1) % recentSlots
	recent.Unlock()
	return t
}

// Text is a text tokenised and scanned for cues once, so that many
// mentions can be located and judged in it without reading it again: build
// one per case (NewText), then call Analyze or Check per mention. A Text
// is safe for concurrent use; it only remembers where it found each
// mention.
type Text struct {
	text string
	toks []token
	hits []cueHit
	// clauses[c] is the first and last token of clause c (tokens of a
	// clause are contiguous), so locating a mention is not a scan of the
	// whole text per clause.
	clauses [][2]int
	// bounds is the first and last boundary token (-1 when none): the
	// clause span of a mention made of boundary tokens only.
	bounds [2]int
	// readings memoises reading: a mention is located once however many
	// conditions it is judged against.
	readings sync.Map // string → *mentionReading
	// at is, on a view made by At, the byte offset the mention is written
	// at (-1 on the Text NewText made); views is the root's cache of its
	// views, by offset.
	at    int
	views *sync.Map // int → *Text
}

// At is the text read for a mention written at byte offset start: the
// mention is located there, not at the first place its words occur ("No
// HF symptoms. … better for prognosis and symptoms": the second
// "symptoms" is not negated). Where the mention's words do not begin
// within its own span at start (an extractor that rewrote it), it is
// located as Text does. A negative start is t. A view shares t's
// tokens and cues and is cached, so asking again is free.
func (t *Text) At(start int) *Text {
	if start < 0 || start >= len(t.text) {
		return t
	}
	if t.at >= 0 {
		if t.at == start {
			return t
		}
		return t.root().At(start)
	}
	if v, ok := t.views.Load(start); ok {
		return v.(*Text)
	}
	v := &Text{text: t.text, toks: t.toks, hits: t.hits, clauses: t.clauses, bounds: t.bounds, at: start, views: t.views}
	got, _ := t.views.LoadOrStore(start, v)
	return got.(*Text)
}

// root is the Text a view was made from (its views map is the root's).
func (t *Text) root() *Text {
	if t.at < 0 {
		return t
	}
	r, _ := t.views.Load(-1)
	return r.(*Text)
}

// mentionReading is a mention located in a Text.
type mentionReading struct {
	// a is the mention located in the text or, when it is not found
	// there (inCase false), in its own words.
	a      analysis
	inCase bool
	// toks are the mention's own tokens followed by its tokens in the
	// text (when found), the words a condition is linked through.
	toks []token
	// sigID numbers tokenSig(toks), the spelling of toks as
	// conditionCertainty reads them (each token's text and whether it is
	// a word): the key of its memo, hashed once per mention, not once per
	// condition judged against it.
	sigID uint64
}

// reading locates mention in the text, once per mention.
func (t *Text) reading(mention string) *mentionReading {
	if r, ok := t.readings.Load(mention); ok {
		return r.(*mentionReading)
	}
	mt := readTokens(mention) // once, for locating and for the reading
	a := t.analyseTokens(mt)
	r := &mentionReading{a: a, inCase: a.found}
	if !a.found {
		r.a = analyse(mention, mention)
	}
	if r.a.found {
		in := r.a.toks[r.a.from : r.a.to+1]
		r.toks = append(make([]token, 0, len(mt)+len(in)), mt...)
		r.toks = append(r.toks, in...)
		r.sigID = sigID(tokenSig(r.toks))
	}
	v, _ := t.readings.LoadOrStore(mention, r)
	return v.(*mentionReading)
}

// NewText tokenises text and finds its cues.
func NewText(text string) *Text {
	toks := readTokens(text)
	t := &Text{text: text, toks: toks, hits: findCues(toks), bounds: [2]int{-1, -1}, at: -1, views: &sync.Map{}}
	t.views.Store(-1, t)
	for i, tok := range toks {
		if tok.clause < 0 {
			if t.bounds[0] < 0 {
				t.bounds[0] = i
			}
			t.bounds[1] = i
		}
		if c := tok.clause; c >= 0 {
			for len(t.clauses) <= c {
				t.clauses = append(t.clauses, [2]int{-1, -1})
			}
			if t.clauses[c][0] < 0 {
				t.clauses[c][0] = i
			}
			t.clauses[c][1] = i
		}
	}
	return t
}

// String returns the text.
func (t *Text) String() string { return t.text }

// Analyze is the package-level Analyze on the text t holds.
func (t *Text) Analyze(target string) Context {
	r := t.reading(target)
	a := r.a
	if !r.inCase {
		return Context{Target: target, Qualifiers: []string{}, Cues: []string{}}
	}
	return a.context(target, []int{a.head()})
}

// HypotheticalIn reports whether a hypothetical cue ("if", "risk for")
// starts among the mention's own words in the text; false when the
// mention is not in the text. A cheap test before AnalyzeAt.
func (t *Text) HypotheticalIn(mention string) bool { return t.cueIn(mention, kindHypothetical) }

// OtherIn reports whether an experiencer cue (someone other than the
// patient: "a colleague had a heart attack") lies among the mention's
// own words, a cheap test before AnalyzeAt.
func (t *Text) OtherIn(mention string) bool { return t.cueIn(mention, kindExperiencer) }

// NegationIn reports whether a negation cue lies among the mention's own
// words, a cheap test before AnalyzeAt.
func (t *Text) NegationIn(mention string) bool { return t.cueIn(mention, kindNegation) }

// UncertaintyIn reports whether an uncertainty cue lies among the
// mention's own words, a cheap test before AnalyzeAt.
func (t *Text) UncertaintyIn(mention string) bool { return t.cueIn(mention, kindUncertainty) }

// UnlikelyCue reports whether cue (as Context.Cues lists it) is a
// probable-negation cue ("unlikely").
func UnlikelyCue(cue string) bool {
	for i := range cueRules.defs {
		if d := &cueRules.defs[i]; d.text == cue {
			return d.kind == kindUnlikely
		}
	}
	return false
}

// HypotheticalListHead reports whether cue (as Context.Cues lists it) is
// a hypothetical cue that governs a following list ("risks including",
// "return if") or opens a condition, whose list it governs as well ("if
// X, Y or Z"): it reaches the list's items from outside their findings
// (HypotheticalListed).
func HypotheticalListHead(cue string) bool {
	for i := range cueRules.defs {
		if d := &cueRules.defs[i]; d.text == cue && d.kind == kindHypothetical && (d.listHead || d.condition) {
			return true
		}
	}
	return false
}

// UnlikelyIn reports whether a probable-negation cue ("unlikely") lies
// among the mention's own words, a cheap test before AnalyzeAt.
func (t *Text) UnlikelyIn(mention string) bool { return t.cueIn(mention, kindUnlikely) }

// HypotheticalListed reports whether a hypothetical list head before the
// mention ("risks discussed including", "return if") carries its scope
// over the mention as an item of the list it governs: "Risks including
// stroke, MI and emergency CABG" speaks of MI as a risk although no cue
// lies among the words of the finding "MI"; so does a condition over the
// list it opens ("if rest pain, syncope or a troponin rise, admit"), its
// items split into findings of their own. Only these reach
// over findings this way; a plain forward cue stays a cheap test of the
// mention's own words (HypotheticalIn).
func (t *Text) HypotheticalListed(mention string) bool {
	r := t.reading(mention)
	if !r.inCase {
		return false
	}
	a := r.a
	h := a.head()
	for _, c := range a.hits {
		if c.def.kind != kindHypothetical || c.first >= a.from || !c.covers(h) {
			continue
		}
		// A condition reaches another finding only as an item of the
		// list of conditions it opens (listEnd), not in its own clause,
		// whose consequence it does not bound ("once euvolaemic ->
		// angiography").
		if c.def.listHead || c.def.condition && c.listed && a.toks[c.first].clause != a.toks[h].clause {
			return true
		}
	}
	return false
}

func (t *Text) cueIn(mention string, kind cueKind) bool {
	r := t.reading(mention)
	if !r.inCase {
		return false
	}
	for _, h := range r.a.hits {
		if h.def.kind == kind && h.first >= r.a.from && h.first <= r.a.to {
			return true
		}
		// The box opening a checklist item is the item's first word,
		// though the item's own words, read alone, have no row of boxes
		// to make it one (boxOpeningAt).
		if h.def.kind == kind && h.first == r.a.from-1 && r.a.toks[h.first].raw == "[_]" {
			return true
		}
	}
	return false
}

// AnalyzeAt is Analyze with the cues judged at the words of phrase inside
// the mention, not at the mention's head: in "low risk for CAD" the risk
// cue reaches "CAD", the concept's words, though not "low". A cue that
// starts inside the phrase is the phrase's own wording ("increased risk
// of GI bleeding") and is not judged. Without the phrase's words in the
// mention it is Analyze.
func (t *Text) AnalyzeAt(mention, phrase string) Context {
	r := t.reading(mention)
	a := r.a
	if !r.inCase {
		return Context{Target: mention, Qualifiers: []string{}, Cues: []string{}}
	}
	l := linked(a.toks, a.from, a.to, tokenize(phrase))
	if len(l) == 0 {
		return a.context(mention, []int{a.head()})
	}
	// A cue inside the phrase's words is the phrase's own wording; where
	// the phrase stands together apart from a stray word of it, its own
	// words are that run's.
	l, run := statedRunFirst(a.toks, l)
	lo, hi := l[0], l[run-1]
	if run == 1 {
		lo, hi = slices.Min(l), slices.Max(l)
	}
	own := false
	for _, h := range a.hits {
		if h.first >= lo && h.first <= hi {
			own = true
			break
		}
	}
	if own {
		kept := make([]cueHit, 0, len(a.hits))
		for _, h := range a.hits {
			if h.first < lo || h.first > hi {
				kept = append(kept, h)
			}
		}
		a.hits = kept
	}
	return a.context(mention, l)
}

// statedRunFirst puts first the longest run of linked words (l, in text
// order) standing together, the phrase stated word for word, so the cues
// judged at the first focus word are judged there: in 'asked for a heart
// check-up after a friend died of a heart attack' the phrase 'heart
// attack' is the second 'heart', which the friend's cue reaches, not the
// first. Only where the words before the run are the run's own again
// (repeats); a lone word anywhere, or a first run as long as any, leaves
// l as it is (run 1: lo and hi stay the bounds of all of l).
func statedRunFirst(toks []token, l []int) (out []int, run int) {
	best, bestLen, start := 0, 1, 0
	for k := 1; k <= len(l); k++ {
		if k < len(l) && together(toks, l[k-1], l[k]) {
			continue
		}
		if n := k - start; n > bestLen {
			best, bestLen = start, n
		}
		start = k
	}
	if best == 0 || !repeats(toks, l[:best], l[best:best+bestLen]) {
		return l, 1
	}
	out = make([]int, 0, len(l))
	out = append(out, l[best:best+bestLen]...)
	out = append(out, l[:best]...)
	return append(out, l[best+bestLen:]...), bestLen
}

// repeats: every word of stray is a word of run again, so the run states
// the phrase stray only began ('heart' of 'heart check-up' before 'heart
// attack'). A phrase whose words stand on both sides of a cue ('PCI would
// not achieve complete revascularisation') is one phrase, cue and all.
func repeats(toks []token, stray, run []int) bool {
	for _, i := range stray {
		found := false
		for _, j := range run {
			if similar(&toks[i], &toks[j]) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// together: linked words i < j with no other content word between them.
func together(toks []token, i, j int) bool {
	for k := i + 1; k < j; k++ {
		if toks[k].content() {
			return false
		}
	}
	return true
}

// analysis is a tokenised text with its cues and a located mention.
type analysis struct {
	text       string
	toks       []token
	hits       []cueHit
	found      bool
	from, to   int // mention tokens, inclusive
	cFrom, cTo int // clause tokens, inclusive
}

func analyse(text, target string) analysis { return NewText(text).analyse(target) }

// analyse locates target in the text. The analysis shares the Text's
// tokens and cues, which nothing writes to after NewText.
func (t *Text) analyse(target string) analysis { return t.analyseTokens(readTokens(target)) }

// analyseTokens is analyse on the target's tokens.
func (t *Text) analyseTokens(target []token) analysis {
	a := analysis{text: t.text, toks: t.toks, hits: t.hits}
	from, to, ok := t.locate(target)
	if !ok {
		return a
	}
	a.found, a.from, a.to = true, from, to
	lo, hi := -1, -1
	for i := from; i <= to; i++ {
		if c := a.toks[i].clause; c >= 0 {
			if lo < 0 || c < lo {
				lo = c
			}
			if c > hi {
				hi = c
			}
		}
	}
	a.cFrom, a.cTo = from, to
	span := t.bounds
	if lo >= 0 {
		span = [2]int{t.clauses[lo][0], t.clauses[hi][1]}
	}
	if span[0] >= 0 {
		a.cFrom, a.cTo = span[0], span[1]
	}
	return a
}

// head is the first content word of the mention that is not a cue word
// nor a subject pronoun: "I suspect X" is headed by X, which the cue
// reaches, not by "I", which it does not.
func (a analysis) head() int {
	for i := a.from; i <= a.to; i++ {
		if a.toks[i].content() && !inCue(a.hits, i) && !cueRules.habitSubjects[a.toks[i].low] {
			return i
		}
	}
	for i := a.from; i <= a.to; i++ {
		if a.toks[i].word && !inCue(a.hits, i) {
			return i
		}
	}
	return a.from
}

// under reports whether a cue of the kind scopes over any focus token,
// and which cues do.
func (a analysis) under(kind cueKind, focus []int) (bool, []string) {
	var cs []string
	for _, h := range a.hits {
		if h.def.kind != kind {
			continue
		}
		for _, i := range focus {
			if h.covers(i) {
				cs = append(cs, h.def.text)
				break
			}
		}
	}
	return len(cs) > 0, cs
}

// covering is the cues that scope over some focus token, in text order:
// every cue under(kind, f) reports for any kind and any f among focus.
// nil when none does (as an analysis with no cues has).
func (a analysis) covering(focus []int) []cueHit {
	var out []cueHit
	for _, h := range a.hits {
		for _, i := range focus {
			if h.covers(i) {
				out = append(out, h)
				break
			}
		}
	}
	return out
}

// context builds the public view, judging cues at the focus tokens.
func (a analysis) context(target string, focus []int) Context {
	c := Context{Target: target, Found: a.found, Qualifiers: []string{}, Cues: []string{}}
	if !a.found {
		return c
	}
	c.Clause = strings.TrimSpace(a.text[a.toks[a.cFrom].start:a.toks[a.cTo].end])
	c.Qualifiers = a.qualifiers()
	var neg, unc, either []string
	// The six judgements below read only the cues that cover a focus
	// word: found in one pass over the text's cues, not six.
	near := a
	near.hits = a.covering(focus)
	// Negation is judged at the first focus word only: in "symptoms do
	// not respond to therapy" the "not" reaches "therapy", but the
	// finding, "symptoms", is asserted.
	c.Negated, neg = near.under(kindNegation, focus[:1])
	c.Uncertain, unc = near.under(kindUncertainty, focus)
	c.Either, either = near.under(kindEither, focus)
	var other, hyp []string
	c.Other, other = near.under(kindExperiencer, focus[:1])
	neg = append(neg, other...)
	c.Hypothetical, hyp = near.under(kindHypothetical, focus[:1])
	var unl []string
	c.Unlikely, unl = near.under(kindUnlikely, focus[:1])
	// Cues in text order, each once (the lists are a few cues at most).
	want := append(append(append(append(neg, unc...), either...), hyp...), unl...)
	if len(want) == 0 {
		return c
	}
	for _, h := range a.hits {
		if slices.Contains(want, h.def.text) && !slices.Contains(c.Cues, h.def.text) {
			c.Cues = append(c.Cues, h.def.text)
		}
	}
	return c
}

// qualifiers lists the qualifiers of the clause. Cue words are skipped
// ("known or suspected" is a certainty cue, not the qualifier "known"),
// except as the start of a longer qualifier phrase ("not respond").
func (a analysis) qualifiers() []string { return a.qualifiersIn(a.cFrom, a.cTo) }

// qualifiersIn lists the qualifiers of tokens from..to.
func (a analysis) qualifiersIn(from, to int) []string {
	out := []string{}
	seen := map[string]bool{}
	for i := from; i <= to; i++ {
		if a.toks[i].boundary {
			continue
		}
		if q, n := qualifierAt(a.toks, i, true); n > 0 {
			if c := cueAt(a.hits, i); c != nil && (n == 1 || c.def.kind != kindNegation) {
				continue
			}
			qs := []string{q}
			if describedAt(a.toks, i, n) {
				// "angina despite nitrates": a course described in
				// other words states what the description implies too.
				qs = append(qs, qualifierImplies[q]...)
			}
			for _, q := range qs {
				if !seen[q] {
					seen[q] = true
					out = append(out, q)
				}
			}
			i += n - 1
		}
	}
	return out
}

// locate finds the target's tokens in the text: verbatim first (up to
// case, spelling and punctuation), else the clause that covers most of the
// target's content words, counting similar words and acronyms
// ("CABG" for "coronary artery bypass graft" and back). At least 60% of
// the content words must be covered, so a single shared word ("heart")
// does not place a two-word mention ("heart failure") in the wrong clause.
func (tx *Text) locate(target []token) (from, to int, ok bool) {
	text := tx.toks
	if tx.at >= 0 && len(target) > 0 {
		// A view: the mention as written at its own offset.
		i := sort.Search(len(text), func(i int) bool { return text[i].start >= tx.at })
		if f, t, ok := verbatimFrom(text, target, i); ok && text[f].start < tx.at+target[len(target)-1].end {
			return f, t, true
		}
	}
	if f, t, ok := verbatim(text, target); ok {
		return f, t, true
	}
	var tc []int
	for i, t := range target {
		if t.content() {
			tc = append(tc, i)
		}
	}
	if len(tc) == 0 {
		for i, t := range target {
			if t.word {
				tc = append(tc, i)
			}
		}
	}
	if len(tc) == 0 {
		return 0, 0, false
	}
	need := (3*len(tc) + 4) / 5 // ceil(0.6 n)
	best := 0
	for _, span := range tx.clauses {
		lo, hi := span[0], span[1]
		if lo < 0 {
			continue
		}
		covered, matched := cover(text, lo, hi, target, tc)
		if covered >= need && covered > best {
			best = covered
			from, to = matched[0], matched[0]
			for _, m := range matched {
				from, to = min(from, m), max(to, m)
			}
			ok = true
		}
	}
	return from, to, ok
}

// verbatim matches the target's tokens as a contiguous run of the text's
// tokens, ignoring punctuation on both sides. Of several runs it takes the
// first that is not a heading: in "ALLERGIES: He has no known allergies"
// the body speaks of the allergies, the heading only names the section.
func verbatim(text, target []token) (int, int, bool) {
	from, to, ok := verbatimFrom(text, target, 0)
	for f, t, o := from, to, ok; o && t+1 < len(text) && text[t+1].low == ":"; {
		f, t, o = verbatimFrom(text, target, t+1)
		if o && (t+1 >= len(text) || text[t+1].low != ":") {
			return f, t, true
		}
	}
	return from, to, ok
}

// verbatimFrom is verbatim's first run starting at token start or later.
func verbatimFrom(text, target []token, start int) (int, int, bool) {
	var tw []token
	for _, t := range target {
		if !(t.boundary && !t.word) {
			tw = append(tw, t)
		}
	}
	if len(tw) == 0 {
		return 0, 0, false
	}
	for i := start; i < len(text); i++ {
		j, k := i, 0
		for k < len(tw) && j < len(text) {
			if text[j].boundary && !text[j].word {
				if k == 0 {
					break
				}
				j++
				continue
			}
			if text[j].norm != tw[k].norm {
				break
			}
			j++
			k++
		}
		if k == len(tw) {
			return i, j - 1, true
		}
	}
	return 0, 0, false
}

// cover counts the target content tokens (indexes tc into target) matched
// within text[lo..hi] and returns the matched text tokens.
func cover(text []token, lo, hi int, target []token, tc []int) (int, []int) {
	covered := make([]bool, len(tc))
	var matched []int
	for k, ti := range tc {
		for x := lo; x <= hi; x++ {
			if text[x].word && similar(&text[x], &target[ti]) {
				covered[k] = true
				matched = append(matched, x)
			}
		}
	}
	// An acronym in the text standing for a run of target words. The
	// initials of target[tc[a]:tc[b]+1] are those of the tc tokens a..b
	// (the tokens between them are not content words and add none), so
	// they grow token by token and the search for b stops once they no
	// longer spell a prefix of the acronym.
	for x := lo; x <= hi; x++ {
		if !acronymCandidate(&text[x]) {
			continue
		}
		for a := 0; a < len(tc); a++ {
			run := initialsRun{acr: text[x].low}
			if !run.next(&target[tc[a]]) {
				continue
			}
			for b := a + 1; b < len(tc) && run.next(&target[tc[b]]); b++ {
				if run.spelled() {
					for k := a; k <= b; k++ {
						covered[k] = true
					}
					matched = append(matched, x)
				}
			}
		}
	}
	// An acronym in the target standing for a run of text words.
	for k, ti := range tc {
		if !acronymCandidate(&target[ti]) {
			continue
		}
		for x := lo; x <= hi; x++ {
			if !text[x].content() {
				continue
			}
			run := initialsRun{acr: target[ti].low}
			if !run.next(&text[x]) {
				continue
			}
			for y := x + 1; y <= hi && y-x < 8 && run.next(&text[y]); y++ {
				if text[y].content() && run.spelled() {
					covered[k] = true
					matched = append(matched, x, y)
				}
			}
		}
	}
	n := 0
	for _, c := range covered {
		if c {
			n++
		}
	}
	return n, matched
}

// linked returns the indexes in xs[lo..hi] of content words that stand
// for a content word of ys: similar words, or acronyms either way.
func linked(xs []token, lo, hi int, ys []token) []int {
	return linkedAt(xs, lo, hi, ys, contentAt(ys))
}

// contentAt lists the positions of ys' content words.
func contentAt(ys []token) []int {
	var yc []int
	for j := range ys {
		if ys[j].content() {
			yc = append(yc, j)
		}
	}
	return yc
}

// linkedAt is linked given ys' content words (contentAt), read once for
// a compiled condition.
func linkedAt(xs []token, lo, hi int, ys []token, yc []int) []int {
	var buf [64]bool
	var mark []bool
	if n := hi - lo + 1; n <= len(buf) {
		mark = buf[:n]
	} else {
		mark = make([]bool, n)
	}
	for i := lo; i <= hi; i++ {
		if !xs[i].content() {
			continue
		}
		for _, j := range yc {
			if similar(&xs[i], &ys[j]) {
				mark[i-lo] = true
				break
			}
		}
		if mark[i-lo] || !acronymCandidate(&xs[i]) {
			continue
		}
		// Initials grow token by token, as in cover.
		for a := 0; a < len(yc) && !mark[i-lo]; a++ {
			run := initialsRun{acr: xs[i].low}
			if !run.next(&ys[yc[a]]) {
				continue
			}
			for b := a + 1; b < len(yc) && run.next(&ys[yc[b]]); b++ {
				if run.spelled() {
					mark[i-lo] = true
					break
				}
			}
		}
	}
	for _, j := range yc {
		if !acronymCandidate(&ys[j]) {
			continue
		}
		for x := lo; x <= hi; x++ {
			if !xs[x].content() {
				continue
			}
			run := initialsRun{acr: ys[j].low}
			if !run.next(&xs[x]) {
				continue
			}
			for y := x + 1; y <= hi && y-x < 8 && run.next(&xs[y]); y++ {
				if xs[y].content() && run.spelled() {
					for k := x; k <= y; k++ {
						if xs[k].content() {
							mark[k-lo] = true
						}
					}
				}
			}
		}
	}
	var out []int
	for k, m := range mark {
		if m {
			out = append(out, lo+k)
		}
	}
	return out
}
