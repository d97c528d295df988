package docbench

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/vignettes/documents"
)

func index(t *testing.T) *analysis.PackIndex {
	t.Helper()
	p, err := rules.LoadFS(packs.FS(), packs.DefaultDir)
	require.NoError(t, err)
	return analysis.NewPackIndex(p)
}

// pickRule returns the first rule of the pack that ok accepts.
func pickRule(t *testing.T, ix *analysis.PackIndex, ok func(eval.Rule) bool) eval.Rule {
	t.Helper()
	for _, r := range ix.Rules {
		if ok(r) {
			return r
		}
	}
	t.Fatal("no rule of the pack fits the test")
	return eval.Rule{}
}

func singlePresent(r eval.Rule) bool {
	return len(r.Conds) == 1 && rules.NormalizeOperator(r.Conds[0].Operator) == rules.OpPresent
}

func TestTallies(t *testing.T) {
	ix := index(t)
	k := NewKnowledge(ix, nil, nil)
	docs := []documents.Document{
		{DocID: "a", Style: "report", Must: []string{"table_01.json::row_0", "table_02.json::row_0"}, MustNot: []string{"table_03.json::row_0"}},
		{DocID: "b", Style: "report", MustNot: []string{"table_04.json::row_0"}},
		{DocID: "c", Style: "heart_team", Must: []string{"table_05.json::row_0"}},
	}
	results := []engine.Result{
		{CaseID: "a", PredictedRowIDs: []string{"table_01.json::row_0", "table_03.json::row_0"}},
		{CaseID: "b", PredictedRowIDs: []string{}},
		{CaseID: "c", PredictedRowIDs: []string{"table_05.json::row_0", "table_06.json::row_0"}},
	}
	s := k.Run("dev", docs, results)
	require.Equal(t, Tally{Docs: 3, MustHit: 2, Must: 3, Violated: 1, MustNot: 2, Clean: 2, Exact: 1, MustRecall: 2.0 / 3, MustNotRate: 0.5}, s.Total)
	require.Equal(t, []string{"report", "heart_team"}, []string{s.ByStyle[0].Name, s.ByStyle[1].Name})
	require.Equal(t, 2, s.ByStyle[0].Docs)
	require.InDelta(t, 2.0/3, s.Total.Recall(), 1e-9)
	require.InDelta(t, 0.5, s.Total.ViolationRate(), 1e-9)
	require.Len(t, s.Errors, 2)
	require.Equal(t, "miss", s.Errors[0].Kind)
	require.Equal(t, "violation", s.Errors[1].Kind)
	for _, g := range s.ByTable {
		if g.Name == "table_03.json" {
			require.Equal(t, 1, g.Violated)
		}
	}
}

func TestMissAttributedToConsistency(t *testing.T) {
	ix := index(t)
	r := pickRule(t, ix, singlePresent)
	c := r.Conds[0]
	res := &engine.Result{CaseID: "d",
		Findings: []engine.Finding{{ID: "f0", Text: "no " + c.Concept}},
		Evidence: []engine.EvidenceItem{{ID: "f0", ConceptKey: c.ConceptKey, Concept: c.Concept, Present: true}},
		Trace:    &engine.Trace{Rejected: []engine.Rejection{{DecisionID: c.DecisionID, FindingID: "f0", Check: "negation", Reason: "negated"}}}}
	k := NewKnowledge(ix, nil, nil)
	st, why := k.miss(documents.Document{DocID: "d", Text: "no " + c.Concept}, res, r.RowID)
	require.Equal(t, StageConsistency, st, why)
	require.Contains(t, why, "negation")
}

// Of two rejections, the one that alone fires the rule is named, not the
// first (a right rejection of a negated mention beside it).
func TestMissNamesTheRejectionThatFires(t *testing.T) {
	ix := index(t)
	r := pickRule(t, ix, singlePresent)
	c := r.Conds[0]
	res := &engine.Result{CaseID: "d",
		Findings: []engine.Finding{{ID: "f0", Text: "no " + c.Concept}, {ID: "f1", Text: "possible " + c.Concept}},
		Evidence: []engine.EvidenceItem{{ID: "f0", ConceptKey: c.ConceptKey, Concept: c.Concept, Present: false},
			{ID: "f1", ConceptKey: c.ConceptKey, Concept: c.Concept, Present: true}},
		Trace: &engine.Trace{Rejected: []engine.Rejection{
			{DecisionID: c.DecisionID, FindingID: "f0", Check: "negation", Reason: "negated"},
			{DecisionID: c.DecisionID, FindingID: "f1", Check: "certainty", Reason: "uncertain"}}}}
	k := NewKnowledge(ix, nil, nil)
	st, why := k.miss(documents.Document{DocID: "d", Text: "no " + c.Concept + ". possible " + c.Concept}, res, r.RowID)
	require.Equal(t, StageConsistency, st, why)
	require.Contains(t, why, "certainty check rejected")
}

