package graph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/config"

	"github.com/executablekg/execkg/rules"
)

// Neo4jConfig says where the Neo4j server is and which pack reads refer to.
type Neo4jConfig struct {
	// URI of the Bolt endpoint, e.g. bolt://127.0.0.1:7687 or neo4j://host.
	URI string
	// User and Password; an empty User connects without authentication
	// (the local launcher of scripts/neo4j.sh has auth disabled).
	User, Password string
	// Database; empty means the server's default database.
	Database string
	// PackID and PackVersion choose the pack read by a store that has not
	// loaded one; empty means the only pack in the graph.
	PackID, PackVersion string
	// BatchSize is the number of rows per UNWIND write transaction
	// (default 500).
	BatchSize int
	// RetryTime bounds the driver's retries of one query on a transient
	// error (default 3 s; the driver's own default, 15 s, made every case
	// of a batch wait that long once the server was gone).
	RetryTime time.Duration
}

// ErrUnavailable marks a query that failed because the server could not be
// reached (connection refused or lost, retries used up): the caller may
// check the server with Ping and stop instead of trying the next query.
var ErrUnavailable = errors.New("Neo4j unavailable")

// Neo4jConfigFromEnv reads NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD and
// NEO4J_DATABASE.
func Neo4jConfigFromEnv() Neo4jConfig {
	return Neo4jConfig{
		URI:      os.Getenv("NEO4J_URI"),
		User:     os.Getenv("NEO4J_USER"),
		Password: os.Getenv("NEO4J_PASSWORD"),
		Database: os.Getenv("NEO4J_DATABASE"),
	}
}

// Neo4j is the store backed by a Neo4j 5 server.
type Neo4j struct {
	cfg    Neo4jConfig
	driver neo4j.DriverWithContext
	scope  scope
	// refs counts the open stores sharing driver (s and its views).
	refs   *atomic.Int32
	closed atomic.Bool
	// afterBatch, when set (tests), runs after every committed write batch
	// with the number of batches so far.
	afterBatch func(n int)
}

// OpenNeo4j connects and checks that the server answers.
func OpenNeo4j(ctx context.Context, cfg Neo4jConfig) (*Neo4j, error) {
	if strings.TrimSpace(cfg.URI) == "" {
		return nil, errors.New("graph: no Neo4j URI: set NEO4J_URI (or pass --neo4j), e.g. bolt://127.0.0.1:7687 after `bash scripts/neo4j.sh start`")
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 500
	}
	if cfg.RetryTime <= 0 {
		cfg.RetryTime = 3 * time.Second
	}
	auth := neo4j.NoAuth()
	if cfg.User != "" {
		auth = neo4j.BasicAuth(cfg.User, cfg.Password, "")
	}
	drv, err := neo4j.NewDriverWithContext(cfg.URI, auth, func(c *config.Config) {
		c.SocketConnectTimeout = 5 * time.Second
		c.ConnectionAcquisitionTimeout = 10 * time.Second
		c.MaxTransactionRetryTime = cfg.RetryTime
	})
	if err != nil {
		return nil, fmt.Errorf("graph: Neo4j URI %q is not usable: %w (want bolt://host:port or neo4j://host:port)", cfg.URI, err)
	}
	vctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := drv.VerifyConnectivity(vctx); err != nil {
		_ = drv.Close(context.Background())
		return nil, fmt.Errorf("graph: cannot reach Neo4j at %s: %w (start the local one with `bash scripts/neo4j.sh start`, or point NEO4J_URI/--neo4j at a running server; check NEO4J_USER/NEO4J_PASSWORD)", cfg.URI, err)
	}
	s := &Neo4j{cfg: cfg, driver: drv, refs: new(atomic.Int32)}
	s.refs.Store(1)
	if cfg.PackID != "" {
		s.scope = scope{cfg.PackID, cfg.PackVersion}
	}
	return s, nil
}

// Close closes the store; the driver closes with the last of the store and
// its views. A second Close of the same store does nothing.
func (s *Neo4j) Close() error {
	if s.closed.Swap(true) || s.refs.Add(-1) > 0 {
		return nil
	}
	return s.driver.Close(context.Background())
}

