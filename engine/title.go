package engine

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/grounding"
)

// titleWhen dates an undated finding of the document's title line on the
// case date when its concept has one of the pack's title roles
// (meta/sections.json frame.title_roles): a report's title names what it
// reports ("<procedure> REPORT"), done on the report's date. The title is
// the first line, when more lines follow, with no colon (a heading) and
// no digit (a date or a count of its own) and no word of the pack's
// title_not_done (a later encounter's title: "post-<procedure> review");
// an intended finding, or one worded as a plan ("PLANNED <procedure>"),
// is not done. nil when the finding is no such title.
func (p *Program) titleWhen(text string, f extract.Finding, conceptKey string, now time.Time) *eval.When {
	if p.pack.Sections == nil || f.Start < 0 || f.Intended || p.doc.PlannedConcept(f.Text) {
		return nil
	}
	if !p.titleRole(conceptKey) {
		return nil
	}
	nl, ok := p.titleLine(text)
	if !ok || f.End > nl {
		return nil
	}
	return p.reportDay(text, now, "the document's title")
}

// titleLine is the end of the document's title line when it can name
// what the report reports (titleWhen): the first line, when more lines
// follow, with no colon, no digit and no word of the pack's title_not_done.
func (p *Program) titleLine(text string) (int, bool) {
	nl := strings.IndexByte(text, '\n')
	if nl < 0 || strings.TrimSpace(text[nl:]) == "" {
		return 0, false
	}
	line := text[:nl]
	if strings.TrimSpace(line) == "" || strings.ContainsAny(line, ":0123456789") {
		return 0, false
	}
	// "Cardiology Clinic - post-PCI review" is about the procedure, later.
	if p.notDoneWords(line) {
		return 0, false
	}
	return nl, true
}

// notDoneWords reports whether s holds a word of the pack's title_not_done
// (a later encounter: "post", "review", "planning").
func (p *Program) notDoneWords(s string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if containsFold(p.pack.Sections.Frame.TitleNotDone, w) {
			return true
		}
	}
	return false
}

// reportDay is the day a report's own procedure was done: the date its
// date line writes ("Date: 14/11/2026", a label of meta/sections.json
// frame.date_labels opening a line), when the document writes one such
// date; otherwise the case date. A one-day When.
func (p *Program) reportDay(text string, now time.Time, why string) *eval.When {
	if w := p.dateLine(text, now); w != nil {
		return &eval.When{From: w.From, To: w.To, Text: w.Text + ", " + why}
	}
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return &eval.When{From: day, To: day.Add(24*time.Hour - time.Second), Text: why}
}

// dateLine is the day a line opened by a date label ("Date: 14/11/2026",
// "Study date: 14/11/2026   Operator: ...") writes, when the document's
// date lines write exactly one day; nil otherwise (none, a month or year
// only, or two different days: which is the report's the text does not
// say).
func (p *Program) dateLine(text string, now time.Time) *eval.When {
	if p.pack.Sections == nil || len(p.pack.Sections.Frame.DateLabels) == 0 {
		return nil
	}
	var found *eval.When
	for ls := 0; ls < len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		line := strings.TrimLeft(text[ls:le], " \t")
		ls = le + 1
		c := strings.IndexByte(line, ':')
		if c < 0 || !containsFold(p.pack.Sections.Frame.DateLabels, strings.Join(strings.Fields(line[:c]), " ")) {
			continue
		}
		v := line[c+1:]
		if gap := strings.Index(v, "   "); gap >= 0 {
			v = v[:gap] // the next field of a header line
		}
		w := p.whenOf(v, now)
		if w == nil || w.To.Sub(w.From) > 24*time.Hour {
			continue
		}
		if found != nil && !found.From.Equal(w.From) {
			return nil
		}
		found = w
	}
	return found
}

// procedureReport reports whether the document's title line names a
// procedure (a finding on it is first anchored to a concept of a title
// role: "CARDIAC CATHETERISATION LABORATORY REPORT"), so the report is of
// a procedure done on its date.
func (p *Program) procedureReport(text string, findings []extract.Finding, procedural map[string]bool) bool {
	if p.pack.Sections == nil {
		return false
	}
	nl, ok := p.titleLine(text)
	if !ok {
		return false
	}
	for _, g := range findings {
		if g.Start >= 0 && g.End <= nl && procedural[g.ID] && !g.Intended {
			return true
		}
	}
	return false
}

