// Package extract is step (i): a patient case in free text → findings.
// The deterministic default splits at clause boundaries and keeps the
// patient's wording; the LLM extractor (package engine/llm) asks a model for the
// same list under a JSON Schema.
package extract

import (
	"context"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/executablekg/execkg/rules"
)

// Finding is one patient finding with its place in the case text.
type Finding struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Start int    `json:"start"` // byte offset in the case text, -1 if reworded
	End   int    `json:"end"`
	// Section is the kind of the document section the finding lies in
	// ("plan", "medications"; "" when unheaded), from the pack's headings.
	Section string `json:"section,omitempty"`
	// Intended: the finding is intended, not present (under a plan
	// heading, or its own words schedule it); Experiencer: whose it is
	// when not the patient's ("relative" under a family history heading,
	// "other" under an attendees heading). Set by Reading.Annotate from
	// the pack's sections data.
	Intended    bool   `json:"intended,omitempty"`
	Experiencer string `json:"experiencer,omitempty"`
	// RowStatus is the status cell of the table row the finding lies in,
	// when its table has a status column (the pack's
	// frame.status_columns: "Problem | Code | Status"): Reading.RowStatus
	// says what it states of the row's problem.
	RowStatus string `json:"row_status,omitempty"`
}

// Extractor turns a case into findings.
type Extractor interface {
	Extract(ctx context.Context, text string) ([]Finding, error)
	Name() string
}

// Clauses is the deterministic extractor: it splits at commas, semicolons,
// sentence ends and joining words ("and", "with", "but", "who", …), keeps a
// measurement with its value and unit ("an LVEF of 37%" stays whole), drops
// the "Patient with" lead-in and leading articles, and never rewords. A
// document's layout is read first: list markers (bullets, "1.", "(a)")
// and the headings of the pack's sections are not findings, and every
// finding carries the kind of the section it lies in.
type Clauses struct {
	// Sections are the pack's section headings (nil: no sections).
	Sections *rules.Sections
	// Demographic words a pack names after an age ("78-year-old woman"),
	// split off as findings of their own (the pack's meta/reading.json).
	Demographic []string
	// Reading, when set, is NewReading(Sections) built once by the
	// caller; nil: Extract compiles Sections on every call.
	Reading *Reading
}

// Name identifies the extractor in caches and traces.
func (Clauses) Name() string { return "clauses-v1" }

// Joining words that separate findings. "or" is deliberately absent:
// "documented or suspected ANOCA" is one finding.
var joiners = []string{" and ", " with ", " w/ ", " but ", " plus ", " + ", " then ", " who ", " whose ", " which ", " whereas ", " while ", " as well as ", " in addition to ", " along with ", " together with "}

// withObject are the verbs whose object "with" introduces ("agrees with",
// "proceed with", "go ahead with"): the joiner does not cut them from it.
// Plain English.
var withObject = map[string]bool{"agree": true, "agrees": true, "agreed": true, "proceed": true, "proceeds": true, "proceeding": true, "ahead": true}

// lastWord is the last run of letters of s, lower-cased input assumed.
func lastWord(s string) string {
	s = strings.TrimRight(s, " ")
	i := strings.LastIndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	return s[i+1:]
}

// runOn are words no clause ends in: articles, prepositions,
// conjunctions, possessives and approximators. A line that ends in one
// was wrapped by the writer's editor, and its clause runs on into the
// next line.
var runOn = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "at": true, "in": true, "on": true,
	"for": true, "from": true, "by": true, "with": true, "without": true, "into": true, "than": true,
	"as": true, "and": true, "or": true, "nor": true, "his": true, "her": true, "their": true, "its": true,
	"roughly": true, "about": true, "around": true, "approximately": true, "since": true, "despite": true,
	"between": true, "within": true, "after": true, "before": true, "over": true, "under": true, "via": true,
}

// wrapContinues: the newline at i ends a line whose last word is a runOn
// word and starts a line whose text opens with a letter or a digit (not a
// list marker, which layoutCuts cuts anyway).
func wrapContinues(text string, i int) bool {
	e := i
	for e > 0 && (text[e-1] == ' ' || text[e-1] == '\t' || text[e-1] == '\r') {
		e--
	}
	s := e
	for s > 0 && ((text[s-1] >= 'a' && text[s-1] <= 'z') || (text[s-1] >= 'A' && text[s-1] <= 'Z')) {
		s--
	}
	if s == e || (s > 0 && text[s-1] != ' ' && text[s-1] != '\t') {
		return false
	}
	if !runOn[strings.ToLower(text[s:e])] && !proseWrap(text, i, s, e) {
		return false
	}
	j := i + 1
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	if j >= len(text) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(text[j:])
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && bulletAt(text, j, len(text)) <= j
}