// View returns a store on the same connection whose reads refer to pack id
// and version, so several packs in one graph are read side by side (one
// Program per pack, engine.Multi) over one driver. Close each view; the
// driver stays open until s and every view are closed.
func (s *Neo4j) View(id, version string) *Neo4j {
	s.refs.Add(1)
	cfg := s.cfg
	cfg.PackID, cfg.PackVersion = id, version
	return &Neo4j{cfg: cfg, driver: s.driver, scope: scope{id, version}, refs: s.refs, afterBatch: s.afterBatch}
}

// URI returns the server address the store talks to.
func (s *Neo4j) URI() string { return s.cfg.URI }

// Ping checks once, within timeout, that the server answers.
func (s *Neo4j) Ping(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := s.driver.VerifyConnectivity(ctx); err != nil {
		return fmt.Errorf("graph: Neo4j at %s does not answer: %w: %w", s.cfg.URI, ErrUnavailable, err)
	}
	return nil
}

// unavailable: err says the server could not be reached, as opposed to a
// query the server refused.
func unavailable(err error) bool {
	var ce *neo4j.ConnectivityError
	var tl *neo4j.TransactionExecutionLimit
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &tl) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNREFUSED)
}

func (s *Neo4j) query(ctx context.Context, cypher string, params map[string]any, write bool) (*neo4j.EagerResult, error) {
	opts := []neo4j.ExecuteQueryConfigurationOption{neo4j.ExecuteQueryWithReadersRouting()}
	if write {
		opts = []neo4j.ExecuteQueryConfigurationOption{neo4j.ExecuteQueryWithWritersRouting()}
	}
	if s.cfg.Database != "" {
		opts = append(opts, neo4j.ExecuteQueryWithDatabase(s.cfg.Database))
	}
	res, err := neo4j.ExecuteQuery(ctx, s.driver, cypher, params, neo4j.EagerResultTransformer, opts...)
	if err != nil {
		first := strings.SplitN(strings.TrimSpace(cypher), "\n", 2)[0]
		if unavailable(err) && ctx.Err() == nil {
			return nil, fmt.Errorf("graph: neo4j %s: query %q: %w: %w", s.cfg.URI, first, ErrUnavailable, err)
		}
		return nil, fmt.Errorf("graph: neo4j %s: query %q: %w", s.cfg.URI, first, err)
	}
	return res, nil
}

// schema runs one "CREATE … IF NOT EXISTS" statement. Two builds at once
// (two `execkg build`s, or test packages sharing a server) can both pass the
// IF NOT EXISTS check; the later one is then refused with
// EquivalentSchemaRuleAlreadyExists although the index it asked for exists.
// That refusal is the statement's goal met, so it is success. A different
// index under the same name (IndexAlreadyExists) is still an error.
func (s *Neo4j) schema(ctx context.Context, stmt string) error {
	_, err := s.query(ctx, stmt, nil, true)
	if equivalentSchema(err) {
		return nil
	}
	return err
}

func equivalentSchema(err error) bool {
	var ne *neo4j.Neo4jError
	return errors.As(err, &ne) && ne.Code == "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"
}

// keyPattern is the map pattern matching a node of label by its identity
// properties taken from the expression src (a map holding them).
func keyPattern(label, src string) string {
	var keys []string
	switch label {
	case LabelDecisionNode:
		keys = []string{"decision_id"}
	case LabelRecommendationNode:
		keys = []string{"rule_unique_id"}
	case LabelGuidelineSource:
		keys = []string{"source_id"}
	case LabelUnresolvedConcept:
		keys = []string{"concept_key", "target_label"}
	default:
		keys = []string{"snomed_id"}
	}
	parts := make([]string, 0, len(keys)+2)
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %s.%s", k, src, k))
	}
	parts = append(parts, "pack_id: $pack", "pack_version: $version")
	return "{" + strings.Join(parts, ", ") + "}"
}

