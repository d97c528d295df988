package engine

import (
	"strconv"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
)

// ViaFall starts the Via (trace text) of a concept read from a measure's
// fall ("LVEF 30% (40% in 2021)").
const ViaFall = "fall: "

// fallStage reads the concepts a measure's fall states (meta/reading.json
// falls): the current value of the measure and a higher earlier one,
// written beside it (in a parenthesis right after its finding, or across
// a trend arrow in it: "LVEF 42% (2022) -> 30%") or dated before it in
// another finding. The current value is the one step (iv) read for the
// finding (the later side of an arrow, the value outside a parenthesis).
type fallStage struct{ p *Program }

func (fallStage) Name() string          { return "fall" }
func (fallStage) Reads() read.Input     { return read.Evidence }
func (fallStage) Emits() []patient.Kind { return []patient.Kind{patient.KindProblem} }

// Satisfies: the two values state the change the concept's words
// qualify, and a fall needs no stated absence.
func (fallStage) Satisfies(eval.Cond) consistency.Checks {
	return consistency.Checks{Qualifier: true, Absence: true}
}

func (r fallStage) Read(c *read.Case) []patient.Fact {
	var out []patient.Fact
	byID := map[string]extract.Finding{}
	for _, f := range c.Findings {
		byID[f.ID] = f
	}
	for _, fl := range r.p.pack.Reading.FallList() {
		mk, ok1 := r.p.keys[rules.NormalizeName(fl.Measure)]
		ck, ok2 := r.p.keys[rules.NormalizeName(fl.Concept)]
		if !ok1 || !ok2 {
			continue
		}
		unit := units.Canonical(fl.Unit)
		var vals []eval.Evidence
		for _, e := range c.Evidence {
			if e.ConceptKey == mk && e.Value != nil && e.Present && !e.Secondary && (e.Comparator == "" || e.Comparator == "=") && units.Canonical(e.Unit) == unit {
				vals = append(vals, e)
			}
		}
		emit := func(e eval.Evidence, earlier float64) {
			f := byID[e.ID]
			n := eval.Evidence{ID: e.ID, ConceptKey: ck, Concept: r.p.names[ck], Text: e.Text, Present: true,
				Via: ViaFall + r.p.names[mk] + " " + strconv.FormatFloat(earlier, 'f', -1, 64) + " → " + strconv.FormatFloat(*e.Value, 'f', -1, 64) + " " + fl.Unit}
			out = append(out, read.Fact(r, patient.KindProblem, n, patient.Span{Start: f.Start, End: f.End}))
		}
	found:
		for _, e := range vals {
			f, ok := byID[e.ID]
			if !ok || f.Start < 0 || f.End > len(c.Text) {
				continue
			}
			// Beside it: the finding and a parenthesis right after it.
			beside := besideFinding(c.Text, f)
			if re := r.p.reading.reference; re != nil && re.MatchString(beside) {
				beside = "" // "(normal 55-70%)", "(target > 50%)": no value of the patient
			}
			for _, m := range evidence.ParseMeasures(beside) {
				if ranged(beside, m) {
					continue
				}
				if units.Canonical(m.Unit) == unit && (m.Comparator == "" || m.Comparator == "=") && m.Value-*e.Value >= fl.By {
					emit(e, m.Value)
					break found
				}
			}
			// Dated before it in another finding.
			for _, o := range vals {
				if o.ID != e.ID && o.When != nil && *o.Value-*e.Value >= fl.By && (e.When == nil && o.When.To.Before(c.Date) || e.When != nil && o.When.To.Before(e.When.From)) {
					emit(e, *o.Value)
					break found
				}
			}
		}
	}
	return out
}

// besideFinding is a finding's text with the parenthesis that opens right
// after it ("LVEF 30%" and "(prior 40% in 2023)"): what it states of the
// same measure at another time.
func besideFinding(text string, f extract.Finding) string {
	e := f.End
	for e < len(text) && (text[e] == ' ' || text[e] == ')') {
		e++
	}
	if e >= len(text) || text[e] != '(' {
		return text[f.Start:f.End]
	}
	k := strings.IndexByte(text[e:], ')')
	if k < 0 {
		return text[f.Start:f.End]
	}
	return text[f.Start:f.End] + " " + text[e:e+k+1]
}

// ranged: the measure is a range's bound ("55-70%", "50 to 70%"), a band
// and not one value.
func ranged(s string, m evidence.Measure) bool {
	b := strings.TrimRight(s[:m.Start], " ")
	a := strings.TrimLeft(s[m.End:], " ")
	return strings.HasSuffix(b, "-") || strings.HasSuffix(b, "–") || strings.HasSuffix(b, " to") ||
		strings.HasPrefix(a, "-") || strings.HasPrefix(a, "–") || strings.HasPrefix(a, "to ")
}