// proseWrap: the newline at i ends a long line of prose (wrapWidth
// bytes or more, no table bars) in the middle of a word group, its last
// word (text[s:e]) written in lower case, and the next line opens at its
// first column with a lower-case letter: the writer's editor wrapped the
// sentence there ("No evidence of coronary" / "artery disease."). A
// short line, an indented next line or one opening with a capital or a
// digit starts an item of its own.
func proseWrap(text string, i, s, e int) bool {
	ls := strings.LastIndexByte(text[:i], '\n') + 1
	line := text[ls:i]
	if len(line) < wrapWidth || strings.ContainsRune(line, '|') || e-s < 3 {
		return false
	}
	for k := s; k < e; k++ {
		if text[k] < 'a' || text[k] > 'z' {
			return false
		}
	}
	return i+1 < len(text) && text[i+1] >= 'a' && text[i+1] <= 'z'
}

// wrapWidth is the shortest line proseWrap takes for one an editor
// wrapped: prose wrapped at 72 to 100 columns, less a long word carried
// over.
const wrapWidth = 64

// arrows and spaced dashes chain findings ("NSTEMI 2018 -> PCI pLAD",
// "IHD - PCI 2018"), unless a value follows: "atorva 40 -> 80" is one dose
// change. A status after a dash ("Sitagliptin - STOPPED") is read back
// onto its item by the engine.
var arrows = []string{" -> ", " → ", " => ", " - ", " – ", " — "}

// lead-ins dropped from the first finding of a sentence.
var leadIn = regexp.MustCompile(`(?i)^(?:the\s+|this\s+)?(?:patient|pt|individual|person|subject|case)s?\b\s*(?:is\s+|was\s+|has\s+|had\s+|presents\s+|presenting\s+)?(?:with\b|w/|having\b|who has\b|who had\b)?\s*`)

// "known" is not dropped: it marks established disease for step (v).
var article = regexp.MustCompile(`(?i)^(?:(?:a|an|the|has|had|having|is|was)\s+|w/\s+)`)

// demographic lead: "67yo F", "78-year-old woman", "a 54 y/o male". The age
// and the sex are findings of their own, so each grounds on its concept.
const agePattern = `(\d{1,3}\s*(?:-?\s*(?:years?|yrs?)[\s-]*old|\s*-?\s*(?:yo|y/o|y\.o\.)|-year-old))`

var demographicREs sync.Map // joined words → *regexp.Regexp

// demographicRE is the age lead followed by one of the pack's demographic
// words, compiled once per word list.
func demographicRE(words []string) *regexp.Regexp {
	key := strings.Join(words, "|")
	if re, ok := demographicREs.Load(key); ok {
		return re.(*regexp.Regexp)
	}
	alt := make([]string, 0, len(words))
	for _, w := range words {
		alt = append(alt, regexp.QuoteMeta(w))
	}
	pat := `(?i)^` + agePattern
	if len(alt) > 0 {
		pat += `(?:\s+(` + strings.Join(alt, "|") + `))?\b`
	} else {
		pat += `()?`
	}
	re, _ := demographicREs.LoadOrStore(key, regexp.MustCompile(pat))
	return re.(*regexp.Regexp)
}

// compact demographic lead: "58M", "72F" (age glued to the sex letter).
// One digit is no adult's age but a size: "Catheters: 6F TIG" is a 6
// French catheter.
var compactDemographic = regexp.MustCompile(`^([1-9]\d{1,2}) ?([MF])\b`)

// a compact demographic closing a header's field after a name or a
// label ("Karen SMITH 52F", "Bay 3 - 71F"): an adult's age (two or three
// digits; lower numbers are sizes, "14F sheath") glued to the sex letter
// at the end of the finding.
var trailingDemographic = regexp.MustCompile(`[\s,(:-]([1-9]\d{1,2}) ?([MF])$`)