// keyProps returns the identity properties of a plan node reference.
func keyProps(r nref) map[string]any {
	switch r.label {
	case LabelDecisionNode:
		return map[string]any{"decision_id": r.id}
	case LabelRecommendationNode:
		return map[string]any{"rule_unique_id": r.id}
	case LabelGuidelineSource:
		return map[string]any{"source_id": r.id}
	case LabelUnresolvedConcept:
		target, key, _ := strings.Cut(r.id, "|")
		return map[string]any{"target_label": target, "concept_key": key}
	}
	return map[string]any{"snomed_id": r.id}
}

// identExpr computes in Cypher the same "label|identity" string as
// nref.String, for comparing stored nodes and edges with the plan.
func identExpr(v string) string {
	return fmt.Sprintf(`head(labels(%[1]s)) + '|' + CASE head(labels(%[1]s))
  WHEN 'DecisionNode' THEN %[1]s.decision_id
  WHEN 'RecommendationNode' THEN %[1]s.rule_unique_id
  WHEN 'GuidelineSource' THEN %[1]s.source_id
  WHEN 'UnresolvedConcept' THEN %[1]s.target_label + '|' + %[1]s.concept_key
  ELSE %[1]s.snomed_id END`, v)
}

// schemaStatements create the uniqueness constraints (ids are unique per
// pack version: a graph may hold several packs and versions) and the
// lookup indexes used by Bundles and the inspection queries.
func schemaStatements() []string {
	var out []string
	c := func(name, label, props string) {
		out = append(out, fmt.Sprintf("CREATE CONSTRAINT %s IF NOT EXISTS FOR (n:%s) REQUIRE (%s) IS UNIQUE", name, label, props))
	}
	c("execkg_decisionnode_id", LabelDecisionNode, "n.decision_id, n.pack_id, n.pack_version")
	c("execkg_recommendationnode_id", LabelRecommendationNode, "n.rule_unique_id, n.pack_id, n.pack_version")
	c("execkg_guidelinesource_id", LabelGuidelineSource, "n.source_id, n.pack_id, n.pack_version")
	for _, l := range ConceptLabels {
		c("execkg_"+strings.ToLower(l)+"_id", l, "n.snomed_id, n.pack_id, n.pack_version")
	}
	c("execkg_unresolvedconcept_id", LabelUnresolvedConcept, "n.concept_key, n.target_label, n.pack_id, n.pack_version")
	out = append(out,
		"CREATE INDEX execkg_decisionnode_concept_key IF NOT EXISTS FOR (n:DecisionNode) ON (n.concept_key)",
		"CREATE INDEX execkg_decisionnode_rule IF NOT EXISTS FOR (n:DecisionNode) ON (n.rule_unique_id)",
		"CREATE INDEX execkg_recommendationnode_row IF NOT EXISTS FOR (n:RecommendationNode) ON (n.source_row_id)",
	)
	return out
}

