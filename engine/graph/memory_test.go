package graph

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules"
)

func TestMemoryMiniStructure(t *testing.T) {
	m := NewMemory()
	st, err := m.Load(context.Background(), loadMini(t), BuildOptions{})
	require.NoError(t, err)
	assert.Equal(t, 6, st.Rules)
	assert.Equal(t, miniCounts().TotalNodes(), st.Nodes)
	assert.Equal(t, miniCounts().TotalRelationships(), st.Edges)
	checkMiniStructure(t, m)
}

// Concepts are merged by SNOMED CT id (coded) or by name and target label
// (uncoded), so a concept used by several conditions and rules exists once.
func TestMemoryConceptsMerged(t *testing.T) {
	m := NewMemory()
	_, err := m.Load(context.Background(), loadMini(t), BuildOptions{})
	require.NoError(t, err)
	sc := scope{"TEST_MINI", "1"}

	lvef := m.nodes[mkey{sc, nref{LabelClinicalParameter, "250908004"}}]
	require.NotNil(t, lvef, "LVEF concept")
	assert.Equal(t, []string{"LVEF"}, lvef["wordings"])
	assert.Equal(t, "left ventricular ejection fraction", lvef["preferred_term"])
	in := 0
	for k := range m.edges {
		if k.to == (nref{LabelClinicalParameter, "250908004"}) {
			in++
			assert.Equal(t, RelEvaluates, k.typ)
		}
	}
	assert.Equal(t, 2, in, "both LVEF thresholds evaluate the one LVEF node")

	sccs := m.nodes[mkey{sc, nref{LabelUnresolvedConcept, "ClinicalCondition|name:suspected chronic coronary syndrome"}}]
	require.NotNil(t, sccs)
	assert.Equal(t, "suspected chronic coronary syndrome", sccs["name"])
	assert.Equal(t, LabelClinicalCondition, sccs["target_label"])
	checks := 0
	for k := range m.edges {
		if k.to.id == "ClinicalCondition|name:suspected chronic coronary syndrome" {
			checks++
			assert.Equal(t, RelChecksFor, k.typ)
		}
	}
	assert.Equal(t, 2, checks, "two rules check the one uncoded concept")

	// "diabetes" in two rules of one row: one node, two CHECKS_FOR edges.
	require.NotNil(t, m.nodes[mkey{sc, nref{LabelClinicalCondition, "73211009"}}])
}

func TestMemoryIdempotentReload(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	pack := loadMini(t)
	_, err := m.Load(ctx, pack, BuildOptions{})
	require.NoError(t, err)
	first, err := m.Bundles(ctx, allKeys(t, m))
	require.NoError(t, err)
	st, err := m.Load(ctx, pack, BuildOptions{})
	require.NoError(t, err)
	assert.Zero(t, st.PrunedNodes)
	assert.Zero(t, st.PrunedEdges)
	c, err := m.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, miniCounts().Diff(c))
	second, err := m.Bundles(ctx, allKeys(t, m))
	require.NoError(t, err)
	assert.Equal(t, first, second)
	checkMiniStructure(t, m)
}

// Two fresh stores loading the same pack return identical results.
func TestMemoryDeterministic(t *testing.T) {
	ctx := context.Background()
	pack := loadDefault(t)
	a, b := NewMemory(), NewMemory()
	_, err := a.Load(ctx, pack, BuildOptions{})
	require.NoError(t, err)
	_, err = b.Load(ctx, pack, BuildOptions{})
	require.NoError(t, err)
	keys := allKeys(t, a)
	ba, err := a.Bundles(ctx, keys)
	require.NoError(t, err)
	bb, err := b.Bundles(ctx, keys)
	require.NoError(t, err)
	assert.Equal(t, ba, bb)
	ga, _ := a.GroundingRecords(ctx)
	gb, _ := b.GroundingRecords(ctx)
	assert.Equal(t, ga, gb)
}

