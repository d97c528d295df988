package engine

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/rules"
)

// ViaCount starts the Via (trace text) of a value read as a count out of
// a total ("new hypokinesia in 4/16 segments").
const ViaCount = "count: "

// countVocab is the pack's counts (meta/reading.json counts) compiled:
// the count shapes and, in order, the measures a count may be of.
type countVocab struct {
	// re matches a count out of a total: group 1 the count, 2 the
	// total, 3 the counted noun (or empty).
	re       *regexp.Regexp
	totals   map[int]bool
	measures []countMeasure
	// nounEnd matches text ending in a counted noun ("... segments").
	nounEnd *regexp.Regexp
	// adjacent matches a count without a total: group 1 the count ("3
	// contiguous segments", "(2 adjacent)"), or nil.
	adjacent *regexp.Regexp
}

type countMeasure struct {
	concept string
	words   *regexp.Regexp
	context []*regexp.Regexp
}

func compileCounts(c *rules.Counts) *countVocab {
	if c == nil {
		return nil
	}
	v := &countVocab{totals: map[int]bool{}}
	for _, t := range c.Totals {
		v.totals[t] = true
	}
	// "3/16 segments", "3 of 16 LV segments", "(4/17)", "= 3/16": a
	// count, a total, then the noun (one word may stand between) or the
	// end of a parenthesis.
	v.re = regexp.MustCompile(`(?i)(\d{1,2})\s*(?:/|\bout\s+of\b|\bof\b)\s*(\d{1,3})\b(?:\s+(?:[a-z]+\s+)?(` + rules.WordsPattern(c.Nouns) + `)\b)?`)
	v.nounEnd = regexp.MustCompile(`(?i)\b(?:` + rules.WordsPattern(c.Nouns) + `)\s*$`)
	if len(c.Adjacent) > 0 {
		v.adjacent = regexp.MustCompile(`(?i)(?:^|[^\d./])(\d{1,2})\s+(?:` + rules.WordsPattern(c.Adjacent) + `)\b(?:\s+(?:` + rules.WordsPattern(c.Nouns) + `)\b)?`)
	}
	words := func(ws []string) *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:` + rules.WordsPattern(ws) + `)\b`) // literal words: always compiles
	}
	for _, m := range c.Measures {
		cm := countMeasure{concept: m.Concept, words: words(m.Words)}
		for _, g := range m.Context {
			cm.context = append(cm.context, words(g))
		}
		v.measures = append(v.measures, cm)
	}
	return v
}

// countStage reads counts out of a total as the value of the counted
// concept its sentence and context name: a report's "new hypokinesia of
// the mid anterior, apical anterior and apical septal segments (3/16)"
// splits into findings of its own, none of which names what is counted
// and the count together.
type countStage struct{ p *Program }

func (countStage) Name() string          { return "count" }
func (countStage) Reads() read.Input     { return read.Text }
func (countStage) Emits() []patient.Kind { return []patient.Kind{patient.KindMeasurement} }

// Satisfies: the count states the counted concept's qualifiers in the
// words it was chosen by, and a value needs no stated absence.
func (countStage) Satisfies(eval.Cond) consistency.Checks {
	return consistency.Checks{Qualifier: true, Absence: true}
}

func (r countStage) Read(c *read.Case) []patient.Fact {
	v := r.p.reading.counts
	if v == nil {
		return nil
	}
	text := c.Text
	title := documentHead(text)
	var out []patient.Fact
	seen := map[string]bool{}
	type count struct {
		n    int
		span [2]int
	}
	var counts []count
	for _, m := range v.re.FindAllStringSubmatchIndex(text, -1) {
		n, _ := strconv.Atoi(text[m[2]:m[3]])
		total, _ := strconv.Atoi(text[m[4]:m[5]])
		if v.totals[total] && n <= total && countShape(text, m, v.nounEnd) {
			counts = append(counts, count{n, [2]int{m[0], m[1]}})
		}
	}
	if v.adjacent != nil {
		for _, m := range v.adjacent.FindAllStringSubmatchIndex(text, -1) {
			n, _ := strconv.Atoi(text[m[2]:m[3]])
			counts = append(counts, count{n, [2]int{m[2], m[1]}})
		}
	}
	for _, ct := range counts {
		n, m := ct.n, ct.span[:]
		sentence := countSentence(text, m[0])
		scopes := []string{sentence, sentence + " " + lineLabelOf(text, m[0]) + " " + itemHead(text, m[0]), sentence + " " + lineLabelOf(text, m[0]) + " " + itemHead(text, m[0]) + " " + title}
		concept := ""
	scope:
		for _, sc := range scopes {
			for _, cm := range v.measures {
				if !cm.words.MatchString(sentence) {
					continue
				}
				ok := true
				for _, g := range cm.context {
					if !g.MatchString(sc) {
						ok = false
						break
					}
				}
				if ok {
					concept = cm.concept
					break scope
				}
			}
		}
		if concept == "" {
			continue
		}
		key, ok := r.p.keys[rules.NormalizeName(concept)]
		if !ok {
			continue
		}
		f, ok := findingNear(c.Findings, m[0])
		if !ok || seen[f.ID+key] {
			continue
		}
		seen[f.ID+key] = true
		val := float64(n)
		e := eval.Evidence{ID: f.ID, ConceptKey: key, Concept: r.p.names[key], Text: f.Text, Present: true, Value: &val, Unit: "unitless",
			Via: ViaCount + strings.TrimSpace(text[m[0]:m[1]])}
		out = append(out, read.Fact(r, patient.KindMeasurement, e, patient.Span{Start: m[0], End: m[1]}))
	}
	return out
}

// countShape: the count is one ("3/16 segments", "segments (3/16)"), not
// a bound ("≥3/16 segments") nor a date ("12/03/16", "Stress echo
// (3/16):"). noun matches a noun ending the text before a parenthesis.
func countShape(text string, m []int, noun *regexp.Regexp) bool {
	b := m[0]
	for b > 0 && text[b-1] == ' ' {
		b--
	}
	if b > 0 {
		switch p := text[b-1]; {
		case p == '/' || p == '.' || p == '-' || unicode.IsDigit(rune(p)):
			return false
		case p == '<' || p == '>' || p == '=' && b > 1 && (text[b-2] == '<' || text[b-2] == '>') || strings.HasSuffix(text[:b], "≥") || strings.HasSuffix(text[:b], "≤"):
			return false
		}
	}
	if m[1] < len(text) && (text[m[1]] == '/' || text[m[1]] == '.' && m[1]+1 < len(text) && unicode.IsDigit(rune(text[m[1]+1]))) {
		return false
	}
	if m[6] >= 0 {
		return true // a noun follows
	}
	e := m[1]
	for e < len(text) && text[e] == ' ' {
		e++
	}
	// "segments (3/16)": a parenthesis after the noun; "Stress echo
	// (3/16):" is a date.
	return b > 0 && text[b-1] == '(' && e < len(text) && text[e] == ')' && noun != nil && noun.MatchString(text[:b-1])
}

// countSentence is the sentence holding byte at: from the last sentence
// end, semicolon or blank line before it to the next one; a line break
// ends it only where the next line opens a new item or sentence (a
// capital letter or a list marker), not where it wraps ("... apical
// septal\n= 3/16 segments").
func countSentence(text string, at int) string {
	s := at
	for s > 0 {
		c := text[s-1]
		if c == ';' || c == '.' && s < len(text) && (text[s] == ' ' || text[s] == '\n') || c == '\n' && !continuesLine(text, s) {
			break
		}
		s--
	}
	e := at
	for e < len(text) {
		c := text[e]
		if c == ';' || c == '.' && (e+1 >= len(text) || text[e+1] == ' ' || text[e+1] == '\n') || c == '\n' && !continuesLine(text, e+1) {
			break
		}
		e++
	}
	return text[s:e]
}

// continuesLine: the line starting at byte i goes on the line before it:
// it opens (after its indent) in lower case or with a sign ("= 3/16"),
// not with a capital, a list marker or nothing.
func continuesLine(text string, i int) bool {
	j := i
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	if j >= len(text) || text[j] == '\n' {
		return false
	}
	if bulletTrimmed.MatchString(text[j:min(len(text), j+6)] + " ") {
		return false
	}
	c := rune(text[j])
	return unicode.IsLower(c) || strings.ContainsRune("=(+>~", c)
}

// lineLabelOf is the label of the line holding byte at: its words before
// a colon, at most six, or "".
func lineLabelOf(text string, at int) string {
	s := strings.LastIndexByte(text[:at], '\n') + 1
	k := strings.IndexByte(text[s:at], ':')
	if k < 0 {
		return ""
	}
	label := bulletTrimmed.ReplaceAllString(strings.TrimSpace(text[s:s+k]), "")
	if n := len(strings.Fields(label)); n == 0 || n > 6 {
		return ""
	}
	return label
}

// itemHead is the first line of the item holding byte at: the line
// before its continuation lines (indented ones or those that wrap).
func itemHead(text string, at int) string {
	s := strings.LastIndexByte(text[:at], '\n') + 1
	for s > 0 && (s < len(text) && (text[s] == ' ' || text[s] == '\t') || continuesLine(text, s)) {
		p := strings.LastIndexByte(text[:s-1], '\n') + 1
		if strings.TrimSpace(text[p:s-1]) == "" {
			break
		}
		s = p
	}
	e := strings.IndexByte(text[s:], '\n')
	if e < 0 {
		return text[s:]
	}
	return text[s : s+e]
}

// documentHead is the titles among the document's first two lines that
// hold words (titleLine: "DOBUTAMINE STRESS ECHO", a unit's name above
// "ADENOSINE STRESS PERFUSION CMR"); a first line of prose is no title.
func documentHead(text string) string {
	var out []string
	seen := 0
	for _, l := range strings.SplitN(text, "\n", 8) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if t := titleLine(l); t != "" {
			out = append(out, t)
		}
		if seen++; seen == 2 {
			break
		}
	}
	return strings.Join(out, " ")
}

// findingNear is the finding holding byte at, or else the last finding
// before it in its sentence.
func findingNear(fs []extract.Finding, at int) (extract.Finding, bool) {
	var best extract.Finding
	found := false
	for _, f := range fs {
		if f.Start >= 0 && f.Start <= at && at < f.End {
			return f, true
		}
		if f.End <= at && f.End >= 0 && (!found || f.End > best.End) {
			best, found = f, true
		}
	}
	return best, found
}