// Load writes the pack: schema first, then (after ClearGraph) nodes and
// edges by MERGE in UNWIND batches, then removes this pack's nodes and edges
// that are no longer in the pack, then the grounding indexes. The plan is
// computed and embeddings are made before the first data write, so an
// unmappable pack or a failing embedder writes no data. An interrupted Load
// leaves committed batches behind; running Load again completes the graph.
func (s *Neo4j) Load(ctx context.Context, pack *rules.Pack, opt BuildOptions) (BuildStats, error) {
	t0 := time.Now()
	pl, err := buildPlan(pack, opt)
	if err != nil {
		return BuildStats{}, err
	}
	sc := scope{pl.packID, pl.packVersion}
	st := BuildStats{PackID: sc.pack, PackVersion: sc.version, Rules: pl.rules, Nodes: len(pl.nodes), Edges: len(pl.edges)}
	params := func(m map[string]any) map[string]any {
		m["pack"], m["version"] = sc.pack, sc.version
		return m
	}

	existing := map[string]embedState{}
	if !opt.ClearGraph {
		res, err := s.query(ctx, `MATCH (d:DecisionNode) WHERE d.pack_id = $pack AND d.pack_version = $version
RETURN d.decision_id AS id, d.grounding_hash AS hash, d.grounding_embedder AS model,
       d.grounding_embedding IS NOT NULL AS has, coalesce(size(d.grounding_embedding), 0) AS dim`, params(map[string]any{}), false)
		if err != nil {
			return BuildStats{}, err
		}
		for _, r := range res.Records {
			m := r.AsMap()
			has, _ := m["has"].(bool)
			existing[pString(m, "id")] = embedState{hash: pString(m, "hash"), embedder: pString(m, "model"), has: has, dim: pInt(m, "dim")}
		}
	}
	ep, err := planEmbeddings(ctx, pl, existing, opt, &st)
	if err != nil {
		return BuildStats{}, err
	}
	recreate := false
	if ep.dim > 0 {
		if recreate, err = s.checkVectorIndex(ctx, sc, ep.dim); err != nil {
			return BuildStats{}, err
		}
	}

	for _, stmt := range schemaStatements() {
		if err := s.schema(ctx, stmt); err != nil {
			return st, err
		}
	}
	if opt.ClearGraph {
		if st.Cleared, err = s.deletePack(ctx, sc); err != nil {
			return st, err
		}
	}

	batch := func(cypher string, rows []map[string]any) error {
		for start := 0; start < len(rows); start += s.cfg.BatchSize {
			end := min(start+s.cfg.BatchSize, len(rows))
			if _, err := s.query(ctx, cypher, params(map[string]any{"rows": rows[start:end]}), true); err != nil {
				return err
			}
			st.Batches++
			if s.afterBatch != nil {
				s.afterBatch(st.Batches)
			}
		}
		return nil
	}

	// Nodes, label by label in plan order.
	byLabel := map[string][]map[string]any{}
	var labelOrder []string
	for _, n := range pl.nodes {
		if _, ok := byLabel[n.label]; !ok {
			labelOrder = append(labelOrder, n.label)
		}
		row := map[string]any{"props": neoProps(n.props)}
		if n.label == LabelDecisionNode {
			row["keep"] = ep.keep[n.id]
			row["emb"] = nil
			row["model"] = nil
			if v := ep.vectors[n.id]; v != nil {
				row["emb"] = float64s(v)
				row["model"] = ep.model
			}
		}
		byLabel[n.label] = append(byLabel[n.label], row)
	}
	for _, l := range labelOrder {
		cypher := fmt.Sprintf("UNWIND $rows AS row\nMERGE (n:%s %s)\nSET n = row.props", l, keyPattern(l, "row.props"))
		if l == LabelDecisionNode {
			// SET n = props would drop the stored vector; keep it where the
			// plan says so, else write the new one (or none).
			cypher = fmt.Sprintf(`UNWIND $rows AS row
MERGE (n:DecisionNode %s)
WITH n, row, n.grounding_embedding AS oldEmb, n.grounding_embedder AS oldModel
SET n = row.props
SET n.grounding_embedding = CASE WHEN row.keep THEN oldEmb ELSE row.emb END,
    n.grounding_embedder = CASE WHEN row.keep THEN oldModel ELSE row.model END`, keyPattern(l, "row.props"))
		}
		if err := batch(cypher, byLabel[l]); err != nil {
			return st, err
		}
	}

	// Edges, grouped by (type, from label, to label) so each query matches
	// its endpoints through the uniqueness constraints' indexes.
	type egroup struct{ typ, from, to string }
	byGroup := map[egroup][]map[string]any{}
	var groupOrder []egroup
	want := map[string]bool{}
	for _, e := range pl.edges {
		g := egroup{e.typ, e.from.label, e.to.label}
		if _, ok := byGroup[g]; !ok {
			groupOrder = append(groupOrder, g)
		}
		props := e.props
		if props == nil {
			props = map[string]any{}
		}
		byGroup[g] = append(byGroup[g], map[string]any{"from": keyProps(e.from), "to": keyProps(e.to), "props": props})
		want[e.typ+"|"+e.from.String()+"|"+e.to.String()] = true
	}
	for _, g := range groupOrder {
		cypher := fmt.Sprintf(`UNWIND $rows AS row
MATCH (a:%s %s)
MATCH (b:%s %s)
MERGE (a)-[r:%s]->(b)
SET r = row.props`, g.from, keyPattern(g.from, "row.from"), g.to, keyPattern(g.to, "row.to"), g.typ)
		if err := batch(cypher, byGroup[g]); err != nil {
			return st, err
		}
	}

	// Prune what this pack no longer holds: edges first, then nodes.
	res, err := s.query(ctx, fmt.Sprintf(`MATCH (a)-[r]->(b) WHERE a.pack_id = $pack AND a.pack_version = $version
RETURN elementId(r) AS id, type(r) + '|' + %s + '|' + %s AS key`, identExpr("a"), identExpr("b")), params(map[string]any{}), false)
	if err != nil {
		return st, err
	}
	var stale []string
	for _, r := range res.Records {
		m := r.AsMap()
		if !want[pString(m, "key")] {
			stale = append(stale, pString(m, "id"))
		}
	}
	if len(stale) > 0 {
		if _, err := s.query(ctx, "UNWIND $ids AS id MATCH ()-[r]->() WHERE elementId(r) = id DELETE r", params(map[string]any{"ids": stale}), true); err != nil {
			return st, err
		}
		st.PrunedEdges = len(stale)
	}
	wantNode := map[string]bool{}
	for _, n := range pl.nodes {
		wantNode[nref{n.label, n.id}.String()] = true
	}
	res, err = s.query(ctx, fmt.Sprintf(`MATCH (n) WHERE n.pack_id = $pack AND n.pack_version = $version
RETURN elementId(n) AS id, %s AS key`, identExpr("n")), params(map[string]any{}), false)
	if err != nil {
		return st, err
	}
	stale = stale[:0]
	for _, r := range res.Records {
		m := r.AsMap()
		if !wantNode[pString(m, "key")] {
			stale = append(stale, pString(m, "id"))
		}
	}
	if len(stale) > 0 {
		if _, err := s.query(ctx, "UNWIND $ids AS id MATCH (n) WHERE elementId(n) = id DETACH DELETE n", params(map[string]any{"ids": stale}), true); err != nil {
			return st, err
		}
		st.PrunedNodes = len(stale)
	}

	// Grounding indexes: full text always, vectors when this build made some.
	if err := s.schema(ctx, fmt.Sprintf("CREATE FULLTEXT INDEX %s IF NOT EXISTS FOR (n:DecisionNode) ON EACH [n.grounding_text]", FulltextIndex)); err != nil {
		return st, err
	}
	if recreate {
		if _, err := s.query(ctx, "DROP INDEX "+VectorIndex+" IF EXISTS", nil, true); err != nil {
			return st, err
		}
	}
	if ep.dim > 0 {
		if err := s.schema(ctx, fmt.Sprintf("CREATE VECTOR INDEX %s IF NOT EXISTS FOR (n:DecisionNode) ON (n.grounding_embedding) OPTIONS {indexConfig: {`vector.dimensions`: %d, `vector.similarity_function`: 'cosine'}}", VectorIndex, ep.dim)); err != nil {
			return st, err
		}
	}
	if _, err := s.query(ctx, "CALL db.awaitIndexes(300)", nil, false); err != nil {
		return st, err
	}
	s.scope = sc
	st.Duration = time.Since(t0)
	return st, nil
}

