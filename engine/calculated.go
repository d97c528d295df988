package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/executablekg/execkg/calculators"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
)

// ViaCalculated prefixes the Via of a fact a pack's calculator made.
const ViaCalculated = "calculated: "

// Calculation is the outcome of one calculated concept the pack declares
// (meta/hierarchy.json "calculated"): the value and every input it came
// from, or why there is none.
type Calculation struct {
	Concept        string             `json:"concept"`
	ConceptKey     string             `json:"concept_key"`
	Implementation string             `json:"implementation"`
	Value          *float64           `json:"value,omitempty"`
	Unit           string             `json:"unit"`
	Inputs         []CalculationInput `json:"inputs"`
	// Unknown says why no value was calculated: the case states it (a
	// stated value wins), an input is not stated, or one lies outside the
	// range the equation is valid for (never extrapolated).
	Unknown string `json:"unknown,omitempty"`
}

// CalculationInput is one input as read from the case.
type CalculationInput struct {
	Name    string `json:"name"`
	Concept string `json:"concept"`
	// FindingID and Text: the fact the value came from.
	FindingID string   `json:"finding_id,omitempty"`
	Text      string   `json:"text,omitempty"`
	Value     *float64 `json:"value,omitempty"`
	Unit      string   `json:"unit,omitempty"`
	// Default is the declared reason when the input was not stated and
	// the pack's default was used.
	Default string `json:"default,omitempty"`
	// Problem says why the input could not be used.
	Problem string `json:"problem,omitempty"`
}

// deriveWithCalculated is the derive stage when the pack declares
// calculated concepts: definitions first (untraced, with passes), so that
// an input a definition derives counts; then each calculator; then the
// definitions again over the case and the calculated facts, traced (a
// calculated value meets a band definition like a stated one). Without
// declarations it is the definitions alone, as before.
func (p *Program) deriveWithCalculated(ev []eval.Evidence, o eval.Options, passes func(eval.Cond, eval.Evidence) bool) ([]eval.Evidence, []Calculation) {
	if p.hierarchy == nil || len(p.hierarchy.Calculated) == 0 {
		return eval.DeriveOpt(ev, p.hierarchy, p.names, p.keys, o), nil
	}
	quiet := o
	quiet.Admit, quiet.Withdrawn = passes, nil
	known := append(ev[:len(ev):len(ev)], eval.DeriveOpt(ev, p.hierarchy, p.names, p.keys, quiet)...)
	var made []eval.Evidence
	var calcs []Calculation
	for _, d := range p.hierarchy.Calculated {
		premise := o.Premise // a calculator infers: from premises only
		if premise == nil {
			premise = o.Member
		}
		e, c := p.calculate(d, known, premise)
		calcs = append(calcs, c)
		if e != nil {
			made = append(made, *e)
		}
	}
	all := append(ev[:len(ev):len(ev)], made...)
	return append(made, eval.DeriveOpt(all, p.hierarchy, p.names, p.keys, o)...), calcs
}

// calculate runs one declared calculator over the case's facts. member
// decides which facts are known (a finding's best reading).
func (p *Program) calculate(d rules.Calculated, ev []eval.Evidence, member func(eval.Evidence) bool) (*eval.Evidence, Calculation) {
	key := p.keys[rules.NormalizeName(d.Concept)]
	c := Calculation{Concept: d.Concept, ConceptKey: key, Implementation: d.Implementation, Unit: d.Unit}
	known := func(e eval.Evidence) bool { return member == nil || member(e) }
	for _, e := range ev {
		if e.ConceptKey == key && e.Value != nil && e.Via == "" {
			c.Unknown = fmt.Sprintf("the case states it ('%s'), and a stated value wins over a calculated one", e.Text)
			return nil, c
		}
	}
	calc, ok := calculators.Lookup(d.Implementation)
	if !ok {
		c.Unknown = fmt.Sprintf("the pack names implementation %q, which is not a calculator of this build (known: %s)", d.Implementation, strings.Join(calculators.Names(), ", "))
		return nil, c
	}
	in := map[string]float64{}
	var missing []string
	for _, x := range d.Inputs {
		ci, v, ok := p.calcInput(x, ev, known)
		c.Inputs = append(c.Inputs, ci)
		if !ok {
			missing = append(missing, ci.Problem)
			continue
		}
		in[x.Name] = v
	}
	if len(missing) > 0 {
		c.Unknown = strings.Join(missing, "; ")
		return nil, c
	}
	v, err := calc.Compute(in)
	if err != nil {
		c.Unknown = err.Error()
		return nil, c
	}
	c.Value = &v
	var from []string
	for _, ci := range c.Inputs {
		from = append(from, ci.String())
	}
	val := v
	return &eval.Evidence{
		ID: "calc:" + d.Implementation, ConceptKey: key, Concept: d.Concept, Present: true, Value: &val, Unit: d.Unit,
		Text: fmt.Sprintf("%s %s %s by %s", d.Concept, strconv.FormatFloat(v, 'f', 1, 64), d.Unit, d.Implementation),
		Via:  fmt.Sprintf("%s%s %.1f %s by %s ← %s", ViaCalculated, d.Concept, v, d.Unit, d.Implementation, strings.Join(from, ", ")),
	}, c
}

