// Package calculators holds the published clinical risk equations a pack
// may name as the implementation of a calculated concept (meta/hierarchy.json
// "calculated"). Each calculator is a pure function of named inputs in
// fixed units; which patient facts feed it, the valid input ranges and the
// published validation examples are pack data, and the engine's derive
// stage (engine/calculated.go) calls the calculator by name.
package calculators

import (
	"fmt"
	"sort"
)

// Kind is the kind of an input: a number in a unit, or a yes/no.
type Kind string

// Input kinds.
const (
	Number Kind = "number"
	Flag   Kind = "flag"
)

// Input is one input a calculator reads.
type Input struct {
	Name string
	Kind Kind
	// Unit of a Number input, as the published equations take it.
	Unit string
}

// Calculator is one published equation.
type Calculator struct {
	// Name is how a pack names it ("pooled_cohort_equations_2013").
	Name string
	// Title and Source say what it is and where its coefficients come from.
	Title, Source string
	Inputs        []Input
	// Unit of the result.
	Unit string
	// Fn computes the result from every input (flags are 0 or 1). It is
	// called only with inputs the pack declares valid; it does not
	// extrapolate, clamp or guess.
	Fn func(in map[string]float64) (float64, error)
}

var registry = map[string]Calculator{}

func register(c Calculator) { registry[c.Name] = c }

// Lookup returns the calculator a pack names.
func Lookup(name string) (Calculator, bool) {
	c, ok := registry[name]
	return c, ok
}

// Names lists the registered calculators, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Input returns the calculator's input of that name.
func (c Calculator) Input(name string) (Input, bool) {
	for _, in := range c.Inputs {
		if in.Name == name {
			return in, true
		}
	}
	return Input{}, false
}

// Compute checks that every input is given, then calls Fn.
func (c Calculator) Compute(in map[string]float64) (float64, error) {
	for _, x := range c.Inputs {
		v, ok := in[x.Name]
		if !ok {
			return 0, fmt.Errorf("%s: input %q is missing", c.Name, x.Name)
		}
		if x.Kind == Flag && v != 0 && v != 1 {
			return 0, fmt.Errorf("%s: input %q is a yes/no flag, got %g", c.Name, x.Name, v)
		}
	}
	return c.Fn(in)
}
