package reproduce

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/analysis/baseline"
	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/reference"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/vignettes"
)

// oracle is a test-only arm that answers from the intended nodes with the
// reference's own evaluator, with a trace as the pipeline writes one (one
// finding per node, its own concept as the only anchor). drop removes the
// last predicted row of every case, to score a known number of misses.
type oracle struct {
	ix   *analysis.PackIndex
	drop bool
}

func (o *oracle) Name() string {
	if o.drop {
		return "oracle-minus-one"
	}
	return "oracle"
}

func (o *oracle) Predict(_ context.Context, vs []vignettes.Vignette) ([]engine.Result, error) {
	var out []engine.Result
	for _, v := range vs {
		res := engine.Result{CaseID: v.CaseID, Question: v.Question, PredictedRowIDs: []string{}}
		tr := &engine.Trace{TopK: 1, Checks: "none"}
		ev := reference.Evidence(v, nil)
		for i, n := range v.Intended {
			id := fmt.Sprintf("f%d", i)
			ev[i].ID = id
			start := strings.Index(v.Question, n.Text)
			res.Findings = append(res.Findings, engine.Finding{ID: id, Text: n.Text, Start: start, End: start + len(n.Text)})
			tr.Anchors = append(tr.Anchors, engine.FindingAnchors{FindingID: id, Query: n.Text,
				Anchors: []engine.AnchorInfo{{Rank: 1, ConceptKey: n.ConceptKey, Concept: n.Concept}}})
			res.Evidence = append(res.Evidence, engine.EvidenceItem{ID: id, Text: n.Text, Concept: n.Concept,
				ConceptKey: n.ConceptKey, Present: n.Present, Value: n.Value, Unit: n.Unit, Comparator: ev[i].Comparator, When: ev[i].When})
		}
		keys := map[string]bool{}
		for _, n := range v.Intended {
			keys[n.ConceptKey] = true
		}
		// The pack's is-a relations, as the pipeline and the reference
		// apply them; a worded member the reference refuses is a refusal
		// of the trace, so re-scoring it refuses the same member.
		refused := map[[2]string]bool{}
		ownName := func(c eval.Cond, e eval.Evidence) bool {
			if reference.OwnName(c, e) {
				return true
			}
			if k := [2]string{c.DecisionID, e.ID}; !refused[k] {
				refused[k] = true
				tr.Rejected = append(tr.Rejected, engine.Rejection{DecisionID: c.DecisionID, FindingID: e.ID, Check: "qualifier", Reason: "worded member"})
			}
			return false
		}
		for _, d := range eval.DeriveOpt(ev, o.ix.Pack.Hierarchy, o.ix.NameOfKey, o.ix.KeyOfName, eval.Options{Admit: ownName}) {
			ev = append(ev, d)
			keys[d.ConceptKey] = true
			res.Evidence = append(res.Evidence, engine.EvidenceItem{ID: d.ID, Text: d.Text, Concept: d.Concept,
				ConceptKey: d.ConceptKey, Present: d.Present, Via: d.Via, When: d.When})
		}
		for _, r := range o.ix.Rules {
			reach := false
			for _, c := range r.Conds {
				reach = reach || keys[c.ConceptKey]
			}
			if !reach {
				continue
			}
			res.RetrievedRules = append(res.RetrievedRules, r.ID)
			rr := evaluate(r, ev)
			tr.Rules = append(tr.Rules, analysis.RuleTraceOf(rr))
			if rr.Fired() && !contains(res.PredictedRowIDs, r.RowID) {
				res.PredictedRowIDs = append(res.PredictedRowIDs, r.RowID)
			}
		}
		if o.drop && len(res.PredictedRowIDs) > 0 {
			res.PredictedRowIDs = res.PredictedRowIDs[:len(res.PredictedRowIDs)-1]
		}
		res.Trace = tr
		out = append(out, res)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func shipped(t *testing.T) Config {
	t.Helper()
	p, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	vs, err := vignettes.Default()
	if err != nil {
		t.Fatal(err)
	}
	ex, err := vignettes.DefaultExcluded()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := reference.Default()
	if err != nil {
		t.Fatal(err)
	}
	merged, err := reference.DefaultMerged()
	if err != nil {
		t.Fatal(err)
	}
	eq, err := reference.DefaultEquivalences()
	if err != nil {
		t.Fatal(err)
	}
	return Config{Pack: p, Vignettes: vs, Excluded: ex.Excluded, Reference: ref, Merged: merged, Equivalences: eq, TopK: []int{1}}
}

func TestOracleScoresPerfectly(t *testing.T) {
	cfg := shipped(t)
	ix := analysis.NewPackIndex(cfg.Pack)
	cfg.Ours = &oracle{ix: ix}
	cfg.Others = []analysis.Arm{&oracle{ix: ix, drop: true}}
	out, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := out.Numbers
	pairs := reference.Pairs(cfg.Reference)
	o := n.Arms[0]
	if o.TP != pairs || o.FP != 0 || o.FN != 0 || o.F1 != 1 || o.Exact != len(cfg.Vignettes) || o.Unsupported != 0 || o.Abstention != o.EmptyReference {
		t.Fatalf("oracle: %+v (reference pairs %d)", o, pairs)
	}
	// The degraded oracle misses exactly one row per non-empty vignette.
	nonEmpty := len(cfg.Vignettes) - o.EmptyReference
	d := n.Arms[1]
	if d.FN != nonEmpty || d.FP != 0 || d.TP != pairs-nonEmpty || d.Exact != o.EmptyReference {
		t.Fatalf("degraded: %+v, want FN %d", d, nonEmpty)
	}
	// McNemar: the oracle alone is exact on every non-empty vignette.
	m := n.McNemar[0]
	if m.OnlyA != nonEmpty || m.OnlyB != 0 || m.P != analysis.McNemarExact(nonEmpty, 0) {
		t.Fatalf("mcnemar %+v", m)
	}
	// No errors, full self-consistency of the trace, and every error
	// category empty.
	if len(out.Errors) != 0 || n.Ours.Errors.FP != 0 || n.Ours.Errors.FN != 0 {
		t.Fatalf("oracle has errors: %+v", out.Errors)
	}
	if len(n.Ours.TopK) != 1 || n.Ours.TopK[0].Stats.SelfCheckMismatches != 0 || n.Ours.TopK[0].Score.F1 != 1 {
		t.Fatalf("re-scoring: %+v", n.Ours.TopK)
	}
	if n.Reference.Pairs != pairs || !n.Vignettes.Valid || n.Vignettes.CoveredConcepts != n.Vignettes.UsableConcepts {
		t.Fatalf("inputs: %+v %+v", n.Reference, n.Vignettes)
	}
	// The table names both arms and the McNemar result.
	var b bytes.Buffer
	PrintTable(&b, &n)
	PrintDetails(&b, &n)
	for _, want := range []string{"oracle-minus-one", fmt.Sprintf("%d / 0 / 0", pairs), fmt.Sprintf("%d / 0, p = ", nonEmpty)} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	// The numbers document is plain JSON.
	if _, err := json.Marshal(n); err != nil {
		t.Fatal(err)
	}
}

func TestChecksStopTheRun(t *testing.T) {
	cfg := shipped(t)
	cfg.Ours = &oracle{ix: analysis.NewPackIndex(cfg.Pack)}
	// A stored reference that lost a row.
	bad := append([]reference.Case(nil), cfg.Reference...)
	for i := range bad {
		if len(bad[i].RowIDs) > 0 {
			bad[i].RowIDs = bad[i].RowIDs[1:]
			break
		}
	}
	c := cfg
	c.Reference = bad
	if _, err := Run(context.Background(), c); err == nil || !strings.Contains(err.Error(), "recomputed adds") {
		t.Fatalf("tampered reference: err = %v", err)
	}
	// A vignette that breaks the style.
	vs := append([]vignettes.Vignette(nil), cfg.Vignettes...)
	vs[0].Question = "Man with " + vs[0].Question
	c = cfg
	c.Vignettes = vs
	if _, err := Run(context.Background(), c); err == nil || !strings.Contains(err.Error(), "must start with") {
		t.Fatalf("bad vignette: err = %v", err)
	}
}

func TestBaselineSnapshot(t *testing.T) {
	cfg := shipped(t)
	snap, path := analysis.DefaultSnapshot()
	bc := BaselineConfig{Embedder: embed.NewBuiltin(0), Generator: baseline.DefaultMargin, Snapshot: snap, SnapshotPath: path}
	arm, num, fresh, err := BuildBaseline(context.Background(), cfg.Pack, cfg.Vignettes, bc)
	if err != nil {
		t.Fatalf("shipped snapshot: %v", err)
	}
	if fresh != nil || num.K != baseline.DefaultK || len(arm.Snapshot) != len(cfg.Vignettes) {
		t.Fatalf("baseline %+v", num)
	}
	// Refreshing reproduces the shipped bytes.
	bc.Refresh = true
	_, _, fresh, err = BuildBaseline(context.Background(), cfg.Pack, cfg.Vignettes, bc)
	if err != nil || !bytes.Equal(fresh, snap) {
		t.Fatalf("refreshed snapshot differs from the shipped one (run `execkg reproduce --refresh-snapshot`): %v", err)
	}
	// A snapshot whose rows differ is stale.
	rs, _ := baseline.DecodeSnapshot("s", bytes.NewReader(snap))
	rs[3].RowIDs[0], rs[3].RowIDs[1] = rs[3].RowIDs[1], rs[3].RowIDs[0]
	bad, _ := baseline.MarshalSnapshot(rs)
	bc.Refresh, bc.Snapshot = false, bad
	if _, _, _, err := BuildBaseline(context.Background(), cfg.Pack, cfg.Vignettes, bc); err == nil || !strings.Contains(err.Error(), "stale") {
		t.Fatalf("stale snapshot: err = %v", err)
	}
	// Every retrieved list holds 12 distinct rows, best first.
	for _, r := range arm.Snapshot {
		seen := map[string]bool{}
		for i, id := range r.RowIDs {
			if seen[id] || (i > 0 && r.Scores[i] > r.Scores[i-1]) || math.IsNaN(r.Scores[i]) {
				t.Fatalf("%s: rows %v scores %v", r.CaseID, r.RowIDs, r.Scores)
			}
			seen[id] = true
		}
	}
}

func TestFormatP(t *testing.T) {
	for p, want := range map[float64]string{1: "1.000", 0.0123: "0.012", 2 * math.Pow(0.5, 49): "3.55e-15", 0: "0"} {
		if got := FormatP(p); got != want {
			t.Errorf("FormatP(%g) = %q, want %q", p, got, want)
		}
	}
}