// calcInput reads one input: a numeric one from the first known stated
// value (converted to the declared unit and checked against the valid
// range), a yes/no one from the concept's presence or stated absence, the
// presence of its "otherwise" concept, or the declared default.
func (p *Program) calcInput(x rules.CalculatedInput, ev []eval.Evidence, known func(eval.Evidence) bool) (CalculationInput, float64, bool) {
	ci := CalculationInput{Name: x.Name, Concept: x.Concept}
	key := p.keys[rules.NormalizeName(x.Concept)]
	if x.Numeric() {
		ci.Unit = x.Unit
		for _, e := range ev {
			if e.ConceptKey != key || e.Value == nil || !known(e) {
				continue
			}
			ci.FindingID, ci.Text = e.ID, e.Text
			if cmp := rules.NormalizeOperator(e.Comparator); cmp != "" && cmp != rules.OpEQ {
				ci.Problem = fmt.Sprintf("%s is stated as a bound ('%s'), not a value", x.Concept, e.Text)
				return ci, 0, false
			}
			v := *e.Value
			if e.Unit != "" && !units.Same(e.Unit, x.Unit) {
				cv, err := units.Convert(v, e.Unit, x.Unit, x.Concept)
				if err != nil {
					ci.Problem = fmt.Sprintf("%s '%s': %v", x.Concept, e.Text, err)
					return ci, 0, false
				}
				v = cv
			}
			ci.Value = &v
			if v < *x.Min || v > *x.Max {
				ci.Problem = fmt.Sprintf("%s %s %s ('%s') is outside the range the equation is valid for (%s–%s %s), so it is not extrapolated",
					x.Concept, num(v), x.Unit, e.Text, num(*x.Min), num(*x.Max), x.Unit)
				return ci, 0, false
			}
			return ci, v, true
		}
		ci.Problem = fmt.Sprintf("%s is not stated", x.Concept)
		return ci, 0, false
	}
	flag := func(yes bool, e eval.Evidence) (CalculationInput, float64, bool) {
		f := 0.0
		if yes {
			f = 1
		}
		ci.FindingID, ci.Text, ci.Value = e.ID, e.Text, &f
		return ci, f, true
	}
	other := p.keys[rules.NormalizeName(x.Otherwise)]
	for _, e := range ev {
		if !known(e) {
			continue
		}
		switch {
		case e.ConceptKey == key:
			return flag(e.Present, e)
		case x.Otherwise != "" && e.ConceptKey == other && e.Present:
			return flag(false, e)
		}
	}
	if x.Default != nil {
		f := 0.0
		if *x.Default {
			f = 1
		}
		ci.Value, ci.Default = &f, x.DefaultReason
		return ci, f, true
	}
	ci.Problem = fmt.Sprintf("%s is not stated (present or absent)", x.Concept)
	return ci, 0, false
}

// String is the input as the Via says it: "<concept> <value> <unit>
// ('<words>', <finding>)", a yes/no input as yes or no, a default with its
// declared reason.
func (ci CalculationInput) String() string {
	v := "?"
	if ci.Value != nil {
		v = num(*ci.Value)
		if ci.Unit == "" {
			v = map[bool]string{true: "yes", false: "no"}[*ci.Value == 1]
		} else {
			v += " " + ci.Unit
		}
	}
	switch {
	case ci.Default != "":
		return fmt.Sprintf("%s %s (default: %s)", ci.Concept, v, ci.Default)
	case ci.FindingID != "":
		return fmt.Sprintf("%s %s ('%s', %s)", ci.Concept, v, ci.Text, ci.FindingID)
	}
	return ci.Concept + " " + v
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