// the sex letter before the age in a header's fields: "F 73y", "M 64 yrs".
var sexThenAge = regexp.MustCompile(`^([MF])\s+(\d{1,3}\s?(?:y|yrs?|years?))$`)

// adultAge: a two- or three-digit number an adult's age may be.
func adultAge(n string) bool {
	v, err := strconv.Atoi(n)
	return err == nil && v >= 18 && v <= 115
}

// an age in a header's fields, its unit one letter: "Mrs I. Fenwick   79 y
// F", "Mr A. Finch  70y  M".
var shortAge = regexp.MustCompile(`^\d{1,3} ?y\b`)

// a demographic after "in": "Suspected CCS in 73M", "?CCS in a 66-year-old
// woman". The " in a " is a boundary; the demographic starts a finding.
var midDemographic = regexp.MustCompile(`(?i)\s+(?:in|seeing|see|saw|reviewed|review)\s+(?:an?\s+|this\s+)?(\d{1,3}(?: ?[MF]\b|\s*-?\s*(?:years?|yrs?)[\s-]*old|\s*-?\s*(?:yo|y/o)\b|-year-old))`)

// words that start a new finding and stay in it: "CCS s/p PCI" is two
// findings, "s/p PCI" keeps its "s/p".
var splitBefore = []string{" s/p ", " status post "}

// Extract splits text into findings.
func (c Clauses) Extract(_ context.Context, text string) ([]Finding, error) {
	var out []Finding
	secs := ReadSections(text, c.Sections)
	r := c.Reading
	if r == nil {
		r = NewReading(c.Sections)
	}
	layout := layoutCuts(text, secs)
	rows, tableCuts, statusCells := r.statusTables(text)
	for _, sp := range splitSpans(text, append(layout, tableCuts...), rows) {
		s, e := trimSpan(text, sp[0], sp[1])
		if s >= e {
			continue
		}
		// Drop the lead-in ("Patient with …", "A 67-year-old man with" keeps
		// the age: only a bare noun is dropped).
		if m := leadIn.FindStringIndex(text[s:e]); m != nil && m[1] > 0 && m[1] < e-s {
			s += m[1]
		} else if m != nil && m[1] == e-s {
			continue // the whole span was a lead-in
		}
		// A list marker inside a line ("; (b) PCI") is no part of the
		// finding either.
		if b := bulletAt(text, s, e); b > s && b < e {
			s = b
		} else if s > 0 && text[s-1] == '(' {
			if b := bulletAt(text, s-1, e); b > s && b < e {
				s = b
			}
		}
		for {
			m := article.FindStringIndex(text[s:e])
			if m == nil || m[1] >= e-s {
				break
			}
			s += m[1]
		}
		s, e = trimSpan(text, s, e)
		if s >= e || !hasLetterOrDigit(text[s:e]) {
			continue
		}
		m := demographicRE(c.Demographic).FindStringSubmatchIndex(text[s:e])
		if m == nil {
			m = compactDemographic.FindStringSubmatchIndex(text[s:e])
		}
		if m == nil {
			if t := sexThenAge.FindStringSubmatchIndex(text[s:e]); t != nil {
				out = append(out, Finding{Text: text[s+t[2] : s+t[3]], Start: s + t[2], End: s + t[3]},
					Finding{Text: text[s+t[4] : s+t[5]], Start: s + t[4], End: s + t[5]})
				continue
			}
			if t := trailingDemographic.FindStringSubmatchIndex(text[s:e]); t != nil && adultAge(text[s+t[2]:s+t[3]]) {
				// The field before it stays a finding of its own.
				if ps, pe := trimSpan(text, s, s+t[0]); ps < pe {
					for pe > ps && strings.ContainsRune(" \t,:-(", rune(text[pe-1])) {
						pe--
					}
					if ps < pe && hasLetterOrDigit(text[ps:pe]) {
						out = append(out, Finding{Text: text[ps:pe], Start: ps, End: pe})
					}
				}
				out = append(out, Finding{Text: text[s+t[2] : s+t[3]], Start: s + t[2], End: s + t[3]},
					Finding{Text: text[s+t[4] : s+t[5]], Start: s + t[4], End: s + t[5]})
				continue
			}
		}
		if m != nil {
			out = append(out, Finding{Text: text[s+m[2] : s+m[3]], Start: s + m[2], End: s + m[3]})
			if m[4] >= 0 && m[5] > m[4] {
				out = append(out, Finding{Text: text[s+m[4] : s+m[5]], Start: s + m[4], End: s + m[5]})
			}
			s += m[1]
			s, e = trimSpan(text, s, e)
			if s >= e || !hasLetterOrDigit(text[s:e]) {
				continue
			}
		}
		out = append(out, Finding{Text: text[s:e], Start: s, End: e})
	}
	kept := make([]Finding, 0, len(out)) // a verb-title finding splits in two
	for _, f := range out {
		skip, drop := r.Frame(f.Text)
		if drop {
			// The title of the patient's name may say the sex ("Re: Mrs
			// K. Tanaka"): it stays, the name goes.
			if n := r.SexTitle(text, f.Start+skip, f.End); n > 0 {
				f.Start += skip
				f.End = f.Start + n
				f.Text = text[f.Start:f.End]
				kept = append(kept, f)
			}
			continue
		}
		f.Start += skip
		f.Text = text[f.Start:f.End]
		if ts, te, ne, ok := r.VerbTitle(text, f.Start, f.End); ok {
			// "Thank you for referring Mrs Jones", "I reviewed Ms
			// Ahmed today": the title says the patient's sex; the verb
			// before it and the name go, what follows the name stays.
			kept = append(kept, Finding{Start: ts, End: te, Text: text[ts:te], Section: f.Section})
			if rest := strings.TrimLeft(text[ne:f.End], " ,;:-"); strings.IndexFunc(rest, func(c rune) bool { return c < 0x80 && isWordByte(byte(c)) }) >= 0 {
				f.Start = f.End - len(rest)
				f.Text = rest
				kept = append(kept, f)
			}
			continue
		}
		kept = append(kept, f)
	}
	out = kept
	for i := range out {
		out[i].ID = findingID(i)
		for _, row := range rows {
			// A finding of a status table's row carries the row's status.
			if out[i].Start >= row[0] && out[i].Start < row[1] {
				c := statusCells[row]
				out[i].RowStatus = text[c[0]:c[1]]
				break
			}
		}
	}
	r.Annotate(text, secs, out)
	return out, nil
}

