package read_test

import (
	"testing"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
)

type stub struct {
	name   string
	checks consistency.Checks
}

func (s stub) Name() string                           { return s.name }
func (stub) Reads() read.Input                        { return read.Text }
func (stub) Emits() []patient.Kind                    { return []patient.Kind{patient.KindProblem} }
func (s stub) Satisfies(eval.Cond) consistency.Checks { return s.checks }

func TestRegistrySatisfied(t *testing.T) {
	g := read.Registry{}
	g.Add(stub{"a", consistency.Checks{Qualifier: true}}, stub{"b", consistency.Checks{}})
	for _, tc := range []struct {
		by, check string
		want      bool
	}{
		{"a", consistency.CheckQualifier, true},
		{"a", consistency.CheckNegation, false},
		{"b", consistency.CheckQualifier, false},
		{"", consistency.CheckQualifier, false},
		{"unknown", consistency.CheckQualifier, false},
		{"a", "no such check", false},
	} {
		if got := g.Satisfied(eval.Evidence{DerivedBy: tc.by}, tc.check, eval.Cond{}); got != tc.want {
			t.Errorf("Satisfied(%q, %q) = %v, want %v", tc.by, tc.check, got, tc.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("two readers of one name were registered")
		}
	}()
	g.Add(stub{name: "a"})
}

func TestFactMarksTheReader(t *testing.T) {
	f := read.Fact(stub{name: "a"}, patient.KindProblem, eval.Evidence{ID: "f1", Concept: "c", Via: "a: trace"}, patient.Span{Start: 1, End: 3})
	if f.Reader != "a" || f.DerivedBy != "a" || f.Kind != patient.KindProblem || len(f.Spans) != 1 || f.Via != "a: trace" {
		t.Errorf("Fact = %+v", f)
	}
	if es := read.Evidences([]patient.Fact{f}); len(es) != 1 || es[0].DerivedBy != "a" {
		t.Errorf("Evidences = %+v", es)
	}
}
