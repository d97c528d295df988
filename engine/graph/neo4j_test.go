package graph

import (
	"context"
	"errors"
	"os"
	"sort"
	"testing"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/internal/neo4jtest"
	"github.com/executablekg/execkg/rules"
)

const skipNeo4j = "set NEO4J_URI (e.g. bash scripts/neo4j.sh start) to run the Neo4j tests"

// TestMain removes the packs the Neo4j tests wrote (every version of
// TEST_MINI, and the default pack under versions "test-…"), so a database
// keeps only real packs. The tests never touch a real pack version, but they
// do create the schema and indexes: prefer a scratch database. The package
// holds neo4jtest's lock meanwhile, so other packages' Neo4j tests wait.
func TestMain(m *testing.M) {
	os.Exit(neo4jtest.Main(m, func() {
		s, err := OpenNeo4j(context.Background(), Neo4jConfigFromEnv())
		if err != nil {
			return
		}
		defer s.Close()
		res, err := s.query(context.Background(), `MATCH (n) WHERE n.pack_id = 'TEST_MINI' OR n.pack_version STARTS WITH 'test-'
RETURN DISTINCT n.pack_id AS p, n.pack_version AS v`, nil, false)
		if err != nil {
			return
		}
		for _, r := range res.Records {
			m := r.AsMap()
			_, _ = s.deletePack(context.Background(), scope{pString(m, "p"), pString(m, "v")})
		}
	}))
}

// testEmbedder returns the trigram embedder with the dimension of the
// database's vector index when one exists, so the tests can share a
// database with real packs embedded by another model.
func testEmbedder(t testing.TB, s *Neo4j) *trigramEmbedder {
	t.Helper()
	e := newTrigramEmbedder()
	rows := cypher(t, s, "SHOW VECTOR INDEXES YIELD name, options WHERE name = $name RETURN options", map[string]any{"name": VectorIndex})
	for _, r := range rows {
		ic := r["options"].(map[string]any)["indexConfig"].(map[string]any)
		if d := pInt(ic, "vector.dimensions"); d > 0 {
			e.dim = d
		}
	}
	return e
}

