package engine

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// ViaAnatomy starts the Via (trace text) of an item derived from
// per-vessel stenosis reports (two reports over the cut-off → the pack's
// two-vessel count).
const ViaAnatomy = "anatomy: "

// anatomyStage is the stenosis reader as a pluggable reader: it reads the
// case text with the pack's anatomy words (meta/hierarchy.json) and emits
// report findings (stenosis values, significant stenoses) and the derived
// vessel-count problems.
type anatomyStage struct{ p *Program }

func (anatomyStage) Name() string      { return "anatomy" }
func (anatomyStage) Reads() read.Input { return read.Text }
func (anatomyStage) Emits() []patient.Kind {
	return []patient.Kind{patient.KindFinding, patient.KindProblem}
}

// Satisfies: a stenosis report states anatomical significance in its
// numbers, which is the qualifier the condition's wording asks for, and a
// derived item needs no stated absence; it states nothing of a context the
// pack keeps the checks for (meta/reading.json anatomy_checks: functional
// significance).
func (r anatomyStage) Satisfies(c eval.Cond) consistency.Checks {
	ctx := strings.ToLower(c.Context)
	for _, w := range r.p.reading.anatomyKept {
		if strings.Contains(ctx, w) {
			return consistency.Checks{}
		}
	}
	return consistency.Checks{Qualifier: true, Absence: true}
}

func (r anatomyStage) Read(c *read.Case) []patient.Fact {
	return r.p.anatomyEvidence(r, c.Text, c.Findings, c.Evidence)
}

// anatomyReader reads per-vessel stenosis statements with the pack's
// vocabulary (meta/hierarchy.json "anatomy"): "<vessel>[:] [<segment>]
// <percent> [<segment>]", "<percent> [lesion words] [noun] [of the]
// <segment><vessel>", "<occluded word> <vessel>", "<vessel> [<segment>]
// <occluded word> [<segment>]", "<vessel> <normal word>", a list of
// vessels sharing one report ("<vessel>/<vessel> <percent>"), and a
// segment report without a vessel ("<vessel>: <lesion words>, <segment>
// <percent>, <segment> <percent>"), which belongs to the last vessel named
// before it in its sentence. It knows no vessel, cut-off or population
// itself.
type anatomyReader struct {
	a *rules.Anatomy
	// functional: the words of a functional vessel count (count_basis);
	// nil without them.
	functional *regexp.Regexp
	// words: lower-case written name → vessel; digits: names with one
	// trailing digit ("#" in the pack), by lower-case prefix.
	words, digits map[string]wordOf
	segments      map[string]string // lower-case segment word → segment
	res           []anatomyPattern
	vesselRE      *regexp.Regexp // one vessel name, with a segment before it
	// site: the same without capture groups, for other readers' patterns
	// (a value measured in a vessel, between its name and its number).
	site      string
	notNative *regexp.Regexp
	// restenosis: a report of a restenosis in a native vessel's stent;
	// notStent: the not-native words other than the stent's own, which
	// set such a report aside (nil: none does).
	restenosis, notStent *regexp.Regexp
	// notStenosis, stenosisWord: a vessel finding that is no stenosis
	// (anatomy not_stenosis), and the words that state one.
	notStenosis, stenosisWord *regexp.Regexp
	// stenosisFacts: the normalised concepts of the pack's per-vessel
	// stenosis facts (anatomy facts without a value), which
	// withoutNonStenosis may drop.
	stenosisFacts map[string]bool
	// grades: lower-case grade word → its band; negated: a negation
	// ending the text before a graded report (nil: none).
	// stentWord: a word of the stent (anatomy stent_words), as a prefix.
	stentWord *regexp.Regexp
	grades    map[string]*rules.AnatomyGrade
	negated   *regexp.Regexp
	names     *nameTokens // nil: every text is read with the patterns
	// openings: the first-token sets of the patterns' opening words
	// (anatomyPattern.opening; nil: that pattern is scanned for).
	openings []map[string]bool
	memo     stenosisMemo
}

// stenosisMemo keeps the reports of the last few texts read: grounding
// and the anatomy stage read the same case text, and the patterns are the
// dearest part of a letter's reading. A few entries, so that concurrent
// cases rarely evict each other; a miss only reads the text again.
type stenosisMemo struct {
	mu    sync.Mutex
	next  int
	texts [4]string
	ss    [4][]stenosis
	set   [4]bool
}

func (m *stenosisMemo) get(text string) ([]stenosis, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.texts {
		if m.set[i] && m.texts[i] == text {
			return m.ss[i], true
		}
	}
	return nil, false
}

func (m *stenosisMemo) put(text string, ss []stenosis) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.texts[m.next], m.ss[m.next], m.set[m.next] = text, ss, true
	m.next = (m.next + 1) % len(m.texts)
}

type wordOf struct {
	vessel *rules.Vessel
	branch bool
}

type anatomyPattern struct {
	re *regexp.Regexp
	// anchored is re tried at one start (^), for a pattern whose every
	// match starts at a vessel name or segment word (nameTokens.starts);
	// nil for the others.
	anchored *regexp.Regexp
	// pct: the pattern opens with the percentage (no assertion before its
	// digits), so every match starts in the run of comparator, space,
	// digit and dash bytes right before a "%" (percentStarts), where
	// anchored is tried.
	pct      bool
	occluded bool
	normal   bool // a vessel reported free of significant disease
	orphan   bool // a segment report that names no vessel
	graded   bool // a severity word, no number (anatomy grades)
	// opening: for a pattern that opens with \b and an alternation of
	// words followed by a non-word character (a grade word, an occluded
	// word), the index of those words' lower-case first tokens in
	// anatomyReader.openings: every match starts at such a token, where
	// anchored is tried (-1: none).
	opening int
}