// DeletePack deletes every node (and its relationships) of one pack version
// and returns how many nodes went; other packs stay.
func (s *Neo4j) DeletePack(ctx context.Context, packID, version string) (int, error) {
	return s.deletePack(ctx, scope{packID, version})
}

// deletePack deletes in batches so a large pack does not need one huge
// transaction.
func (s *Neo4j) deletePack(ctx context.Context, sc scope) (int, error) {
	total := 0
	for {
		res, err := s.query(ctx, `MATCH (n) WHERE n.pack_id = $pack AND n.pack_version = $version
WITH n LIMIT 2000 DETACH DELETE n RETURN count(*) AS n`, map[string]any{"pack": sc.pack, "version": sc.version}, true)
		if err != nil {
			return total, err
		}
		n := pInt(res.Records[0].AsMap(), "n")
		total += n
		if n == 0 {
			return total, nil
		}
	}
}

// checkVectorIndex compares an existing vector index with the dimension of
// the new vectors. A different dimension is fine when only this pack holds
// vectors (they are all being replaced): the index is then recreated
// (recreate = true). When other packs hold vectors of the old dimension the
// build is refused: Neo4j would silently leave one side out of the index.
func (s *Neo4j) checkVectorIndex(ctx context.Context, sc scope, dim int) (recreate bool, err error) {
	res, err := s.query(ctx, "SHOW VECTOR INDEXES YIELD name, options WHERE name = $name RETURN options", map[string]any{"name": VectorIndex}, false)
	if err != nil {
		return false, err
	}
	have := 0
	for _, r := range res.Records {
		opts, _ := r.AsMap()["options"].(map[string]any)
		ic, _ := opts["indexConfig"].(map[string]any)
		have = pInt(ic, "vector.dimensions")
	}
	if have == 0 || have == dim {
		return false, nil
	}
	res, err = s.query(ctx, `MATCH (d:DecisionNode) WHERE d.grounding_embedding IS NOT NULL
  AND NOT (d.pack_id = $pack AND d.pack_version = $version) AND size(d.grounding_embedding) <> $dim
RETURN DISTINCT d.pack_id + '/' + d.pack_version AS pack ORDER BY pack`, map[string]any{"pack": sc.pack, "version": sc.version, "dim": int64(dim)}, false)
	if err != nil {
		return false, err
	}
	if len(res.Records) == 0 {
		return true, nil
	}
	var others []string
	for _, r := range res.Records {
		others = append(others, pString(r.AsMap(), "pack"))
	}
	return false, fmt.Errorf("graph: vector index %s in %s has %d dimensions and packs %s hold vectors of that size, but the embedder gives %d: build with the embedder those packs used, or rebuild them with this one after DROP INDEX %s; one graph holds one embedding dimension",
		VectorIndex, s.cfg.URI, have, strings.Join(others, ", "), dim, VectorIndex)
}