// layoutCuts are the parts of a document's layout that are no finding:
// the list marker starting a line and the heading of a known section
// (its label and colon).
func layoutCuts(text string, secs []Section) [][2]int {
	var cuts [][2]int
	for ls := 0; ls < len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		body := ls + leadingSpace(text[ls:le])
		if b := bulletAt(text, body, le); b > body {
			cuts = append(cuts, [2]int{ls, b})
		}
		ls = le + 1
	}
	for _, s := range secs {
		if s.Kind != "" {
			cuts = append(cuts, [2]int{s.HeadingStart, s.Start})
		}
	}
	return cuts
}

func findingID(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return "f" + string(digits[i])
	}
	return "f" + itoa(i)
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	return string(b)
}

// splitSpans returns [start,end) byte spans of candidate findings.
// Field gaps inside a keep span (a status table's row up to its status
// cell, statusTables) set no fields apart.
func splitSpans(text string, layout [][2]int, keep [][2]int) [][2]int {
	cuts := append([][2]int{}, layout...) // [cutStart, cutEnd): separator text to drop
	lower := lowerSameLen(text)
	var joins [][3]int // [open, close, value start] of a list parenthesis between a label and its value
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch c {
		case '(', ')':
			// A parenthesis with a value, a list or a clause of its own
			// sets off findings ("DSE (PTP 45%)", "HBR (Hb 10.2 g/dL, GI
			// bleed)"); a short qualifier stays with what it qualifies
			// ("CCTA (non-diagnostic)", "rosuvastatin (max tolerated)"),
			// and so does an example list: "(e.g. normal coronaries)".
			if c == ')' {
				continue // cut with its '(' below
			}
			j := strings.IndexByte(text[i:], ')')
			if j < 0 {
				cuts = append(cuts, [2]int{i, i + 1})
				continue
			}
			if inner := text[i+1 : i+j]; isExampleParen(strings.ToLower(inner)) || !separateParen(inner) || bareParen(inner) && afterLabel(text, i) {
				i += j
				continue
			}
			cuts = append(cuts, [2]int{i, i + 1}, [2]int{i + j, i + j + 1})
			if v := valueAfterParen(text, i+j); v > 0 {
				joins = append(joins, [3]int{i, i + j, v})
			}
		case ',', ';', ':', '\n', '|':
			// "1,5" is a decimal comma, not a boundary.
			if c == ',' && i > 0 && i+1 < len(text) && isDigit(text[i-1]) && isDigit(text[i+1]) {
				continue
			}
			// A table row ("| LAD | 80% | FFR 0.72 |") is flattened into
			// one finding: its cells describe one thing.
			if c == '|' && tableRow(text, i) {
				continue
			}
			// A label before a value stays with it: "RF-CL: 15%",
			// "LMS: 50% stenosis"; so does a clock time ("05:00").
			if c == ':' && valueAfterColon(text, i) {
				continue
			}
			// A hard-wrapped line whose last word cannot end a clause
			// ("... 6 weeks of" / "left-sided chest pain", "... at
			// roughly" / "12% (low)") runs on into the next line.
			if c == '\n' && wrapContinues(text, i) {
				continue
			}
			cuts = append(cuts, [2]int{i, i + 1})
		case ' ', '\t':
			// A gap of two or more spaces, or a tab, inside a line sets
			// fields apart in headers and lab rows ("Mrs E. Grant   DOB
			// 12/05/1939   Hosp no. D553", "TC 3.6   HDL 1.0"); a label
			// aligned with its bare value stays whole ("Hb     132 g/L").
			if k := fieldGap(text, i); k > i {
				// Padding that aligns a two-cell table row, a label and
				// its value ("| RF-CL      | 15%   |"), is no field gap:
				// the row is one finding. A wider row's padded cells
				// ("| Drug | Status | Detail |") stay fields of their own.
				if text[k] == '|' && tableRow(text, k) && tableCells(text, k) == 2 {
					i = k - 1
					continue
				}
				if !bareValueAt(text, k) && !within(keep, i) {
					cuts = append(cuts, [2]int{i, k})
				}
				i = k - 1
			}
		case '.', '!', '?':
			// Sentence end only when followed by space/end, and not inside a
			// number or an abbreviation like "i.e." / "e.g.".
			if i+1 < len(text) && !unicode.IsSpace(rune(text[i+1])) {
				continue
			}
			if c == '.' && i > 0 && isAbbrevEnd(text, i) {
				continue
			}
			cuts = append(cuts, [2]int{i, i + 1})
		}
	}
	for _, j := range joiners {
		from := 0
		for {
			k := strings.Index(lower[from:], j)
			if k < 0 {
				break
			}
			k += from
			from = k + len(j)
			if j == " with " && withObject[lastWord(lower[:k])] {
				continue // "he agrees with PCI": the verb's object, one finding
			}
			cuts = append(cuts, [2]int{k, k + len(j)})
		}
	}
	for _, a := range arrows {
		from := 0
		for {
			k := strings.Index(lower[from:], a)
			if k < 0 {
				break
			}
			k += from
			from = k + len(a)
			// "?" is a query: "trop neg - ?vasospastic angina".
			if r, _ := utf8.DecodeRuneInString(text[from:]); unicode.IsLetter(r) || r == '?' {
				cuts = append(cuts, [2]int{k, from})
			}
		}
	}
	for _, w := range splitBefore {
		from := 0
		for {
			k := strings.Index(lower[from:], w)
			if k < 0 {
				break
			}
			k += from
			cuts = append(cuts, [2]int{k, k + 1})
			from = k + len(w)
		}
	}
	for _, m := range midDemographic.FindAllStringSubmatchIndex(text, -1) {
		cuts = append(cuts, [2]int{m[0], m[2]})
	}
	// Sort (stably, as the insertion sort this replaces, which was
	// quadratic in the number of cuts) and merge cuts.
	sort.SliceStable(cuts, func(i, j int) bool { return cuts[i][0] < cuts[j][0] })
	var spans [][2]int
	pos := 0
	for _, c := range cuts {
		if c[0] < pos {
			if c[1] > pos {
				pos = c[1]
			}
			continue
		}
		spans = append(spans, [2]int{pos, c[0]})
		pos = c[1]
	}
	spans = append(spans, [2]int{pos, len(text)})
	return joinAcrossParens(text, spans, joins)
}

