package engine

import (
	"context"
	"sort"
	"testing"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// Withholding and derivation read one membership relation: the classes
// the deriver draws from one drug taken alone are exactly the concepts
// rules.Hierarchy.CountsAs gives for it, so an allergy to a class bars
// every drug the pack counts as one of it (clopidogrel is an antiplatelet
// therapy by definition, not by is-a).
func TestCountsAsIsWhatDerivationDraws(t *testing.T) {
	p, _ := readerProgram(t)
	var keys []string
	for k := range p.medications {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		t.Fatal("the pack has no medication concept")
	}
	for _, k := range keys {
		name := p.names[k]
		m := &patient.Model{CaseID: "counts-as", Source: "fhir", Date: "2026-12-01", Facts: []patient.Fact{{
			Evidence: eval.Evidence{ID: "f0", ConceptKey: k, Concept: name, Text: name, Present: true},
			Kind:     patient.KindMedication, Status: patient.StatusTaking, Certainty: patient.Confirmed, Experiencer: patient.Self, Reader: "test"}}}
		res, err := p.AskPatient(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, f := range res.Patient.Facts {
			if f.Reader == "derive" && f.Present && f.Kind == patient.KindMedication {
				got[rules.NormalizeName(f.Concept)] = true
			}
		}
		want := map[string]bool{}
		for _, c := range p.hierarchy.CountsAs(name) {
			if p.medications[p.keys[c]] {
				want[c] = true
			}
		}
		for c := range got {
			if !want[c] {
				t.Errorf("%s taken alone derives %q, which CountsAs does not give: withholding would not bar %s for an intolerance of %s (meta/hierarchy.json)", name, c, name, c)
			}
		}
		for c := range want {
			if !got[c] {
				t.Errorf("CountsAs(%s) gives %q, which derivation does not draw from %s alone (meta/hierarchy.json)", name, c, name)
			}
		}
	}
}

// A declared regimen's components are the concepts its all_of definition
// requires, where it has one: giving DAPT gives what DAPT is.
func TestComponentsMatchDefinitions(t *testing.T) {
	p, _ := readerProgram(t)
	h := p.hierarchy
	if len(h.Components) == 0 {
		t.Fatal("meta/hierarchy.json declares no components")
	}
	for _, c := range h.Components {
		for _, d := range h.Composites {
			if rules.NormalizeName(d.Concept) != rules.NormalizeName(c.Concept) || len(d.AllOf) == 0 {
				continue
			}
			var def []string
			for _, e := range d.AllOf {
				def = append(def, rules.NormalizeName(e.Concept))
			}
			got := h.ComponentsOf(c.Concept)
			sort.Strings(def)
			sort.Strings(got)
			if len(def) != len(got) {
				t.Errorf("components of %q are %v, its definition's all_of %v", c.Concept, got, def)
				continue
			}
			for i := range def {
				if def[i] != got[i] {
					t.Errorf("components of %q are %v, its definition's all_of %v", c.Concept, got, def)
					break
				}
			}
		}
	}
}