// containsFold reports whether list holds s, ignoring case.
func containsFold(list []string, s string) bool {
	for _, w := range list {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

// titleRole reports whether a concept has one of the pack's title roles
// (meta/sections.json frame.title_roles).
func (p *Program) titleRole(conceptKey string) bool {
	if p.pack.Sections == nil {
		return false
	}
	role := p.roles[conceptKey]
	return role != "" && containsFold(p.pack.Sections.Frame.TitleRoles, role)
}

// labelWhen dates an undated finding by the date in the label of its line
// when the label names a procedure ("Operation 09/09/2025: CABG x2",
// "ICA 14/01/2026: ..."): the text before the line's first colon, when the
// finding lies after it and the label holds a done word (doneLabel) or a
// finding of it is first anchored to a concept of a title role
// (procedural). A label that names a meeting or a
// discussion ("Heart Team 06/01/2026: PCI or CABG considered") dates
// nothing: what it lists was weighed, not done, then. A list item whose
// own line names no procedure takes the label of the heading line its
// list hangs from when a done word heads it ("Procedure 17/06/2025
// (right radial):" then "- RCA: ... DES"). In a procedure report (doneReport) an undated label naming a
// procedure ("PCI: ...") was done on the report's date. nil when no such
// label dates the finding.
//
// A label dates the test or procedure it names, so its date reaches a
// finding of another kind only as far as the label's own sentence: past a
// sentence end it dates the test's values and results, and, under a done
// word, what was done ("Echo 11/2026: LVEF 55%. Prior MI." dates the
// LVEF, not the MI). A finding whose own lead words place it earlier
// (labelPast: "Previous PCI") is never dated by a label.
func (p *Program) labelWhen(text string, f extract.Finding, kind patient.Kind, findings []extract.Finding, procedural map[string]bool, now time.Time) *eval.When {
	if f.Start < 0 || f.Start > len(text) {
		return nil
	}
	ls := strings.LastIndexByte(text[:f.Start], '\n') + 1
	item := extract.ListItem(text[ls:f.Start]) || indented(text[ls:min(f.End, len(text))])
	if w, named := p.lineLabelWhen(text, f, kind, ls, f.Start, findings, procedural, now); named && (w != nil || !item) {
		return w
	}
	if w := p.ownLabelWhen(text, f, ls, findings, procedural, now); w != nil {
		return w
	}
	if !item {
		return nil
	}
	// Up past the list's other items to the line it hangs from: bulleted
	// items, or lines indented under it ("Procedure 29/06/2025:" then
	// " PCI mid RCA: 1 x DES"), whose own undated label it dates.
	for h := ls; h > 0; {
		ps := strings.LastIndexByte(text[:h-1], '\n') + 1
		line := text[ps : h-1]
		switch {
		case strings.TrimSpace(line) == "":
			return nil
		case extract.ListItem(line) || indented(line):
			h = ps
			continue
		case !strings.HasSuffix(strings.TrimSpace(line), ":"):
			return nil
		}
		// Only a done word heads a list of what was done ("Procedure
		// 17/06/2025:"); a procedure's name there ("ICA (12/25):") heads
		// what it found ("- RCA stent patent"), not what it did.
		if c := strings.IndexByte(line, ':'); c < 0 || !p.doneLabel(line[:c]) {
			return nil
		}
		w, _ := p.lineLabelWhen(text, f, kind, ps, h-1, findings, procedural, now)
		return w
	}
	return nil
}

// ownLabelWhen dates a finding that is itself its line's label in a
// procedure report ("PCI pLAD:" heading the steps of the stenting that
// follow, "- PCI mid RCA: DES 3.0 x 22"): the report's own procedure,
// done on its date, as an undated done label there is (lineLabelWhen).
// The finding must open its line (after a list marker at most), be
// followed by the line's first colon, name a procedure first (procedural)
// and be neither intended, planned, nor worded as before or after the
// report ("Previous PCI:", "Post-PCI plan:"). nil otherwise.
func (p *Program) ownLabelWhen(text string, f extract.Finding, ls int, findings []extract.Finding, procedural map[string]bool, now time.Time) *eval.When {
	if !procedural[f.ID] || f.Intended || f.End > len(text) || p.doc.PlannedConcept(f.Text) {
		return nil
	}
	lead := strings.TrimLeft(text[ls:f.Start], " \t")
	if lead != "" && !extract.ListItem(lead) {
		return nil
	}
	rest := text[f.End:]
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	if !strings.HasPrefix(strings.TrimLeft(rest, " \t"), ":") || strings.Contains(text[ls:f.Start], ":") {
		return nil
	}
	label := text[f.Start:f.End]
	if p.notDoneWords(label) || p.labelPast(label) || (p.reading.past != nil && p.reading.past.MatchString(label)) || datedLabel(label) {
		return nil
	}
	if !p.doneReport(text) && !p.procedureReport(text, findings, procedural) {
		return nil
	}
	return p.reportDay(text, now, "the procedure report's label '"+strings.TrimSpace(label)+"'")
}

// lineLabelWhen reads the label of the line starting at ls (the text
// before its last colon before upto): the date it holds, or the case
// date in a procedure report, when it names a procedure (named).
func (p *Program) lineLabelWhen(text string, f extract.Finding, kind patient.Kind, ls, upto int, findings []extract.Finding, procedural map[string]bool, now time.Time) (w *eval.When, named bool) {
	// The nearest colon before the finding: "Echo 2018: LVEF 30%. Echo
	// 2025: LVEF 60%" dates the 60% by the second label, not the first.
	colon := strings.LastIndexByte(text[ls:upto], ':')
	if colon < 0 {
		return nil, false
	}
	label := text[ls : ls+colon]
	if i := strings.LastIndexAny(label, ".;"); i >= 0 && i+1 < len(label) && label[i+1] == ' ' {
		// "LVEF 30% in 2019. Echo: LVEF 55%": the label is its own
		// sentence's words; an earlier sentence's date is not its date.
		label = label[i+1:]
	}
	named = p.doneLabel(label)
	for _, g := range findings {
		if named {
			break
		}
		if g.Start >= ls && g.End <= ls+colon && procedural[g.ID] {
			named = true
			break
		}
	}
	if !named && kind == patient.KindMeasurement && !extract.SentenceBreak(text[ls+colon+1:upto]) {
		// "TTE 2021 (for a murmur): LVEF 45%": a dated label of a value
		// on its line dates the value, whatever test it names.
		if w := p.whenOf(label, now); w != nil {
			return w, true
		}
	}
	if !named {
		return nil, false
	}
	if p.labelPast(f.Text) {
		return nil, true // "Stress echo 20/11/2026: no ischaemia. Previous PCI."
	}
	if extract.SentenceBreak(text[ls+colon+1:upto]) && !labelReaches(kind, p.doneLabel(label) || p.underDoneHeading(text, ls)) {
		return nil, true // a later sentence's event is not the test's
	}
	if w = p.whenOf(label, now); w != nil || datedLabel(label) {
		return w, true
	}
	// "Operation: CABG x3" under a header line "Operation 03/10/2025":
	// the document dates the label's done word elsewhere.
	if w = p.doneWordDate(text, label, now); w != nil {
		return w, true
	}
	// "Procedure: ICA +/- PCI", "PCI: pLAD ... DES x1" in a procedure
	// report: an undated label of what was done is the report's own
	// procedure, done on its date; a past ("Previous procedures:") or
	// later ("Post-PCI plan:") label, or a planned finding, is not.
	if f.Intended || p.doc.PlannedConcept(f.Text) || p.notDoneWords(label) ||
		(p.reading.past != nil && p.reading.past.MatchString(label)) {
		return nil, true
	}
	if p.doneReport(text) || p.procedureReport(text, findings, procedural) {
		w = p.reportDay(text, now, "the procedure report's label '"+strings.TrimSpace(label)+"'")
	}
	return w, true
}

// doneWordDate returns the date the document writes right after the
// label's done word elsewhere ("Operation 03/10/2025", "Procedure date:
// 17/06/2025"), when it writes exactly one; nil otherwise.
func (p *Program) doneWordDate(text, label string, now time.Time) *eval.When {
	if p.pack.Sections == nil {
		return nil
	}
	lower := strings.ToLower(text)
	var found *eval.When
	for _, w := range strings.FieldsFunc(strings.ToLower(label), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if !containsFold(p.pack.Sections.Frame.DoneLabels, w) {
			continue
		}
		for from := 0; ; {
			k := strings.Index(lower[from:], w)
			if k < 0 {
				break
			}
			k += from
			from = k + len(w)
			if k > 0 && unicode.IsLetter(rune(lower[k-1])) || from < len(lower) && unicode.IsLetter(rune(lower[from])) {
				continue // inside another word
			}
			// The date follows at once, after at most "date" and a colon.
			rest := text[from:]
			if nl := strings.IndexAny(rest, "\n;,"); nl >= 0 {
				rest = rest[:nl]
			}
			if gap := strings.Index(rest, "   "); gap >= 0 {
				rest = rest[:gap]
			}
			if len(rest) > 24 {
				rest = rest[:24]
			}
			t := strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(strings.ToLower(rest), " :"), "date"), " :")
			if t == "" || t[0] < '0' || t[0] > '9' {
				continue
			}
			d := p.whenOf(rest, now)
			if d == nil {
				continue
			}
			if found != nil && (!found.From.Equal(d.From) || !found.To.Equal(d.To)) {
				return nil // two dates: which one is the label's the words do not say
			}
			found = d
		}
	}
	return found
}