// A rebuild from an edited pack removes what the pack no longer holds.
func TestMemoryReloadPrunesRemovedParts(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	pack := loadMini(t)
	_, err := m.Load(ctx, pack, BuildOptions{})
	require.NoError(t, err)

	edited := loadMini(t)
	// Drop the third condition of table 1 row 1 (an OR branch) and the
	// whole last row of table 2.
	r := &edited.Tables[0].Rows[1].Rules[0]
	r.Conditions = r.Conditions[:2]
	edited.Tables[1].Rows = edited.Tables[1].Rows[:1]
	st, err := m.Load(ctx, edited, BuildOptions{})
	require.NoError(t, err)
	assert.Positive(t, st.PrunedNodes)
	assert.Positive(t, st.PrunedEdges)
	c, err := m.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, Predict(edited).Diff(c))
	assert.Equal(t, miniCounts().Nodes[LabelDecisionNode]-2, c.Nodes[LabelDecisionNode])
}

func TestMemoryClearGraphOnlyThisPack(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	v1 := loadMini(t)
	v2 := withVersion(loadMini(t), "2")
	_, err := m.Load(ctx, v1, BuildOptions{})
	require.NoError(t, err)
	_, err = m.Load(ctx, v2, BuildOptions{})
	require.NoError(t, err)
	st, err := m.Load(ctx, v1, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	assert.Equal(t, miniCounts().TotalNodes(), st.Cleared)

	c1, err := m.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, miniCounts().Diff(c1))
	m.UsePack("TEST_MINI", "2")
	c2, err := m.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, miniCounts().Diff(c2), "the other version is untouched")
	bs, err := m.Bundles(ctx, []string{"sct:73211009"})
	require.NoError(t, err)
	require.Len(t, bs, 2)
	assert.Equal(t, "2", bs[0].PackVersion)
}

// A pack that cannot be mapped writes nothing and names every problem.
func TestMemoryInvalidPackWritesNothing(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	_, err := m.Load(ctx, loadMini(t), BuildOptions{})
	require.NoError(t, err)

	bad := loadMini(t)
	bad.Tables[0].Rows[0].Rules[0].Conditions[1].Role = "Finding"
	bad.Tables[1].Rows[1].Rules[0].Actions[0].Role = rules.RoleClinicalCondition // a POSITIVE action must be a drug or procedure
	bad.Tables[0].Rows[2].Rules[0].Conditions = append(bad.Tables[0].Rows[2].Rules[0].Conditions, rules.Entity{Role: rules.RoleClinicalCondition})
	_, err = m.Load(ctx, withVersion(bad, "1"), BuildOptions{ClearGraph: true})
	var me *MappingError
	require.True(t, errors.As(err, &me), "got %v", err)
	assert.Len(t, me.Problems, 3)
	msg := err.Error()
	assert.Contains(t, msg, `table_01.json row 0 rule 0 condition 1: role "Finding"`)
	assert.Contains(t, msg, "table_02.json row 1 rule 0 action 0: a POSITIVE action must be a Medication or a Procedure")
	assert.Contains(t, msg, "table_01.json row 2 rule 0 condition 4: entity has neither wording")
	assert.Contains(t, msg, "nothing was written")

	c, err := m.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, miniCounts().Diff(c), "ClearGraph must not run for an unmappable pack")

	dup := loadMini(t)
	dup.Tables[0].Rows[1].Row = 0
	_, err = NewMemory().Load(ctx, dup, BuildOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "appears twice")
}

func TestPredictEqualsCountsDefaultPack(t *testing.T) {
	ctx := context.Background()
	pack := loadDefault(t)
	m := NewMemory()
	st, err := m.Load(ctx, pack, BuildOptions{})
	require.NoError(t, err)
	c, err := m.Counts(ctx)
	require.NoError(t, err)
	want := Predict(pack)
	assert.Empty(t, want.Diff(c))
	assert.Equal(t, want.TotalNodes(), st.Nodes)
	assert.Equal(t, want.TotalRelationships(), st.Edges)
	assert.Equal(t, len(pack.Rules()), c.Nodes[LabelRecommendationNode])

	// Every rule comes back, complete, from its own concepts.
	bs, err := m.Bundles(ctx, allKeys(t, m))
	require.NoError(t, err)
	require.Len(t, bs, len(pack.Rules()))
	byID := map[string]Bundle{}
	for _, b := range bs {
		byID[b.RuleID] = b
	}
	for _, r := range pack.Rules() {
		b, ok := byID[r.ID]
		require.True(t, ok, r.ID)
		assert.Len(t, b.Decisions, len(r.Rule.Conditions), r.ID)
		assert.NotEmpty(t, b.ResultsIn, r.ID)
		assert.Equal(t, r.RowID, b.RowID)
	}
}