// valueAfterParen returns where a bare value starts after the
// parenthesis closing at c, after at most a colon or an equals sign, or 0
// ("Clinical likelihood (ESC tool, with my adjustments): ~38%", "RF-CL
// (male, 61, 4 RF) ~24%", "RF-CL (typical, male, 58 y) = 16%"): the value
// is the label's, and the parenthesis an aside between them.
func valueAfterParen(text string, c int) int {
	j := c + 1
	for j < len(text) && text[j] == ' ' {
		j++
	}
	if j < len(text) && (text[j] == ':' || text[j] == '=') {
		j++
		for j < len(text) && text[j] == ' ' {
			j++
		}
	} else if k := copulaAt(text, j); k > j {
		j = k // "(RF-CL, typical symptoms, diabetes) is about 22%"
	}
	if j > c+1 && bareValueAt(text, j) {
		return j
	}
	return 0
}

// copulas that may link a label to its value after an aside: "her
// clinical likelihood (RF-CL, with typical symptoms) is about 22%".
var copulas = []string{"is ", "was ", "of ", "at "}

// copulaAt returns where the text after a copula at j starts, or j.
func copulaAt(text string, j int) int {
	for _, w := range copulas {
		if j+len(w) <= len(text) && strings.EqualFold(text[j:j+len(w)], w) {
			return j + len(w)
		}
	}
	return j
}

