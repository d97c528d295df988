package analysis

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/reference"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/vignettes"
)

func testIndex(t *testing.T) *PackIndex {
	t.Helper()
	p, err := rules.LoadFS(os.DirFS("testdata"), "pack")
	if err != nil {
		t.Fatal(err)
	}
	return NewPackIndex(p)
}

func key(name string) string { return "name:" + rules.NormalizeName(name) }

func row(n int) string { return rules.RowID("table_01.json", n) }

func decision(n, step int) string {
	return rules.DecisionID(rules.RuleID("TEST_PACK", row(n), 0), 1, step)
}

// sim plays the pipeline's steps (iii)–(vi) on hand-written findings,
// anchors and evidence, producing the trace the engine would store.
type sim struct {
	question string
	findings []string         // finding texts, ids f0, f1, …
	anchors  map[int][]string // finding → concept names, best first
	evidence []engine.EvidenceItem
	rejected [][2]string // (decision id, finding id)
	closed   bool
	topK     int
	err      string
}

func ev(finding int, concept string, present bool, value *float64, unit string) engine.EvidenceItem {
	return engine.EvidenceItem{ID: fid(finding), Concept: concept, ConceptKey: key(concept), Present: present, Value: value, Unit: unit}
}

func fid(i int) string { return "f" + string(rune('0'+i)) }

func (s sim) run(t *testing.T, ix *PackIndex, caseID string) engine.Result {
	t.Helper()
	res := engine.Result{CaseID: caseID, Question: s.question, Error: s.err}
	if s.err != "" {
		return res
	}
	tr := &engine.Trace{ClosedWorld: s.closed, TopK: s.topK, Checks: "test"}
	keys := map[string]bool{}
	for i, text := range s.findings {
		start := strings.Index(s.question, text)
		end := -1
		if start >= 0 {
			end = start + len(text)
		}
		res.Findings = append(res.Findings, engine.Finding{ID: fid(i), Text: text, Start: start, End: end})
		fa := engine.FindingAnchors{FindingID: fid(i), Query: text}
		for r, c := range s.anchors[i] {
			fa.Anchors = append(fa.Anchors, engine.AnchorInfo{Rank: r + 1, ConceptKey: key(c), Concept: c})
			keys[key(c)] = true
		}
		tr.Anchors = append(tr.Anchors, fa)
	}
	res.Evidence = s.evidence
	var evs []eval.Evidence
	for _, it := range s.evidence {
		evs = append(evs, EvalEvidence(it))
	}
	rej := map[[2]string]bool{}
	for _, r := range s.rejected {
		rej[r] = true
		tr.Rejected = append(tr.Rejected, engine.Rejection{DecisionID: r[0], FindingID: r[1], Check: "certainty", Reason: "test rejection"})
	}
	opt := eval.Options{ClosedWorld: s.closed, Admit: func(c eval.Cond, e eval.Evidence) bool { return !rej[[2]string{c.DecisionID, e.ID}] }}
	res.PredictedRowIDs = []string{}
	for _, r := range ix.Rules {
		reach := false
		for _, c := range r.Conds {
			reach = reach || keys[c.ConceptKey]
		}
		if !reach {
			continue
		}
		res.RetrievedRules = append(res.RetrievedRules, r.ID)
		res.RetrievedRowIDs = append(res.RetrievedRowIDs, r.RowID)
		rr := eval.EvaluateRule(r, evs, opt)
		tr.Rules = append(tr.Rules, RuleTraceOf(rr))
		if rr.Fired() {
			res.PredictedRowIDs = append(res.PredictedRowIDs, r.RowID)
		}
	}
	res.Trace = tr
	return res
}

func vig(caseID, question string, nodes ...vignettes.Node) vignettes.Vignette {
	for i := range nodes {
		if nodes[i].Text == "" {
			nodes[i].Text = nodes[i].Concept
		}
		nodes[i].ConceptKey = key(nodes[i].Concept)
	}
	return vignettes.Vignette{CaseID: caseID, Category: vignettes.Near, Question: question, Intended: nodes}
}

func present(concept string) vignettes.Node {
	return vignettes.Node{Concept: concept, Operator: rules.OpPresent, Present: true}
}

func value(concept string, v float64, unit, text string) vignettes.Node {
	return vignettes.Node{Concept: concept, Operator: rules.OpEQ, Present: true, Value: &v, Unit: unit, Text: text}
}

func f64(x float64) *float64 { return &x }

