package extract

import (
	"regexp"
	"strings"

	"github.com/executablekg/execkg/rules"
)

// Reading is a pack's document reading data compiled once: its section
// headings and their meaning, and its status words. A nil or empty
// Reading reads every finding as stated, unheaded.
type Reading struct {
	sec         *rules.Sections
	cues        map[string]Cues
	planned     Cues
	titles      map[string]bool
	salutations Cues
	// sexTitles, patientLabels and patientIDs read the patient's own
	// line (see SexTitle).
	sexTitles     []string
	patientLabels Cues
	patientIDs    Cues
	patientVerbs  map[string]bool // lower case
	// idLabels: the patient identifiers opening a finding (identifierOnly).
	idLabels Cues
	// statusColumns: header cells of a table's status column, lower case
	// (statusTables).
	statusColumns map[string]bool
	// rowResolved, rowHistory: words opening a status cell (RowStatus).
	rowResolved, rowHistory Cues
}

// NewReading compiles a pack's sections data (nil: none).
func NewReading(sec *rules.Sections) *Reading {
	r := &Reading{sec: sec, cues: map[string]Cues{}}
	if sec == nil {
		return r
	}
	for k, ws := range sec.Cues {
		r.cues[k] = NewCues(ws)
	}
	r.planned = NewCues(sec.PlannedConcepts)
	r.titles = map[string]bool{}
	for _, t := range sec.Frame.NameTitles {
		for _, w := range rules.CueWords(t) {
			r.titles[w] = true
		}
	}
	var sal []string
	for _, w := range sec.Frame.Salutations {
		sal = append(sal, "^"+strings.TrimPrefix(w, "^"))
	}
	r.salutations = NewCues(sal)
	r.sexTitles = sec.Frame.SexTitles
	var labels []string
	for _, w := range sec.Frame.PatientLabels {
		labels = append(labels, "^"+strings.TrimPrefix(w, "^"))
	}
	r.patientLabels = NewCues(labels)
	r.patientIDs = NewCues(sec.Frame.PatientIdentifiers)
	r.patientVerbs = map[string]bool{}
	for _, w := range sec.Frame.PatientVerbs {
		r.patientVerbs[strings.ToLower(w)] = true
	}
	var ids []string
	for _, w := range sec.Frame.PatientIdentifiers {
		ids = append(ids, "^"+w)
	}
	r.idLabels = NewCues(ids)
	r.statusColumns = map[string]bool{}
	opening := func(ws []string) Cues {
		var out []string
		for _, w := range ws {
			out = append(out, "^"+strings.TrimPrefix(w, "^"))
		}
		return NewCues(out)
	}
	r.rowResolved, r.rowHistory = opening(sec.Frame.RowResolved), opening(sec.Frame.RowHistory)
	for _, w := range sec.Frame.StatusColumns {
		r.statusColumns[strings.Join(strings.Fields(strings.ToLower(w)), " ")] = true
	}
	return r
}

// identifierOnly: text is a patient identifier's label and its code alone
// ("NHS no 943 476 5919", "MRN: 40018827", "Hosp no. D553"): a record
// number, no finding. A date after the label ("DOB 12/05/1939") is kept:
// it may give the age.
func (r *Reading) identifierOnly(text string) bool {
	c := r.idLabels.Find(text)
	if c == "" {
		return false
	}
	rest := strings.TrimLeft(text[wordsEnd(text, len(rules.CueWords(c))):], " .:#\t")
	if rest == "" || strings.ContainsAny(rest, "/-") {
		return false
	}
	digits := 0
	for _, f := range strings.Fields(rest) {
		for i := 0; i < len(f); i++ {
			switch ch := f[i]; {
			case ch >= '0' && ch <= '9':
				digits++
			case ch >= 'A' && ch <= 'Z', ch >= 'a' && ch <= 'z':
			default:
				return false
			}
		}
	}
	return digits >= 3
}