// stenosis is one per-vessel report read from the case text.
type stenosis struct {
	Vessel  *rules.Vessel       // the main vessel (a branch counts in its main vessel)
	Name    string              // as written
	Branch  bool                // Name is a branch of Vessel
	At      int                 // offset of Name in the text
	Segment string              // the pack's segment of a main-vessel word, or ""
	Percent float64             // diameter stenosis; 100 for an occlusion
	Below   bool                // stated as an upper bound ("<50%") or as free of disease
	Normal  bool                // stated free of significant disease (no value)
	Grade   *rules.AnatomyGrade // a graded report: Percent is the band's lower bound, no value
	Graded  string              // the grade word as written
	Start   int                 // offset in the text
	End     int                 // end of the matched words
	Text    string              // the matched words
}

func (s stenosis) significant() bool {
	return !s.Below && s.Percent >= s.Vessel.SignificantAt
}

// alternation is a regexp alternation of literal words, longest first so
// that a longer name wins over its prefix; a trailing "#" is one digit.
func alternation(words []string) string {
	ws := append([]string(nil), words...)
	sort.SliceStable(ws, func(i, j int) bool { return len(ws[i]) > len(ws[j]) })
	var parts []string
	for _, w := range ws {
		if strings.HasSuffix(w, "#") {
			parts = append(parts, regexp.QuoteMeta(strings.TrimSuffix(w, "#"))+`\d`)
		} else {
			parts = append(parts, regexp.QuoteMeta(w))
		}
	}
	return strings.Join(parts, "|")
}

// optional wraps a non-empty alternation as "(?:(?:alt)suffix)?".
func optional(words []string, suffix string) string {
	if len(words) == 0 {
		return ""
	}
	return `(?:(?:` + alternation(words) + `)` + suffix + `)?`
}

