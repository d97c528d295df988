// Package grounding is step (ii) of the pipeline: it takes the text of one
// patient finding and returns the concepts the finding may mean, each as an
// anchor standing for every DecisionNode (and so every rule) that tests the
// concept.
//
// Two channels search the grounding phrases of the DecisionNodes (wording,
// concept name, lexicon synonyms; see Records): a Bleve full-text index
// (package fulltext) and exact cosine search over embeddings (package
// vector, embedders in package embed). Their hits are collapsed into
// concepts and fused, by reciprocal rank fusion or by a score-aware fusion
// that keeps score gaps (Fusion), and the best few concepts are returned
// with the full trace of what found them.
package grounding

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/grounding/fulltext"
	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/grounding/vector"
)

// Channel names, as they appear in anchors and reports.
const (
	ChannelFullText = "fulltext"
	ChannelVector   = "vector"
)

// Defaults (the reference system's settings, except where measured).
const (
	DefaultK       = 50 // hits per channel
	DefaultRRFK    = 60
	DefaultAnchors = 3
	// DefaultThreshold is the cosine cut-off for neural embedders; the
	// built-in embedder brings its own measured one (embed.BuiltinThreshold).
	DefaultThreshold = 0.80
)

// expansionWeight discounts hits found through an abbreviation expansion
// (full-text boosts and cosines of the expanded variants are scaled by
// it): an expansion is a guess from shared initials. Measured with
// grounding-eval (guard on, cut-off 0.3 at the time): 0.6 brings the wrong
// in-index anchors back to the level without expansion (−30%) and keeps
// over 90% of the expansions' leave-one-out gain.
const expansionWeight = 0.6

// Grounder grounds findings against a set of records. It is immutable after
// New and safe for concurrent use.
type Grounder struct {
	records  []Record
	elems    []element
	byQuery  map[string][]int // normalised QueryText of a phrase → elements
	concepts map[string]*concept
	conList  []*concept // by concept.idx
	slots    sync.Pool  // *[]int32, one per concept, -1 between Fuse calls
	fusing   sync.Pool  // *[]fused, Fuse's working list
	hitBufs  sync.Pool  // *hitBuf, Ground's channel hit lists
	ft       *fulltext.Index
	vec      *vector.Index
	acr      *acronyms
	cfg      config
	cache    *anchorCache // Ground's answers by finding text; nil when off
	// byVariants holds them by query variants (see Ground); nil when off.
	byVariants *anchorCache
}

// element is one distinct grounding phrase (by normalised text) and the
// records whose grounding text holds it. Indexing distinct phrases rather
// than DecisionNodes keeps the 78 identical nodes of a concept tested by
// 78 rules from filling the top 50 on their own.
type element struct {
	text string // as first written
	norm string // textnorm.Normalize(text)
	refs []ref
	// byConcept groups refs by concept, precomputed for Fuse.
	byConcept []conceptRef
}

// conceptRef is one concept whose records hold an element.
type conceptRef struct {
	key         string
	idx         int // concept.idx
	decisionIDs []string
	sources     []string
}

type ref struct {
	record int
	source string
}

// concept is what an anchor stands for.
type concept struct {
	idx                 int // position in Grounder.conList
	key, name, snomedID string
	decisionIDs         []string
	ruleIDs             []string
}

type config struct {
	embedder     embed.Embedder
	cacheDir     string
	indexPath    string
	k            int
	threshold    float64
	thresholdSet bool
	guard        bool
	abbrev       bool
	fusion       Fusion
	cacheSize    int
	ftStore      string
}

// Option configures New.
type Option func(*config)

// WithEmbedder sets the vector channel's embedder (default: the built-in
// lexical embedder, embed.NewBuiltin).
func WithEmbedder(e embed.Embedder) Option { return func(c *config) { c.embedder = e } }

// WithCacheDir caches the grounding phrases' embeddings under dir, so they
// are computed once per embedder and text.
func WithCacheDir(dir string) Option { return func(c *config) { c.cacheDir = dir } }

// WithIndexPath keeps the full-text index on disk at path (default: in
// memory).
func WithIndexPath(path string) Option { return func(c *config) { c.indexPath = path } }

