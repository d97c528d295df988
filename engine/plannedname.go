package engine

import (
	"strings"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// plannedByName drops the done reading of a procedure from a mention that
// is its bare name ("CABG" in "Heart Team 12/08: 3VD + DM + LV impairment
// -> CABG"), when another finding of the document states the procedure
// planned ("pre-CABG work-up", "listed for CABG 28/08") and the mention
// gives no sign of a done one: no date, no past cue, no heading. A done
// procedure is reported with its date, detail or heading ("CABG 2015",
// "CABG x3 (LIMA-LAD, SVG-OM)", "PMH: CABG"); a bare name in a document
// that plans it is the plan, which the planned reading already states.
// The drop is traced; ev and listed are the evaluated and reported items.
func (p *Program) plannedByName(ev, listed []eval.Evidence, byID map[string]extract.Finding, clause map[string]string, tr *Trace, dropped *[]patient.Dropped) ([]eval.Evidence, []eval.Evidence) {
	plannedIn := map[string]map[string]bool{} // planned concept key → findings stating it
	for _, e := range ev {
		if e.Present && e.Via == "" && !e.Secondary {
			if plannedIn[e.ConceptKey] == nil {
				plannedIn[e.ConceptKey] = map[string]bool{}
			}
			plannedIn[e.ConceptKey][e.ID] = true
		}
	}
	drop := map[[2]string]string{} // (finding, concept key) → the planned concept
	for _, e := range ev {
		if !e.Present || e.Value != nil || e.Via != "" || e.When != nil || p.roles[e.ConceptKey] != rules.RoleProcedure {
			continue
		}
		pa, ok := p.plannedForm(grounding.Anchor{Concept: e.Concept})
		if !ok {
			continue
		}
		other := false
		for id := range plannedIn[pa.ConceptKey] {
			other = other || id != e.ID
		}
		f, found := byID[e.ID]
		if !other || !found || f.Section != "" || !p.bareName(f.Text, e.ConceptKey) && !p.graftName(f.Text, e.ConceptKey) || p.pastWords(clause[e.ID]) {
			continue
		}
		drop[[2]string{e.ID, e.ConceptKey}] = pa.Concept
	}
	if len(drop) == 0 {
		return ev, listed
	}
	keep := func(in []eval.Evidence, trace bool) []eval.Evidence {
		out := in[:0:0]
		for _, e := range in {
			planned, ok := drop[[2]string{e.ID, e.ConceptKey}]
			if !ok || !e.Present || e.Via != "" {
				out = append(out, e)
				continue
			}
			if trace {
				why := "'" + e.Text + "' names the procedure and no more, and the document states it as " + planned + " elsewhere: the plan, not a done " + e.Concept
				tr.Rejected = append(tr.Rejected, Rejection{FindingID: e.ID, Check: "formatter", Reason: e.ConceptKey + ": " + why})
				*dropped = append(*dropped, patient.Dropped{Text: e.Text, Reader: "text", Reason: why})
			}
		}
		return out
	}
	return keep(ev, true), keep(listed, false)
}

// bareName reports whether a mention is nothing but a name of the concept
// (its pack name or one of its phrases), ignoring case and surrounding
// punctuation.
func (p *Program) bareName(mention, key string) bool {
	m := strings.ToLower(strings.Trim(mention, " \t.,;:()-–"))
	if m == "" {
		return false
	}
	if m == strings.ToLower(p.names[key]) {
		return true
	}
	for _, ph := range p.phrases[key] {
		if m == strings.ToLower(ph) {
			return true
		}
	}
	return false
}

// graftName reports whether a mention is a name of the concept joined to
// the coronary vessels it goes to and no more ("SVG-OM", "SVG to RCA"):
// the graft a bypass plan lists ("CABG (LIMA-LAD, SVG-OM) preferred"), as
// bare as the procedure's name. The vessel words are the pack's anatomy.
func (p *Program) graftName(mention, key string) bool {
	if p.anatomy == nil {
		return false
	}
	m := strings.ToLower(strings.Trim(mention, " \t.,;:()-–"))
	names := append([]string{p.names[key]}, p.phrases[key]...)
	for _, n := range names {
		n = strings.ToLower(n)
		if n == "" || !strings.HasPrefix(m, n) || len(m) == len(n) {
			continue
		}
		rest := strings.FieldsFunc(m[len(n):], func(r rune) bool { return r == '-' || r == '–' || r == ' ' || r == '/' || r == '+' })
		if len(rest) == 0 || m[len(n)] != '-' && m[len(n)] != ' ' {
			continue
		}
		vessels := 0
		for i, w := range rest {
			if _, ok := p.anatomy.words[w]; ok {
				vessels++
			} else if !(i == 0 && w == "to") {
				vessels = -1
				break
			}
		}
		if vessels > 0 {
			return true
		}
	}
	return false
}