// doneWords reports whether a clause holds a word of the pack's
// done_words (meta/sections.json frame): "CABG performed 20/11/2026",
// "underwent PCI to the LAD" state the procedure done.
func (p *Program) doneWords(clause string) bool {
	if p.pack.Sections == nil {
		return false
	}
	lower := strings.ToLower(clause)
	for _, w := range p.pack.Sections.Frame.DoneWords {
		if len(namedAll(lower, clause, w)) > 0 {
			return true
		}
	}
	return false
}

// labelReaches: a line label's date reaches a finding of this kind past
// the label's own sentence: a value or result of the test, or, under a
// done word (done), a procedure done then.
func labelReaches(kind patient.Kind, done bool) bool {
	return kind == patient.KindMeasurement || kind == patient.KindFinding || done && kind == patient.KindProcedure
}

// underDoneHeading reports whether the line starting at ls belongs to a
// block headed by a done word alone on its line ("Procedures:" then
// "03/10/2025 - Coronary angiography: ... PCI mid RCA with DES"): the
// block lists what was done, each line on its label's date.
func (p *Program) underDoneHeading(text string, ls int) bool {
	for h, n := ls, 0; h > 0 && n < 12; n++ {
		ps := strings.LastIndexByte(text[:h-1], '\n') + 1
		line := strings.TrimSpace(text[ps : h-1])
		if line == "" {
			return false
		}
		if strings.HasSuffix(line, ":") && strings.Count(line, ":") == 1 {
			return p.doneLabel(line)
		}
		h = ps
	}
	return false
}