// An alternative reading of a finding (Secondary) is no fact in the
// pipeline, so a rule it alone would fire was not stopped by step (v): the
// miss is explained without it.
func TestSecondaryReadingIsNoEvidenceOfAMiss(t *testing.T) {
	ix := index(t)
	r := pickRule(t, ix, singlePresent)
	c := r.Conds[0]
	res := &engine.Result{CaseID: "d", Trace: &engine.Trace{},
		Findings: []engine.Finding{{ID: "f0", Text: "zzq"}},
		Evidence: []engine.EvidenceItem{{ID: "f0", ConceptKey: c.ConceptKey, Concept: c.Concept, Present: true, Secondary: true}}}
	k := NewKnowledge(ix, nil, nil)
	st, why := k.miss(documents.Document{DocID: "d", Text: "zzq"}, res, r.RowID)
	require.NotEqual(t, StageConsistency, st, why)
	require.NotContains(t, why, "step (v)")
}

func TestMissAttributedByWhatTheTextStates(t *testing.T) {
	ix := index(t)
	r := pickRule(t, ix, singlePresent)
	c := r.Conds[0]
	k := NewKnowledge(ix, func(string) []string { return []string{"zzq synonym"} }, nil)
	empty := &engine.Result{CaseID: "d", Trace: &engine.Trace{}}

	// Stated in a synonym, no finding carries it: reading.
	st, why := k.miss(documents.Document{Text: "Known zzq synonym since 2019."}, empty, r.RowID)
	require.Equal(t, StageReading, st, why)

	// A finding states it but has no anchor for it: grounding.
	withFinding := &engine.Result{CaseID: "d", Trace: &engine.Trace{}, Findings: []engine.Finding{{ID: "f0", Text: "zzq synonym"}}}
	st, why = k.miss(documents.Document{Text: "Known zzq synonym since 2019."}, withFinding, r.RowID)
	require.Equal(t, StageGrounding, st, why)

	// Not stated, but the pack derives the concept: derivation.
	kd := NewKnowledge(ix, nil, func(name string) bool { return name == c.Concept })
	st, why = kd.miss(documents.Document{Text: "Nothing relevant."}, empty, r.RowID)
	require.Equal(t, StageDerivation, st, why)

	// A failed case.
	st, _ = k.miss(documents.Document{}, &engine.Result{Error: "boom"}, r.RowID)
	require.Equal(t, StageFailed, st)
}

func TestWorkflowConditionIsEncoding(t *testing.T) {
	ix := index(t)
	k := NewKnowledge(ix, nil, nil)
	if len(k.workflow) == 0 {
		t.Skip("the pack has no workflow condition")
	}
	var dec string
	for d := range k.workflow {
		dec = d
		break
	}
	st, why := k.condFailure(documents.Document{Text: "x"}, &engine.Result{}, eval.ConditionResult{DecisionID: dec, Concept: "setting", Operator: "PRESENT", Truth: eval.Unknown})
	require.Equal(t, StageEncoding, st, why)
}

func TestViolationStages(t *testing.T) {
	ix := index(t)
	k := NewKnowledge(ix, nil, nil)
	rec := func(fc engine.FiredCond) *engine.Result {
		return &engine.Result{
			Findings:        []engine.Finding{{ID: "f0", Text: "type 2 diabetes"}},
			Recommendations: []engine.Recommendation{{RowID: "table_01.json::row_0", RuleID: "r", FiredBy: []engine.FiredCond{fc}}}}
	}
	st, _ := k.violation(documents.Document{}, rec(engine.FiredCond{Concept: "diabetes mellitus", Operator: "PRESENT",
		Evidence: []engine.EvidenceItem{{ID: "f0", Via: "is-a: type 2 diabetes"}}}), "table_01.json::row_0")
	require.Equal(t, StageDerivation, st)
	st, _ = k.violation(documents.Document{}, rec(engine.FiredCond{Concept: "heart failure", Operator: "PRESENT",
		Evidence: []engine.EvidenceItem{{ID: "f0", Text: "type 2 diabetes"}}}), "table_01.json::row_0")
	require.Equal(t, StageGrounding, st)
	st, _ = k.violation(documents.Document{}, rec(engine.FiredCond{Concept: "type 2 diabetes", Operator: "PRESENT",
		Evidence: []engine.EvidenceItem{{ID: "f0", Text: "type 2 diabetes"}}}), "table_01.json::row_0")
	require.Equal(t, StageConsistency, st)
	st, _ = k.violation(documents.Document{}, rec(engine.FiredCond{Concept: "heart failure", Operator: "ABSENT"}), "table_01.json::row_0")
	require.Equal(t, StageEvaluation, st)
}

func TestErrorCSV(t *testing.T) {
	b, err := ErrorCSV([]ErrorRow{{DocID: "a", Style: "report", RowID: "table_01.json::row_0", Kind: "miss", Stage: StageReading, Detail: `says "x", y`}})
	require.NoError(t, err)
	require.Equal(t, "doc_id,style,row_id,kind,stage,detail\na,report,table_01.json::row_0,miss,reading,\"says \"\"x\"\", y\"\n", string(b))
}