func TestGroundingText(t *testing.T) {
	pack := loadMini(t)
	var conds []rules.Condition
	for _, r := range pack.Rules() {
		conds = append(conds, r.Conditions()...)
	}
	find := func(wording string) rules.Condition {
		for _, c := range conds {
			if c.Entity.EntityOriginal == wording {
				return c
			}
		}
		t.Fatalf("no condition %q", wording)
		return rules.Condition{}
	}

	text, aliases := groundingText(find("suspected CCS"), BuildOptions{})
	assert.Equal(t, "suspected CCS\nsuspected chronic coronary syndrome", text)
	assert.Empty(t, aliases)
	text, _ = groundingText(find("typical angina"), BuildOptions{})
	assert.Equal(t, "typical angina", text, "wording equal to the name gives one line")

	lex := func(c rules.Condition) (string, []string) {
		base, _ := DefaultGrounding(c)
		if c.Entity.Concept() == "tachyarrhythmia" {
			return base, []string{"Tachycardia, irregular", "tachyarrhythmia", " tachycardia, irregular "}
		}
		return base, nil
	}
	text, aliases = groundingText(find("fast irregular heart rate"), BuildOptions{Grounding: lex})
	assert.Equal(t, "fast irregular heart rate\ntachyarrhythmia\nTachycardia, irregular", text)
	assert.Equal(t, []string{"Tachycardia, irregular", "tachyarrhythmia"}, aliases)

	// A grounding.Record-style text ("; "-joined, synonyms included) and its
	// aliases give the same lines, without the synonyms twice.
	text, aliases = groundingText(find("fast irregular heart rate"), BuildOptions{Grounding: func(rules.Condition) (string, []string) {
		return "fast irregular heart rate; tachyarrhythmia; Tachycardia, irregular", []string{"Tachycardia, irregular"}
	}})
	assert.Equal(t, "fast irregular heart rate\ntachyarrhythmia\nTachycardia, irregular", text)
	assert.Equal(t, []string{"Tachycardia, irregular"}, aliases)

	text, _ = groundingText(find("eGFR"), BuildOptions{IncludeContext: true})
	assert.Equal(t, "eGFR\nglomerular filtration rate\nsevere renal failure (eGFR below 30)", text)
}

// vectorsByID maps decision ids to their stored vectors.
func vectorsByID(t *testing.T, s Store) map[string][]float32 {
	t.Helper()
	recs, err := s.GroundingRecords(context.Background())
	require.NoError(t, err)
	out := map[string][]float32{}
	for _, r := range recs {
		if r.Embedding != nil {
			out[r.DecisionID] = r.Embedding
		}
	}
	return out
}

