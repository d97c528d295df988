package engine

import (
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/rules"
)

// admissionStay is the stay a discharge document reports: the day after
// its admission label to the day after its discharge label (the pack's
// meta/sections.json frame.admission_labels and discharge_labels:
// "Admitted 16/04/2026   Discharged 17/04/2026", "adm 04/06/2025, d/c
// 05/06/2025", "Admission 20.08.2025 -> discharge 22.08.2025"). nil
// unless the document writes exactly one admission day and one discharge
// day, the discharge not before the admission nor after the case date,
// within a stay of at most maxStayDays.
func (p *Program) admissionStay(text string, now time.Time) *eval.When {
	if p.pack.Sections == nil || len(p.pack.Sections.Frame.AdmissionLabels) == 0 || len(p.pack.Sections.Frame.DischargeLabels) == 0 {
		return nil
	}
	adm := p.labelDay(text, p.pack.Sections.Frame.AdmissionLabels, now)
	dis := p.labelDay(text, p.pack.Sections.Frame.DischargeLabels, now)
	if adm == nil || dis == nil || dis.From.Before(adm.From) || dis.From.After(now) || dis.From.Sub(adm.From) > maxStayDays*24*time.Hour {
		return nil
	}
	return &eval.When{From: adm.From, To: dis.To, Text: "the stay " + adm.Text + " to " + dis.Text}
}

// maxStayDays: a longer span between the two dates is no one stay.
const maxStayDays = 60

// labelDay is the one day the document writes right after one of the
// labels (a colon, a dash or the word "date" between at most); nil when
// it writes none or two different days.
func (p *Program) labelDay(text string, labels []string, now time.Time) *eval.When {
	var found *eval.When
	for _, l := range labels {
		if !mayHoldFold(text, l) {
			// Most documents write no stay label: skip the pattern's scan
			// of the whole text (it has no literal prefix to search by).
			continue
		}
		re := stayLabelRE(l)
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			rest := text[m[1]:]
			if nl := strings.IndexAny(rest, "\n,;("); nl >= 0 {
				rest = rest[:nl]
			}
			if len(rest) > 12 {
				rest = rest[:12]
			}
			w := p.whenOf(rest, now)
			if w == nil || w.To.Sub(w.From) > 24*time.Hour || !strings.HasPrefix(strings.TrimSpace(rest), strings.TrimSpace(w.Text)) {
				continue
			}
			if found != nil && !found.From.Equal(w.From) {
				return nil
			}
			found = w
		}
	}
	return found
}

// stayLabelRE matches a stay label as whole words, followed by what may
// stand between it and its date.
func stayLabelRE(label string) *regexp.Regexp {
	if re, ok := stayLabels.Load(label); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(`(?i)(?:^|[^\pL/])` + regexp.QuoteMeta(label) + `\b(?:\s+date)?\s*[:\-]?\s*`)
	stayLabels.Store(label, re)
	return re
}

// stayLabels caches stayLabelRE's patterns by label.
var stayLabels sync.Map

// mayHoldFold reports whether text may hold s as a (?i) pattern matches
// it: false only when it surely does not. For an ASCII s that is an ASCII
// case-insensitive search, unless the text writes one of the two
// non-ASCII letters that fold to an ASCII one (U+017F long s folds to s,
// U+212A Kelvin sign to k); otherwise it is always true.
func mayHoldFold(text, s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	if strings.ContainsRune(text, '\u017f') || strings.ContainsRune(text, '\u212a') {
		return true
	}
	return indexASCIIFold(text, s) >= 0
}

