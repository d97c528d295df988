package engine

import (
	"fmt"
	"testing"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
)

// A condition is judged compiled from its own texts, whether it carries
// its compiled form (a rule's), is found by its decision id, or neither;
// a carried or remembered form of other texts is not used.
func TestCompileCond(t *testing.T) {
	var p Program
	c := eval.Cond{DecisionID: "r::g1::s1", Concept: "stable angina", Wording: "stable angina", Operator: "PRESENT"}
	want := p.compile(consistency.Condition{Concept: c.Concept, Wording: c.Wording, Operator: c.Operator})
	if got := p.compileCond(c); got != want {
		t.Fatalf("plain: got %p, want the one compiled form %p", got, want)
	}
	other := c
	other.Wording = "suspected stable angina" // same decision id, other texts
	if got := p.compileCond(other).Condition(); got.Wording != other.Wording {
		t.Errorf("remembered by id: judged as %q, want %q", got.Wording, other.Wording)
	}
	tagged := other
	tagged.Tag = &condForm{cond: want.Condition()} // carries the form of other texts
	if got := p.compileCond(tagged).Condition(); got.Wording != other.Wording {
		t.Errorf("tagged: judged as %q, want %q", got.Wording, other.Wording)
	}
	f := &condForm{cond: want.Condition()}
	c.Tag = f
	if got := p.compileCond(c); got != want {
		t.Errorf("tagged: got %p, want %p", got, want)
	}
	if f.cc.Load() != want {
		t.Errorf("tagged: the compiled form is not kept with the condition")
	}
}

func TestCowMap(t *testing.T) {
	var m cowMap[string, int]
	if _, ok := m.load("a"); ok {
		t.Fatal("empty map holds a")
	}
	if v := m.store("a", 1); v != 1 {
		t.Fatalf("store a = %d", v)
	}
	if v := m.store("a", 2); v != 1 {
		t.Errorf("second store a = %d, want the first value 1", v)
	}
	m.store("b", 3)
	if v, ok := m.load("a"); !ok || v != 1 {
		t.Errorf("load a = %d, %v", v, ok)
	}
	if v, ok := m.load("b"); !ok || v != 3 {
		t.Errorf("load b = %d, %v", v, ok)
	}
	// Past the pending entries the map is copied: all still found.
	for i := 0; i < 1000; i++ {
		if v := m.store(fmt.Sprint(i), i); v != i {
			t.Fatalf("store %d = %d", i, v)
		}
	}
	for i := 0; i < 1000; i++ {
		if v, ok := m.load(fmt.Sprint(i)); !ok || v != i {
			t.Fatalf("load %d = %d, %v", i, v, ok)
		}
	}
	if v, ok := m.load("a"); !ok || v != 1 {
		t.Errorf("load a after copies = %d, %v", v, ok)
	}
}