// sexTitle reports whether w is one of the pack's sex titles as written
// ("Mrs"), or, where caps allows it, the title in capitals ("MRS", on a
// patient line written in capitals: "RE: MRS J JONES").
func (r *Reading) sexTitle(w string, caps bool) bool {
	w = strings.TrimRight(w, ".")
	for _, t := range r.sexTitles {
		if t == w || caps && len(w) > 1 && strings.ToUpper(t) == w {
			return true
		}
	}
	return false
}

// VerbTitle finds a sex title in text[s:e] right after one of the pack's
// patient verbs ("referring Mrs Jones", "I reviewed Ms Ahmed today"): the
// title's span and the end of the capitalised name after it, or ok false.
// The verb makes the titled person the patient, as a patient label does.
func (r *Reading) VerbTitle(text string, s, e int) (ts, te, nameEnd int, ok bool) {
	if r == nil || len(r.sexTitles) == 0 || len(r.patientVerbs) == 0 || s < 0 || e > len(text) || s >= e {
		return 0, 0, 0, false
	}
	prev := ""
	for i := s; i < e; {
		for i < e && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		j := i
		for j < e && text[j] != ' ' && text[j] != '\t' {
			j++
		}
		if j == i {
			break
		}
		w := text[i:j]
		if r.patientVerbs[prev] && r.sexTitle(w, false) {
			ne := j
			for k := 0; k < 3 && ne < e; k++ {
				a := ne
				for a < e && text[a] == ' ' {
					a++
				}
				b := a
				for b < e && isWordByte(text[b]) {
					b++
				}
				if b == a || text[a] < 'A' || text[a] > 'Z' {
					break
				}
				ne = b
				if b < e && text[b] == '.' {
					ne = b + 1 // an initial: "Mrs J. Jones"
				}
			}
			if ne > j {
				return i, i + len(strings.TrimRight(w, ".")), ne, true
			}
		}
		prev = strings.ToLower(strings.Trim(w, ",;:"))
		i = j
	}
	return 0, 0, 0, false
}

// ageAfterName: the patient's age right after the name on its line
// ("Mrs E.W., 84."), which only the patient's own line gives.
var ageAfterName = regexp.MustCompile(`^\.?[ \t]*[,(][ \t]*\d{1,3}(?:$|[^\d/.:-]|\.(?:\s|$))`)

// SexTitle returns the length of a title that says the patient's sex
// opening text[s:e], a title and name the frame drops, or 0. Only the
// patient's own line counts: one a patient label opens ("Re: Mrs K.
// Tanaka") or one holding a patient identifier ("Mrs E. Grant   DOB
// 12/05/1939"), where the name is the line's first; a title elsewhere
// may name a relative, a referrer or an attendee.
func (r *Reading) SexTitle(text string, s, e int) int {
	if r == nil || len(r.sexTitles) == 0 || s < 0 || e > len(text) || s >= e {
		return 0
	}
	first := strings.Fields(text[s:e])
	if len(first) == 0 {
		return 0
	}
	ls, le := LineAt(text, s)
	before := strings.TrimSpace(text[ls:s])
	switch {
	case before == "":
		if !r.sexTitle(first[0], false) || r.patientIDs.Find(text[e:le]) == "" && !ageAfterName.MatchString(text[e:le]) {
			return 0
		}
	case strings.HasSuffix(before, ":"):
		// The label may follow the salutation on one line ("Dear Dr
		// Patel, Re: Mrs Jean Jones").
		label := strings.TrimSpace(strings.TrimSuffix(before, ":"))
		label = strings.TrimSpace(label[strings.LastIndexAny(label, ",;.")+1:])
		if r.patientLabels.Find(label) == "" || len(Words(label)) != len(rules.CueWords(r.patientLabels.Find(label))) {
			return 0
		}
		// A letter's patient line may be in capitals ("RE: MRS J JONES").
		if !r.sexTitle(first[0], label == strings.ToUpper(label)) {
			return 0
		}
	default:
		return 0
	}
	return len(first[0])
}