// WithK sets the hits taken from each channel (default 50).
func WithK(k int) Option { return func(c *config) { c.k = k } }

// WithThreshold sets the vector channel's cosine cut-off (default 0.80, or
// the built-in embedder's measured value).
func WithThreshold(t float64) Option {
	return func(c *config) { c.threshold, c.thresholdSet = t, true }
}

// WithGuard switches the full-text single-word guard (default off: with
// score fusion and its relative cut-off the guard measured no better on
// precision and worse on recall; see README.md).
func WithGuard(on bool) Option { return func(c *config) { c.guard = on } }

// WithAbbreviations switches abbreviation expansion from the index's own
// long forms (default on).
func WithAbbreviations(on bool) Option { return func(c *config) { c.abbrev = on } }

// WithFullTextStore selects the key-value store under the in-memory
// full-text index (fulltext.Options.Store): "" the sorted snapshot store
// and the native scorer, fulltext.GtreapStore Bleve's own store and
// searchers. Answers are the same; it exists to measure and test that.
func WithFullTextStore(name string) Option { return func(c *config) { c.ftStore = name } }

// WithFusion sets how the channels are fused and how many anchors are kept
// (default DefaultFusion()).
func WithFusion(f Fusion) Option { return func(c *config) { c.fusion = f } }

// New indexes the records' grounding phrases in both channels.
func New(records []Record, opts ...Option) (*Grounder, error) {
	cfg := config{k: DefaultK, abbrev: true, fusion: DefaultFusion(), cacheSize: DefaultCacheSize}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.embedder == nil {
		cfg.embedder = embed.NewBuiltin(0)
	}
	if !cfg.thresholdSet {
		cfg.threshold = DefaultThreshold
		if d, ok := cfg.embedder.(interface{ DefaultThreshold() float64 }); ok {
			cfg.threshold = d.DefaultThreshold()
		}
	}
	if cfg.k <= 0 {
		return nil, fmt.Errorf("grounding: hits per channel must be positive, got %d", cfg.k)
	}
	if err := cfg.fusion.validate(); err != nil {
		return nil, err
	}
	if len(records) == 0 {
		return nil, errors.New("grounding: no records to index; build them with grounding.Records from a loaded pack")
	}
	g := &Grounder{records: records, byQuery: map[string][]int{}, concepts: map[string]*concept{}, cfg: cfg}

	byNorm := map[string]int{}
	for ri := range records {
		r := &records[ri]
		if r.ConceptKey == "" {
			return nil, fmt.Errorf("grounding: record %d (%s) has no concept key", ri, r.DecisionID)
		}
		for _, p := range r.phrases() {
			n := textnorm.Normalize(p.Text)
			if n == "" {
				continue
			}
			id, ok := byNorm[n]
			if !ok {
				id = len(g.elems)
				byNorm[n] = id
				g.elems = append(g.elems, element{text: p.Text, norm: n})
				q := textnorm.Normalize(fulltext.QueryText(p.Text))
				g.byQuery[q] = append(g.byQuery[q], id)
			}
			e := &g.elems[id]
			if len(e.refs) == 0 || e.refs[len(e.refs)-1].record != ri {
				e.refs = append(e.refs, ref{record: ri, source: p.Source})
			}
		}
		c := g.concepts[r.ConceptKey]
		if c == nil {
			c = &concept{idx: len(g.conList), key: r.ConceptKey, name: r.Concept}
			g.conList = append(g.conList, c)
			if strings.HasPrefix(r.ConceptKey, "sct:") {
				c.snomedID = strings.TrimPrefix(r.ConceptKey, "sct:")
			}
			g.concepts[r.ConceptKey] = c
		}
		c.decisionIDs = append(c.decisionIDs, r.DecisionID)
		if n := len(c.ruleIDs); n == 0 || c.ruleIDs[n-1] != r.RuleID {
			c.ruleIDs = append(c.ruleIDs, r.RuleID)
		}
	}
	if len(g.elems) == 0 {
		return nil, errors.New("grounding: the records hold no grounding text")
	}
	for i := range g.elems {
		e := &g.elems[i]
		pos := map[string]int{}
		for _, r := range e.refs {
			rec := &records[r.record]
			j, ok := pos[rec.ConceptKey]
			if !ok {
				j = len(e.byConcept)
				pos[rec.ConceptKey] = j
				e.byConcept = append(e.byConcept, conceptRef{key: rec.ConceptKey, idx: g.concepts[rec.ConceptKey].idx})
			}
			cr := &e.byConcept[j]
			cr.decisionIDs = append(cr.decisionIDs, rec.DecisionID)
			if !contains(cr.sources, r.source) {
				cr.sources = append(cr.sources, r.source)
			}
		}
	}

	texts := make([]string, len(g.elems))
	for i, e := range g.elems {
		texts[i] = e.text
	}
	var err error
	g.ft, err = fulltext.New(texts, fulltext.Options{Path: cfg.indexPath, Store: cfg.ftStore})
	if err != nil {
		return nil, err
	}
	var docEmb embed.Embedder = cfg.embedder
	if cfg.cacheDir != "" {
		docEmb = embed.NewCache(cfg.embedder, cfg.cacheDir)
	}
	vecs, err := docEmb.Embed(context.Background(), texts)
	if err != nil {
		g.ft.Close()
		return nil, fmt.Errorf("grounding: embed %d grounding phrases with %s: %w", len(texts), cfg.embedder.Name(), err)
	}
	g.vec, err = vector.New(vecs)
	if err != nil {
		g.ft.Close()
		return nil, fmt.Errorf("grounding: %w", err)
	}
	if cfg.abbrev {
		g.acr = newAcronyms(g.elems)
	}
	g.cache, g.byVariants = newAnchorCache(cfg.cacheSize), newAnchorCache(cfg.cacheSize)
	return g, nil
}