// newAnatomyReader compiles the pack's vocabulary; a nil section reads
// nothing.
func newAnatomyReader(a *rules.Anatomy) (*anatomyReader, error) {
	if a == nil {
		return nil, nil
	}
	r := &anatomyReader{a: a, words: map[string]wordOf{}, digits: map[string]wordOf{}, segments: map[string]string{}}
	if a.CountBasis != nil && len(a.CountBasis.Functional) > 0 {
		r.functional = regexp.MustCompile(`(?i)\b(?:` + alternation(a.CountBasis.Functional) + `)\b`)
	}
	var names, segWords, postWords []string
	for i := range a.Vessels {
		v := &a.Vessels[i]
		for _, list := range []struct {
			ws     []string
			branch bool
		}{{v.Words, false}, {v.Branches, true}} {
			for _, w := range list.ws {
				names = append(names, w)
				if p, ok := strings.CutSuffix(w, "#"); ok {
					r.digits[strings.ToLower(p)] = wordOf{v, list.branch}
				} else {
					r.words[strings.ToLower(w)] = wordOf{v, list.branch}
				}
			}
		}
	}
	for _, s := range a.Segments {
		for _, w := range s.Words {
			segWords = append(segWords, w)
			r.segments[strings.ToLower(w)] = s.Name
			// A one-letter segment ("p" of "pLAD") is a prefix, never a
			// word of its own after a vessel or a percentage.
			if len(strings.TrimSuffix(w, ".")) > 1 {
				postWords = append(postWords, w)
			}
		}
	}
	nameAlt := `(?:` + alternation(names) + `)`
	vessel := `(?P<v>` + alternation(names) + `)`
	item := nameAlt
	if len(segWords) > 0 {
		vessel = `(?:(?P<pos>` + alternation(segWords) + `)[\s-]?)?` + vessel
		item = `(?:(?:` + alternation(segWords) + `)[\s-]?)?` + nameAlt
	}
	// Vessels joined by "/" or "and" before the last one share its report.
	list := `(?P<list>(?:` + item + `\s*(?:/|&|\band\b)\s*)+)?`
	// A segment after the vessel name ("<vessel>: mid 85%", "ostial-
	// proximal") and after the percentage ("<vessel> 80% distal").
	postSeg, afterPct, orphanSeg := "", "", ""
	if len(postWords) > 0 {
		pw := alternation(postWords)
		postSeg = `(?:(?P<pos2>` + pw + `)\b(?:[\s-]+(?:` + pw + `)\b)?[\s-]*)?`
		afterPct = `(?:\s*(?P<pos3>` + pw + `)\b)?`
		orphanSeg = `\b(?P<pos2>` + pw + `)\b(?:[\s-]+(?:` + pw + `)\b)?[\s-]*`
	}
	// labelSep: what stands between a vessel and its report: a colon, a
	// spaced dash ("<vessel> - normal", "<vessel> – 90% proximal", a list's
	// label and value) or nothing but spaces.
	labelSep := `(?:\s*:\s*|[ \t]+[-–][ \t]+|\s*)`
	pct := `(?P<cmp><|>|≥|≤|>=|<=)?\s*(?P<n>\d{1,3})(?:\s*[-–]\s*\d{1,3})?\s*%`
	// Words describing the lesion between the percentage and the vessel:
	// a closed list, so that a second finding never joins in.
	var lesion []string
	if len(a.LesionWords) > 0 {
		lesion = append(lesion, alternation(a.LesionWords))
	}
	if u := regexp.QuoteMeta(a.LengthUnit); u != "" {
		lesion = append(lesion, `\(\s*\d+(?:\.\d+)?\s*`+u+`\s*\)`, `\d+(?:\.\d+)?\s*`+u)
	}
	lesionPat, lesionComma := "", ""
	if len(lesion) > 0 {
		lesionPat = `(?:(?:` + strings.Join(lesion, "|") + `)\s+){0,4}`
		lesionComma = `(?:(?:` + strings.Join(lesion, "|") + `)\s*,?\s+){0,4}`
	}
	nouns := ""
	if len(a.Nouns) > 0 {
		nouns = `(?:\s*(?:` + alternation(a.Nouns) + `))?`
	}
	type pat struct {
		src                              string
		occluded, normal, orphan, graded bool
		// named: the pattern opens with \b and a name or segment word
		// (\b + list + vessel, or orphanSeg), so its matches start where
		// nameTokens.starts says.
		named bool
		// pct: the pattern opens with pct (anatomyPattern.pct).
		pct bool
		// opens: the pattern opens with \b and an alternation of these
		// words, followed by \s (anatomyPattern.opening).
		opens []string
	}
	pats := []pat{
		// "<vessel>: proximal mixed plaque, 50-69%", "<vessel> with
		// 70-80% stenosis": the lesion's description may end in a comma
		// and the percentage follow a "with".
		{src: `(?i)\b` + list + vessel + `\b` + nouns + labelSep + postSeg + `(?:(?:with|has)\s+(?:an?\s+)?)?` + lesionComma + pct + afterPct, named: true},
		{src: `(?i)` + pct + `\s*` + lesionPat + optional(a.NounsBefore, `\s+`) + `(?:(?:in|of|at)\s+)?(?:the\s+)?` + vessel + `\b`, pct: true},
	}
	if len(a.OccludedBefore) > 0 {
		pats = append(pats, pat{src: `(?i)\b(?:` + alternation(a.OccludedBefore) + `)\s+` + vessel + `\b`, occluded: true, opens: a.OccludedBefore})
	}
	if len(a.OccludedAfter) > 0 {
		occ := `(?:` + alternation(a.OccludedAfter) + `)\b`
		pats = append(pats, pat{src: `(?i)\b` + list + vessel + `\b` + labelSep + postSeg + `(?:(?:is|was)\s+)?` + lesionPat + occ + afterPct, occluded: true, named: true})
		if orphanSeg != "" {
			pats = append(pats, pat{src: `(?i)` + orphanSeg + lesionPat + occ, occluded: true, orphan: true, named: true})
		}
	}
	if len(a.NormalAfter) > 0 {
		pats = append(pats, pat{src: `(?i)\b` + list + vessel + `\b` + labelSep + `(?:(?:is|are|was|were)\s+)?` + lesionComma + `(?:` + alternation(a.NormalAfter) + `)\b`, normal: true, named: true})
	}
	if orphanSeg != "" {
		pats = append(pats, pat{src: `(?i)` + orphanSeg + lesionPat + pct, orphan: true, named: true},
			pat{src: `(?i)` + pct + afterPct[:len(afterPct)-1], orphan: true, pct: true})
	}
	r.grades = map[string]*rules.AnatomyGrade{}
	var gradeWords []string
	for i := range a.Grades {
		for _, w := range a.Grades[i].Words {
			gradeWords = append(gradeWords, w)
			r.grades[strings.ToLower(w)] = &a.Grades[i]
		}
	}
	if len(gradeWords) > 0 {
		// A severity word and a stenosis noun, before or after the
		// vessel name (graded reports, meta/hierarchy.json).
		g := `(?P<g>` + alternation(gradeWords) + `)\s+`
		var nounWords []string
		nounWords = append(append(nounWords, a.NounsBefore...), a.Nouns...)
		noun := `(?:` + alternation(nounWords) + `)`
		pats = append(pats,
			pat{src: `(?i)\b` + g + lesionPat + noun + `\s+(?:(?:in|of|at|within)\s+)?(?:the\s+)?` + list + vessel + `\b`, graded: true, opens: gradeWords},
			pat{src: `(?i)\b` + g + lesionPat + list + vessel + `\b\s*` + noun + `\b`, graded: true, opens: gradeWords},
			pat{src: `(?i)\b` + list + vessel + `\b` + labelSep + `(?:(?:is|was|has|with)\s+)?` + postSeg + g + lesionPat + noun + `\b`, graded: true, named: true})
		if len(a.Negations) > 0 {
			r.negated = regexp.MustCompile(`(?i)\b(?:` + alternation(a.Negations) + `)\s+(?:\S+\s+){0,2}$`)
		}
	}
	for _, p := range pats {
		re, err := regexp.Compile(p.src)
		if err != nil {
			return nil, fmt.Errorf("%s: anatomy: the vocabulary makes an invalid pattern: %w", rules.HierarchyFile, err)
		}
		ap := anatomyPattern{re: re, occluded: p.occluded, normal: p.normal, orphan: p.orphan, pct: p.pct, graded: p.graded, opening: -1}
		if p.named || p.pct {
			ap.anchored = regexp.MustCompile(`^(?:` + p.src + `)`)
		} else if heads := openingTokens(p.opens); heads != nil {
			ap.anchored = regexp.MustCompile(`^(?:` + p.src + `)`)
			ap.opening = len(r.openings)
			r.openings = append(r.openings, heads)
		}
		r.res = append(r.res, ap)
	}
	r.vesselRE = regexp.MustCompile(`(?i)\b` + vessel + `\b`)
	r.site = item
	r.names = newNameTokens(names, segWords)
	if len(a.NotNative) > 0 {
		r.notNative = regexp.MustCompile(`(?i)\b(?:` + alternation(a.NotNative) + `)\b`)
	}
	if len(a.Restenosis) > 0 {
		r.restenosis = regexp.MustCompile(`(?i)\b(?:` + alternation(a.Restenosis) + `)\b`)
		stent := map[string]bool{}
		for _, w := range append(append([]string{}, a.StentWords...), a.Restenosis...) {
			stent[strings.ToLower(w)] = true
		}
		var other []string
		for _, w := range a.NotNative {
			if !stent[strings.ToLower(w)] {
				other = append(other, w)
			}
		}
		if len(other) > 0 {
			r.notStent = regexp.MustCompile(`(?i)\b(?:` + alternation(other) + `)\b`)
		}
	}
	if len(a.StentWords) > 0 {
		// A prefix: "stenting" and "stented" hold the stent word too.
		r.stentWord = regexp.MustCompile(`(?i)\b(?:` + alternation(a.StentWords) + `)`)
	}
	if len(a.NotStenosis) > 0 {
		r.stenosisFacts = map[string]bool{}
		for _, ft := range a.Facts {
			if !ft.Value {
				r.stenosisFacts[rules.NormalizeName(ft.Concept)] = true
			}
		}
		r.notStenosis = regexp.MustCompile(`(?i)\b(?:` + alternation(a.NotStenosis) + `)\b`)
		var st []string
		for _, ws := range [][]string{a.Nouns, a.NounsBefore, a.OccludedBefore, a.OccludedAfter} {
			st = append(st, ws...)
		}
		if len(st) > 0 {
			r.stenosisWord = regexp.MustCompile(`(?i)\b(?:` + alternation(st) + `)\b|\d\s*%`)
		}
	}
	return r, nil
}