// Frame reads a finding against a letter's frame: skip is how many bytes
// of salutation or closing open it ("Dear ", "Yours sincerely"), and drop
// whether nothing else is left but a person's name after a title ("Dear Dr
// Okafor", "Mrs Doreen FLYNN", "Dr R. Iqbal"), which states nothing about
// the patient. "Dear RACPC" keeps its addressee: where a letter goes may
// say what it is about.
func (r *Reading) Frame(text string) (skip int, drop bool) {
	if r == nil || r.sec == nil {
		return 0, false
	}
	if c := r.salutations.FindWords(Words(text)); c != "" {
		skip = wordsEnd(text, len(rules.CueWords(c)))
		for skip < len(text) && !isWordByte(text[skip]) {
			skip++
		}
	}
	rest := text[skip:]
	if rest == "" || r.identifierOnly(rest) {
		return skip, true
	}
	fields := strings.Fields(rest)
	if len(fields) < 2 || len(fields) > 4 || !r.titles[strings.ToLower(strings.TrimRight(fields[0], "."))] {
		return skip, false
	}
	for _, w := range fields[1:] {
		if c := w[0]; c < 'A' || c > 'Z' {
			return skip, false // "Dr advised rest" is no name
		}
	}
	return skip, true
}

// wordsEnd returns the byte offset just after the n-th word of text, words
// as Words splits them.
func wordsEnd(text string, n int) int {
	in := false
	for i := 0; i < len(text); i++ {
		w := isWordByte(text[i])
		if in && !w {
			if n--; n == 0 {
				return i
			}
		}
		in = w
	}
	return len(text)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// Sections reads the headed sections of a document.
func (r *Reading) Sections(text string) []Section {
	if r == nil {
		return nil
	}
	return ReadSections(text, r.sec)
}

// Annotate sets what the document's layout and the pack's words say of each
// finding: its section kind (when the extractor gave none), whether it is
// intended rather than present (under a plan heading, or its own words
// schedule it: "booked for", "next week") and whose it is when not the
// patient's (a relative's under a family history heading).
func (r *Reading) Annotate(text string, secs []Section, fs []Finding) {
	if r == nil || r.sec == nil {
		return
	}
	for i := range fs {
		f := &fs[i]
		if f.Section == "" && f.Start >= 0 {
			f.Section = SectionAt(secs, f.Start)
		}
		k := r.sec.Kind(f.Section)
		f.Intended = k != nil && k.Status == rules.SectionIntended || r.Cue(rules.CueIntention, f.Text) != "" ||
			k != nil && k.Status == rules.SectionMixed && r.PlanCue(text, *f) != ""
		if k != nil {
			f.Experiencer = k.Experiencer
		}
	}
}

// PlanCue returns the pack's plan cue (rules.CuePlan: "start", "arrange")
// in the words of a finding's item up to its end: from the item's start
// (its line, list marker, sentence, semicolon clause, colon or dash) to
// the finding's last word, or "". Under a mixed section ("A/P:") such an
// item is a plan; the others state the assessment.
func (r *Reading) PlanCue(text string, f Finding) string {
	if r == nil || f.Start < 0 || f.End > len(text) || f.Start > f.End {
		return r.Cue(rules.CuePlan, f.Text)
	}
	return r.Cue(rules.CuePlan, text[ItemStart(text, f.Start):f.End])
}

// ItemStart is where the item holding byte offset pos begins: after the
// last line end, sentence end, semicolon, colon, dash or arrow before it.
func ItemStart(text string, pos int) int {
	// A line break is a separator and no other one holds one, so the
	// search keeps to pos's line: its cost does not grow with the document.
	line := strings.LastIndexByte(text[:pos], '\n') + 1
	lo := line
	for _, sep := range []string{". ", "; ", ": ", " - ", " – ", " -> ", " → "} {
		if i := strings.LastIndex(text[line:pos], sep); i >= 0 && line+i+len(sep) > lo {
			lo = line + i + len(sep)
		}
	}
	return lo
}

// Kind returns the pack's section kind of a finding, or nil.
func (r *Reading) Kind(f Finding) *rules.SectionKind {
	if r == nil {
		return nil
	}
	return r.sec.Kind(f.Section)
}

// Cue returns the first cue of the given kind (rules.CueNotTaken, …) that
// text states, or "".
func (r *Reading) Cue(kind, text string) string {
	if r == nil {
		return ""
	}
	c, ok := r.cues[kind]
	if !ok {
		return ""
	}
	for rest := text; ; {
		m := c.Find(rest)
		if m == "" || kind != rules.CueIntention {
			return m
		}
		// "For the last 2 months his angina has crept back": a cue
		// followed by a span of time already past is a duration, not
		// a schedule; look on after it.
		at := strings.Index(strings.ToLower(rest), strings.ToLower(m))
		if at < 0 {
			return m
		}
		after := rest[at+len(m):]
		d := pastSpan.FindStringIndex(after)
		if d == nil {
			return m
		}
		rest = after[d[1]:]
	}
}

// pastSpan is a span of time reaching back to now ("the last 2 months",
// "the past year"), right after a cue; a bare "6 months" may be a plan's
// length ("for 6 months DAPT"), so it must say last, past or previous.
var pastSpan = regexp.MustCompile(`(?i)^\s+the\s+(?:last|past|previous)\s+(?:\d+|a|an|one|two|three|four|five|six|several|few|many|some)?\s*(?:days?|weeks?|wks?|months?|mths?|years?|yrs?)\b`)

// PlannedConcept: the concept is itself an intention ("planned PCI",
// "candidate for revascularization") and may be read from a plan.
func (r *Reading) PlannedConcept(name string) bool {
	return r != nil && r.planned.Find(name) != ""
}

// PlannedForms returns the names of the pack's intended forms of a concept
// ("planned {concept}" → "planned PCI").
func (r *Reading) PlannedForms(concept string) []string {
	if r == nil || r.sec == nil {
		return nil
	}
	var out []string
	for _, f := range r.sec.PlannedForms {
		out = append(out, strings.Replace(f, rules.FormPlaceholderConcept, concept, 1))
	}
	return out
}

// IntolerantOf returns the drug an intolerance concept names ("statin
// intolerance" → "statin" with the form "{drug} intolerance"), or "".
func (r *Reading) IntolerantOf(concept string) string {
	if r == nil || r.sec == nil {
		return ""
	}
	c := strings.TrimSpace(concept)
	for _, f := range r.sec.IntoleranceForms {
		i := strings.Index(f, rules.FormPlaceholderDrug)
		pre, post := f[:i], f[i+len(rules.FormPlaceholderDrug):]
		if len(c) > len(pre)+len(post) && strings.HasPrefix(c, pre) && strings.HasSuffix(c, post) {
			return c[len(pre) : len(c)-len(post)]
		}
	}
	return ""
}

// IntoleranceForms returns the names of the pack's concepts stating a drug
// is not tolerated or not allowed ("statin" → "statin intolerance").
func (r *Reading) IntoleranceForms(drug string) []string {
	if r == nil || r.sec == nil {
		return nil
	}
	var out []string
	for _, f := range r.sec.IntoleranceForms {
		out = append(out, strings.Replace(f, rules.FormPlaceholderDrug, drug, 1))
	}
	return out
}

// RowStatus says what a status table's cell (Finding.RowStatus) states of
// its row's problem: "resolved", "history" or "" (as stated).
func (r *Reading) RowStatus(cell string) string {
	if r == nil || cell == "" {
		return ""
	}
	if r.rowResolved.Find(cell) != "" {
		return "resolved"
	}
	if r.rowHistory.Find(cell) != "" {
		return "history"
	}
	return ""
}