// Close releases the full-text index.
func (g *Grounder) Close() error { return g.ft.Close() }

// Records returns the indexed records (do not modify).
func (g *Grounder) Records() []Record { return g.records }

// Threshold is the vector channel's cosine cut-off in use.
func (g *Grounder) Threshold() float64 { return g.cfg.threshold }

// Embedder is the vector channel's embedder.
func (g *Grounder) Embedder() embed.Embedder { return g.cfg.embedder }

// Fusion is the fusion Ground uses.
func (g *Grounder) Fusion() Fusion { return g.cfg.fusion }

// Phrases is the number of distinct grounding phrases indexed.
func (g *Grounder) Phrases() int { return len(g.elems) }

// Ground returns the best anchors for a finding (DefaultAnchors unless
// configured), best first. A finding with nothing left after QueryText
// (only a number, only a negation) has no anchors. Answers are cached by
// finding text (WithCacheSize); the Grounder is immutable, so a cached
// answer is the one Ground would compute.
func (g *Grounder) Ground(ctx context.Context, finding string) ([]Anchor, error) {
	if as, ok := g.cache.Get(finding); ok {
		return cloneAnchors(as), nil
	}
	o := g.RetrieveDefaults()
	c, hidden := g.prepare(finding, o)
	// Both channels read only the query variants, and fusion only their
	// hits: findings that differ in numbers or negation words ("eGFR 24",
	// "eGFR 35") share one retrieval.
	vkey := strings.Join(c.Variants, "\x00")
	if as, ok := g.byVariants.Get(vkey); ok && c.Query != "" {
		g.cache.Put(finding, as)
		return cloneAnchors(as), nil
	}
	// The hit lists live only until Fuse has copied what it keeps.
	hb, _ := g.hitBufs.Get().(*hitBuf)
	if hb == nil {
		hb = &hitBuf{}
	}
	c.FullText, c.Vector = hb.ft[:0], hb.vec[:0]
	if c.Query != "" {
		if err := g.search(ctx, c, o, hidden, &hb.fts); err != nil {
			return nil, err
		}
	}
	as := g.Fuse(c, g.cfg.fusion)
	hb.ft, hb.vec = c.FullText[:0], c.Vector[:0]
	g.hitBufs.Put(hb)
	g.cache.Put(finding, as)
	if c.Query != "" {
		g.byVariants.Put(vkey, as)
	}
	return cloneAnchors(as), nil
}

