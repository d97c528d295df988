package engine

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
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
// vocabulary (meta/hierarchy.json "anatomy"): "<vessel> <percent>",
// "<percent> [lesion words] [noun] [of the] <segment><vessel>",
// "<occluded word> <vessel>" and "<vessel> <occluded word>". It knows no
// vessel, cut-off or population itself.
type anatomyReader struct {
	a *rules.Anatomy
	// words: lower-case written name → vessel; digits: names with one
	// trailing digit ("#" in the pack), by lower-case prefix.
	words, digits map[string]wordOf
	segments      map[string]string // lower-case segment word → segment
	res           []anatomyPattern
	notNative     *regexp.Regexp
}

type wordOf struct {
	vessel *rules.Vessel
	branch bool
}

type anatomyPattern struct {
	re       *regexp.Regexp
	occluded bool
}

// stenosis is one per-vessel report read from the case text.
type stenosis struct {
	Vessel  *rules.Vessel // the main vessel (a branch counts in its main vessel)
	Name    string        // as written
	Segment string        // the pack's segment of a main-vessel word, or ""
	Percent float64       // diameter stenosis; 100 for an occlusion
	Below   bool          // stated as an upper bound ("<50%")
	Start   int           // offset in the text
	End     int           // end of the matched words
	Text    string        // the matched words
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
	var names, segWords []string
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
		}
	}
	vessel := `(?P<v>` + alternation(names) + `)`
	if len(segWords) > 0 {
		vessel = `(?:(?P<pos>` + alternation(segWords) + `)[\s-]?)?` + vessel
	}
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
	lesionPat := ""
	if len(lesion) > 0 {
		lesionPat = `(?:(?:` + strings.Join(lesion, "|") + `)\s+){0,4}`
	}
	nouns := ""
	if len(a.Nouns) > 0 {
		nouns = `(?:\s*(?:` + alternation(a.Nouns) + `))?`
	}
	pats := []struct {
		src      string
		occluded bool
	}{
		{`(?i)\b` + vessel + `\b` + nouns + `\s*:?\s*` + pct, false},
		{`(?i)` + pct + `\s*` + lesionPat + optional(a.NounsBefore, `\s+`) + `(?:(?:in|of|at)\s+)?(?:the\s+)?` + vessel + `\b`, false},
	}
	if len(a.OccludedBefore) > 0 {
		pats = append(pats, struct {
			src      string
			occluded bool
		}{`(?i)\b(?:` + alternation(a.OccludedBefore) + `)\s+` + vessel + `\b`, true})
	}
	if len(a.OccludedAfter) > 0 {
		pats = append(pats, struct {
			src      string
			occluded bool
		}{`(?i)\b` + vessel + `\b\s*(?:is\s+|was\s+)?(?:` + alternation(a.OccludedAfter) + `)\b`, true})
	}
	for _, p := range pats {
		re, err := regexp.Compile(p.src)
		if err != nil {
			return nil, fmt.Errorf("%s: anatomy: the vocabulary makes no valid pattern: %w", rules.HierarchyFile, err)
		}
		r.res = append(r.res, anatomyPattern{re, p.occluded})
	}
	if len(a.NotNative) > 0 {
		r.notNative = regexp.MustCompile(`(?i)\b(?:` + alternation(a.NotNative) + `)\b`)
	}
	return r, nil
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
	for a > 0 && !strings.ContainsRune(",;()\n", rune(text[a-1])) && !(text[a-1] == '.' && (a == 1 || text[a-2] < '0' || text[a-2] > '9')) {
		a--
	}
	b := hi
	for b < len(text) && !strings.ContainsRune(",;()\n", rune(text[b])) && !(text[b] == '.' && (b+1 >= len(text) || text[b+1] < '0' || text[b+1] > '9')) {
		b++
	}
	return a, b
}

// stenoses reads the per-vessel stenosis reports of a text.
func (r *anatomyReader) stenoses(text string) []stenosis {
	if r == nil {
		return nil
	}
	var out []stenosis
	seen := map[int]bool{} // vessel-name offset already read
	for _, p := range r.res {
		re := p.re
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			get := func(name string) (string, int) {
				i := re.SubexpIndex(name)
				if i < 0 || m[2*i] < 0 {
					return "", -1
				}
				return text[m[2*i]:m[2*i+1]], m[2*i]
			}
			v, vAt := get("v")
			w, ok := r.vesselOf(v)
			if !ok || seen[vAt] {
				continue
			}
			pos, _ := get("pos")
			// A vessel name glued to a graft ("SVG-<vessel>").
			if vAt > 0 && (text[vAt-1] == '-' || text[vAt-1] == '/') && pos == "" {
				continue
			}
			a, b := segmentOf(text, m[0], m[1])
			if r.notNative != nil && r.notNative.MatchString(text[a:b]) {
				continue
			}
			s := stenosis{Vessel: w.vessel, Name: v, Start: m[0], End: m[1], Text: strings.TrimSpace(text[m[0]:m[1]])}
			if !w.branch {
				s.Segment = r.segments[strings.ToLower(pos)]
			}
			if p.occluded {
				s.Percent = 100
			} else {
				n, _ := get("n")
				f, err := strconv.ParseFloat(n, 64)
				if err != nil || f > 100 {
					continue
				}
				s.Percent = f
				c, _ := get("cmp")
				s.Below = c == "<" || c == "≤" || c == "<="
			}
			seen[vAt] = true
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
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
	for _, e := range ev {
		if e.Value == nil {
			n := rules.NormalizeName(p.names[e.ConceptKey])
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
		if !ok {
			continue
		}
		v := s.Percent
		desc := fmt.Sprintf("%s %g%%", s.Name, s.Percent)
		span := patient.Span{Start: s.Start, End: s.End}
		if !s.Below {
			for _, ft := range a.Facts {
				if ft.Value && applies(ft, s) {
					emit(patient.KindFinding, f, ft.Concept, true, &v, desc, span)
				}
			}
		}
		if !s.significant() {
			continue
		}
		for _, ft := range a.Facts {
			if !ft.Value && applies(ft, s) {
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
			names = append(names, fmt.Sprintf("%s %g%%", s.Name, s.Percent))
		}
		emit(patient.KindProblem, first, c.Concept, true, nil, strings.Join(names, ", ")+" → "+c.Label, firstSpan)
		break
	}
	return out
}