func openNeo4j(t testing.TB) *Neo4j {
	t.Helper()
	if os.Getenv("NEO4J_URI") == "" {
		t.Skip(skipNeo4j)
	}
	if testing.Short() {
		t.Skip("-short: the Neo4j tests are skipped")
	}
	s, err := OpenNeo4j(context.Background(), Neo4jConfigFromEnv())
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// cypher runs a read query in the store's database and returns the rows.
func cypher(t testing.TB, s *Neo4j, q string, params map[string]any) []map[string]any {
	t.Helper()
	res, err := s.query(context.Background(), q, params, false)
	require.NoError(t, err)
	out := make([]map[string]any, 0, len(res.Records))
	for _, r := range res.Records {
		out = append(out, r.AsMap())
	}
	return out
}

func scalar(t testing.TB, s *Neo4j, q string, params map[string]any) int {
	t.Helper()
	rows := cypher(t, s, q, params)
	require.Len(t, rows, 1)
	for _, v := range rows[0] {
		return pInt(map[string]any{"v": v}, "v")
	}
	return 0
}

// duplicates counts ids and relationships stored more than once for a pack.
func duplicates(t testing.TB, s *Neo4j, pack, version string) int {
	p := map[string]any{"pack": pack, "version": version}
	n := scalar(t, s, `MATCH (n) WHERE n.pack_id = $pack AND n.pack_version = $version
WITH labels(n) AS l, `+identExpr("n")+` AS id, count(*) AS c WHERE c > 1 RETURN count(*) AS n`, p)
	n += scalar(t, s, `MATCH (a)-[r]->(b) WHERE a.pack_id = $pack AND a.pack_version = $version
WITH a, b, type(r) AS t, count(*) AS c WHERE c > 1 RETURN count(*) AS n`, p)
	return n
}

// The fault test needs no server: nothing listens on port 1.
func TestNeo4jUnreachableURINamed(t *testing.T) {
	ctx := context.Background()
	_, err := OpenNeo4j(ctx, Neo4jConfig{URI: "bolt://127.0.0.1:1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot reach Neo4j at bolt://127.0.0.1:1")
	assert.Contains(t, err.Error(), "scripts/neo4j.sh start")

	_, err = OpenNeo4j(ctx, Neo4jConfig{URI: "http://127.0.0.1:7474"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "http://127.0.0.1:7474")

	_, err = OpenNeo4j(ctx, Neo4jConfig{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NEO4J_URI")
}

func TestNeo4jMiniStructure(t *testing.T) {
	s := openNeo4j(t)
	_, err := s.Load(context.Background(), loadMini(t), BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	checkMiniStructure(t, s)
	assert.Zero(t, duplicates(t, s, "TEST_MINI", "1"))
}

// Both stores, loaded with the same options, must agree on everything.
func TestNeo4jParity(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		pack *rules.Pack
	}{{"mini", loadMini(t)}, {"default", withVersion(loadDefault(t), "test-parity")}} {
		t.Run(tc.name, func(t *testing.T) {
			opt := BuildOptions{ClearGraph: true, Embedder: testEmbedder(t, s), IncludeContext: true}
			mem := NewMemory()
			ms, err := mem.Load(ctx, tc.pack, opt)
			require.NoError(t, err)
			ns, err := s.Load(ctx, tc.pack, opt)
			require.NoError(t, err)
			assert.Equal(t, ms.Embedded, ns.Embedded)
			assert.Equal(t, ms.Nodes, ns.Nodes)

			mc, err := mem.Counts(ctx)
			require.NoError(t, err)
			nc, err := s.Counts(ctx)
			require.NoError(t, err)
			assert.Empty(t, mc.Diff(nc), "memory vs Neo4j counts")
			assert.Empty(t, Predict(tc.pack).Diff(nc), "Predict vs Neo4j counts")

			mg, err := mem.GroundingRecords(ctx)
			require.NoError(t, err)
			ng, err := s.GroundingRecords(ctx)
			require.NoError(t, err)
			require.Equal(t, len(mg), len(ng))
			assert.Equal(t, mg, ng, "grounding records, vectors included")

			// Every rule, expanded from its own concepts, gives the same bundles.
			for _, r := range tc.pack.Rules() {
				var keys []string
				for _, c := range r.Conditions() {
					keys = append(keys, rules.ConceptKey(c.Entity))
				}
				mb, err := mem.Bundles(ctx, keys)
				require.NoError(t, err)
				nb, err := s.Bundles(ctx, keys)
				require.NoError(t, err)
				require.Equal(t, bundleIDs(mb), bundleIDs(nb), r.ID)
				if !assert.Equal(t, mb, nb, r.ID) {
					return
				}
			}
			keys := allKeys(t, mem)
			mb, _ := mem.Bundles(ctx, keys)
			nb, err := s.Bundles(ctx, keys)
			require.NoError(t, err)
			assert.Len(t, nb, len(tc.pack.Rules()))
			assert.Equal(t, mb, nb)
		})
	}
}

func TestNeo4jIdempotentDoubleBuild(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	pack := withVersion(loadDefault(t), "test-idempotent")
	_, err := s.Load(ctx, pack, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	first, err := s.Counts(ctx)
	require.NoError(t, err)
	all := scalar(t, s, "MATCH (n) RETURN count(n) AS n", nil)
	rels := scalar(t, s, "MATCH ()-[r]->() RETURN count(r) AS n", nil)

	st, err := s.Load(ctx, pack, BuildOptions{})
	require.NoError(t, err)
	assert.Zero(t, st.PrunedNodes)
	assert.Zero(t, st.PrunedEdges)
	second, err := s.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, first.Diff(second))
	assert.Empty(t, Predict(pack).Diff(second))
	assert.Equal(t, all, scalar(t, s, "MATCH (n) RETURN count(n) AS n", nil), "no node added anywhere in the database")
	assert.Equal(t, rels, scalar(t, s, "MATCH ()-[r]->() RETURN count(r) AS n", nil))
	assert.Zero(t, duplicates(t, s, pack.Guideline.ID, pack.Guideline.Version))
}

func TestNeo4jReembedOnlyChanged(t *testing.T) {
	s := openNeo4j(t)
	checkReembedding(t, s, testEmbedder(t, s))
}

func TestNeo4jSearchIndexes(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	emb := testEmbedder(t, s)
	pack := loadMini(t)
	_, err := s.Load(ctx, pack, BuildOptions{ClearGraph: true, Embedder: emb})
	require.NoError(t, err)

	idx := cypher(t, s, "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options WHERE name IN $names RETURN name, type, properties, options ORDER BY name",
		map[string]any{"names": []string{FulltextIndex, VectorIndex}})
	require.Len(t, idx, 2)
	assert.Equal(t, "FULLTEXT", idx[0]["type"])
	assert.Equal(t, []any{"grounding_text"}, idx[0]["properties"])
	assert.Equal(t, "VECTOR", idx[1]["type"])
	cfg := idx[1]["options"].(map[string]any)["indexConfig"].(map[string]any)
	assert.EqualValues(t, emb.dim, cfg["vector.dimensions"])
	assert.Equal(t, "COSINE", cfg["vector.similarity_function"])

	hits, err := s.FulltextSearch(ctx, "tachyarrhythmia", 5)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "sct:6285003", hits[0].ConceptKey)
	assert.Equal(t, miniRule("table_01.json", 1, 0), hits[0].RuleID)

	hits, err = s.FulltextSearch(ctx, `"suspected chronic coronary syndrome"^4 OR suspected`, 10)
	require.NoError(t, err)
	require.Len(t, hits, 2)
	for _, h := range hits {
		assert.Equal(t, "name:suspected chronic coronary syndrome", h.ConceptKey)
	}

	vec, err := emb.Embed(ctx, []string{"fast irregular heart rate\ntachyarrhythmia"})
	require.NoError(t, err)
	hits, err = s.VectorSearch(ctx, vec[0], 3)
	require.NoError(t, err)
	require.Len(t, hits, 3)
	assert.Equal(t, miniRule("table_01.json", 1, 0)+"::g1::s2", hits[0].DecisionID)
	assert.InDelta(t, 1.0, hits[0].Score, 1e-4, "Neo4j scores cosine as (1+cos)/2; the node's own text gives 1")
	assert.GreaterOrEqual(t, hits[0].Score, hits[1].Score)

	// A second pack in the graph does not crowd this pack's results out.
	_, err = s.Load(ctx, withVersion(pack, "test-search-other"), BuildOptions{ClearGraph: true, Embedder: emb})
	require.NoError(t, err)
	s.UsePack("TEST_MINI", "1")
	again, err := s.VectorSearch(ctx, vec[0], 3)
	require.NoError(t, err)
	require.Len(t, again, 3, "the other pack's equal vectors must not take the places")
	assert.Equal(t, hits[0], again[0])

	// An embedder of another dimension is refused before anything is written.
	before, err := s.Counts(ctx)
	require.NoError(t, err)
	small := newTrigramEmbedder()
	small.dim, small.name = emb.dim/2, "test-trigram-half"
	_, err = s.Load(ctx, pack, BuildOptions{Embedder: small})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TEST_MINI/test-search-other")
	assert.Contains(t, err.Error(), "DROP INDEX "+VectorIndex)
	after, err := s.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, before.Diff(after))
	assert.Len(t, vectorsByID(t, s), 18, "vectors untouched")
}

// The reference README's two inspection queries, adapted to our ids (row id
// "table_08.json::row_2"; pack_id and pack_version pick one pack version,
// as a graph may hold several).
const (
	inspectDecisions = `MATCH (r:RecommendationNode {pack_id: $pack, pack_version: $version, source_row_id: $row})
MATCH (d:DecisionNode {rule_unique_id: r.rule_unique_id, pack_version: r.pack_version})-[:CHECKS_FOR|EVALUATES]->(c)
RETURN r.full_text, r.strength, r.level, d.decision_id, d.operator, d.threshold, d.unit,
       d.logic_type, labels(c), c.snomed_id
ORDER BY d.decision_id`
	inspectPaths = `MATCH (r:RecommendationNode {pack_id: $pack, pack_version: $version, source_row_id: $row})
MATCH p = (d:DecisionNode {rule_unique_id: r.rule_unique_id, pack_version: r.pack_version})-[:LEADS_TO|RESULTS_IN*1..]->(r)
RETURN p`
)

// checkInspection runs both queries for a row and compares them with the
// row's bundles from the memory store.
func checkInspection(t *testing.T, s *Neo4j, pack *rules.Pack, rowID string, wantPaths int) {
	t.Helper()
	ctx := context.Background()
	mem := NewMemory()
	_, err := mem.Load(ctx, pack, BuildOptions{})
	require.NoError(t, err)
	bs, err := mem.Bundles(ctx, allKeys(t, mem))
	require.NoError(t, err)
	var want []Decision
	ends := map[string]bool{}
	for _, b := range bs {
		if b.RowID == rowID {
			want = append(want, b.Decisions...)
		}
	}
	require.NotEmpty(t, want, rowID)
	sort.Slice(want, func(i, j int) bool { return want[i].DecisionID < want[j].DecisionID })

	p := map[string]any{"pack": pack.Guideline.ID, "version": pack.Guideline.Version, "row": rowID}
	rows := cypher(t, s, inspectDecisions, p)
	require.Len(t, rows, len(want), "one row per DecisionNode of %s", rowID)
	for i, r := range rows {
		d := want[i]
		assert.Equal(t, d.DecisionID, r["d.decision_id"])
		assert.Equal(t, d.Operator, r["d.operator"])
		assert.Equal(t, d.Threshold, r["d.threshold"])
		assert.Equal(t, d.Unit, r["d.unit"])
		assert.Equal(t, d.LogicType, r["d.logic_type"])
		label := d.TargetLabel
		if d.SnomedID == "" {
			label = LabelUnresolvedConcept
			assert.Nil(t, r["c.snomed_id"])
		} else {
			assert.Equal(t, d.SnomedID, r["c.snomed_id"])
		}
		assert.Equal(t, []any{label}, r["labels(c)"])
		assert.NotEmpty(t, r["r.full_text"])
	}

	paths := cypher(t, s, inspectPaths, p)
	if wantPaths > 0 {
		assert.Len(t, paths, wantPaths)
	}
	starts := map[string]bool{}
	for _, r := range paths {
		path := r["p"].(dbtype.Path)
		first := path.Nodes[0]
		last := path.Nodes[len(path.Nodes)-1]
		starts[first.Props["decision_id"].(string)] = true
		assert.Equal(t, []string{LabelRecommendationNode}, last.Labels)
		assert.Equal(t, rowID, last.Props["source_row_id"])
		for i, rel := range path.Relationships {
			if i == len(path.Relationships)-1 {
				assert.Equal(t, RelResultsIn, rel.Type)
				ends[path.Nodes[i].Props["decision_id"].(string)] = true
			} else {
				assert.Equal(t, RelLeadsTo, rel.Type)
			}
		}
	}
	assert.Len(t, starts, len(want), "every DecisionNode of the row lies on a path to its recommendation")
	var results []string
	for _, b := range bs {
		if b.RowID == rowID {
			results = append(results, b.ResultsIn...)
		}
	}
	assert.Len(t, ends, len(results), "paths end through the RESULTS_IN edges")
}

func TestNeo4jInspectionQueries(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	mini := loadMini(t)
	_, err := s.Load(ctx, mini, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	checkInspection(t, s, mini, "table_01.json::row_1", 3) // one OR group: one path per branch
	checkInspection(t, s, mini, "table_01.json::row_0", 3) // AND chain: from s1, s2 and s3
	checkInspection(t, s, mini, "table_01.json::row_2", 6) // chain then OR: 2+2+1+1

	pack := withVersion(loadDefault(t), "test-inspect")
	if _, _, ok := pack.Row("table_08.json::row_2"); !ok {
		t.Skip("the embedded pack has no table_08.json::row_2 yet")
	}
	_, err = s.Load(ctx, pack, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	checkInspection(t, s, pack, "table_08.json::row_2", 0)
}

// A build cancelled between write batches leaves a partial graph; running it
// again completes it with correct counts and no duplicates.
func TestNeo4jInterruptedBuildResumes(t *testing.T) {
	s := openNeo4j(t)
	pack := withVersion(loadDefault(t), "test-interrupted")
	want := Predict(pack)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.cfg.BatchSize = 50
	s.afterBatch = func(n int) {
		if n == 5 {
			cancel()
		}
	}
	_, err := s.Load(ctx, pack, BuildOptions{ClearGraph: true})
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
	s.afterBatch = nil

	s.UsePack(pack.Guideline.ID, "test-interrupted")
	partial, err := s.Counts(context.Background())
	require.NoError(t, err)
	assert.Positive(t, partial.TotalNodes(), "committed batches stay")
	assert.Less(t, partial.TotalNodes(), want.TotalNodes(), "the build stopped part-way")

	_, err = s.Load(context.Background(), pack, BuildOptions{})
	require.NoError(t, err)
	got, err := s.Counts(context.Background())
	require.NoError(t, err)
	assert.Empty(t, want.Diff(got))
	assert.Zero(t, duplicates(t, s, pack.Guideline.ID, "test-interrupted"))

	mem := NewMemory()
	_, err = mem.Load(context.Background(), pack, BuildOptions{})
	require.NoError(t, err)
	keys := allKeys(t, mem)
	mb, _ := mem.Bundles(context.Background(), keys)
	nb, err := s.Bundles(context.Background(), keys)
	require.NoError(t, err)
	assert.Equal(t, mb, nb)

	_, err = s.Load(context.Background(), pack, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
}

func TestNeo4jClearGraphOnlyThisPack(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	a, b := withVersion(loadMini(t), "clear-a"), withVersion(loadMini(t), "clear-b")
	_, err := s.Load(ctx, a, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	_, err = s.Load(ctx, b, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	st, err := s.Load(ctx, a, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	assert.Equal(t, miniCounts().TotalNodes(), st.Cleared)
	ca, err := s.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, miniCounts().Diff(ca))
	s.UsePack("TEST_MINI", "clear-b")
	cb, err := s.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, miniCounts().Diff(cb), "the other version is untouched")
}

// A reload of an edited pack removes nodes and edges it no longer holds.
func TestNeo4jReloadPrunes(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	pack := withVersion(loadMini(t), "prune")
	_, err := s.Load(ctx, pack, BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	edited := withVersion(loadMini(t), "prune")
	r := &edited.Tables[0].Rows[2].Rules[0]
	r.Conditions = r.Conditions[:3] // the final OR group loses a branch
	st, err := s.Load(ctx, edited, BuildOptions{})
	require.NoError(t, err)
	assert.Equal(t, 2, st.PrunedNodes, "the DecisionNode and its now unused concept (dyspnoea)")
	c, err := s.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, Predict(edited).Diff(c))
	mem := NewMemory()
	_, err = mem.Load(ctx, edited, BuildOptions{})
	require.NoError(t, err)
	mb, _ := mem.Bundles(ctx, allKeys(t, mem))
	nb, err := s.Bundles(ctx, allKeys(t, mem))
	require.NoError(t, err)
	assert.Equal(t, mb, nb)
}

func TestNeo4jInvalidPackWritesNothing(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	nodes := scalar(t, s, "MATCH (n) RETURN count(n) AS n", nil)
	constraints := len(cypher(t, s, "SHOW CONSTRAINTS YIELD name RETURN name", nil))
	bad := withVersion(loadMini(t), "invalid")
	bad.Tables[0].Rows[0].Rules[0].Conditions[1].Role = "Finding"
	_, err := s.Load(ctx, bad, BuildOptions{ClearGraph: true})
	var me *MappingError
	require.True(t, errors.As(err, &me), "got %v", err)
	assert.Equal(t, nodes, scalar(t, s, "MATCH (n) RETURN count(n) AS n", nil))
	assert.Equal(t, constraints, len(cypher(t, s, "SHOW CONSTRAINTS YIELD name RETURN name", nil)))
}

// With several packs in the graph, a store must be told which one to read.
func TestNeo4jScopeWithSeveralPacks(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	_, err := s.Load(ctx, withVersion(loadMini(t), "scope-a"), BuildOptions{ClearGraph: true})
	require.NoError(t, err)
	_, err = s.Load(ctx, withVersion(loadMini(t), "scope-b"), BuildOptions{ClearGraph: true})
	require.NoError(t, err)

	fresh, err := OpenNeo4j(ctx, Neo4jConfigFromEnv())
	require.NoError(t, err)
	defer fresh.Close()
	_, err = fresh.Counts(ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TEST_MINI/scope-a")
	assert.Contains(t, err.Error(), "PackID")

	cfg := Neo4jConfigFromEnv()
	cfg.PackID, cfg.PackVersion = "TEST_MINI", "scope-b"
	scoped, err := OpenNeo4j(ctx, cfg)
	require.NoError(t, err)
	defer scoped.Close()
	c, err := scoped.Counts(ctx)
	require.NoError(t, err)
	assert.Empty(t, miniCounts().Diff(c))
}
