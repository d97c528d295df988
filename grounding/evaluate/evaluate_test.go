package evaluate

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

func TestQueries(t *testing.T) {
	pack, err := rules.LoadFS(os.DirFS("../testdata/pack"), ".")
	if err != nil {
		t.Fatal(err)
	}
	lex, err := lexicon.Load("../testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	lex.Concepts = append(lex.Concepts, lexicon.Concept{Concept: "not in the pack", Synonyms: []string{"x"}})
	if err := lex.Reindex(); err != nil {
		t.Fatal(err)
	}
	recs := grounding.Records(pack, lex, false)
	qs, skipped := Queries(recs, lex)
	if skipped != 1 {
		t.Errorf("skipped %d lexicon concepts, want 1", skipped)
	}
	count := map[string]int{}
	for _, q := range qs {
		count[q.Kind]++
		if len(q.Targets) == 0 {
			t.Errorf("query %q has no target", q.Text)
		}
		if q.Text == "cardiac failure" && (len(q.Targets) != 1 || q.Targets[0] != "sct:84114007") {
			t.Errorf("synonym of a coded concept targets %v", q.Targets)
		}
		if q.Text == "HF" && q.Kind == KindWording && q.Targets[0] != "sct:84114007" {
			t.Errorf("wording targets %v", q.Targets)
		}
	}
	// 24 synonyms in the fixture lexicon; 11 conditions with 11 distinct wordings
	if count[KindSynonym] != 24 || count[KindWording] != 11 {
		t.Errorf("queries %v", count)
	}
}

func TestAccumulator(t *testing.T) {
	a := &acc{}
	an := func(keys ...string) []grounding.Anchor {
		var out []grounding.Anchor
		for _, k := range keys {
			out = append(out, grounding.Anchor{ConceptKey: k})
		}
		return out
	}
	a.add(an("x", "y", "z"), []string{"x"}, 3)      // rank 1
	a.add(an("y", "x"), []string{"x"}, 3)           // rank 2
	a.add(an("y", "z", "w", "x"), []string{"x"}, 3) // rank 4: not in top 3
	a.add(nil, []string{"x"}, 3)                    // nothing
	m := a.metrics()
	if m.N != 4 || m.Acc1 != 0.25 || m.Acc3 != 0.5 || m.Empty != 1 || m.Wrong3 != 2+1+3 {
		t.Errorf("metrics %+v", m)
	}
	if want := (1 + 0.5 + 0.25) / 4; m.MRR != want {
		t.Errorf("MRR %v, want %v", m.MRR, want)
	}
}

// TestPackFloors runs the benchmark on the shipped pack and lexicon with the
// built-in embedder and holds the measured quality (see README.md); the
// floors sit a few points under the measured values so that lexicon edits
// do not trip them, but a regression in grounding does.
func TestPackFloors(t *testing.T) {
	pack, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	lex, err := lexicon.Load("")
	if err != nil {
		t.Fatal(err)
	}
	g, err := grounding.New(grounding.Records(pack, lex, false))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	qs, _ := Queries(g.Records(), lex)
	rep, err := Run(context.Background(), g, qs, Config{Failures: 3})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rep.Print(&buf)
	t.Log("\n" + buf.String())
	thr := g.Threshold()
	guard := g.RetrieveDefaults().Guard
	get := func(kind, mode string, guard bool, method string) Metrics {
		r := rep.Find(kind, mode, guard, method, thr)
		if r == nil {
			t.Fatalf("no row %s %s %v %s", kind, mode, guard, method)
		}
		return r.Metrics
	}
	floors := []struct {
		kind, mode string
		acc1, acc3 float64
	}{
		{KindSynonym, ModeInIndex, 0.97, 0.97},
		{KindWording, ModeInIndex, 0.97, 0.97},
		{KindSynonym, ModeLeaveOneOut, 0.57, 0.75},
		{KindWording, ModeLeaveOneOut, 0.70, 0.85},
	}
	var scoreTop1, rrfTop1 float64
	for _, f := range floors {
		m := get(f.kind, f.mode, guard, MethodScoreCut)
		if m.Acc1 < f.acc1 || m.Acc3 < f.acc3 {
			t.Errorf("%s %s, default fusion: acc@1 %.3f acc@3 %.3f, floor %.2f / %.2f", f.kind, f.mode, m.Acc1, m.Acc3, f.acc1, f.acc3)
		}
		// the default keeps far fewer wrong anchors than RRF's fixed three
		if rrf := get(f.kind, f.mode, guard, grounding.MethodRRF); m.Wrong3 >= rrf.Wrong3*3/4 {
			t.Errorf("%s %s: score+cut keeps %d wrong anchors, RRF %d", f.kind, f.mode, m.Wrong3, rrf.Wrong3)
		}
		s, rrf := get(f.kind, f.mode, guard, grounding.MethodScore), get(f.kind, f.mode, guard, grounding.MethodRRF)
		scoreTop1 += s.Acc1 * float64(s.N)
		rrfTop1 += rrf.Acc1 * float64(rrf.N)
		// the guard removes wrong full-text anchors
		if on, off := get(f.kind, f.mode, true, grounding.MethodFullText), get(f.kind, f.mode, false, grounding.MethodFullText); on.Wrong3 >= off.Wrong3 {
			t.Errorf("%s %s: guard on %d wrong anchors, off %d", f.kind, f.mode, on.Wrong3, off.Wrong3)
		}
	}
	// over all queries, score fusion puts the right concept first at least
	// as often as RRF at the same anchor count
	if scoreTop1 < rrfTop1 {
		t.Errorf("score fusion right at rank 1 for %.0f queries, RRF for %.0f", scoreTop1, rrfTop1)
	}
	if !strings.Contains(buf.String(), "leave-one-out") {
		t.Error("report does not label leave-one-out rows")
	}
}