// neoProps converts plan values to driver parameter types.
func neoProps(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		if f, ok := v.([]float32); ok {
			out[k] = float64s(f)
			continue
		}
		out[k] = v
	}
	return out
}

func float64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// UsePack makes reads refer to another pack in the graph.
func (s *Neo4j) UsePack(id, version string) { s.scope = scope{id, version} }

// readScope returns the pack reads refer to: the loaded or configured one,
// else the only pack in the graph.
func (s *Neo4j) readScope(ctx context.Context) (scope, error) {
	if s.scope != (scope{}) {
		return s.scope, nil
	}
	res, err := s.query(ctx, "MATCH (r:RecommendationNode) RETURN DISTINCT r.pack_id AS p, r.pack_version AS v", nil, false)
	if err != nil {
		return scope{}, err
	}
	if len(res.Records) == 1 {
		m := res.Records[0].AsMap()
		s.scope = scope{pString(m, "p"), pString(m, "v")}
		return s.scope, nil
	}
	var packs []string
	for _, r := range res.Records {
		m := r.AsMap()
		packs = append(packs, pString(m, "p")+"/"+pString(m, "v"))
	}
	sort.Strings(packs)
	if len(packs) == 0 {
		return scope{}, fmt.Errorf("graph: Neo4j at %s holds no pack: run `execkg build --neo4j %s` first", s.cfg.URI, s.cfg.URI)
	}
	return scope{}, fmt.Errorf("graph: Neo4j at %s holds %d packs (%s): set Neo4jConfig.PackID and PackVersion", s.cfg.URI, len(packs), strings.Join(packs, ", "))
}

func (s *Neo4j) scopedParams(ctx context.Context, m map[string]any) (map[string]any, error) {
	sc, err := s.readScope(ctx)
	if err != nil {
		return nil, err
	}
	m["pack"], m["version"] = sc.pack, sc.version
	return m, nil
}