// indexASCIIFold is the first index of the ASCII string s in text,
// matching ASCII letters regardless of case; -1 when there is none. A
// byte of a multi-byte character never equals an ASCII byte, so it never
// matches inside one.
func indexASCIIFold(text, s string) int {
	if s == "" {
		return 0
	}
	c0 := lowerASCII(s[0])
	for i := 0; i+len(s) <= len(text); i++ {
		if lowerASCII(text[i]) != c0 {
			continue
		}
		j := 1
		for j < len(s) && lowerASCII(text[i+j]) == lowerASCII(s[j]) {
			j++
		}
		if j == len(s) {
			return i
		}
	}
	return -1
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// stayDates dates, in a discharge document (admissionStay), each undated
// procedure a section of the pack's stay_sections states present and as
// the patient's (the reason for admission, the diagnosis) in that stay, when no item of the same concept is dated before the stay:
// "Reason for admission: elective PCI", "Diagnosis: stable angina -
// treated with PCI" were done in the stay the summary reports. So is an
// undated acute event of the pack's stay_events stated there ("Dx:
// Anterior STEMI - primary PCI"), even when an earlier one is dated
// elsewhere ("Dx: NSTEMI (recurrent)", "Background: STEMI 2021"): the
// diagnosis of a discharge document is the stay's presentation. A planned
// or intended finding, one in a past-history section or of someone
// else's, one whose lead words place it earlier (labelPast: "previous
// PCI") or whose own line holds a day before the stay ("IHD: inferior
// STEMI 2019 -> primary PCI RCA" in a problem list) keeps no date. ev and
// shown (the evidence shown in the result) are dated alike.
func (p *Program) stayDates(text string, stay *eval.When, now time.Time, ev, shown []eval.Evidence, byID map[string]extract.Finding) {
	if stay == nil {
		return
	}
	before := map[string]bool{} // concepts an item dates before the stay
	for _, e := range ev {
		if e.When != nil && e.When.To.Before(stay.From) {
			before[e.ConceptKey] = true
		}
	}
	dated := map[[2]string]bool{}
	for i := range ev {
		e := &ev[i]
		if e.When != nil || !e.Present || e.Secondary || e.DerivedBy != "" {
			continue
		}
		event := containsFold(p.pack.Sections.Frame.StayEvents, p.names[e.ConceptKey])
		if !event && (before[e.ConceptKey] || p.roles[e.ConceptKey] != rules.RoleProcedure) {
			continue
		}
		f, ok := byID[e.ID]
		if !ok || f.Start < 0 || f.Intended || p.doc.PlannedConcept(f.Text) || p.labelPast(f.Text) ||
			(p.reading.past != nil && p.reading.past.MatchString(f.Text)) || p.lineBefore(text, f, stay, now) {
			continue
		}
		if k := p.doc.Kind(f); k == nil || k.Status != "" || k.Experiencer != "" || !containsFold(p.pack.Sections.Frame.StaySections, k.Kind) {
			continue
		}
		w := *stay
		w.Text = stay.Text + ", the stay this discharge document reports"
		w.Stay = true
		e.When = &w
		e.Stay = event
		dated[[2]string{e.ID, e.ConceptKey}] = true
	}
	for i := range shown {
		if shown[i].When == nil && dated[[2]string{shown[i].ID, shown[i].ConceptKey}] && shown[i].DerivedBy == "" {
			for _, e := range ev {
				if e.ID == shown[i].ID && e.ConceptKey == shown[i].ConceptKey && e.When != nil {
					shown[i].When, shown[i].Stay = e.When, e.Stay
					break
				}
			}
		}
	}
}

// lineBefore reports whether the finding's own line writes a day before
// the stay: "IHD: inferior STEMI 2019 -> primary PCI RCA (2x DES)" tells
// of an earlier admission, whatever section holds it.
func (p *Program) lineBefore(text string, f extract.Finding, stay *eval.When, now time.Time) bool {
	if f.Start < 0 || f.Start > len(text) {
		return false
	}
	from, to := extract.LineAt(text, f.Start)
	line := text[from:to]
	for len(line) > 0 {
		w := p.whenOf(line, now)
		if w == nil {
			return false
		}
		if w.To.Before(stay.From) {
			return true
		}
		i := strings.Index(line, w.Text)
		if i < 0 {
			return false
		}
		line = line[i+len(w.Text):]
	}
	return false
}