// setAside reports whether a report segment is no native stenosis: it
// holds a not-native word, and, when it reports a restenosis in the
// vessel's stent, one other than the stent's own words.
func (r *anatomyReader) setAside(seg string) bool {
	if r.notNative == nil || !r.notNative.MatchString(seg) {
		return false
	}
	if r.restenosis != nil && r.restenosis.MatchString(seg) {
		return r.notStent != nil && r.notStent.MatchString(seg)
	}
	return true
}

// vesselOf maps a written name to its vessel, and whether it is a branch.
func (r *anatomyReader) vesselOf(name string) (wordOf, bool) {
	l := strings.ToLower(name)
	if w, ok := r.words[l]; ok {
		return w, true
	}
	if n := len(l); n > 1 && l[n-1] >= '0' && l[n-1] <= '9' {
		w, ok := r.digits[l[:n-1]]
		return w, ok
	}
	return wordOf{}, false
}

// segmentOf returns the bounds of the piece of text around [lo, hi)
// between punctuation that separates reports (, ; . ( ) newline).
func segmentOf(text string, lo, hi int) (int, int) {
	a := lo
	for a > 0 && !stops(text, a-1) {
		a--
	}
	b := hi
	for b < len(text) && !stops(text, b) {
		b++
	}
	return a, b
}

// stops reports whether text[i] separates reports: , ; ( ) a newline, a
// full stop that is no decimal point (a decimal point has a digit on
// both sides: "FFR 0.71. <vessel> ..." ends at the second stop), or a
// hyphen set off by spaces that joins no two numbers ("<vessel> 60% - FFR
// not yet done" is two statements; "70 - 90%" is a range).
func stops(text string, i int) bool {
	c := text[i]
	digit := func(j int) bool { return j >= 0 && j < len(text) && text[j] >= '0' && text[j] <= '9' }
	// An arrow ("->", "=>", "→") leads from a report to what followed it
	// ("<vessel> mid 85% -> PCI, 1 DES"): the stent is the consequence's,
	// no word of the report.
	if (c == '-' || c == '=') && i+1 < len(text) && text[i+1] == '>' || strings.HasPrefix(text[i:], "→") {
		return true
	}
	switch c {
	case '.':
		return !(digit(i-1) && digit(i+1))
	case '-':
		return i > 0 && i+1 < len(text) && text[i-1] == ' ' && text[i+1] == ' ' && !(digit(i-2) && digit(i+2))
	}
	return strings.IndexByte(",;()\n", c) >= 0
}

// sentenceStart returns where the sentence holding offset at begins (after
// a full stop that ends no number, a semicolon or a newline).
func sentenceStart(text string, at int) int {
	for a := at; a > 0; a-- {
		if c := text[a-1]; c == ';' || c == '\n' || c == '.' && stops(text, a-1) {
			return a
		}
	}
	return 0
}

// glued: a vessel name written onto a graft or another word ("SVG-<vessel>").
func glued(text string, at int) bool {
	return at > 0 && (text[at-1] == '-' || text[at-1] == '/')
}

// named is one vessel name read in the text.
type named struct {
	w       wordOf
	name    string
	segment string
	at, end int
}

// anchorOf returns the last vessel named in the sentence before at that is
// a native vessel: the vessel a segment report without a name belongs to.
func (r *anatomyReader) anchorOf(text string, at int) (named, bool) {
	lo := sentenceStart(text, at)
	var last named
	found := false
	for _, m := range r.vesselRE.FindAllStringSubmatchIndex(text[lo:at], -1) {
		vi := r.vesselRE.SubexpIndex("v")
		v := text[lo+m[2*vi] : lo+m[2*vi+1]]
		w, ok := r.vesselOf(v)
		if !ok {
			continue
		}
		n := named{w: w, name: v, at: lo + m[0], end: lo + m[1]}
		if pi := r.vesselRE.SubexpIndex("pos"); pi >= 0 && m[2*pi] >= 0 && !w.branch {
			n.segment = r.segments[strings.ToLower(text[lo+m[2*pi]:lo+m[2*pi+1]])]
		}
		last, found = n, true
	}
	if !found || glued(text, last.at) {
		return named{}, false
	}
	if a, b := segmentOf(text, last.at, last.end); r.setAside(text[a:b]) {
		return named{}, false
	}
	return last, true
}

