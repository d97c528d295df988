package rules

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Hierarchy holds is-a relations between a pack's concepts: a stated
// narrower finding implies the broader one ("type 2 diabetes" is
// diabetes), and a stated absence of the broader one implies absence of
// every narrower one. The reference system used SNOMED CT for identity
// only, so "HFrEF" never satisfied a "heart failure" condition.
type Hierarchy struct {
	Version   int    `json:"version"`
	Note      string `json:"note,omitempty"`
	Relations []IsA  `json:"relations"`
	// Definitions give concepts a numeric definition over a measured
	// concept of the pack (preserved LVEF is LVEF >= 50 %).
	Definitions []Definition `json:"definitions,omitempty"`

	up, down map[string][]string // normalised name → transitive closure
}

// IsA is one relation by concept name.
type IsA struct {
	Narrower string `json:"narrower"`
	Broader  string `json:"broader"`
}

// Definition says that Concept holds exactly when the value of Measure
// lies within [Min, Max] (inclusive; a missing bound is open), in Unit:
// "intermediate coronary artery stenosis" is a coronary artery diameter
// stenosis of 40–90 %. A stated value inside the band affirms Concept, one
// wholly outside it denies Concept. Source names where the definition
// comes from (a footnote of the pack, a universally used definition);
// only definitions with such a source belong here.
type Definition struct {
	Concept string   `json:"concept"`
	Measure string   `json:"measure"`
	Min     *float64 `json:"min,omitempty"`
	Max     *float64 `json:"max,omitempty"`
	Unit    string   `json:"unit"`
	Source  string   `json:"source"`
}

// DefinitionsOf returns the definitions over a measured concept.
func (h *Hierarchy) DefinitionsOf(measure string) []Definition {
	if h == nil {
		return nil
	}
	var out []Definition
	m := NormalizeName(measure)
	for _, d := range h.Definitions {
		if NormalizeName(d.Measure) == m {
			out = append(out, d)
		}
	}
	return out
}

// ParseHierarchy decodes and indexes a hierarchy file; a cycle is an error.
func ParseHierarchy(name string, data []byte) (*Hierarchy, error) {
	var h Hierarchy
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	direct := map[string][]string{}
	for i, r := range h.Relations {
		n, b := NormalizeName(r.Narrower), NormalizeName(r.Broader)
		if n == "" || b == "" || n == b {
			return nil, fmt.Errorf("%s: relations[%d]: narrower and broader must be two different concept names", name, i)
		}
		direct[n] = append(direct[n], b)
	}
	for i, d := range h.Definitions {
		if NormalizeName(d.Concept) == "" || NormalizeName(d.Measure) == "" || NormalizeName(d.Concept) == NormalizeName(d.Measure) {
			return nil, fmt.Errorf("%s: definitions[%d]: concept and measure must be two different concept names", name, i)
		}
		if d.Min == nil && d.Max == nil || d.Min != nil && d.Max != nil && *d.Min > *d.Max {
			return nil, fmt.Errorf("%s: definitions[%d] (%s): give min and/or max, with min <= max", name, i, d.Concept)
		}
		if strings.TrimSpace(d.Unit) == "" || strings.TrimSpace(d.Source) == "" {
			return nil, fmt.Errorf("%s: definitions[%d] (%s): unit and source are required", name, i, d.Concept)
		}
	}
	h.up, h.down = map[string][]string{}, map[string][]string{}
	for n := range direct {
		seen := map[string]bool{}
		var walk func(x string, depth int) error
		walk = func(x string, depth int) error {
			if depth > len(direct)+1 {
				return fmt.Errorf("%s: the relations of %q form a cycle", name, n)
			}
			for _, b := range direct[x] {
				if b == n {
					return fmt.Errorf("%s: the relations of %q form a cycle", name, n)
				}
				if !seen[b] {
					seen[b] = true
					if err := walk(b, depth+1); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if err := walk(n, 0); err != nil {
			return nil, err
		}
		for b := range seen {
			h.up[n] = append(h.up[n], b)
			h.down[b] = append(h.down[b], n)
		}
	}
	for _, m := range []map[string][]string{h.up, h.down} {
		for k := range m {
			sort.Strings(m[k])
		}
	}
	return &h, nil
}

// Broader returns every concept name the given one is a kind of
// (transitively), normalised.
func (h *Hierarchy) Broader(concept string) []string {
	if h == nil {
		return nil
	}
	return h.up[NormalizeName(concept)]
}

// Narrower returns every concept name that is a kind of the given one.
func (h *Hierarchy) Narrower(concept string) []string {
	if h == nil {
		return nil
	}
	return h.down[NormalizeName(concept)]
}

// Check reports relation names that are not concepts of the pack.
func (h *Hierarchy) Check(p *Pack) []string {
	names := map[string]bool{}
	for _, r := range p.Rules() {
		for _, c := range r.Rule.Conditions {
			names[NormalizeName(c.Concept())] = true
		}
	}
	var bad []string
	for i, r := range h.Relations {
		for _, n := range []string{r.Narrower, r.Broader} {
			if !names[NormalizeName(n)] {
				bad = append(bad, fmt.Sprintf("relations[%d]: %q is not a concept of the pack", i, n))
			}
		}
	}
	for i, d := range h.Definitions {
		for _, n := range []string{d.Concept, d.Measure} {
			if !names[NormalizeName(n)] {
				bad = append(bad, fmt.Sprintf("definitions[%d]: %q is not a concept of the pack", i, n))
			}
		}
	}
	return bad
}