// checkReembedding runs the re-embedding scenario on a store: only nodes
// whose grounding text changed get a new vector.
func checkReembedding(t *testing.T, s Store, emb *trigramEmbedder) {
	t.Helper()
	ctx := context.Background()
	pack := loadMini(t)

	st, err := s.Load(ctx, pack, BuildOptions{Embedder: emb, ClearGraph: true})
	require.NoError(t, err)
	assert.Equal(t, 18, st.Embedded)
	distinct := map[string]bool{}
	for _, text := range emb.calls() {
		distinct[text] = true
	}
	assert.Equal(t, st.EmbeddedTexts, len(distinct), "each distinct text is embedded once")
	assert.Less(t, st.EmbeddedTexts, 18, "shared concepts share texts")
	assert.Equal(t, emb.dim, st.Dim)
	before := vectorsByID(t, s)
	assert.Len(t, before, 18)

	st, err = s.Load(ctx, pack, BuildOptions{Embedder: emb})
	require.NoError(t, err)
	assert.Zero(t, st.Embedded, "nothing changed, nothing re-embedded")
	assert.Equal(t, 18, st.EmbeddingsKept)
	assert.Empty(t, emb.calls())
	assert.Equal(t, before, vectorsByID(t, s))

	// A lexicon adds synonyms to one concept: only its nodes change.
	lex := func(c rules.Condition) (string, []string) {
		base, _ := DefaultGrounding(c)
		if c.Entity.Concept() == "suspected chronic coronary syndrome" {
			return base, []string{"suspected stable angina"}
		}
		return base, nil
	}
	st, err = s.Load(ctx, pack, BuildOptions{Embedder: emb, Grounding: lex})
	require.NoError(t, err)
	assert.Equal(t, 2, st.Embedded, "the two suspected-CCS conditions")
	assert.Equal(t, 16, st.EmbeddingsKept)
	assert.Equal(t, []string{"suspected CCS\nsuspected chronic coronary syndrome\nsuspected stable angina"}, emb.calls())
	after := vectorsByID(t, s)
	changed := []string{}
	for id, v := range after {
		if !assert.ObjectsAreEqual(before[id], v) {
			changed = append(changed, id)
		}
	}
	sort.Strings(changed)
	assert.Equal(t, []string{miniRule("table_01.json", 0, 0) + "::g1::s1", miniRule("table_01.json", 2, 0) + "::g1::s1"}, changed)

	// RefreshAll re-embeds everything.
	st, err = s.Load(ctx, pack, BuildOptions{Embedder: emb, Grounding: lex, RefreshAll: true})
	require.NoError(t, err)
	assert.Equal(t, 18, st.Embedded)
	emb.calls()

	// Another embedder means new vectors even for unchanged texts.
	other := newTrigramEmbedder()
	other.name, other.dim = "test-trigram-v2", emb.dim
	st, err = s.Load(ctx, pack, BuildOptions{Embedder: other, Grounding: lex})
	require.NoError(t, err)
	assert.Equal(t, 18, st.Embedded)

	// Without an embedder, vectors of unchanged texts stay, those of
	// changed texts are removed (they would describe the old text).
	st, err = s.Load(ctx, pack, BuildOptions{})
	require.NoError(t, err)
	assert.Equal(t, 16, st.EmbeddingsKept)
	assert.Equal(t, 2, st.EmbeddingsDropped)
	left := vectorsByID(t, s)
	assert.Len(t, left, 16)
	for _, id := range changed {
		assert.NotContains(t, left, id, "the vector of a changed text is dropped")
	}
	recs, err := s.GroundingRecords(ctx)
	require.NoError(t, err)
	for _, r := range recs {
		assert.Equal(t, textHash(r.Text), r.Hash)
	}
}

func TestMemoryReembedOnlyChanged(t *testing.T) {
	checkReembedding(t, NewMemory(), newTrigramEmbedder())
}

// Readers running while the pack is reloaded always see a complete pack
// (run with -race).
func TestMemoryConcurrentReadsDuringLoad(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	pack := loadMini(t)
	_, err := m.Load(ctx, pack, BuildOptions{})
	require.NoError(t, err)
	keys := allKeys(t, m)
	done := make(chan struct{})
	errs := make(chan error, 4)
	for g := 0; g < 3; g++ {
		go func() {
			for {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				bs, err := m.Bundles(ctx, keys)
				if err == nil && len(bs) != 6 {
					err = fmt.Errorf("saw %d bundles during a reload, want 6", len(bs))
				}
				if err == nil {
					var c Counts
					if c, err = m.Counts(ctx); err == nil && !miniCounts().Equal(c) {
						err = fmt.Errorf("saw counts %v during a reload", c.Diff(miniCounts()))
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := 0; i < 50; i++ {
		opt := BuildOptions{IncludeContext: i%2 == 0}
		if _, err := m.Load(ctx, pack, opt); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for g := 0; g < 3; g++ {
		require.NoError(t, <-errs)
	}
}

func TestNaturalLess(t *testing.T) {
	ids := []string{"a::row_10", "a::row_2", "a::row_1::g1::s10", "a::row_1::g1::s2", "a::row_01", "b", "a"}
	sort.Slice(ids, func(i, j int) bool { return NaturalLess(ids[i], ids[j]) })
	assert.Equal(t, []string{"a", "a::row_01", "a::row_1::g1::s2", "a::row_1::g1::s10", "a::row_2", "a::row_10", "b"}, ids)
}
