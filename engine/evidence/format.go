package evidence

import (
	"context"
	"regexp"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/rules/units"
)

// Anchor is what the formatter needs to know about a concept anchor: its
// concept and the units its numeric conditions use.
type Anchor struct {
	ConceptKey string
	Concept    string
	// Units of the anchor's numeric conditions (canonical); empty when the
	// concept is only tested for presence.
	Units []string
	// Phrases name the concept (name, guideline wordings, lexicon
	// synonyms). When set, the deterministic formatter accepts the pair
	// only if the mention covers one of them (see Covers).
	Phrases []string
	// Names, when set, are the pack's phrases of every concept: a mention
	// covering only two thirds of a phrase must not state words another
	// concept's name holds as well (CoversAmong).
	Names *Names
	// Covering, when set, is NewPhrases(Phrases), read once by the caller
	// for many pairs; the coverage test then uses it.
	Covering *Phrases `json:"-"`
	// Scales, when the anchor has several Units, are their plausible
	// ranges by canonical unit: a bare number takes the one unit whose
	// range holds it.
	Scales map[string][2]float64 `json:"-"`
}

// Item is one piece of structured evidence (the reference system's
// {original_text, standardized_concept, present, value, unit, comparator}).
type Item struct {
	FindingID  string
	Text       string
	ConceptKey string
	Concept    string
	Present    bool
	Value      *float64
	Unit       string
	Comparator string
	// Note says how the item was read when it needed a decision, e.g.
	// "unit assumed from the guideline condition".
	Note string
	// Rejected, when set, says why the mention does not express the
	// anchor's concept; such an item is not evidence.
	Rejected string
}

// Format turns one finding–anchor pair into evidence. negated says whether
// the finding's clause in the case text is under a negation cue; a negated
// mention yields evidence of absence, never affirmative evidence.
//
// For a concept with numeric conditions the formatter picks the numbers of
// the mention whose unit is the anchor's unit (or converts to it); a bare
// number takes the anchor's unit when the anchor uses exactly one; a
// mention with no number is presence without a value, which the evaluator
// reads as unknown for thresholds.
func Format(findingID, text string, a Anchor, negated bool) []Item {
	return format(findingID, text, a, negated, ParseMeasures)
}

// format is Format reading numbers with parse (ParseMeasures, or a memo of
// it over one case: a finding is formatted once per anchor).
func format(findingID, text string, a Anchor, negated bool, parse func(string) []Measure) []Item {
	base := Item{FindingID: findingID, Text: text, ConceptKey: a.ConceptKey, Concept: a.Concept, Present: !negated}
	if negated || len(a.Units) == 0 {
		return []Item{base}
	}
	ms := parse(text)
	var picked []Item
	lastEnd := -1
	aside := asideMeasures(text, ms, a)
	ref := referenceRanges(text, ms)
	prevEnd := -1 // the end of the last number with a unit, the anchor's or not
	for i, m := range ms {
		before := prevEnd
		if m.Canon != "" {
			prevEnd = m.End
		}
		if superseded(text, ms, i) || duration(text, m, a) || inDate(text, m) || aside[i] || ref[i] || identifier(text, m) {
			continue
		}
		// A bare number after the value and another word belongs to that
		// word ("LDL 3.2 on atorvastatin 40": the dose), not to the anchor.
		if m.Canon == "" && lastEnd >= 0 && lastEnd <= m.Start && hasLetter(text[lastEnd:m.Start]) {
			continue
		}
		// So does one after another measure's value, when the words
		// between name nothing of the anchor: in "LDL-C 48 mg/dL on
		// rosuvastatin 40" the 40 is the drug's dose, no value of a
		// percentage the mention's other words let it ground to.
		if m.Canon == "" && before >= 0 && before <= m.Start && hasLetter(text[before:m.Start]) && !namesAnchor(text[before:m.Start], a.Phrases) {
			continue
		}
		if u, ok := compatible(m, a); ok {
			lastEnd = m.End
			it := base
			v := m.Value
			it.Value, it.Unit, it.Comparator = &v, u, m.Comparator
			if m.Canon == "" && len(a.Units) > 1 {
				it.Note = "unit not written; " + u + " is the one unit of the concept whose plausible range holds the value"
			} else if m.Canon == "" {
				it.Note = "unit not written; assumed " + u + " from the guideline condition"
			}
			picked = append(picked, it)
		}
	}
	if len(picked) > 0 {
		return picked
	}
	if len(ms) == 0 && countOnly(a) {
		if v, ok := countWord(text); ok {
			// "Two adjacent segments poorly seen": a count written in words.
			it := base
			it.Value, it.Unit = &v, a.Units[0]
			it.Note = "count written in words"
			return []Item{it}
		}
	}
	// A number in a unit we cannot compare is kept as written: the
	// evaluator then reports the two units instead of a silent false.
	for _, m := range ms {
		if m.Canon != "" {
			it := base
			v := m.Value
			it.Value, it.Unit, it.Comparator = &v, m.Canon, m.Comparator
			return []Item{it}
		}
	}
	return []Item{base}
}