// GroundLiteral is Ground without abbreviation expansion: the anchors
// the finding's own words find, no word read as the initials of an
// indexed phrase. A caller uses it where initials are no acronym (a
// document's title: "ED CAS card"). Not cached; with abbreviations off
// it is Ground.
func (g *Grounder) GroundLiteral(ctx context.Context, finding string) ([]Anchor, error) {
	if !g.cfg.abbrev {
		return g.Ground(ctx, finding)
	}
	o := g.RetrieveDefaults()
	o.Abbreviations = false
	c, err := g.Retrieve(ctx, finding, o)
	if err != nil {
		return nil, err
	}
	return g.Fuse(c, g.cfg.fusion), nil
}

// hitBuf holds a Ground call's channel hit lists for the next call, and
// the full-text search's own hits and matched words (fts), which the
// full-text hit list holds until Fuse has read it.
type hitBuf struct {
	ft, vec []PhraseHit
	fts     fulltext.Scratch
}

// RetrieveOptions configure one retrieval.
type RetrieveOptions struct {
	K         int
	Guard     bool
	Threshold float64 // vector hits below it are not returned
	// Abbreviations expands abbreviations (needs WithAbbreviations).
	Abbreviations bool
	// Hide hides every phrase whose cleaned text equals this one's
	// (leave-one-out evaluation: a query may not find itself).
	Hide string
}

// RetrieveDefaults returns the options Ground uses.
func (g *Grounder) RetrieveDefaults() RetrieveOptions {
	return RetrieveOptions{K: g.cfg.k, Guard: g.cfg.guard, Threshold: g.cfg.threshold, Abbreviations: g.cfg.abbrev}
}

// Candidates are the raw hits of both channels for one finding.
type Candidates struct {
	Finding  string
	Query    string   // QueryText(Finding)
	Variants []string // Query and its abbreviation expansions
	FullText []PhraseHit
	Vector   []PhraseHit
}

// PhraseHit is one grounding phrase found by one channel.
type PhraseHit struct {
	Element int
	Phrase  string
	Rank    int // 1-based, in the channel's list
	// Score is BM25 (full text) or cosine (vector); found only through an
	// abbreviation expansion, the cosine is discounted (expansionWeight).
	Score float64
	// Matched and Exact describe a full-text hit: the query words found,
	// and whether the whole query phrase occurs.
	Matched []string
	Exact   bool
}

// Retrieve runs both channels for a finding.
func (g *Grounder) Retrieve(ctx context.Context, finding string, o RetrieveOptions) (*Candidates, error) {
	c, hidden := g.prepare(finding, o)
	if c.Query == "" {
		return c, nil
	}
	if err := g.search(ctx, c, o, hidden, nil); err != nil {
		return nil, err
	}
	return c, nil
}

// prepare reads a finding's query text and its variants, and the phrases
// o.Hide hides.
func (g *Grounder) prepare(finding string, o RetrieveOptions) (*Candidates, map[int]bool) {
	c := &Candidates{Finding: finding, Query: fulltext.QueryText(finding)}
	if c.Query == "" {
		return c, nil
	}
	var hidden map[int]bool
	if o.Hide != "" {
		hidden = map[int]bool{}
		for _, id := range g.byQuery[textnorm.Normalize(fulltext.QueryText(o.Hide))] {
			hidden[id] = true
		}
	}
	c.Variants = []string{c.Query}
	if o.Abbreviations && g.acr != nil {
		c.Variants = g.acr.variants(finding, c.Query, hidden)
	}
	return c, hidden
}