// joinAcrossParens makes one finding of a label and the value after a
// list parenthesis (the spans ending at its '(' and starting after its
// ')'), and keeps the parenthesis's items as findings of their own: the
// joined finding spans the parenthesis too, so findings may overlap
// there. A label with no letter ("(a) 38%") joins nothing.
func joinAcrossParens(text string, spans [][2]int, joins [][3]int) [][2]int {
	if len(joins) == 0 {
		return spans
	}
	for _, jn := range joins {
		label, value := -1, -1
		for k, sp := range spans {
			if sp[1] == jn[0] {
				label = k
			}
			if sp[0] > jn[1] && sp[0] <= jn[2] && sp[1] > jn[2] {
				value = k
			}
		}
		if label < 0 || value < 0 {
			continue
		}
		if s, e := trimSpan(text, spans[label][0], spans[label][1]); s >= e || !hasLetter(text[s:e]) {
			continue
		}
		merged := [2]int{spans[label][0], spans[value][1]}
		out := make([][2]int, 0, len(spans)-1)
		for k, sp := range spans {
			switch k {
			case label:
				out = append(out, merged)
			case value:
			default:
				out = append(out, sp)
			}
		}
		spans = out
	}
	return spans
}

// tableRow: the line holding offset i is a table row, opened and closed
// by a cell bar ("| LAD | 80% |"), or one of two or more lines with the
// same two or more bars (a table flattened without its outer bars:
// "Analyte | Value | Unit" over "LDL-C | 3.8 | mmol/L"); bars inside a
// line of text ("49 | F | Sx: chest pain") still separate findings.
func tableRow(text string, i int) bool {
	ls, le := LineAt(text, i)
	row := strings.TrimSpace(text[ls:le])
	if len(row) > 2 && row[0] == '|' && row[len(row)-1] == '|' {
		return true
	}
	n := strings.Count(row, "|")
	if n < 2 {
		return false
	}
	if ls > 0 {
		if ps, pe := LineAt(text, ls-1); strings.Count(text[ps:pe], "|") == n {
			return true
		}
	}
	if le < len(text) {
		if ns, ne := LineAt(text, le+1); strings.Count(text[ns:ne], "|") == n {
			return true
		}
	}
	return false
}

// tableCells is the number of cells of the table row holding offset i
// (its bars, less the outer ones).
func tableCells(text string, i int) int {
	ls, le := LineAt(text, i)
	row := strings.TrimSpace(text[ls:le])
	row = strings.TrimSuffix(strings.TrimPrefix(row, "|"), "|")
	return strings.Count(row, "|") + 1
}

// LineAt is the line holding offset i, [start, end) without its newline.
func LineAt(text string, i int) (int, int) {
	if i > len(text) {
		i = len(text)
	}
	ls := strings.LastIndexByte(text[:i], '\n') + 1
	le := strings.IndexByte(text[i:], '\n')
	if le < 0 {
		return ls, len(text)
	}
	return ls, le + i
}

