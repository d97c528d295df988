package engine

import (
	"strings"
	"time"
	"unicode"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
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
	nl := strings.IndexByte(text, '\n')
	if nl < 0 || f.End > nl || strings.TrimSpace(text[nl:]) == "" {
		return nil
	}
	line := text[:nl]
	if strings.TrimSpace(line) == "" || strings.ContainsAny(line, ":0123456789") {
		return nil
	}
	// "Cardiology Clinic - post-PCI review" is about the procedure, later.
	for _, w := range strings.FieldsFunc(strings.ToLower(line), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if containsFold(p.pack.Sections.Frame.TitleNotDone, w) {
			return nil
		}
	}
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return &eval.When{From: day, To: day.Add(24*time.Hour - time.Second), Text: "the document's title"}
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
// nothing: what it lists was weighed, not done, then. nil when no such
// label dates the finding.
func (p *Program) labelWhen(text string, f extract.Finding, findings []extract.Finding, procedural map[string]bool, now time.Time) *eval.When {
	if f.Start < 0 || f.Start > len(text) {
		return nil
	}
	ls := strings.LastIndexByte(text[:f.Start], '\n') + 1
	// The nearest colon before the finding: "Echo 2018: LVEF 30%. Echo
	// 2025: LVEF 60%" dates the 60% by the second label, not the first.
	colon := strings.LastIndexByte(text[ls:f.Start], ':')
	if colon < 0 {
		return nil
	}
	label := text[ls : ls+colon]
	if i := strings.LastIndexAny(label, ".;"); i >= 0 && i+1 < len(label) && label[i+1] == ' ' {
		// "LVEF 30% in 2019. Echo: LVEF 55%": the label is its own
		// sentence's words; an earlier sentence's date is not its date.
		label = label[i+1:]
	}
	named := p.doneLabel(label)
	for _, g := range findings {
		if named {
			break
		}
		if g.Start >= ls && g.End <= ls+colon && procedural[g.ID] {
			named = true
			break
		}
	}
	if !named {
		return nil
	}
	return p.whenOf(label, now)
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