// search fills both channels' hits for the prepared variants. With fts,
// the full-text hits' matched words live in it, until its next search.
func (g *Grounder) search(ctx context.Context, c *Candidates, o RetrieveOptions, hidden map[int]bool, fts *fulltext.Scratch) error {
	finding := c.Finding
	if o.K <= 0 {
		o.K = g.cfg.k
	}
	var isHidden func(id int) bool
	if len(hidden) > 0 {
		isHidden = func(id int) bool { return hidden[id] }
	}
	var exclude []int
	for id := range hidden {
		exclude = append(exclude, id)
	}
	sort.Ints(exclude)
	fh, err := g.ft.Search(c.Variants, fulltext.SearchOptions{K: o.K, Guard: o.Guard, Exclude: exclude, VariantWeight: expansionWeight, Scratch: fts})
	if err != nil {
		return fmt.Errorf("ground %q: %w", finding, err)
	}
	c.FullText = slices.Grow(c.FullText[:0], len(fh))
	for i, h := range fh {
		c.FullText = append(c.FullText, PhraseHit{Element: h.ID, Phrase: g.elems[h.ID].text, Rank: i + 1, Score: h.Score, Matched: h.Matched, Exact: h.Phrase})
	}

	byVariant, n, err := g.searchVector(ctx, c.Variants, o, isHidden)
	if err != nil {
		return fmt.Errorf("ground %q: %w", finding, err)
	}
	c.Vector = slices.Grow(c.Vector[:0], n)
	for i, hits := range byVariant {
		w := 1.0
		if i > 0 {
			w = expansionWeight
		}
		for _, h := range hits {
			c.Vector = append(c.Vector, PhraseHit{Element: h.ID, Score: h.Score * w})
		}
	}
	if len(byVariant) > 1 {
		slices.SortFunc(c.Vector, func(a, b PhraseHit) int {
			if a.Element != b.Element {
				return a.Element - b.Element
			}
			return cmp.Compare(b.Score, a.Score)
		})
		c.Vector = slices.CompactFunc(c.Vector, func(a, b PhraseHit) bool { return a.Element == b.Element })
	}
	slices.SortFunc(c.Vector, func(a, b PhraseHit) int {
		if a.Score != b.Score {
			return cmp.Compare(b.Score, a.Score)
		}
		return a.Element - b.Element
	})
	if len(c.Vector) > o.K {
		c.Vector = c.Vector[:o.K]
	}
	for i := range c.Vector {
		c.Vector[i].Phrase = g.elems[c.Vector[i].Element].text
	}
	for i := range c.Vector {
		c.Vector[i].Rank = i + 1
	}
	return nil
}

// sparseEmbedder is an embedder that also gives its vectors in sparse form
// (embed.Builtin.AppendSparse), bit for bit the same as Embed's.
type sparseEmbedder interface {
	AppendSparse(dims []int32, vals []float32, text string) ([]int32, []float32)
}

// sparseQuery holds a query variant's sparse vector between searches.
type sparseQuery struct {
	dims []int32
	vals []float32
}

var sparseQueries = sync.Pool{New: func() any { return &sparseQuery{} }}

// searchVector embeds each variant and searches the vector index with it,
// at the threshold a discounted cosine must clear, returning each
// variant's hits and their total. With a sparse index and an embedder that
// gives sparse vectors, a variant's vector is never built dense: the same
// vector, the same hits.
func (g *Grounder) searchVector(ctx context.Context, variants []string, o RetrieveOptions, isHidden func(id int) bool) ([][]vector.Hit, int, error) {
	byVariant := make([][]vector.Hit, len(variants))
	n := 0
	threshold := func(i int) float64 {
		if i > 0 {
			return o.Threshold / expansionWeight // a discounted cosine must still clear the threshold
		}
		return o.Threshold
	}
	if se, ok := g.cfg.embedder.(sparseEmbedder); ok && g.vec.Sparse() {
		// Embed checks the context before its first text; so does this.
		if err := ctx.Err(); err != nil {
			return nil, 0, fmt.Errorf("embed the query with %s: %w", g.cfg.embedder.Name(), err)
		}
		q := sparseQueries.Get().(*sparseQuery)
		defer sparseQueries.Put(q)
		for i, v := range variants {
			q.dims, q.vals = se.AppendSparse(q.dims[:0], q.vals[:0], v)
			var err error
			if byVariant[i], err = g.vec.SearchSparse(q.dims, q.vals, o.K, threshold(i), isHidden); err != nil {
				return nil, 0, err
			}
			n += len(byVariant[i])
		}
		return byVariant, n, nil
	}
	qv, err := g.cfg.embedder.Embed(ctx, variants)
	if err != nil {
		return nil, 0, fmt.Errorf("embed the query with %s: %w", g.cfg.embedder.Name(), err)
	}
	for i, v := range qv {
		if byVariant[i], err = g.vec.Search(v, o.K, threshold(i), isHidden); err != nil {
			return nil, 0, err
		}
		n += len(byVariant[i])
	}
	return byVariant, n, nil
}