// The base case: finding a, finding b and an LVEF of 35%; reference rows 0
// and 3. "finding a" also grounds to c (rank 2) and "finding b" to c
// first and b second; step (v) rejected f1 for c.
func baseCase() (vignettes.Vignette, sim) {
	q := "Patient with finding a, finding b and an LVEF of 35%."
	v := vig("near_001", q, present("finding a"), present("finding b"), value("left ventricular ejection fraction", 35, "%", "an LVEF of 35%"))
	s := sim{question: q, topK: 2,
		findings: []string{"finding a", "finding b", "LVEF of 35%"},
		anchors:  map[int][]string{0: {"finding a", "finding c"}, 1: {"finding c", "finding b"}, 2: {"left ventricular ejection fraction"}},
		evidence: []engine.EvidenceItem{
			ev(0, "finding a", true, nil, ""), ev(0, "finding c", true, nil, ""),
			ev(1, "finding c", true, nil, ""), ev(1, "finding b", true, nil, ""),
			ev(2, "left ventricular ejection fraction", true, f64(35), "%"),
		},
		rejected: [][2]string{{decision(1, 1), "f1"}},
	}
	return v, s
}

func gold(t *testing.T, ix *PackIndex, vs ...vignettes.Vignette) []GoldCase {
	t.Helper()
	var out []GoldCase
	for _, c := range reference.Compute(ix.Pack, vs, nil) {
		out = append(out, GoldCase{CaseID: c.CaseID, Category: vignettes.Near, RowIDs: c.RowIDs})
	}
	return out
}