// namesAnchor: text states a word of one of the anchor's phrases.
func namesAnchor(text string, phrases []string) bool {
	for _, ph := range phrases {
		if touches(text, ph) {
			return true
		}
	}
	return false
}

// asideMeasures marks the numbers inside a parenthesis when a number the
// anchor can take stands outside every parenthesis: in "RF-CL (male, 61,
// 4 RF) ~24%" the value is 24, and 61 is the age the aside lists.
func asideMeasures(text string, ms []Measure, a Anchor) map[int]bool {
	if len(ms) < 2 || !strings.Contains(text, "(") {
		return nil
	}
	depth := make([]int, len(text)+1)
	d := 0
	for i := 0; i < len(text); i++ {
		if text[i] == ')' && d > 0 {
			d--
		}
		depth[i] = d
		if text[i] == '(' {
			d++
		}
	}
	inside := map[int]bool{}
	outside := false
	for i, m := range ms {
		if depth[m.Start] > 0 {
			inside[i] = true
		} else if _, ok := compatible(m, a); ok && !inDate(text, m) && !calendarYear(m) {
			outside = true
		}
	}
	if !outside {
		return nil
	}
	return inside
}

// referenceRanges marks the numbers of a lab row's reference range: a
// bound ("<3.0", ">90") or a range ("20-41") written after an exact value
// with only layout between (spaces, tabs, cell bars, brackets, a colon,
// a flag of at most two capitals or a star: "LDL-C  3.8  mmol/L  H
// <3.0", "eGFR | 48 | L | >90"). A table's reference column is never a
// value of the patient; a second exact value (a later date's column)
// is not marked.
func referenceRanges(text string, ms []Measure) map[int]bool {
	if len(ms) < 2 {
		return nil
	}
	var ref map[int]bool
	exactEnd := -1
	for i := 0; i < len(ms); i++ {
		m := ms[i]
		rangeStart := m.Comparator == "" && i+1 < len(ms) && rangeSep.MatchString(text[m.End:ms[i+1].Start])
		bound := m.Comparator != "" || rangeStart
		if bound && exactEnd >= 0 && exactEnd <= m.Start && onlyLayout(text[exactEnd:m.Start]) {
			if ref == nil {
				ref = map[int]bool{}
			}
			ref[i] = true
			if rangeStart {
				ref[i+1] = true
				i++
			}
			continue
		}
		if m.Comparator == "" && !rangeStart {
			exactEnd = m.End
		} else {
			exactEnd = -1
		}
	}
	return ref
}

// onlyLayout: s holds only spaces, tabs, cell bars, brackets, a colon,
// the bound's own comparator and result flags (a word of at most two
// capitals, "*", "!").
func onlyLayout(s string) bool {
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(" \t|()[]:<>≤≥=", r) }) {
		if w == "*" || w == "!" || w == "**" {
			continue
		}
		if len(w) > 2 || strings.Trim(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return false
		}
	}
	return true
}

// trendFrom and trendTo find a change stated as "from A to B" ("LVEF fell
// from 55% (2022) to 38%", "55% -> 38%"): A is the patient's past value,
// B the current one.
var (
	trendFrom = regexp.MustCompile(`(?i)\bfrom\s*$`)
	trendTo   = regexp.MustCompile(`(?i)^\s*(?:\([^()]*\)\s*)?(?:to|→|->|=>)\s*$`)
	// trendArrow: an arrow alone between two values.
	trendArrow = regexp.MustCompile(`^\s*(?:\([^()]*\)\s*)?(?:→|->|-->|=>)\s*[<>≤≥~]?\s*$`)
	// A bare number followed by a time word is a duration or a date
	// ("over 12 months", "2 weeks ago"), not a value of the concept.
	// A capital "H" alone is a result flag (high), not hours: "LDL-C
	// 3.8 H".
	timeWord = regexp.MustCompile(`^\s*(?:(?i:days?|weeks?|wks?|months?|mos?|years?|yrs?|hours?|hrs?)|h)\b`)
)

