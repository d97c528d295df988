package graph

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules"
)

// loadTestPrevention loads the second test pack (rules/testdata/packs), a
// different guideline id from TEST_MINI.
func loadTestPrevention(t testing.TB) *rules.Pack {
	t.Helper()
	p, err := rules.LoadFS(os.DirFS("../../rules/testdata/packs"), "test-prevention")
	require.NoError(t, err)
	return p
}

// Two different packs in one graph, side by side through views of one
// store: each view reads only its pack (counts, bundles, full-text hits),
// every node carries its pack id and version, and clearing one pack
// (a --clear-graph rebuild, then a delete) leaves the other whole.
func TestNeo4jTwoPacksSideBySide(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	a := withVersion(loadMini(t), "test-two")
	b := withVersion(loadTestPrevention(t), "test-two")
	require.NotEqual(t, a.Guideline.ID, b.Guideline.ID)
	t.Cleanup(func() {
		_, _ = s.DeletePack(ctx, a.Guideline.ID, "test-two")
		_, _ = s.DeletePack(ctx, b.Guideline.ID, "test-two")
	})
	va, vb := s.View(a.Guideline.ID, "test-two"), s.View(b.Guideline.ID, "test-two")
	defer va.Close()
	defer vb.Close()
	_, err := va.Load(ctx, a, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	_, err = vb.Load(ctx, b, BuildOptions{ClearGraph: true})
	require.NoError(t, err)

	check := func(v *Neo4j, p *rules.Pack) {
		t.Helper()
		c, err := v.Counts(ctx)
		require.NoError(t, err)
		assert.Empty(t, Predict(p).Diff(c), "%s holds what it predicts", p.Guideline.ID)
		mem := NewMemory()
		_, err = mem.Load(ctx, p, BuildOptions{})
		require.NoError(t, err)
		keys := allKeys(t, mem)
		want, err := mem.Bundles(ctx, keys)
		require.NoError(t, err)
		got, err := v.Bundles(ctx, keys)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%s's bundles come from it alone", p.Guideline.ID)
		for _, bd := range got {
			assert.Equal(t, p.Guideline.ID, bd.PackID)
		}
	}
	check(va, a)
	check(vb, b)
	// A full-text query for a word only the second pack uses finds
	// nothing in the first.
	hits, err := va.FulltextSearch(ctx, "hypertension", 10)
	require.NoError(t, err)
	for _, h := range hits {
		assert.Contains(t, h.DecisionID, a.Guideline.ID+"::")
	}
	hits, err = vb.FulltextSearch(ctx, "hypertension", 10)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	for _, h := range hits {
		assert.Contains(t, h.DecisionID, b.Guideline.ID+"::")
	}
	unmarked := scalar(t, s, `MATCH (n) WHERE n.pack_id IN [$a, $b] AND n.pack_version = 'test-two'
WITH n MATCH (n)-[]-(m) WHERE m.pack_id IS NULL OR m.pack_version IS NULL OR m.pack_id <> n.pack_id RETURN count(m) AS n`,
		map[string]any{"a": a.Guideline.ID, "b": b.Guideline.ID})
	assert.Zero(t, unmarked, "every node carries its pack, and edges stay inside one pack")

	// Clear of one pack: only its nodes go.
	st, err := vb.Load(ctx, b, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	assert.Equal(t, Predict(b).TotalNodes(), st.Cleared)
	check(va, a)
	n, err := s.DeletePack(ctx, b.Guideline.ID, "test-two")
	require.NoError(t, err)
	assert.Equal(t, Predict(b).TotalNodes(), n)
	check(va, a)
	c, err := vb.Counts(ctx)
	require.NoError(t, err)
	assert.Zero(t, c.TotalNodes())
}

// Views share the driver: it stays open while any view is open, closes
// with the last one, and a second Close does nothing.
func TestNeo4jViewsShareDriver(t *testing.T) {
	if os.Getenv("NEO4J_URI") == "" {
		t.Skip(skipNeo4j)
	}
	ctx := context.Background()
	s, err := OpenNeo4j(ctx, Neo4jConfigFromEnv())
	require.NoError(t, err)
	v := s.View("TEST_MINI", "test-view")
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "a second Close does nothing")
	require.NoError(t, v.Ping(ctx, 2*time.Second), "the view still holds the driver")
	_, err = v.Counts(ctx)
	require.NoError(t, err)
	require.NoError(t, v.Close())
	require.Error(t, v.Ping(ctx, 2*time.Second), "the last Close closes the driver")
}