func TestRescoreTopK(t *testing.T) {
	ix := testIndex(t)
	v, s := baseCase()
	res := s.run(t, ix, v.CaseID)
	if want := []string{row(0), row(1), row(3)}; !reflect.DeepEqual(res.PredictedRowIDs, want) {
		t.Fatalf("simulated run predicts %v, want %v", res.PredictedRowIDs, want)
	}
	// k = 2 is the trace's own setting: nothing changes.
	same, un, err := Rescore(ix, res, 2)
	if err != nil || un != 0 || !reflect.DeepEqual(same.PredictedRowIDs, res.PredictedRowIDs) {
		t.Fatalf("k=2: %v (unattributed %d), %v", same.PredictedRowIDs, un, err)
	}
	// k = 1 keeps a (f0), c (f1) and LVEF: row 0 loses b, row 1 loses
	// its only admissible evidence (f0's c is rank 2; f1's c was
	// rejected), row 3 still holds.
	one, _, err := Rescore(ix, res, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{row(3)}; !reflect.DeepEqual(one.PredictedRowIDs, want) {
		t.Fatalf("k=1 predicts %v, want %v", one.PredictedRowIDs, want)
	}
	if len(one.Evidence) != 3 || one.Trace.TopK != 1 || len(one.Trace.Anchors[1].Anchors) != 1 {
		t.Fatalf("k=1 kept %d evidence items, topk %d", len(one.Evidence), one.Trace.TopK)
	}
	// Row 4 (heart failure) was never retrievable; rows 0, 1, 3 stay
	// retrieved at k=1 because a, c and LVEF anchors remain.
	if want := []string{rules.RuleID("TEST_PACK", row(0), 0), rules.RuleID("TEST_PACK", row(1), 0), rules.RuleID("TEST_PACK", row(3), 0)}; !reflect.DeepEqual(one.RetrievedRules, want) {
		t.Fatalf("k=1 retrieved %v", one.RetrievedRules)
	}
	if _, _, err := Rescore(ix, res, 3); err == nil || !strings.Contains(err.Error(), "cannot re-score with 3") {
		t.Fatalf("k above the trace: err = %v", err)
	}
	untraced := res
	untraced.Trace = nil
	if _, _, err := Rescore(ix, untraced, 1); err == nil || !strings.Contains(err.Error(), "no trace") {
		t.Fatalf("untraced: err = %v", err)
	}
	all, st, err := RescoreAll(ix, []engine.Result{res}, 1)
	if err != nil || st.SelfCheckMismatches != 0 || st.Cases != 1 || len(all[0].PredictedRowIDs) != 1 {
		t.Fatalf("RescoreAll: %+v, %v", st, err)
	}
	// Scoring the two settings against the reference (rows 0 and 3).
	g := gold(t, ix, v)
	s2, _ := Score("k2", g, []engine.Result{res})
	s1, _ := Score("k1", g, all)
	if s2.TP != 2 || s2.FP != 1 || s2.FN != 0 || s1.TP != 1 || s1.FP != 0 || s1.FN != 1 {
		t.Fatalf("k2 %d/%d/%d, k1 %d/%d/%d; want 2/1/0 and 1/0/1", s2.TP, s2.FP, s2.FN, s1.TP, s1.FP, s1.FN)
	}
}

func TestErrorCategories(t *testing.T) {
	ix := testIndex(t)
	type tc struct {
		name string
		make func() (vignettes.Vignette, sim)
		k    int // re-score first when > 0
		want []ErrorRow
	}
	cases := []tc{
		{"near-miss anchor supports an FP", baseCase, 0,
			[]ErrorRow{{RowID: row(1), Kind: "FP", Category: CatGrounding}}},
		{"fewer anchors lose a needed concept", baseCase, 1,
			[]ErrorRow{{RowID: row(0), Kind: "FN", Category: CatGrounding}}},
		{"closed world makes an unmentioned ABSENT true", func() (vignettes.Vignette, sim) {
			q := "Patient with heart failure, finding a and finding b."
			v := vig("near_002", q, present("heart failure"), present("finding a"), present("finding b"))
			s := sim{question: q, topK: 2, closed: true, findings: []string{"heart failure", "finding a", "finding b"},
				anchors:  map[int][]string{0: {"heart failure", "finding x"}, 1: {"finding a"}, 2: {"finding b"}},
				evidence: []engine.EvidenceItem{ev(0, "heart failure", true, nil, ""), ev(1, "finding a", true, nil, ""), ev(2, "finding b", true, nil, "")}}
			return v, s
		}, 0, []ErrorRow{{RowID: row(2), Kind: "FP", Category: CatClosedWorld}}},
		{"words of a condition stated outside the intended nodes", func() (vignettes.Vignette, sim) {
			q := "Patient with finding a, finding b and an LVEF of 35% from heart failure."
			v := vig("near_003", q, present("finding a"), present("finding b"), value("left ventricular ejection fraction", 35, "%", "an LVEF of 35% from heart failure"))
			s := sim{question: q, topK: 1, findings: []string{"finding a", "finding b", "LVEF of 35%", "heart failure"},
				anchors: map[int][]string{0: {"finding a"}, 1: {"finding b"}, 2: {"left ventricular ejection fraction"}, 3: {"heart failure"}},
				evidence: []engine.EvidenceItem{ev(0, "finding a", true, nil, ""), ev(1, "finding b", true, nil, ""),
					ev(2, "left ventricular ejection fraction", true, f64(35), "%"), ev(3, "heart failure", true, nil, "")}}
			return v, s
		}, 0, []ErrorRow{{RowID: row(4), Kind: "FP", Category: CatStated}}},
		{"a needed clause no finding covers", func() (vignettes.Vignette, sim) {
			v, s := baseCase()
			s.findings = []string{"finding a", "zzz", "LVEF of 35%"}
			s.anchors = map[int][]string{0: {"finding a"}, 2: {"left ventricular ejection fraction"}}
			s.evidence = []engine.EvidenceItem{ev(0, "finding a", true, nil, ""), ev(2, "left ventricular ejection fraction", true, f64(35), "%")}
			s.rejected = nil
			return v, s
		}, 0, []ErrorRow{{RowID: row(0), Kind: "FN", Category: CatExtraction}}},
		{"a value read wrongly", func() (vignettes.Vignette, sim) {
			v, s := baseCase()
			s.evidence[4] = ev(2, "left ventricular ejection fraction", true, f64(53), "%")
			s.anchors = map[int][]string{0: {"finding a"}, 1: {"finding b"}, 2: {"left ventricular ejection fraction"}}
			s.evidence = []engine.EvidenceItem{s.evidence[0], s.evidence[3], s.evidence[4]}
			s.rejected = nil
			return v, s
		}, 0, []ErrorRow{{RowID: row(3), Kind: "FN", Category: CatNormalisation}}},
		{"step (v) rejected a needed finding", func() (vignettes.Vignette, sim) {
			v, s := baseCase()
			s.anchors = map[int][]string{0: {"finding a"}, 1: {"finding b"}, 2: {"left ventricular ejection fraction"}}
			s.evidence = []engine.EvidenceItem{s.evidence[0], s.evidence[3], s.evidence[4]}
			s.rejected = [][2]string{{decision(0, 2), "f1"}}
			return v, s
		}, 0, []ErrorRow{{RowID: row(0), Kind: "FN", Category: CatCertainty}}},
		{"an uncertain mention step (v) would block", func() (vignettes.Vignette, sim) {
			q := "Patient with finding a, finding b and suspected finding c."
			v := vig("near_004", q, present("finding a"), present("finding b"))
			s := sim{question: q, topK: 1, findings: []string{"finding a", "finding b", "suspected finding c"},
				anchors:  map[int][]string{0: {"finding a"}, 1: {"finding b"}, 2: {"finding c"}},
				evidence: []engine.EvidenceItem{ev(0, "finding a", true, nil, ""), ev(1, "finding b", true, nil, ""), ev(2, "finding c", true, nil, "")}}
			return v, s
		}, 0, []ErrorRow{{RowID: row(1), Kind: "FP", Category: CatCertainty}}},
		{"a failed case", func() (vignettes.Vignette, sim) {
			v, s := baseCase()
			s.err = "formatter timed out"
			return v, s
		}, 0, []ErrorRow{{RowID: row(0), Kind: "FN", Category: CatFailed}, {RowID: row(3), Kind: "FN", Category: CatFailed}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, s := c.make()
			res := s.run(t, ix, v.CaseID)
			if c.k > 0 {
				var err error
				if res, _, err = Rescore(ix, res, c.k); err != nil {
					t.Fatal(err)
				}
			}
			prog, err := engine.New(context.Background(), ix.Pack)
			if err != nil {
				t.Fatal(err)
			}
			defer prog.Close()
			rows := NewAnalyzer(ix, prog).Analyze([]vignettes.Vignette{v}, gold(t, ix, v), []engine.Result{res})
			if len(rows) != len(c.want) {
				t.Fatalf("errors %+v, want %+v", rows, c.want)
			}
			for i, w := range c.want {
				g := rows[i]
				if g.RowID != w.RowID || g.Kind != w.Kind || g.Category != w.Category || g.CaseID != v.CaseID || g.Detail == "" {
					t.Errorf("error %d = %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

func TestCoverageAndStepV(t *testing.T) {
	ix := testIndex(t)
	v, s := baseCase()
	res := s.run(t, ix, v.CaseID)
	cov := ConditionCoverage(ix, []engine.Result{res})
	// Rules 0, 1, 3 evaluated and fired; rules 2 and 4 never retrieved.
	if cov.RulesEvaluated != 3 || cov.RulesFired != 3 || cov.Conditions != 6 || cov.EverEvaluated != 4 || cov.EverTrue != 4 || cov.EverFalse != 0 {
		t.Fatalf("coverage %+v", cov)
	}
	if c := cov.Rules[0].Conditions[1]; c.DecisionID != decision(0, 2) || c.True != 1 {
		t.Fatalf("row 0 condition 2: %+v", c)
	}
	// Step (v) blocked b in a run where it is the only support of row 0.
	_, s2 := baseCase()
	s2.anchors = map[int][]string{0: {"finding a"}, 1: {"finding b"}, 2: {"left ventricular ejection fraction"}}
	s2.evidence = []engine.EvidenceItem{s2.evidence[0], s2.evidence[3], s2.evidence[4]}
	s2.rejected = [][2]string{{decision(0, 2), "f1"}}
	r2 := s2.run(t, ix, v.CaseID)
	st := StepV(ix, gold(t, ix, v), []engine.Result{r2})
	if st.BlockedPairs != 1 || st.BlockedReferencePairs != 1 {
		t.Fatalf("step (v) stats %+v, want 1 blocked reference pair", st)
	}
	cov2 := ConditionCoverage(ix, []engine.Result{r2})
	if c := cov2.Rules[0].Conditions[1]; c.Unknown != 1 || c.True != 0 {
		t.Fatalf("blocked condition coverage %+v", c)
	}
}

func TestErrorCSV(t *testing.T) {
	b, err := ErrorCSV([]ErrorRow{{CaseID: "near_001", RowID: "t.json::row_1", Kind: "FP", Category: CatGrounding, Detail: `finding "x", grounded`}})
	if err != nil {
		t.Fatal(err)
	}
	want := "case_id,row_id,kind,category,detail\nnear_001,t.json::row_1,FP,near-miss-grounding,\"finding \"\"x\"\", grounded\"\n"
	if string(b) != want {
		t.Fatalf("csv:\n%s\nwant\n%s", b, want)
	}
	counts := CountErrors([]ErrorRow{{Kind: "FP", Category: CatStated}, {Kind: "FP", Category: CatStated}, {Kind: "FN", Category: CatExtraction}})
	if counts["FP"][CatStated] != 2 || counts["FN"][CatExtraction] != 1 {
		t.Fatalf("counts %v", counts)
	}
}