// valueAfterColon: the colon at i is followed by a bare value (a number,
// after at most one space or "~"/"<"/">", and at most a unit): the label
// and its value are one finding ("RF-CL: 15%", "eGFR: 34").
func valueAfterColon(text string, i int) bool {
	j := i + 1
	if j < len(text) && text[j] == ' ' {
		j++
	}
	return bareValueAt(text, j)
}

// fieldGap returns the end of a field gap starting at i (two or more
// spaces, or a tab, between two printed characters of one line), or i.
func fieldGap(text string, i int) int {
	if i == 0 || text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n' {
		return i
	}
	k := i
	for k < len(text) && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	if k >= len(text) || text[k] == '\n' || text[k] == '\r' || (k-i < 2 && text[i] != '\t') {
		return i
	}
	// Between two lower-case words it is a typing slip in prose
	// ("chest  pain"), no field gap.
	if isLower(text[i-1]) && isLower(text[k]) {
		return i
	}
	return k
}

// bareValueAt: a bare value (a number and at most a unit, not a
// demographic) starts at j and runs to the next boundary.
func bareValueAt(text string, j int) bool {
	j = approximateAt(text, j)
	for j < len(text) && strings.IndexByte("~<>≈", text[j]) >= 0 {
		j++
	}
	if j >= len(text) || !isDigit(text[j]) {
		return false
	}
	// "Pt: 49M", "Age: 67 years old": the demographic is a finding of
	// its own.
	if demographicRE(nil).MatchString(text[j:]) || compactDemographic.MatchString(text[j:]) || shortAge.MatchString(text[j:]) {
		return false
	}
	// Only a bare value (a number and at most a unit) joins its label:
	// "ECG: 2 mm ST depression" is a finding of its own after a label.
	// The value ends where the next finding starts, at a spaced dash,
	// an arrow or a field gap too: "PTL: ~22% - moderate" is the value,
	// then its band.
	// A parenthesis after the value is an aside of its own ("3/16
	// segments (anterior wall)"), and a count out of a total ("3 of 16
	// segments") is one value.
	k := j
	for k < len(text) && strings.IndexByte(",;|\n(", text[k]) < 0 && !(text[k] == '.' && (k+1 >= len(text) || text[k+1] == ' ')) && !arrowAt(text, k) && fieldGap(text, k) == k {
		k++
	}
	return len(strings.Fields(outOf.ReplaceAllString(text[j:k], "$1"))) <= 2
}

// outOf is a count out of a total: "3 of 16", "2 out of 17".
var outOf = regexp.MustCompile(`(?i)\b(\d+)\s+(?:out\s+)?of\s+\d+\b`)

// bareParen: the parenthesis holds only a value, a number with at most a
// unit or a count noun, or a count out of a total ("(45%)", "(28
// mL/min)", "(4/16)", "(3 of 16 segments)"): it is the value of what it follows,
// not a finding of its own. A year is a date, not a value ("(2019)"),
// and an age a demographic ("(86 y)").
func bareParen(inner string) bool {
	v := strings.TrimSpace(inner)
	if v == "" || !isDigit(v[0]) || year.MatchString(v) || demographicRE(nil).MatchString(v) || compactDemographic.MatchString(v) || shortAge.MatchString(v) {
		return false
	}
	if strings.ContainsAny(v, ",;:") {
		return false
	}
	fs := strings.Fields(outOf.ReplaceAllString(v, "$1"))
	if len(fs) > 2 {
		return false
	}
	for _, c := range fs[0] {
		if !(c >= '0' && c <= '9' || c == '.' || c == '/' || c == '%') {
			return false
		}
	}
	if len(fs) == 1 && !strings.ContainsAny(fs[0], "/%") && !outOf.MatchString(v) {
		return false // a bare number: a name's age ("MRS J JONES (72)") as often as a value
	}
	return len(fs) == 1 || !strings.ContainsAny(fs[1], "0123456789")
}

// afterLabel: the words before the parenthesis at i end on a letter, a
// label the value is of; after a value or a date it is another one:
// "DOB 17.03.1950 (75)" gives the age.
func afterLabel(text string, i int) bool {
	p := i
	for p > 0 && text[p-1] == ' ' {
		p--
	}
	return p > 0 && unicode.IsLetter(rune(text[p-1]))
}

// year: a four-digit year standing alone.
var year = regexp.MustCompile(`^(?:19|20)\d\d$`)

