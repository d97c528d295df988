package engine

import (
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/rules/units"
)

// ViaChain starts the Via (trace text) of a value read at the end of a
// label's chain ("<measure>: <inputs> -> 3%").
const ViaChain = "chain: "

// chainStage reads the value a measure's label leads to: a measure named
// without a value before a colon, its inputs listed after it, and an
// arrow to the result closing the sentence ("<score>: female, 30-39,
// non-anginal -> ~3% (very low)"): the result is the measure's value.
// Notation, no clinical words.
type chainStage struct{ p *Program }

func (chainStage) Name() string          { return "chain" }
func (chainStage) Reads() read.Input     { return read.Evidence }
func (chainStage) Emits() []patient.Kind { return []patient.Kind{patient.KindMeasurement} }

// Satisfies: the label states the measure's words; the value needs no
// stated absence.
func (chainStage) Satisfies(eval.Cond) consistency.Checks {
	return consistency.Checks{Absence: true}
}

func (r chainStage) Read(c *read.Case) []patient.Fact {
	var out []patient.Fact
	byID := map[string]extract.Finding{}
	for _, f := range c.Findings {
		byID[f.ID] = f
	}
	valued := map[string]bool{}
	for _, e := range c.Evidence {
		if e.Value != nil {
			valued[e.ConceptKey] = true
		}
	}
	seen := map[string]bool{}
	for _, e := range c.Evidence {
		us := r.p.units[e.ConceptKey]
		if e.Value != nil || !e.Present || e.Secondary || len(us) == 0 || valued[e.ConceptKey] || seen[e.ConceptKey] {
			continue
		}
		f, ok := byID[e.ID]
		if !ok || f.Start < 0 || f.End > len(c.Text) {
			continue
		}
		k := f.End
		for k < len(c.Text) && c.Text[k] == ' ' {
			k++
		}
		if k >= len(c.Text) || c.Text[k] != ':' {
			continue // not a label
		}
		sentence := c.Text[k+1:]
		if i := strings.IndexAny(sentence, "\n;"); i >= 0 {
			sentence = sentence[:i]
		}
		if i := strings.Index(sentence, ". "); i >= 0 {
			sentence = sentence[:i]
		}
		at, width := -1, 0
		for _, a := range trendArrows {
			if i := strings.LastIndex(sentence, a); i > at {
				at, width = i, len(a)
			}
		}
		if at < 0 {
			continue
		}
		result := strings.TrimLeft(extract.SkipApproximator(strings.TrimLeft(sentence[at+width:], " ")), " ~≈")
		ms := evidence.ParseMeasures(result)
		if len(ms) == 0 || ms[0].Start != 0 || ms[0].Comparator != "" && ms[0].Comparator != "=" {
			continue
		}
		unit := units.Canonical(ms[0].Unit)
		match := false
		for _, u := range us {
			match = match || units.Canonical(u) == unit
		}
		if !match {
			continue
		}
		seen[e.ConceptKey] = true
		v := ms[0].Value
		n := eval.Evidence{ID: e.ID, ConceptKey: e.ConceptKey, Concept: e.Concept, Text: e.Text, Present: true, Value: &v, Unit: ms[0].Unit,
			Via: ViaChain + strings.TrimSpace(sentence[at:])}
		out = append(out, read.Fact(r, patient.KindMeasurement, n, patient.Span{Start: f.Start, End: f.End}))
	}
	return out
}
