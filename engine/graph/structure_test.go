package graph

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Structure checks shared by the memory and the Neo4j tests: the fixture
// pack testdata/mini, loaded into s, must give exactly these nodes, paths
// and bundles.

type wantRule struct {
	id        string
	leads     [][2]string // short decision ids
	results   []string
	decisions int
	actions   []wantAction
	recType   string
	direction string
}

type wantAction struct {
	rel, key, label, target, wording string
	pos                              int
}

func miniRules() []wantRule {
	oac := wantAction{RelRecommendsUsage, "sct:372862008", LabelMedication, LabelMedication, "oral anticoagulant", 0}
	rehab := wantAction{RelRecommendsProcedure, "name:cardiac rehabilitation", LabelUnresolvedConcept, LabelProcedure, "cardiac rehabilitation", 2}
	return []wantRule{
		{ // AND chain of three; two threshold checks share the LVEF concept
			id:    miniRule("table_01.json", 0, 0),
			leads: [][2]string{{"g1::s1", "g1::s2"}, {"g1::s2", "g1::s3"}}, results: []string{"g1::s3"}, decisions: 3,
			actions: []wantAction{{RelRecommendsUsage, "sct:33252009", LabelMedication, LabelMedication, "beta-blocker", 0}},
			recType: TypePrescription, direction: "POSITIVE",
		},
		{ // one OR group: parallel branches, each results in the recommendation; NEGATIVE
			id:    miniRule("table_01.json", 1, 0),
			leads: nil, results: []string{"g1::s1", "g1::s2", "g1::s3"}, decisions: 3,
			actions: []wantAction{{RelContraindicates, "name:coronary computed tomography angiography", LabelUnresolvedConcept, LabelProcedure, "CCTA", 0}},
			recType: TypeProcedure, direction: "NEGATIVE",
		},
		{ // AND group, then a final OR group: the chain end leads to every branch
			id:    miniRule("table_01.json", 2, 0),
			leads: [][2]string{{"g1::s1", "g1::s2"}, {"g1::s2", "g2::s1"}, {"g1::s2", "g2::s2"}}, results: []string{"g2::s1", "g2::s2"}, decisions: 4,
			actions: []wantAction{
				{RelRecommendsProcedure, "sct:433236007", LabelProcedure, LabelProcedure, "stress echocardiography", 0},
				{RelRecommendsProcedure, "name:stress cardiac magnetic resonance imaging", LabelUnresolvedConcept, LabelProcedure, "stress CMR", 1},
			},
			recType: TypeProcedure, direction: "POSITIVE",
		},
		{ // OR group first: every branch leads to the AND group; row-level actions, duplicate drug merged
			id:    miniRule("table_02.json", 0, 0),
			leads: [][2]string{{"g1::s1", "g2::s1"}, {"g1::s2", "g2::s1"}}, results: []string{"g2::s1"}, decisions: 3,
			actions: []wantAction{oac, rehab}, recType: TypePrescription, direction: "POSITIVE",
		},
		{ // two OR groups: every branch of the first leads to every branch of the second
			id:      miniRule("table_02.json", 0, 1),
			leads:   [][2]string{{"g1::s1", "g2::s1"}, {"g1::s1", "g2::s2"}, {"g1::s2", "g2::s1"}, {"g1::s2", "g2::s2"}},
			results: []string{"g2::s1", "g2::s2"}, decisions: 4,
			actions: []wantAction{oac, rehab}, recType: TypePrescription, direction: "POSITIVE",
		},
		{ // single condition on a Procedure concept
			id:    miniRule("table_02.json", 1, 0),
			leads: nil, results: []string{"g1::s1"}, decisions: 1,
			actions: []wantAction{{RelRecommendsUsage, "sct:387458008", LabelMedication, LabelMedication, "aspirin", 0}},
			recType: TypePrescription, direction: "POSITIVE",
		},
	}
}

func bundleIDs(bs []Bundle) []string {
	ids := []string{}
	for _, b := range bs {
		ids = append(ids, b.RuleID)
	}
	return ids
}