// Counts counts the pack's nodes per label and relationships per type.
func (s *Neo4j) Counts(ctx context.Context) (Counts, error) {
	p, err := s.scopedParams(ctx, map[string]any{})
	if err != nil {
		return Counts{}, err
	}
	c := NewCounts()
	res, err := s.query(ctx, `MATCH (n) WHERE n.pack_id = $pack AND n.pack_version = $version
UNWIND labels(n) AS l RETURN l, count(*) AS n`, p, false)
	if err != nil {
		return Counts{}, err
	}
	for _, r := range res.Records {
		m := r.AsMap()
		c.Nodes[pString(m, "l")] = pInt(m, "n")
	}
	res, err = s.query(ctx, `MATCH (a)-[r]->() WHERE a.pack_id = $pack AND a.pack_version = $version
RETURN type(r) AS t, count(r) AS n`, p, false)
	if err != nil {
		return Counts{}, err
	}
	for _, r := range res.Records {
		m := r.AsMap()
		c.Relationships[pString(m, "t")] = pInt(m, "n")
	}
	return c, nil
}

// GroundingRecords lists the pack's DecisionNodes with their vectors.
func (s *Neo4j) GroundingRecords(ctx context.Context) ([]GroundingRecord, error) {
	p, err := s.scopedParams(ctx, map[string]any{})
	if err != nil {
		return nil, err
	}
	res, err := s.query(ctx, `MATCH (d:DecisionNode) WHERE d.pack_id = $pack AND d.pack_version = $version
RETURN properties(d) AS p`, p, false)
	if err != nil {
		return nil, err
	}
	out := make([]GroundingRecord, 0, len(res.Records))
	for _, r := range res.Records {
		m, _ := r.AsMap()["p"].(map[string]any)
		out = append(out, decodeGrounding(m))
	}
	sort.Slice(out, func(i, j int) bool { return NaturalLess(out[i].DecisionID, out[j].DecisionID) })
	return out, nil
}

// bundleQuery fetches complete bundles in one round trip: the rules with a
// DecisionNode on one of the keys, then per rule all its DecisionNodes
// (vectors left out), paths, source and actions.
const bundleQuery = `MATCH (k:DecisionNode) WHERE k.concept_key IN $keys AND k.pack_id = $pack AND k.pack_version = $version
WITH DISTINCT k.rule_unique_id AS rid
MATCH (r:RecommendationNode {rule_unique_id: rid, pack_id: $pack, pack_version: $version})
OPTIONAL MATCH (r)-[:MENTIONED_IN]->(s:GuidelineSource)
RETURN rid, properties(r) AS rec, properties(s) AS src,
  COLLECT { MATCH (d:DecisionNode {rule_unique_id: rid}) WHERE d.pack_id = $pack AND d.pack_version = $version
            RETURN d {.*, grounding_embedding: null} } AS decisions,
  COLLECT { MATCH (a:DecisionNode {rule_unique_id: rid})-[:LEADS_TO]->(b:DecisionNode)
            WHERE a.pack_id = $pack AND a.pack_version = $version
            RETURN [a.decision_id, b.decision_id] } AS leads,
  COLLECT { MATCH (a:DecisionNode)-[:RESULTS_IN]->(r) RETURN a.decision_id } AS results,
  COLLECT { MATCH (r)-[x:RECOMMENDS_USAGE|RECOMMENDS_PROCEDURE|CONTRAINDICATES|INSUFFICIENT_EVIDENCE]->(c)
            RETURN {rel: type(x), edge: properties(x), label: head(labels(c)), concept: properties(c)} } AS actions`

