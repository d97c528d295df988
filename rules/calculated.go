package rules

import (
	"fmt"
	"strings"
)

// Calculated declares a concept the engine computes from other facts with
// a published equation, when the case does not state it: its inputs (pack
// concepts with units and valid ranges), the implementation by name (a
// calculator of package calculators) and the published examples that
// validate it. A stated value of the concept always wins; an input that is
// unknown or outside its valid range leaves the concept unknown, with the
// reason, never an extrapolated number.
type Calculated struct {
	Concept string `json:"concept"`
	Unit    string `json:"unit"`
	// Implementation names the calculator ("pooled_cohort_equations_2013").
	Implementation string            `json:"implementation"`
	Source         string            `json:"source"`
	Inputs         []CalculatedInput `json:"inputs"`
	// Examples are the published worked examples; tests run every one.
	Examples []CalculatedExample `json:"examples"`
}

// CalculatedInput maps one calculator input to a pack concept.
type CalculatedInput struct {
	// Name is the calculator's input name.
	Name    string `json:"name"`
	Concept string `json:"concept"`
	// Unit (numeric inputs): the unit the range is in; stated values are
	// converted to it. A numeric input needs a unit, a yes/no input none.
	Unit string   `json:"unit,omitempty"`
	Min  *float64 `json:"min,omitempty"`
	Max  *float64 `json:"max,omitempty"`
	// Otherwise (yes/no inputs): a concept whose stated presence makes the
	// input no ("male sex" for the input female).
	Otherwise string `json:"otherwise,omitempty"`
	// Default (yes/no inputs) is used when the case says nothing, with
	// DefaultReason traced; without it an unstated input is unknown.
	Default       *bool  `json:"default,omitempty"`
	DefaultReason string `json:"default_reason,omitempty"`
}

// Numeric reports whether the input is a measured value.
func (in CalculatedInput) Numeric() bool { return in.Unit != "" }

// CalculatedExample is one published example: inputs by name (yes/no as 0
// or 1), the published result and how far the implementation may be from
// it (the publication rounds its intermediate values).
type CalculatedExample struct {
	Name      string             `json:"name"`
	Inputs    map[string]float64 `json:"inputs"`
	Expected  float64            `json:"expected"`
	Tolerance float64            `json:"tolerance"`
	Source    string             `json:"source"`
}

// checkCalculated checks the declarations' shape; the preflight checks
// that the concepts are the pack's and the engine that the implementation
// exists.
func checkCalculated(name string, cs []Calculated) error {
	seen := map[string]bool{}
	for i, c := range cs {
		at := fmt.Sprintf("%s: calculated[%d] (%s)", name, i, c.Concept)
		switch {
		case NormalizeName(c.Concept) == "" || strings.TrimSpace(c.Unit) == "" || strings.TrimSpace(c.Implementation) == "" || strings.TrimSpace(c.Source) == "":
			return fmt.Errorf("%s: concept, unit, implementation and source are required", at)
		case seen[NormalizeName(c.Concept)]:
			return fmt.Errorf("%s: the concept is calculated twice; one implementation per concept", at)
		case len(c.Inputs) == 0:
			return fmt.Errorf("%s: inputs is empty", at)
		case len(c.Examples) == 0:
			return fmt.Errorf("%s: examples is empty; give the published worked examples that validate the implementation", at)
		}
		seen[NormalizeName(c.Concept)] = true
		names := map[string]bool{}
		for j, in := range c.Inputs {
			ia := fmt.Sprintf("%s: inputs[%d] (%s)", at, j, in.Name)
			switch {
			case in.Name == "" || NormalizeName(in.Concept) == "":
				return fmt.Errorf("%s: name and concept are required", ia)
			case names[in.Name]:
				return fmt.Errorf("%s: input name used twice", ia)
			case NormalizeName(in.Concept) == NormalizeName(c.Concept):
				return fmt.Errorf("%s: an input cannot be the calculated concept itself", ia)
			case in.Numeric() && (in.Otherwise != "" || in.Default != nil):
				return fmt.Errorf("%s: otherwise and default are for yes/no inputs (no unit)", ia)
			case !in.Numeric() && (in.Min != nil || in.Max != nil):
				return fmt.Errorf("%s: min and max need a unit (a numeric input)", ia)
			case in.Numeric() && (in.Min == nil || in.Max == nil || *in.Min > *in.Max):
				return fmt.Errorf("%s: a numeric input needs its valid range, min <= max: outside it the equation is not validated", ia)
			case in.Default != nil && strings.TrimSpace(in.DefaultReason) == "":
				return fmt.Errorf("%s: a default needs default_reason (where the published guidance says to assume it)", ia)
			}
			names[in.Name] = true
		}
		for j, ex := range c.Examples {
			ea := fmt.Sprintf("%s: examples[%d] (%s)", at, j, ex.Name)
			if strings.TrimSpace(ex.Source) == "" || ex.Tolerance < 0 {
				return fmt.Errorf("%s: source is required and tolerance must be >= 0", ea)
			}
			for _, in := range c.Inputs {
				if _, ok := ex.Inputs[in.Name]; !ok {
					return fmt.Errorf("%s: input %q is missing", ea, in.Name)
				}
			}
			for n := range ex.Inputs {
				if !names[n] {
					return fmt.Errorf("%s: %q is not one of the declared inputs", ea, n)
				}
			}
		}
	}
	return nil
}

// CalculatedOf returns the declaration of a calculated concept, if any.
func (h *Hierarchy) CalculatedOf(concept string) (Calculated, bool) {
	if h == nil {
		return Calculated{}, false
	}
	for _, c := range h.Calculated {
		if NormalizeName(c.Concept) == NormalizeName(concept) {
			return c, true
		}
	}
	return Calculated{}, false
}