func checkMiniStructure(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	pack := loadMini(t)

	c, err := s.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, miniCounts().Diff(c), "stored counts")
	assert.Empty(t, miniCounts().Diff(Predict(pack)), "Predict")

	all, err := s.Bundles(ctx, allKeys(t, s))
	require.NoError(t, err)
	want := miniRules()
	require.Len(t, all, len(want))
	for i, w := range want {
		b := all[i]
		require.Equal(t, w.id, b.RuleID, "bundles sorted by rule id")
		var leads [][2]string
		for _, e := range b.LeadsTo {
			leads = append(leads, [2]string{short(b.RuleID, e.From), short(b.RuleID, e.To)})
		}
		assert.Equal(t, w.leads, leads, "%s LEADS_TO", w.id)
		var results []string
		for _, id := range b.ResultsIn {
			results = append(results, short(b.RuleID, id))
		}
		assert.Equal(t, w.results, results, "%s RESULTS_IN", w.id)
		assert.Len(t, b.Decisions, w.decisions, w.id)
		for j, d := range b.Decisions {
			assert.Equal(t, b.RuleID, d.RuleID)
			if j > 0 {
				p := b.Decisions[j-1]
				assert.True(t, p.GroupIndex < d.GroupIndex || (p.GroupIndex == d.GroupIndex && p.Step < d.Step), "decisions in group/step order")
			}
		}
		var acts []wantAction
		for _, a := range b.Actions {
			acts = append(acts, wantAction{a.Relation, a.ConceptKey, a.Label, a.TargetLabel, a.Wording, a.Position})
		}
		assert.Equal(t, w.actions, acts, "%s actions", w.id)
		assert.Equal(t, w.recType, b.Recommendation.RecommendationType, w.id)
		assert.Equal(t, w.direction, b.Recommendation.Direction, w.id)
		assert.Equal(t, "TEST_MINI", b.PackID)
		assert.Equal(t, "1", b.PackVersion)
	}

	// One anchor expands to every rule testing it, each complete.
	sccs, err := s.Bundles(ctx, []string{"name:suspected chronic coronary syndrome"})
	require.NoError(t, err)
	assert.Equal(t, []string{miniRule("table_01.json", 0, 0), miniRule("table_01.json", 2, 0)}, bundleIDs(sccs))
	require.Len(t, sccs, 2)
	assert.Len(t, sccs[0].Decisions, 3, "unmatched LVEF conditions are part of the bundle")
	assert.Len(t, sccs[1].Decisions, 4)

	dm, err := s.Bundles(ctx, []string{"sct:73211009", "name:no such concept"})
	require.NoError(t, err)
	assert.Equal(t, []string{miniRule("table_02.json", 0, 0), miniRule("table_02.json", 0, 1)}, bundleIDs(dm))

	// Action concepts are not anchors: bundles come from DecisionNodes only.
	none, err := s.Bundles(ctx, []string{"sct:33252009"})
	require.NoError(t, err)
	assert.Empty(t, none)

	// Every property of one DecisionNode, one recommendation and one source.
	neg := all[1]
	assert.Equal(t, Decision{
		DecisionID: neg.RuleID + "::g1::s1", RuleID: neg.RuleID, RowID: "table_01.json::row_1",
		GroupIndex: 1, Step: 1, LogicGroup: "or_1", LogicType: "OR",
		Operator: "<", Threshold: "30", Unit: "mL/min/1.73 m2",
		Context: "severe renal failure (eGFR below 30)", EntityOriginal: "eGFR",
		EntityStandardizedCandidate: "glomerular filtration rate", ConceptName: "glomerular filtration rate",
		ConceptKey: "sct:80274001", SnomedID: "80274001", Role: "ClinicalParameter", TargetLabel: LabelClinicalParameter,
		GroundingText: "eGFR\nglomerular filtration rate", GroundingHash: textHash("eGFR\nglomerular filtration rate"),
	}, neg.Decisions[0])
	assert.Equal(t, "inability to cooperate with breath-hold commands", neg.Decisions[2].ConceptName)
	assert.Equal(t, "", neg.Decisions[2].EntityStandardizedCandidate)
	assert.Equal(t, "name:inability to cooperate with breath-hold commands", neg.Decisions[2].ConceptKey)
	assert.Equal(t, Recommendation{
		RuleID: neg.RuleID, RowID: "table_01.json::row_1", Table: 1, Row: 1, RuleIndex: 0,
		Strength: "III", Level: "C", Direction: "NEGATIVE",
		FullText:              "CCTA is not recommended with severe renal failure, a fast irregular heart rate or inability to hold the breath.",
		InputSummary:          "eGFR <30 or tachyarrhythmia or inability to cooperate with breath-hold",
		RecommendationSummary: "no CCTA", RecommendationType: TypeProcedure,
		Source: "TEST_MINI, Recommendation Table 1, p. 12, doi:10.0000/test.mini",
	}, neg.Recommendation)
	assert.Equal(t, Source{
		SourceID: "TEST_MINI::table_01.json", Title: "Graph-layer test guideline", Year: 2024,
		Section: "Recommendation Table 1", DOI: "10.0000/test.mini", Pages: "12", Table: 1, File: "table_01.json",
	}, neg.Source)
	assert.Equal(t, Action{
		Relation: RelContraindicates, Position: 0, ConceptName: "coronary computed tomography angiography",
		ConceptKey: "name:coronary computed tomography angiography", Label: LabelUnresolvedConcept, TargetLabel: LabelProcedure,
		Wording: "CCTA", Role: "Procedure", Context: "CCTA is not recommended", Direction: "NEGATIVE", Intent: "avoid",
	}, neg.Actions[0])

	// The merged drug keeps the first action's wording and context.
	oac := all[3].Actions[0]
	assert.Equal(t, "oral anticoagulant", oac.ConceptName)
	assert.Equal(t, "OAC should be considered", oac.Context)

	// Qualifier Value is stored under the label QualifierValue.
	q := all[4].Decisions[3]
	assert.Equal(t, "Qualifier Value", q.Role)
	assert.Equal(t, LabelQualifierValue, q.TargetLabel)
	assert.Equal(t, "availability", q.Workflow)
	assert.Equal(t, "sct:103390000", q.ConceptKey)

	recs, err := s.GroundingRecords(ctx)
	require.NoError(t, err)
	require.Len(t, recs, 18)
	for i := 1; i < len(recs); i++ {
		assert.True(t, NaturalLess(recs[i-1].DecisionID, recs[i].DecisionID), "grounding records sorted")
	}
}