// superseded reports whether measure i is the earlier value of a trend.
func superseded(text string, ms []Measure, i int) bool {
	j := i + 1
	for j < len(ms) && calendarYear(ms[j]) {
		j++
	}
	if j >= len(ms) {
		return false
	}
	between := text[ms[i].End:ms[j].Start]
	if trendArrow.MatchString(between) {
		return true // "LVEF 50% -> 34%": an arrow says from A to B by itself
	}
	return trendFrom.MatchString(text[:ms[i].Start]) && trendTo.MatchString(between)
}

// inDate reports whether a unitless number is part of a written date
// ("TTE 04/2025", "12/03/2024", "2024-03-12"): a month or day, not a value.
func inDate(text string, m Measure) bool {
	if m.Canon != "" || m.Unit != "" {
		return false
	}
	before, after := text[:m.Start], text[m.End:]
	if strings.HasPrefix(text[m.Start:], "-") && isoBefore.MatchString(before) {
		return true // "-03" and "-12" of "2024-03-12", not negative values
	}
	return dateAfter.MatchString(after) || dateBefore.MatchString(before) || monthYear(text, m)
}

// monthYear reports whether a unitless number is the month of a date
// written month/year with a two-digit year ("CMR 03/25", "echo 11/24:"):
// a month written with its leading zero ("03") is never a count or a
// value, and a month 10-12 is one when the year ends the mention or a
// clause ("10/24:", "12/25)"), where a count of a total ("10/16
// segments") goes on to what it counts.
func monthYear(text string, m Measure) bool {
	if m.Comparator != "" || m.Value != float64(int(m.Value)) || m.Value < 1 || m.Value > 12 || m.End-m.Start != 2 {
		return false
	}
	after := text[m.End:]
	if !monthYearAfter.MatchString(after) {
		return false
	}
	rest := after[3:]
	if rest != "" && (isDigit(rest[0]) || len(rest) > 1 && (rest[0] == '/' || rest[0] == '.') && isDigit(rest[1])) {
		return false // "03/25/2024" or "03.25.1": another date's parts, or a decimal
	}
	if text[m.Start] == '0' {
		return true
	}
	rest = strings.TrimLeft(rest, " \t")
	return rest == "" || strings.ContainsRune(":;,)]", rune(rest[0]))
}

var (
	dateAfter  = regexp.MustCompile(`^[/.-]\d{1,2}[/.-](?:\d{2}|\d{4})\b|^[/.-](?:19|20)\d{2}\b`)
	dateBefore = regexp.MustCompile(`\b(?:\d{1,2}[/.-]|(?:19|20)\d{2}-(?:\d{1,2}-)?)$`)
	isoBefore  = regexp.MustCompile(`\b(?:19|20)\d{2}(?:-\d{1,2})?$`)
	// monthYearAfter: "/25" of "03/25", a two-digit year.
	monthYearAfter = regexp.MustCompile(`^[/.]\d{2}`)
)