// labelPast reports whether a finding's lead words (the pack's past cues
// among its first reading past.lead words, or a word of
// meta/sections.json frame.label_past) place it before any line label's
// date: "Prior MI", "previous PCI", "known CAD".
func (p *Program) labelPast(finding string) bool {
	lead := p.reading.pastLead
	if lead <= 0 {
		lead = 3
	}
	words := strings.Fields(finding)
	if len(words) > lead {
		words = words[:lead]
	}
	head := strings.Join(words, " ")
	if p.reading.pastDrug != nil && p.reading.pastDrug.MatchString(head) {
		return true // the past cues and the drug past cues ("prior", "previously")
	}
	if p.pack.Sections == nil {
		return false
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(head), func(r rune) bool { return !unicode.IsLetter(r) && r != '-' }) {
		if containsFold(p.pack.Sections.Frame.LabelPast, w) {
			return true
		}
	}
	return false
}

// datedLabel: the label holds a digit (a date the reader could not read
// is no licence to take the report's).
func datedLabel(label string) bool { return strings.ContainsAny(label, "0123456789") }

// doneReport: the document's title line (as titleWhen reads it: the first
// line, more following, no colon, no digit, no title_not_done word)
// holds a done word ("PROCEDURE REPORT", "OPERATION NOTE"): the document
// reports what was done on its date.
func (p *Program) doneReport(text string) bool {
	if p.pack.Sections == nil {
		return false
	}
	nl, ok := p.titleLine(text)
	return ok && p.doneLabel(text[:nl])
}

