package graph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/executablekg/execkg/rules"
)

// Memory is the embedded store: an in-process property graph with the same
// labels, properties, relationships and merge semantics as the Neo4j store.
// Results are deterministic. It is safe for concurrent use.
type Memory struct {
	mu    sync.RWMutex
	nodes map[mkey]map[string]any
	edges map[ekey]map[string]any
	scope scope
	// bundles caches every bundle of the scope, built from the graph after
	// each Load; nil when stale.
	bundles map[string]*Bundle
	byKey   map[string][]string // concept key -> rule ids
	order   map[string]int      // rule id -> rank in natural order
}

// scope is the pack a store reads.
type scope struct{ pack, version string }

type mkey struct {
	scope
	nref
}

type ekey struct {
	scope
	typ      string
	from, to nref
}

// NewMemory returns an empty embedded store.
func NewMemory() *Memory {
	return &Memory{nodes: map[mkey]map[string]any{}, edges: map[ekey]map[string]any{}}
}

// Close releases nothing; it exists to satisfy Store.
func (m *Memory) Close() error { return nil }

// Load writes the pack's plan into the graph: nodes and edges are merged
// on their identities, those of this pack no longer in the plan are removed.
func (m *Memory) Load(ctx context.Context, pack *rules.Pack, opt BuildOptions) (BuildStats, error) {
	t0 := time.Now()
	pl, err := buildPlan(pack, opt)
	if err != nil {
		return BuildStats{}, err
	}
	sc := scope{pl.packID, pl.packVersion}
	st := BuildStats{PackID: sc.pack, PackVersion: sc.version, Rules: pl.rules, Nodes: len(pl.nodes), Edges: len(pl.edges), Batches: 1}

	existing := map[string]embedState{}
	if !opt.ClearGraph {
		m.mu.RLock()
		for k, p := range m.nodes {
			if k.scope == sc && k.label == LabelDecisionNode {
				v := pFloats(p, "grounding_embedding")
				existing[k.id] = embedState{hash: pString(p, "grounding_hash"), embedder: pString(p, "grounding_embedder"), has: v != nil, dim: len(v)}
			}
		}
		m.mu.RUnlock()
	}
	// Embedding happens before the write lock: a slow or failing embedder
	// neither blocks readers nor leaves a half-written pack.
	ep, err := planEmbeddings(ctx, pl, existing, opt, &st)
	if err != nil {
		return BuildStats{}, err
	}
	if err := ctx.Err(); err != nil {
		return BuildStats{}, err
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	m.bundles, m.byKey, m.order = nil, nil, nil
	if opt.ClearGraph {
		for k := range m.nodes {
			if k.scope == sc {
				delete(m.nodes, k)
				st.Cleared++
			}
		}
		for k := range m.edges {
			if k.scope == sc {
				delete(m.edges, k)
			}
		}
	}
	want := map[mkey]bool{}
	for _, n := range pl.nodes {
		k := mkey{sc, nref{n.label, n.id}}
		want[k] = true
		old := m.nodes[k]
		p := make(map[string]any, len(n.props)+2)
		for name, v := range n.props {
			p[name] = v
		}
		if n.label == LabelDecisionNode {
			switch {
			case ep.keep[n.id] && old != nil:
				p["grounding_embedding"] = old["grounding_embedding"]
				p["grounding_embedder"] = old["grounding_embedder"]
			case ep.vectors[n.id] != nil:
				p["grounding_embedding"] = append([]float32(nil), ep.vectors[n.id]...)
				p["grounding_embedder"] = ep.model
			}
		}
		m.nodes[k] = p
	}
	wantEdge := map[ekey]bool{}
	for _, e := range pl.edges {
		k := ekey{sc, e.typ, e.from, e.to}
		wantEdge[k] = true
		p := map[string]any{}
		for name, v := range e.props {
			p[name] = v
		}
		m.edges[k] = p
	}
	for k := range m.edges {
		if k.scope == sc && !wantEdge[k] {
			delete(m.edges, k)
			st.PrunedEdges++
		}
	}
	for k := range m.nodes {
		if k.scope == sc && !want[k] {
			delete(m.nodes, k)
			st.PrunedNodes++
		}
	}
	m.scope = sc
	st.Duration = time.Since(t0)
	return st, nil
}

// UsePack makes reads refer to another pack already in the store.
func (m *Memory) UsePack(id, version string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.scope = scope{id, version}
	m.bundles, m.byKey, m.order = nil, nil, nil
}

// readScope returns the pack reads refer to: the loaded one, else the only
// pack in the graph.
func (m *Memory) readScope() (scope, error) {
	if m.scope != (scope{}) {
		return m.scope, nil
	}
	packs := map[scope]bool{}
	for k := range m.nodes {
		packs[k.scope] = true
	}
	if len(packs) == 1 {
		for s := range packs {
			return s, nil
		}
	}
	return scope{}, fmt.Errorf("graph: the embedded store holds %d packs and none was loaded through it: call Load first", len(packs))
}

// Counts counts the scope's nodes per label and relationships per type.
func (m *Memory) Counts(ctx context.Context) (Counts, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	sc, err := m.readScope()
	if err != nil {
		return Counts{}, err
	}
	c := NewCounts()
	for k := range m.nodes {
		if k.scope == sc {
			c.Nodes[k.label]++
		}
	}
	for k := range m.edges {
		if k.scope == sc {
			c.Relationships[k.typ]++
		}
	}
	return c, nil
}

// GroundingRecords lists the scope's DecisionNodes.
func (m *Memory) GroundingRecords(ctx context.Context) ([]GroundingRecord, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	sc, err := m.readScope()
	if err != nil {
		return nil, err
	}
	var out []GroundingRecord
	for k, p := range m.nodes {
		if k.scope == sc && k.label == LabelDecisionNode {
			out = append(out, decodeGrounding(p))
		}
	}
	sort.Slice(out, func(i, j int) bool { return NaturalLess(out[i].DecisionID, out[j].DecisionID) })
	return out, nil
}

// Bundles expands concept keys to their rules' complete bundles.
func (m *Memory) Bundles(ctx context.Context, conceptKeys []string) ([]Bundle, error) {
	shared, err := m.SharedBundles(ctx, conceptKeys)
	if err != nil {
		return nil, err
	}
	out := make([]Bundle, len(shared))
	for i, b := range shared {
		out[i] = cloneBundle(b)
	}
	return out, nil
}

// SharedBundles is Bundles without the copies, for a reader that only
// reads them (the engine, once per case): the bundles are the store's own
// and must not be modified. A later Load builds new ones, so a bundle's
// address names its content for as long as the caller holds it.
func (m *Memory) SharedBundles(ctx context.Context, conceptKeys []string) ([]*Bundle, error) {
	bundles, byKey, order, err := m.ensureBundles()
	if err != nil {
		return nil, err
	}
	// Natural order of rule ids, ranked once per Load; a rule reached by
	// several keys has one rank, so sorting by rank brings its copies
	// together to be dropped.
	type ranked struct {
		rank int
		b    *Bundle
	}
	var rs []ranked
	for _, k := range conceptKeys {
		for _, id := range byKey[k] {
			rs = append(rs, ranked{order[id], bundles[id]})
		}
	}
	if len(rs) == 0 {
		return nil, nil
	}
	slices.SortFunc(rs, func(a, b ranked) int { return cmp.Compare(a.rank, b.rank) })
	rs = slices.CompactFunc(rs, func(a, b ranked) bool { return a.rank == b.rank })
	out := make([]*Bundle, len(rs))
	for i, r := range rs {
		out[i] = r.b
	}
	return out, nil
}

// ensureBundles assembles every bundle of the scope by walking the graph
// (not the plan), so the bundles show what is stored. The maps returned are
// never modified afterwards (Load replaces them), so callers read them
// without the lock.
func (m *Memory) ensureBundles() (map[string]*Bundle, map[string][]string, map[string]int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.bundles != nil {
		return m.bundles, m.byKey, m.order, nil
	}
	sc, err := m.readScope()
	if err != nil {
		return nil, nil, nil, err
	}
	bundles := map[string]*Bundle{}
	byKey := map[string][]string{}
	for k, p := range m.nodes {
		if k.scope == sc && k.label == LabelRecommendationNode {
			bundles[k.id] = &Bundle{RuleID: k.id, RowID: pString(p, "source_row_id"), PackID: sc.pack, PackVersion: sc.version, Recommendation: decodeRecommendation(p)}
		}
	}
	keyed := map[string]map[string]bool{}
	for k, p := range m.nodes {
		if k.scope != sc || k.label != LabelDecisionNode {
			continue
		}
		rid := pString(p, "rule_unique_id")
		b := bundles[rid]
		if b == nil {
			return nil, nil, nil, fmt.Errorf("graph: DecisionNode %s names rule %s, which has no RecommendationNode: rebuild the pack", k.id, rid)
		}
		b.Decisions = append(b.Decisions, decodeDecision(p))
		ck := pString(p, "concept_key")
		if keyed[ck] == nil {
			keyed[ck] = map[string]bool{}
		}
		if !keyed[ck][rid] {
			keyed[ck][rid] = true
			byKey[ck] = append(byKey[ck], rid)
		}
	}
	for k, ep := range m.edges {
		if k.scope != sc {
			continue
		}
		switch k.typ {
		case RelLeadsTo:
			rid := pString(m.nodes[mkey{sc, k.from}], "rule_unique_id")
			if b := bundles[rid]; b != nil {
				b.LeadsTo = append(b.LeadsTo, Edge{From: k.from.id, To: k.to.id})
			}
		case RelResultsIn:
			if b := bundles[k.to.id]; b != nil {
				b.ResultsIn = append(b.ResultsIn, k.from.id)
			}
		case RelMentionedIn:
			if b := bundles[k.from.id]; b != nil {
				b.Source = decodeSource(m.nodes[mkey{sc, k.to}])
			}
		case RelRecommendsUsage, RelRecommendsProcedure, RelContraindicates, RelInsufficientEvidence:
			if b := bundles[k.from.id]; b != nil {
				b.Actions = append(b.Actions, decodeAction(k.typ, ep, k.to.label, m.nodes[mkey{sc, k.to}]))
			}
		}
	}
	ids := make([]string, 0, len(bundles))
	for id, b := range bundles {
		sortBundle(b)
		ids = append(ids, id)
	}
	sort.Strings(ids) // ties of NaturalLess ("r01", "r1") in one fixed order
	sort.SliceStable(ids, func(i, j int) bool { return NaturalLess(ids[i], ids[j]) })
	order := make(map[string]int, len(ids))
	for i, id := range ids {
		order[id] = i
	}
	m.bundles, m.byKey, m.order = bundles, byKey, order
	return bundles, byKey, order, nil
}

func cloneBundle(b *Bundle) Bundle {
	c := *b
	c.Decisions = make([]Decision, len(b.Decisions))
	for i, d := range b.Decisions {
		d.GroundingAliases = append([]string(nil), d.GroundingAliases...)
		if len(d.GroundingAliases) == 0 {
			d.GroundingAliases = nil
		}
		c.Decisions[i] = d
	}
	c.LeadsTo = append([]Edge{}, b.LeadsTo...)
	c.ResultsIn = append([]string{}, b.ResultsIn...)
	c.Actions = append([]Action{}, b.Actions...)
	return c
}