// identifier reports whether a unitless number is part of a record or
// telephone number ("NHS 612 448 7720", "MRN 40018827"): a run of three
// or more digit groups set apart by single spaces, nine digits or more in
// all, or one group of seven digits or more. No measured value is
// written so.
func identifier(text string, m Measure) bool {
	if m.Canon != "" || m.Unit != "" || m.Comparator != "" {
		return false
	}
	s, e := m.Start, m.End
	for s > 0 && (isDigit(text[s-1]) || text[s-1] == ' ' && s > 1 && isDigit(text[s-2])) {
		s--
	}
	for e < len(text) && (isDigit(text[e]) || text[e] == ' ' && e+1 < len(text) && isDigit(text[e+1])) {
		e++
	}
	groups := strings.Fields(text[s:e])
	digits := 0
	for _, g := range groups {
		digits += len(g)
	}
	return len(groups) >= 3 && digits >= 9 || len(groups) == 1 && digits >= 7
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// calendarYear: a bare whole number 1900–2100 is a year ("(2022)", "in 2019").
func calendarYear(m Measure) bool {
	return m.Canon == "" && m.Unit == "" && m.Comparator == "" && m.Value >= 1900 && m.Value <= 2100 && m.Value == float64(int(m.Value))
}

// duration reports whether m is a time span rather than a value; an anchor
// measured in time units ("age" in years) keeps it.
func duration(text string, m Measure, a Anchor) bool {
	if calendarYear(m) {
		return true
	}
	if m.Canon != "" || !timeWord.MatchString(text[m.End:]) {
		return false
	}
	for _, u := range a.Units {
		if timeWord.MatchString(u) {
			return false
		}
	}
	return true
}

// unitStated: one of the measures is written with a unit the anchor's
// conditions use (a bare number is not).
func unitStated(ms []Measure, a Anchor) bool {
	for _, m := range ms {
		if _, ok := compatible(m, a); ok && m.Canon != "" {
			return true
		}
	}
	return false
}

// valueStated: the mention states a value of the measured anchor, in one
// of its units, or a bare count where the anchor is a count (unitless:
// "2/16 segments").
func valueStated(ms []Measure, a Anchor) bool {
	if len(a.Units) == 0 {
		return false
	}
	if unitStated(ms, a) {
		return true
	}
	return len(ms) > 0 && len(a.Units) == 1 && a.Units[0] == "unitless"
}

// countOnly: the anchor's conditions count (one unit, unitless: "2 or
// more segments").
func countOnly(a Anchor) bool { return len(a.Units) == 1 && a.Units[0] == "unitless" }

// countWords are the small numbers clinicians write out when counting
// ("two adjacent segments", "three segments").
var countWords = map[string]float64{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}

// countWordRe is a written-out number that counts the word after it
// ("two adjacent", "three-segment"), not "one of" a set.
var countWordRe = regexp.MustCompile(`(?i)\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[ -]+([a-z]+)`)

// countWord is the first count written in words in the mention.
func countWord(text string) (float64, bool) {
	for _, m := range countWordRe.FindAllStringSubmatch(text, -1) {
		if strings.EqualFold(m[2], "of") {
			continue
		}
		return countWords[strings.ToLower(m[1])], true
	}
	return 0, false
}

func compatible(m Measure, a Anchor) (string, bool) {
	if m.Canon == "" {
		if len(a.Units) == 1 {
			return a.Units[0], true
		}
		return scaleOf(m.Value, a)
	}
	for _, u := range a.Units {
		if units.Same(m.Canon, u) {
			return m.Canon, true
		}
		if _, err := units.Convert(m.Value, m.Canon, u, a.Concept); err == nil {
			return m.Canon, true
		}
	}
	return "", false
}

// scaleOf is the one unit of the anchor whose plausible range holds v.
func scaleOf(v float64, a Anchor) (string, bool) {
	unit := ""
	for _, u := range a.Units {
		if r, ok := a.Scales[u]; ok && v >= r[0] && v <= r[1] {
			if unit != "" {
				return "", false
			}
			unit = u
		}
	}
	return unit, unit != ""
}

// Pair is one finding–anchor pair of a case.
type Pair struct {
	FindingID string
	Text      string // the finding as extracted
	Anchor    Anchor
	// Negated: the finding's clause in the case text is under a negation
	// cue (from the consistency check's analysis).
	Negated bool
	// Clause is the stretch of the case text around the finding up to the
	// nearest comma, semicolon or sentence end; the extractor splits finer
	// ("achievable with PCI"), so the concept's words are looked for here.
	Clause string
	// Title is the document's title line when it is written as one (a
	// report's "DOBUTAMINE STRESS ECHOCARDIOGRAPHY", "CARDIAC MRI - STRESS
	// PERFUSION"): it names the study every result of the report comes
	// from, so a measured concept's name may take its words from it
	// ("Inducible perfusion defect 2/16 segments" in a stress CMR report
	// states the CMR perfusion-defect segment count). Only a mention that
	// states a value in the anchor's unit uses it.
	Title string
}

// Formatter is step (iv) for a whole case: one call serves every pair, so
// an LLM formatter makes one request per case, not one per pair.
type Formatter interface {
	FormatCase(ctx context.Context, caseText string, pairs []Pair) ([]Item, error)
	Name() string
}

// Deterministic is the default formatter: number, unit and comparator
// parsed from the mention, presence from the negation analysis.
type Deterministic struct{}

// Name identifies the formatter in caches and traces.
func (Deterministic) Name() string { return "deterministic-v1" }

// FormatCase formats every pair with Format.
func (Deterministic) FormatCase(_ context.Context, _ string, pairs []Pair) ([]Item, error) {
	var out []Item
	parsed := map[string][]Measure{} // read-only once parsed
	parse := func(t string) []Measure {
		ms, ok := parsed[t]
		if !ok {
			ms = ParseMeasures(t)
			parsed[t] = ms
		}
		return ms
	}
	for _, p := range pairs {
		if len(p.Anchor.Phrases) > 0 {
			mention := p.Text
			if p.Clause != "" {
				mention = p.Clause
			}
			names := p.Anchor.Names
			if names != nil && len(p.Anchor.Units) > 0 && unitStated(parse(mention), p.Anchor) {
				// A value in the concept's unit ("ischaemic myocardium
				// 12%") tells a measured concept from its namesakes. A
				// concept without units has no value to tell (unitStated
				// is false), so its mention is not parsed for one.
				names = nil
			}
			var ok bool
			var by string
			if p.Anchor.Covering != nil {
				ok, by = p.Anchor.Covering.CoversAmong(mention, p.Anchor.ConceptKey, names)
			} else {
				ok, by = CoversAmong(mention, p.Anchor.Phrases, p.Anchor.ConceptKey, names)
			}
			if !ok {
				// A slip of one letter in a long word ("anjina"): the
				// repaired mention must state a name whole.
				if fixed, changed := p.Anchor.Names.Corrected(mention); changed {
					if p.Anchor.Covering != nil {
						ok, by = p.Anchor.Covering.CoversAll(fixed)
					} else {
						ok, by = CoversAll(fixed, p.Anchor.Phrases)
					}
				}
			}
			if ok && mention != p.Text && (!touches(p.Text, by) && hasOwnWord(p.Text, p.Anchor.Names) || partlyStated(p.Text, by)) {
				// The clause names the concept with another finding's
				// words ("?AF on 1 strip -> SR with frequent atrial
				// ectopics"): a finding that names something of its own
				// and none of the phrase's words does not state it. Another
				// phrase the clause states may hold one of its words
				// ("typical" of "typical angina").
				ok = false
				for _, ph := range p.Anchor.Phrases {
					if ph != by && touches(p.Text, ph) && !partlyStated(p.Text, ph) {
						if c, _ := CoversAmong(mention, []string{ph}, p.Anchor.ConceptKey, names); c {
							ok = true
							break
						}
					}
				}
			}
			if ok && capsUnstated(mention, by) {
				// "Does he need a stress test": the abbreviation "DOE" is
				// not stated by a title-case word that stems to it.
				ok = false
			}
			if !ok && p.Title != "" && valueStated(parse(p.Text), p.Anchor) {
				// The report's title names the study the value is a result
				// of: its words count as stated for the measured concept.
				titled := p.Title + ": " + mention
				if p.Anchor.Covering != nil {
					ok, _ = p.Anchor.Covering.CoversAmong(titled, p.Anchor.ConceptKey, p.Anchor.Names)
				} else {
					ok, _ = CoversAmong(titled, p.Anchor.Phrases, p.Anchor.ConceptKey, p.Anchor.Names)
				}
			}
			if !ok {
				out = append(out, Item{FindingID: p.FindingID, Text: p.Text, ConceptKey: p.Anchor.ConceptKey, Concept: p.Anchor.Concept,
					Rejected: "the mention does not state every word of any name of '" + p.Anchor.Concept + "'"})
				continue
			}
			if p.Negated && deniesSplit(mention, by, p.Anchor.Phrases) {
				out = append(out, Item{FindingID: p.FindingID, Text: p.Text, ConceptKey: p.Anchor.ConceptKey, Concept: p.Anchor.Concept,
					Rejected: "the denial is of another thing (a word of the mention's own stands between the words of '" + by + "'), so it says nothing of '" + p.Anchor.Concept + "'"})
				continue
			}
			if p.Negated && deniesQualified(mention, by) {
				out = append(out, Item{FindingID: p.FindingID, Text: p.Text, ConceptKey: p.Anchor.ConceptKey, Concept: p.Anchor.Concept,
					Rejected: "the denial is of a narrower thing (a word qualifies '" + by + "' in the mention), so it says nothing of '" + p.Anchor.Concept + "'"})
				continue
			}
			if recentConcept(p.Anchor.Concept) && datedLongAgo(mention) {
				out = append(out, Item{FindingID: p.FindingID, Text: p.Text, ConceptKey: p.Anchor.ConceptKey, Concept: p.Anchor.Concept,
					Rejected: "the mention dates the event years ago, so it cannot support '" + p.Anchor.Concept + "'"})
				continue
			}
		}
		text := p.Text
		// A finding cut off inside a trend ("LVEF down from 55%" of
		// "LVEF down from 55% (2022) to 38%") reads its clause from the
		// finding on, so the earlier value gives way to the current one.
		if at := strings.Index(p.Clause, p.Text); at >= 0 && len(p.Clause) > at+len(p.Text) {
			if ms := parse(p.Clause[at:]); len(ms) > 1 {
				for mi := range ms {
					if ms[mi].End <= len(p.Text) && superseded(p.Clause[at:], ms, mi) {
						text = p.Clause[at:]
						break
					}
				}
			}
		}
		out = append(out, format(p.FindingID, text, p.Anchor, p.Negated, parse)...)
	}
	return out, nil
}

// deniesQualified: the phrase a denied mention states is one word, stated
// as a generic word ("symptoms" for "symptomatic"), that a word of the mention's own qualifies right before
// it: "no reflux symptoms", "no night-time symptoms" deny the symptoms so
// named, not every symptom, as "no symptoms" or "no other symptoms" do. A
// generic word, a stop word, a number or a negation cue before the head
// ("denies symptoms", "nil symptoms") qualifies nothing.
func deniesQualified(mention, phrase string) bool {
	pw := phraseOf(phrase).words
	if len(pw) != 1 {
		return false
	}
	toks := numberUnitTokens(mention)
	for k, w := range toks {
		if !sameWord(w, pw[0]) {
			continue
		}
		if k == 0 || !textnorm.GenericWords[w] && !textnorm.GenericWords[pw[0]] {
			return false
		}
		q := toks[k-1]
		if len(q) < 3 || textnorm.StopWords[q] || fillers[q] || textnorm.GenericWords[q] || modifiers[q] || hasDigit(q) {
			return false
		}
		return !consistency.NewText(q).NegationIn(q)
	}
	return false
}

// deniesSplit reports whether a denied mention says a phrase's words only
// with a content word of its own right after the phrase's first word,
// before the phrase's next word: "not the last patent vessel, as the LIMA
// is" denies a patent vessel, not a patent LIMA; "no chest wall pain"
// denies chest wall pain, not chest pain. A stop word, a generic word, a
// number, a negation cue or a word of any of the concept's names
// (phrases) between them splits nothing ("no chest or arm pain").
func deniesSplit(mention, phrase string, phrases []string) bool {
	pw := phraseOf(phrase).words
	if len(pw) < 2 {
		return false
	}
	toks := numberUnitTokens(mention)
	inPhrase := func(w string) bool {
		for _, ph := range phrases {
			for _, x := range phraseOf(ph).words {
				if sameWord(w, x) {
					return true
				}
			}
		}
		for _, x := range pw {
			if sameWord(w, x) {
				return true
			}
		}
		return false
	}
	split := false
	for k, w := range toks {
		if !sameWord(w, pw[0]) {
			continue
		}
		// Any occurrence said whole ("no high bleeding risk and no high
		// ischaemic risk") states the phrase.
		if k+1 >= len(toks) {
			continue
		}
		if sameWord(toks[k+1], pw[1]) {
			return false
		}
		q := toks[k+1]
		if len(q) < 3 || !lettersOnly(q) || inPhrase(q) || textnorm.StopWords[q] || fillers[q] || textnorm.GenericWords[q] || modifiers[q] {
			return false
		}
		if consistency.NewText(q).NegationIn(q) {
			return false
		}
		// The phrase's next word must come later in the mention.
		for _, r := range toks[k+2:] {
			if sameWord(r, pw[1]) {
				split = true
				break
			}
		}
	}
	return split
}

// recentConcept: the concept is an event in a recent window ("recent
// PCI", "MI within the previous 40 days").
func recentConcept(concept string) bool {
	c := strings.ToLower(concept)
	return strings.Contains(c, "recent") || strings.Contains(c, "within the previous")
}

// longAgo: a calendar year ("in 2019") or "N years ago" dates an event
// outside any recent window.
var longAgo = regexp.MustCompile(`(?i)\b(?:19|20)\d\d\b|\b(?:\d+|a|two|three|four|five|several|many)\s*(?:years?|yrs?)\s+ago\b|\bremote\b`)

func datedLongAgo(mention string) bool { return longAgo.MatchString(mention) }

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLetter(s[i]) {
			return true
		}
	}
	return false
}