// Bundles expands concept keys to their rules' complete bundles.
func (s *Neo4j) Bundles(ctx context.Context, conceptKeys []string) ([]Bundle, error) {
	if len(conceptKeys) == 0 {
		return []Bundle{}, nil
	}
	p, err := s.scopedParams(ctx, map[string]any{"keys": conceptKeys})
	if err != nil {
		return nil, err
	}
	res, err := s.query(ctx, bundleQuery, p, false)
	if err != nil {
		return nil, err
	}
	out := make([]Bundle, 0, len(res.Records))
	for _, r := range res.Records {
		m := r.AsMap()
		rec, _ := m["rec"].(map[string]any)
		src, _ := m["src"].(map[string]any)
		b := Bundle{
			RuleID: pString(m, "rid"), RowID: pString(rec, "source_row_id"),
			PackID: pString(p, "pack"), PackVersion: pString(p, "version"),
			Recommendation: decodeRecommendation(rec), Source: decodeSource(src),
		}
		for _, d := range anyList(m["decisions"]) {
			dm, _ := d.(map[string]any)
			b.Decisions = append(b.Decisions, decodeDecision(dm))
		}
		for _, l := range anyList(m["leads"]) {
			pair := anyList(l)
			if len(pair) == 2 {
				from, _ := pair[0].(string)
				to, _ := pair[1].(string)
				b.LeadsTo = append(b.LeadsTo, Edge{From: from, To: to})
			}
		}
		for _, x := range anyList(m["results"]) {
			id, _ := x.(string)
			b.ResultsIn = append(b.ResultsIn, id)
		}
		for _, x := range anyList(m["actions"]) {
			am, _ := x.(map[string]any)
			edge, _ := am["edge"].(map[string]any)
			concept, _ := am["concept"].(map[string]any)
			b.Actions = append(b.Actions, decodeAction(pString(am, "rel"), edge, pString(am, "label"), concept))
		}
		sortBundle(&b)
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return NaturalLess(out[i].RuleID, out[j].RuleID) })
	return out, nil
}

func anyList(v any) []any {
	l, _ := v.([]any)
	return l
}

// FulltextSearch runs a Lucene query over the DecisionNodes' grounding text
// (index decisionnode_grounding_fulltext_idx) and returns the pack's k best
// hits, best first.
func (s *Neo4j) FulltextSearch(ctx context.Context, luceneQuery string, k int) ([]Hit, error) {
	p, err := s.scopedParams(ctx, map[string]any{"index": FulltextIndex, "q": luceneQuery, "k": int64(k)})
	if err != nil {
		return nil, err
	}
	res, err := s.query(ctx, `CALL db.index.fulltext.queryNodes($index, $q) YIELD node, score
WHERE node.pack_id = $pack AND node.pack_version = $version
RETURN node.decision_id AS id, node.rule_unique_id AS rule, node.concept_key AS key, node.concept_name AS name, score
ORDER BY score DESC, id LIMIT $k`, p, false)
	if err != nil {
		return nil, err
	}
	return decodeHits(res), nil
}

// VectorSearch returns the pack's k DecisionNodes nearest to vec (cosine,
// index decisionnode_grounding_vector_idx), best first. The index is asked
// for k plus the vectors of other packs, so filtering to this pack never
// loses one of its k nearest.
func (s *Neo4j) VectorSearch(ctx context.Context, vec []float32, k int) ([]Hit, error) {
	p, err := s.scopedParams(ctx, map[string]any{"index": VectorIndex, "vec": float64s(vec), "k": int64(k)})
	if err != nil {
		return nil, err
	}
	res, err := s.query(ctx, `MATCH (d:DecisionNode) WHERE d.grounding_embedding IS NOT NULL AND NOT (d.pack_id = $pack AND d.pack_version = $version)
RETURN count(d) AS n`, p, false)
	if err != nil {
		return nil, err
	}
	p["kk"] = int64(k + pInt(res.Records[0].AsMap(), "n"))
	res, err = s.query(ctx, `CALL db.index.vector.queryNodes($index, $kk, $vec) YIELD node, score
WHERE node.pack_id = $pack AND node.pack_version = $version
RETURN node.decision_id AS id, node.rule_unique_id AS rule, node.concept_key AS key, node.concept_name AS name, score
ORDER BY score DESC, id LIMIT $k`, p, false)
	if err != nil {
		return nil, err
	}
	return decodeHits(res), nil
}

func decodeHits(res *neo4j.EagerResult) []Hit {
	out := make([]Hit, 0, len(res.Records))
	for _, r := range res.Records {
		m := r.AsMap()
		score, _ := m["score"].(float64)
		out = append(out, Hit{DecisionID: pString(m, "id"), RuleID: pString(m, "rule"), ConceptKey: pString(m, "key"), ConceptName: pString(m, "name"), Score: score})
	}
	return out
}