// doneLabel reports whether a line label holds one of the pack's done
// words (meta/sections.json frame.done_labels), as whole words.
func (p *Program) doneLabel(label string) bool {
	if p.pack.Sections == nil {
		return false
	}
	words := strings.FieldsFunc(strings.ToLower(label), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
	for _, w := range words {
		if containsFold(p.pack.Sections.Frame.DoneLabels, w) {
			return true
		}
	}
	return false
}

// indented reports whether a line starts with white space before its
// words: a line of the block that the unindented line above heads.
func indented(line string) bool {
	return strings.TrimSpace(line) != "" && (line[0] == ' ' || line[0] == '\t')
}

// withoutTitleGuesses keeps, for a finding of the document's header
// line, only the anchors its words find without reading a word as
// initials (grounding.GroundLiteral), or that it names as written (a
// concept name or lexicon synonym, verbatimNamed): a title or header
// names a service, a form or a document ("ED CAS card"), so its initials
// are not expanded into clinical acronyms ("CAS" → coronary artery
// spasm). An acronym the pack lists as a synonym ("CABG REPORT",
// "NSTEMI") is named as written and stays.
func (p *Program) withoutTitleGuesses(ctx context.Context, text string, f extract.Finding, anchors []grounding.Anchor) ([]grounding.Anchor, error) {
	if len(anchors) == 0 || f.Start < 0 || f.End > len(text) {
		return anchors, nil
	}
	nl, ok := headerLine(text)
	if !ok || f.End > nl {
		return anchors, nil
	}
	literal, err := p.grounder.GroundLiteral(ctx, f.Text)
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	for _, a := range literal {
		found[a.ConceptKey] = true
	}
	for _, n := range p.verbatimNamed(f.Text) {
		found[n.ConceptKey] = true
	}
	kept := anchors[:0:0]
	for _, a := range anchors {
		if found[a.ConceptKey] {
			kept = append(kept, a)
		}
	}
	return kept, nil
}

// headerLine is the end of the document's header line: its first line,
// when more lines follow, that holds no label and no sentence ("Re: …",
// "Diagnosis: VSA", "Seen today. …" state facts and are read as text); a
// clock time's colon ("ED CAS card - Majors bay 2 - 02:40") is no label.
func headerLine(text string) (int, bool) {
	nl := strings.IndexByte(text, '\n')
	if nl < 0 || strings.TrimSpace(text[nl:]) == "" {
		return 0, false
	}
	line := strings.TrimSpace(text[:nl])
	if line == "" || strings.ContainsAny(clockless(line), ":;") || strings.Contains(line, ". ") || strings.HasSuffix(line, ".") {
		return 0, false
	}
	return nl, true
}

// clockless blanks the colon of a clock time ("02:40": a digit either
// side), which writes when the document was written, not a label.
func clockless(line string) string {
	if !strings.Contains(line, ":") {
		return line
	}
	b := []byte(line)
	for i := 1; i+1 < len(b); i++ {
		if b[i] == ':' && isDigit(b[i-1]) && isDigit(b[i+1]) {
			b[i] = ' '
		}
	}
	return string(b)
}

// reportProcedureWhen dates an undated done procedure of a procedure
// report on the report's day: a report whose title names a procedure
// (doneReport, procedureReport) and whose date line writes one day
// (dateLine) reports what was done that day, so a procedure of a title
// role it names in its body without a label ("Post-<procedure> result
// ...", a conclusion's "successful <procedure> of ...") is that day's.
// Only outside the sections of another time (history, consent, plan): a
// finding there, an intended or planned one, or one whose lead words
// place it earlier (labelPast, the past cues) is not. nil otherwise.
func (p *Program) reportProcedureWhen(text string, f extract.Finding, conceptKey string, findings []extract.Finding, procedural map[string]bool, now time.Time) *eval.When {
	if p.pack.Sections == nil || f.Start < 0 || f.Intended || !p.titleRole(conceptKey) || p.doc.PlannedConcept(f.Text) {
		return nil
	}
	if f.Section != "" && !containsFold(p.pack.Sections.Frame.ReportSections, f.Section) {
		return nil
	}
	if p.labelPast(f.Text) || p.reading.past != nil && p.reading.past.MatchString(f.Text) {
		return nil
	}
	if !p.doneReport(text) && !p.procedureReport(text, findings, procedural) {
		return nil
	}
	w := p.dateLine(text, now)
	if w == nil {
		return nil
	}
	return &eval.When{From: w.From, To: w.To, Text: w.Text + ", the procedure report's own procedure"}
}
