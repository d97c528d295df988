package engine

import (
	"fmt"
	"strings"

	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// functionalCounts drops a stated vessel count that a functional count of
// its sentence supersedes (the pack's anatomy count_basis): "two-vessel
// disease angiographically; functionally one-vessel" is a one-vessel
// disease, since the populations count the functionally significant
// stenoses. A count is one of the anatomy's vessel-count populations with
// a range (one-, two-, three-vessel) or of two vessels or more
// (multivessel); a count of one or more (obstructive disease) holds
// either way and stays. Counts in different sentences, or both stated
// functionally, are both kept.
func (p *Program) functionalCounts(m *patient.Model) []edit {
	if p.anatomy == nil || p.anatomy.functional == nil || m.Text == "" {
		return nil
	}
	counts := map[string]bool{}
	for _, c := range p.anatomy.a.Counts {
		if c.Max != nil || c.Min >= 2 {
			counts[rules.NormalizeName(c.Concept)] = true
		}
	}
	type stated struct {
		i, at, end int
		name       string
		functional bool
	}
	var cs []stated
	for i, f := range m.Facts {
		if f.Kind != patient.KindProblem || f.Via != "" || !f.Present || len(f.Spans) == 0 {
			continue
		}
		name := rules.NormalizeName(p.nameOf(f))
		sp := f.Spans[0]
		if !counts[name] || sp.Start < 0 || sp.End > len(m.Text) || sp.Start >= sp.End {
			continue
		}
		cs = append(cs, stated{i: i, at: sp.Start, end: sp.End, name: name, functional: p.anatomy.functional.MatchString(m.Text[sp.Start:sp.End])})
	}
	// A finding's alternative reading (Secondary: "functionally
	// single-vessel disease" read as the three-vessel one too, through
	// its clause's words) is no functional statement.
	for k := range cs {
		cs[k].functional = cs[k].functional && !m.Facts[cs[k].i].Secondary
	}
	drop := map[int]int{}
	for _, a := range cs {
		for _, b := range cs {
			if a.functional || !b.functional || a.name == b.name || !sameSentence(m.Text, a.at, a.end, b.at, b.end) {
				continue
			}
			drop[a.i] = b.i
		}
	}
	if len(drop) == 0 {
		return nil
	}
	return dropFor(m, drop, func(_ patient.Fact, j int) string {
		return fmt.Sprintf("a vessel count its sentence states functionally otherwise: '%s' is used (meta/hierarchy.json anatomy count_basis)", m.Facts[j].Text)
	})
}

// sameSentence reports whether the spans [a0, a1) and [b0, b1) of text
// lie in one sentence: no line break and no sentence stop between them.
func sameSentence(text string, a0, a1, b0, b1 int) bool {
	lo, hi := a1, b0
	if b0 < a0 {
		lo, hi = b1, a0
	}
	if lo > hi {
		return true // overlapping spans
	}
	between := text[lo:hi]
	if strings.ContainsRune(between, '\n') {
		return false
	}
	for k := 0; k < len(between); k++ {
		if between[k] == '.' && stops(between, k) && (k+1 == len(between) || between[k+1] == ' ') {
			return false
		}
	}
	return true
}
