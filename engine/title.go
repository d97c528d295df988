package engine

import (
	"strings"
	"time"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
)

// titleWhen dates an undated finding of the document's title line on the
// case date when its concept has one of the pack's title roles
// (meta/sections.json frame.title_roles): a report's title names what it
// reports ("<procedure> REPORT"), done on the report's date. The title is
// the first line, when more lines follow, with no colon (a heading) and
// no digit (a date or a count of its own); an intended finding, or one
// worded as a plan ("PLANNED <procedure>"), is not done. nil when the
// finding is no such title.
func (p *Program) titleWhen(text string, f extract.Finding, conceptKey string, now time.Time) *eval.When {
	if p.pack.Sections == nil || f.Start < 0 || f.Intended || p.doc.PlannedConcept(f.Text) {
		return nil
	}
	roles := p.pack.Sections.Frame.TitleRoles
	role := p.roles[conceptKey]
	if role == "" || !containsFold(roles, role) {
		return nil
	}
	nl := strings.IndexByte(text, '\n')
	if nl < 0 || f.End > nl || strings.TrimSpace(text[nl:]) == "" {
		return nil
	}
	if line := text[:nl]; strings.TrimSpace(line) == "" || strings.ContainsAny(line, ":0123456789") {
		return nil
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