// listed returns the vessels named in a list group ("<vessel>/<vessel> and ").
func (r *anatomyReader) listed(text string, lo, hi int) []named {
	var out []named
	for _, m := range r.vesselRE.FindAllStringSubmatchIndex(text[lo:hi], -1) {
		vi := r.vesselRE.SubexpIndex("v")
		v := text[lo+m[2*vi] : lo+m[2*vi+1]]
		w, ok := r.vesselOf(v)
		if !ok {
			continue
		}
		n := named{w: w, name: v, at: lo + m[2*vi], end: lo + m[1]}
		if pi := r.vesselRE.SubexpIndex("pos"); pi >= 0 && m[2*pi] >= 0 && !w.branch {
			n.segment = r.segments[strings.ToLower(text[lo+m[2*pi]:lo+m[2*pi+1]])]
		}
		out = append(out, n)
	}
	return out
}

// stenoses reads the per-vessel stenosis reports of a text.
func (r *anatomyReader) stenoses(text string) []stenosis {
	if r == nil || !r.names.mayName(text) {
		return nil
	}
	if ss, ok := r.memo.get(text); ok {
		return ss // read-only: callers never change the reports
	}
	ss := r.read(text)
	r.memo.put(text, ss)
	return ss
}

// anyGrade reports whether text holds one of the grade words (as a
// case-folded substring: a cheap superset of the graded patterns' match).
func (r *anatomyReader) anyGrade(text string) bool {
	if len(r.grades) == 0 {
		return false
	}
	lower := strings.ToLower(text)
	for w := range r.grades {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}

// read is stenoses without the filter and the memo.
func (r *anatomyReader) read(text string) []stenosis {
	var out []stenosis
	seen := map[int]bool{} // vessel-name offset already read
	overlaps := func(lo, hi int) bool {
		for _, s := range out {
			if lo < s.End && s.Start < hi {
				return true
			}
		}
		return false
	}
	var starts, pcts []int
	startsRead, startsOK, pctsRead := false, false, false
	opened := make([]openingStarts, len(r.openings))
	gradeRead, graded := false, false
	for _, p := range r.res {
		re := p.re
		var ms [][]int
		if p.graded {
			// The graded patterns need a grade word: most texts hold
			// none, and the unanchored patterns scan the whole text.
			if !gradeRead {
				graded, gradeRead = r.anyGrade(text), true
			}
			if !graded {
				continue
			}
		}
		if p.pct {
			if !pctsRead {
				pcts, pctsRead = percentStarts(text), true
			}
			ms = findAllAt(p.anchored, text, pcts)
		} else if p.opening >= 0 {
			o := &opened[p.opening]
			if !o.read {
				o.at, o.ok = openingStartsIn(text, r.openings[p.opening])
				o.read = true
			}
			if o.ok {
				ms = findAllAt(p.anchored, text, o.at)
			} else {
				ms = re.FindAllStringSubmatchIndex(text, -1)
			}
		} else if p.anchored != nil && r.names != nil {
			if !startsRead {
				starts, startsOK = r.names.starts(text)
				startsRead = true
			}
			if startsOK {
				ms = findAllAt(p.anchored, text, starts)
			} else {
				ms = re.FindAllStringSubmatchIndex(text, -1)
			}
		} else {
			ms = re.FindAllStringSubmatchIndex(text, -1)
		}
		for _, m := range ms {
			get := func(name string) (string, int) {
				i := re.SubexpIndex(name)
				if i < 0 || m[2*i] < 0 {
					return "", -1
				}
				return text[m[2*i]:m[2*i+1]], m[2*i]
			}
			var vessels []named
			if p.pct && !p.orphan && strings.Contains(text[m[0]:m[1]], "\n") {
				// "<vessel> - 90% proximal\n<vessel> - minor plaque": a value
				// before a vessel reports on it only on one line; the
				// next line's vessel opens a report of its own.
				continue
			}
			if p.graded && (overlaps(m[0], m[1]) || r.negated != nil && r.negated.MatchString(text[sentenceStart(text, m[0]):m[0]])) {
				// A numbered report of the same words wins; a negated
				// grade states no stenosis.
				continue
			}
			if p.orphan {
				if overlaps(m[0], m[1]) {
					continue
				}
				n, ok := r.anchorOf(text, m[0])
				if !ok {
					continue
				}
				n.segment = ""
				vessels = []named{n}
			} else {
				v, vAt := get("v")
				w, ok := r.vesselOf(v)
				if !ok || seen[vAt] {
					continue
				}
				pos, _ := get("pos")
				lead := vAt
				if l, lAt := get("list"); l != "" {
					lead = lAt
					vessels = r.listed(text, lAt, lAt+len(l))
				}
				// A vessel name glued to a graft ("SVG-<vessel>").
				if glued(text, lead) && (pos == "" || lead != vAt) {
					continue
				}
				n := named{w: w, name: v, at: vAt}
				if !w.branch {
					n.segment = r.segments[strings.ToLower(pos)]
				}
				vessels = append(vessels, n)
			}
			a, b := segmentOf(text, m[0], m[1])
			if r.setAside(text[a:b]) {
				continue
			}
			// A segment written after the name or the percentage places
			// the report when the name carries none.
			after := ""
			if s, _ := get("pos2"); s != "" {
				after = r.segments[strings.ToLower(s)]
			} else if s, _ := get("pos3"); s != "" {
				after = r.segments[strings.ToLower(s)]
			}
			// A pattern may open on the space before a percentage
			// ("Angio: 95% ..."): the report starts at its first word,
			// where the finding that holds it starts.
			start := m[0]
			for start < m[1] && (text[start] == ' ' || text[start] == '\t') {
				start++
			}
			base := stenosis{Start: start, End: m[1], Text: strings.TrimSpace(text[m[0]:m[1]])}
			switch {
			case p.normal:
				base.Below, base.Normal = true, true
			case p.occluded:
				base.Percent = 100
			case p.graded:
				g, _ := get("g")
				base.Grade, base.Graded = r.grades[strings.ToLower(g)], g
				if base.Grade == nil {
					continue
				}
				base.Percent = base.Grade.Percent
			default:
				n, _ := get("n")
				f, err := strconv.ParseFloat(n, 64)
				if err != nil || f > 100 {
					continue
				}
				base.Percent = f
				c, _ := get("cmp")
				base.Below = c == "<" || c == "≤" || c == "<="
			}
			for _, n := range vessels {
				if !p.orphan {
					// An orphan report shares its vessel's name with
					// the report that named it.
					if seen[n.at] {
						continue
					}
					seen[n.at] = true
				}
				s := base
				s.Vessel, s.Name, s.Branch, s.At = n.w.vessel, n.name, n.w.branch, n.at
				if !n.w.branch {
					s.Segment = n.segment
					if s.Segment == "" {
						s.Segment = after
					}
				}
				out = append(out, s)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// percentStarts lists, ascending, every offset of the runs of bytes that
// may open the percentage pct before a "%": comparators (<, >, =, ≥, ≤),
// white space, digits and dashes (-, –), the multi-byte ones by all their
// bytes. A match of a pattern opening with pct holds only such bytes up
// to its first "%", so it starts at one of these offsets.
func percentStarts(text string) []int {
	var out []int
	for i := strings.IndexByte(text, '%'); i >= 0; {
		lo := i
		for lo > 0 && strings.IndexByte(pctOpeners, text[lo-1]) >= 0 {
			lo--
		}
		if n := len(out); n > 0 && out[n-1] >= lo {
			lo = out[n-1] + 1
		}
		for j := lo; j < i; j++ {
			out = append(out, j)
		}
		k := strings.IndexByte(text[i+1:], '%')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return out
}

// pctOpeners are the bytes of pct before its "%" (percentStarts).
const pctOpeners = "<>=\u2265\u2264 \t\n\f\r\v0123456789-\u2013"

// anatomyReports are the stenosis reports of one case text, read once for
// grounding, with the offsets of the vessel names that head them.
type anatomyReports struct {
	ss    []stenosis
	heads map[int]bool
}

// reports reads the stenosis reports of text.
func (r *anatomyReader) reports(text string) *anatomyReports {
	out := &anatomyReports{heads: map[int]bool{}}
	out.ss = r.stenoses(text)
	for _, s := range out.ss {
		out.heads[s.At] = true
	}
	return out
}

// located reports whether the finding text[lo:hi] is nothing but the name
// of a vessel that heads a report read from the text, or a heading of its
// own (the name, then a colon: "<vessel>: heavily calcified"): the place of
// what follows, not a finding to ground by itself.
func (r *anatomyReader) located(text string, lo, hi int, rep *anatomyReports) bool {
	if r == nil || rep == nil || lo < 0 || hi > len(text) || lo >= hi {
		return false
	}
	f := strings.TrimSpace(text[lo:hi])
	if !r.names.mayName(f) {
		return false // most findings name no vessel (nameTokens)
	}
	m := r.vesselRE.FindStringSubmatchIndex(f)
	if m == nil || m[0] != 0 || m[1] != len(f) {
		return false
	}
	off := lo + strings.Index(text[lo:hi], f)
	if rest := strings.TrimLeft(text[off+len(f):], " \t"); strings.HasPrefix(rest, ":") || dashLabel(text[off+len(f):]) {
		return true
	}
	vi := r.vesselRE.SubexpIndex("v")
	return rep.heads[off+m[2*vi]]
}

// withoutRead drops the anchors of a finding [lo, hi) to a per-vessel fact
// of the pack (anatomy.facts) when the finding holds a report of one of
// the fact's vessels: the reader reads that fact from the report's numbers
// and segment (a "mid" report is no "proximal" stenosis, a value below the
// vessel's cut-off no significant one), which the grounder only guesses
// from words.
func (r *anatomyReader) withoutRead(lo, hi int, rep *anatomyReports, anchors []grounding.Anchor) []grounding.Anchor {
	if r == nil || rep == nil || lo < 0 || len(anchors) == 0 {
		return anchors
	}
	read := map[string]bool{}
	for _, s := range rep.ss {
		// A report may open before the finding: a vessel label
		// ("<vessel>: proximal 30%") is a finding of its own, and its
		// segment and value the next one's words.
		if s.Start < hi && lo < s.End {
			read[s.Vessel.Name] = true
		}
	}
	if len(read) == 0 {
		return anchors
	}
	var kept []grounding.Anchor
	for _, a := range anchors {
		drop := false
		for _, ft := range r.a.Facts {
			if rules.NormalizeName(ft.Concept) != rules.NormalizeName(a.Concept) {
				continue
			}
			for _, v := range ft.Vessels {
				drop = drop || read[v]
			}
		}
		if !drop {
			kept = append(kept, a)
		}
	}
	return kept
}

// holds reports whether the finding [lo, hi) holds a stenosis report.
func (r *anatomyReader) holds(lo, hi int, rep *anatomyReports) bool {
	if r == nil || rep == nil {
		return false
	}
	for _, s := range rep.ss {
		if lo <= s.Start && s.Start < hi {
			return true
		}
	}
	return false
}

// withoutStenting drops, from a finding that holds a stenosis report and
// names no stent, the anchors of concepts named for one: a vessel's
// initials in a report ("<vessel>/<vessel> unobstructed") are no stenting
// of that vessel, which the grounder reads from the initials alone.
func (r *anatomyReader) withoutStenting(mention string, anchors []grounding.Anchor) []grounding.Anchor {
	if r == nil || r.stentWord == nil || r.stentWord.MatchString(mention) {
		return anchors
	}
	kept := anchors[:0:0]
	for _, a := range anchors {
		if !r.stentWord.MatchString(a.Concept) {
			kept = append(kept, a)
		}
	}
	return kept
}

// withoutNonStenosis drops the grounder's per-vessel stenosis facts from a
// mention that names a vessel finding which is no stenosis (the pack's
// not_stenosis words: calcium is a plaque burden, not a narrowing) and
// states no stenosis word or percentage.
func (r *anatomyReader) withoutNonStenosis(mention string, anchors []grounding.Anchor) []grounding.Anchor {
	if r == nil || r.notStenosis == nil || len(anchors) == 0 {
		return anchors
	}
	// Most mentions ground to no stenosis fact: the patterns are read only
	// for one that does (and nothing is dropped without one).
	fact := make([]bool, len(anchors))
	some := false
	for i, a := range anchors {
		fact[i] = r.stenosisFacts[rules.NormalizeName(a.Concept)]
		some = some || fact[i]
	}
	if !some || !r.vesselsOnly(mention) && (!r.notStenosis.MatchString(mention) ||
		r.stenosisWord != nil && r.stenosisWord.MatchString(mention)) {
		return anchors
	}
	var kept []grounding.Anchor
	for i, a := range anchors {
		if !fact[i] {
			kept = append(kept, a)
		}
	}
	return kept
}

// vesselsOnly: the mention is vessel names and no more (a vessel name
// cut from "<vessel> and <vessel> without significant lesions"): a vessel
// named states no stenosis of it.
func (r *anatomyReader) vesselsOnly(mention string) bool {
	ws := strings.FieldsFunc(strings.ToLower(mention), func(c rune) bool { return c == ' ' || c == ',' || c == '/' || c == '+' || c == '&' })
	n := 0
	for _, w := range ws {
		if _, ok := r.words[w]; ok {
			n++
		} else if w != "and" {
			return false
		}
	}
	return n > 0
}

// applies reports whether a pack fact is about the report's vessel and
// segment.
func applies(f rules.AnatomyFact, s stenosis) bool {
	if f.Segment != "" && f.Segment != s.Segment {
		return false
	}
	for _, v := range f.Vessels {
		if v == s.Vessel.Name {
			return true
		}
	}
	return false
}

// absentBy returns the report that states a per-vessel fact absent: one
// of the fact's vessels reported below its cut-off in the fact's segment,
// or as a whole when no report of it reaches the cut-off anywhere, while
// no report of the segment, or of the whole vessel, reaches it. A branch
// report says nothing of its main vessel's segments.
func absentBy(f rules.AnatomyFact, ss []stenosis) (stenosis, bool) {
	var in []stenosis
	anySig := false
	for _, s := range ss {
		if s.Branch || !slices.Contains(f.Vessels, s.Vessel.Name) {
			continue
		}
		in = append(in, s)
		if s.significant() {
			if f.Segment == "" || s.Segment == "" || s.Segment == f.Segment {
				return stenosis{}, false
			}
			anySig = true
		}
	}
	for _, s := range in {
		if f.Segment == "" || s.Segment == f.Segment || s.Segment == "" && !anySig {
			return s, true
		}
	}
	return stenosis{}, false
}

// contradicts: n counted vessels disagree with a stated count concept
// (a stated one outside its range, a denied one inside it).
func contradicts(counts []rules.VesselCount, n int, concept string, present bool) bool {
	for _, c := range counts {
		if rules.NormalizeName(c.Concept) == rules.NormalizeName(concept) && c.Holds(n) != present {
			return true
		}
	}
	return false
}

// anatomyEvidence derives evidence from per-vessel stenosis reports, as
// the pack's anatomy facts say: stenosis values, the stenoses that reach
// their vessel's cut-off, and the derived count population of the
// significantly diseased counted vessels. A stenosis below its cut-off
// derives nothing but its value. Each item keeps the finding the report
// lies in; nothing is derived against a stated item.
func (p *Program) anatomyEvidence(r read.Reader, text string, findings []extract.Finding, ev []eval.Evidence) []patient.Fact {
	ss := p.anatomy.stenoses(text)
	if len(ss) == 0 {
		return nil
	}
	a := p.anatomy.a
	findingAt := func(at int) (extract.Finding, bool) {
		for _, f := range findings {
			if f.Start >= 0 && f.Start <= at && at < f.End {
				return f, true
			}
		}
		return extract.Finding{}, false
	}
	stated := map[string][]bool{} // normalised concept name → polarities stated
	byID := map[string]extract.Finding{}
	for _, f := range findings {
		byID[f.ID] = f
	}
	for _, e := range ev {
		if e.Value == nil {
			n := rules.NormalizeName(p.names[e.ConceptKey])
			if e.Present && isCount(a.Counts, n) && doubtedIn(text, byID[e.ID]) {
				// "CABG vs multivessel PCI": an option weighed or a
				// suspicion states no vessel count to stand against the
				// report's numbers.
				continue
			}
			stated[n] = append(stated[n], e.Present)
		}
	}
	var out []patient.Fact
	emit := func(kind patient.Kind, f extract.Finding, concept string, present bool, value *float64, via string, span patient.Span) {
		key, ok := p.keys[rules.NormalizeName(concept)]
		if !ok {
			return
		}
		if value == nil {
			for _, pol := range stated[rules.NormalizeName(concept)] {
				if pol != present {
					return
				}
			}
		}
		e := eval.Evidence{ID: f.ID, ConceptKey: key, Concept: p.names[key], Text: f.Text, Present: present, Via: ViaAnatomy + via}
		if value != nil {
			e.Value, e.Unit = value, "%"
		}
		out = append(out, read.Fact(r, kind, e, span))
	}
	diseased := map[string]bool{}
	var sig []stenosis
	var first extract.Finding
	var firstSpan patient.Span
	haveFirst := false
	for _, s := range ss {
		f, ok := findingAt(s.Start)
		if !ok || doubtedIn(text, f) {
			// "probable 50-69% proximal": a grade held in doubt states
			// no stenosis, and no disease derived from one.
			continue
		}
		v := s.Percent
		desc := fmt.Sprintf("%s %g%%", s.Name, s.Percent)
		span := patient.Span{Start: s.Start, End: s.End}
		if s.Grade != nil {
			// A graded report states its band, not a value.
			desc = fmt.Sprintf("%s %s (graded >= %g%%)", s.Name, s.Graded, s.Percent)
			if g := s.Grade; g.Concept != "" && !(g.UnlessSignificant && anySignificant(ss)) {
				emit(patient.KindProblem, f, g.Concept, true, nil, desc+" → "+g.Concept, span)
			}
		}
		if !s.Below && s.Grade == nil {
			for _, ft := range a.Facts {
				if ft.Value && applies(ft, s) {
					emit(patient.KindFinding, f, ft.Concept, true, &v, desc, span)
				}
			}
		}
		for _, ft := range a.Facts {
			if ft.AtLeast > 0 && !s.Below && !s.Branch && s.Percent >= ft.AtLeast && applies(ft, s) {
				emit(patient.KindFinding, f, ft.Concept, true, nil, fmt.Sprintf("%s (>= %g%% %s)", desc, ft.AtLeast, s.Segment), span)
			}
		}
		if !s.significant() {
			continue
		}
		for _, ft := range a.Facts {
			if !ft.Value && ft.AtLeast == 0 && applies(ft, s) {
				emit(patient.KindFinding, f, ft.Concept, true, nil, fmt.Sprintf("%s (>= %g%% in %s)", desc, s.Vessel.SignificantAt, s.Vessel.Name), span)
			}
		}
		if !s.Vessel.Counted {
			continue
		}
		diseased[s.Vessel.Name] = true
		sig = append(sig, s)
		if !haveFirst {
			first, firstSpan, haveFirst = f, span, true
		}
	}
	for _, ft := range a.Facts {
		if ft.Value || ft.AtLeast > 0 {
			continue
		}
		if s, ok := absentBy(ft, ss); ok {
			if f, ok := findingAt(s.Start); ok {
				desc := fmt.Sprintf("%s %g%%", s.Name, s.Percent)
				if s.Normal {
					desc = s.Text
				}
				emit(patient.KindFinding, f, ft.Concept, false, nil, fmt.Sprintf("%s (< %g%% in %s)", desc, s.Vessel.SignificantAt, s.Vessel.Name), patient.Span{Start: s.Start, End: s.End})
			}
		}
	}
	n := len(diseased)
	if n == 0 {
		return out
	}
	for concept, pols := range stated {
		for _, pol := range pols {
			if contradicts(a.Counts, n, concept, pol) {
				return out
			}
		}
	}
	for _, c := range a.Counts {
		if !c.Derive || !c.Holds(n) {
			continue
		}
		var names []string
		for _, s := range sig {
			if s.Grade != nil {
				names = append(names, s.Name+" "+s.Graded)
			} else {
				names = append(names, fmt.Sprintf("%s %g%%", s.Name, s.Percent))
			}
		}
		emit(patient.KindProblem, first, c.Concept, true, nil, strings.Join(names, ", ")+" → "+c.Label, firstSpan)
		break
	}
	return out
}

// anySignificant: a report reaches its vessel's cut-off.
func anySignificant(ss []stenosis) bool {
	for _, s := range ss {
		if s.significant() {
			return true
		}
	}
	return false
}

// isCount reports whether a normalised concept name is one of the pack's
// vessel-count concepts.
func isCount(counts []rules.VesselCount, name string) bool {
	for _, c := range counts {
		if rules.NormalizeName(c.Concept) == name {
			return true
		}
	}
	return false
}

// doubtedIn reports whether a finding located in text is stated in doubt
// (suspected, an alternative weighed, a probable negation).
func doubtedIn(text string, f extract.Finding) bool {
	if f.Text == "" {
		return false
	}
	fc := consistency.Analyze(text, f.Text)
	return fc.Uncertain || fc.Unlikely
}

// dashLabel reports whether s (the text right after a vessel name) opens
// with a spaced dash, the separator of a list's label and value
// ("<vessel> - normal"), as a colon is.
func dashLabel(s string) bool {
	t := strings.TrimLeft(s, " \t")
	return len(t) < len(s) && (strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "– "))
}

// normalValue reports whether the finding [lo, hi) is the value of a
// vessel report stated free of disease, after the vessel's name ("normal"
// of "<vessel> - normal", "<vessel>: normal"): the reader reads that vessel normal,
// and the word alone names no concept of its own (not all the coronaries
// normal).
func (r *anatomyReader) normalValue(lo, hi int, rep *anatomyReports) bool {
	if r == nil || rep == nil || lo < 0 {
		return false
	}
	for _, s := range rep.ss {
		if s.Normal && s.At < lo && hi <= s.End {
			return true
		}
	}
	return false
}