// approximators that may open a bare value ("approx. 22%", "about
// 30%"): the value is still the label's.
var approximators = []string{"approx. ", "approx ", "approximately ", "about ", "around ", "roughly ", "circa ", "ca. ", "c. "}

// approximateAt returns where the number starts after an approximator
// at j, or j.
func approximateAt(text string, j int) int {
	for _, a := range approximators {
		if j+len(a) <= len(text) && strings.EqualFold(text[j:j+len(a)], a) {
			return j + len(a)
		}
	}
	return j
}

// arrowAt reports whether one of the arrows starts at byte k.
func arrowAt(text string, k int) bool {
	for _, a := range arrows {
		if strings.HasPrefix(text[k:], a) {
			return true
		}
	}
	return false
}

// separateParen: the parenthesis holds a number, a list or three or more
// words.
func separateParen(inner string) bool {
	if strings.ContainsAny(inner, "0123456789,;") {
		return true
	}
	return len(strings.Fields(inner)) >= 3
}

func isExampleParen(after string) bool {
	after = strings.TrimLeft(after, " ")
	for _, p := range []string{"e.g.", "i.e.", "eg ", "ie ", "e.g ", "i.e "} {
		if strings.HasPrefix(after, p) {
			return true
		}
	}
	return false
}

// SentenceBreak reports whether s holds a sentence end: a full stop,
// question or exclamation mark before a space or the end of s, not
// ending an abbreviation ("vs.", "Dr.") or inside a number.
func SentenceBreak(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c == '.' || c == '?' || c == '!') && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') && !(c == '.' && isAbbrevEnd(s, i)) {
			return true
		}
	}
	return false
}

func isAbbrevEnd(text string, i int) bool {
	// "e.g." "i.e." "vs." "approx." "pt." "Dr." "b.i.d."
	start := i
	for start > 0 && !unicode.IsSpace(rune(text[start-1])) {
		start--
	}
	w := strings.TrimLeft(strings.ToLower(text[start:i+1]), "([")
	switch w {
	case "e.g.", "i.e.", "vs.", "approx.", "dr.", "pt.", "b.i.d.", "t.i.d.", "o.d.", "etc.", "cf.", "no.", "hx.", "h/o.":
		return true
	}
	// An initial between capitalised names: "Dr R. Iqbal", "Mrs K.
	// Tanaka" (not a Roman numeral: "class I. No angina").
	if i-start == 1 && text[start] >= 'A' && text[start] <= 'Z' && !strings.ContainsRune("IVX", rune(text[start])) &&
		i+2 < len(text) && text[i+1] == ' ' && text[i+2] >= 'A' && text[i+2] <= 'Z' && start >= 2 && text[start-1] == ' ' {
		p := start - 1
		for p > 0 && text[p-1] != ' ' && text[p-1] != '\n' {
			p--
		}
		return text[p] >= 'A' && text[p] <= 'Z'
	}
	return false
}

func trimSpan(text string, s, e int) (int, int) {
	for s < e && (unicode.IsSpace(rune(text[s])) || strings.ContainsRune(`"'(|`, rune(text[s]))) {
		s++
	}
	for e > s && (unicode.IsSpace(rune(text[e-1])) || strings.ContainsRune(`"').|`, rune(text[e-1]))) {
		e--
	}
	// Keep a closing parenthesis that closes one inside the span.
	if e < len(text) && text[e] == ')' && strings.Count(text[s:e], "(") > strings.Count(text[s:e], ")") {
		e++
	}
	return s, e
}

// lowerSameLen lowercases s rune by rune where the lower form has the same
// byte length, and keeps every other byte as it is, so an offset found in
// the result is an offset in s. strings.ToLower is not: it turns an invalid
// byte into a 3-byte U+FFFD and 'Ⱥ' (2 bytes) into 'ⱥ' (3 bytes), and the
// cuts found in it then ran past the end of s.
func lowerSameLen(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w <= 1 {
			b = append(b, s[i])
			i++
			continue
		}
		if l := unicode.ToLower(r); l != r && utf8.RuneLen(l) == w {
			b = utf8.AppendRune(b, l)
		} else {
			b = append(b, s[i:i+w]...)
		}
		i += w
	}
	return string(b)
}

func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }

// SkipApproximator returns s after an approximator that opens it ("approx.
// 22%", "about 30%"), or s.
func SkipApproximator(s string) string { return s[approximateAt(s, 0):] }
