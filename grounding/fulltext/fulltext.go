// Package fulltext is the full-text channel of grounding: a Bleve index
// over grounding phrases, queried per finding with the whole phrase
// (boosted) OR its single words, ranked by Bleve's score (BM25 is set, but
// the upsidedown index keeps no field lengths, so it scores TF-IDF; see
// native.go), with a guard against hits that share only one common or
// generic word with the finding.
//
// Analyzer. Texts are first normalised in Go (textnorm.Normalize: case,
// accents, ² → 2, British → American spelling), then Bleve's unicode
// tokenizer, lower-casing, a short stop list (textnorm.StopWords) and the
// Snowball English stemmer. Stemming merges the inflections clinicians mix
// freely (diabetes/diabetic, obese/obesity, arrhythmia/arrhythmias); the
// short stop list keeps before/after, above/below and more/less, which
// Snowball's own list drops but which change clinical meaning.
package fulltext

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/token/stop"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/analysis/tokenmap"
	"github.com/blevesearch/bleve/v2/index/upsidedown"
	"github.com/blevesearch/bleve/v2/index/upsidedown/store/gtreap"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/executablekg/execkg/grounding/textnorm"
)

const (
	analyzerName = "execkg_en"
	field        = "t"
	// analyzerVersion is part of an on-disk index's fingerprint: change it
	// when the analysis changes, so stale indexes are rebuilt.
	analyzerVersion = "execkg_en-v1"
	fingerprintKey  = "execkg_fingerprint"
)

// Defaults of SearchOptions.
const (
	DefaultK           = 50
	DefaultPhraseBoost = 4
	DefaultMinCoverage = 0.5
)

// Options configure an index.
type Options struct {
	// Path stores the index on disk there ("" keeps it in memory). An
	// existing index at Path is reused when it holds exactly these texts and
	// rebuilt otherwise.
	Path string
	// Store names the Bleve key-value store of an in-memory index: ""
	// selects the sorted snapshot store (memstore.go) and the native
	// scorer (native.go), GtreapStore Bleve's own store, searched through
	// Bleve's own searchers (the reference); both give the same answers,
	// the first in a fraction of the time.
	Store string
	// BleveOnly scores every search of an in-memory index through Bleve's
	// searchers instead of the native scorer (native.go); both give the
	// same hits and scores; it exists to test that.
	BleveOnly bool
}

// GtreapStore is Bleve's default in-memory key-value store (Options.Store).
const GtreapStore = gtreap.Name

// Index is a full-text index over texts addressed by position.
type Index struct {
	bi       bleve.Index
	analyzer analysis.Analyzer
	terms    [][]string // analysed terms of each text, in order
	termSet  []map[string]bool
	// termID numbers the indexed terms; docTerms are each text's terms
	// by number, so matching a hit compares integers.
	termID   map[string]int32
	docTerms [][]int32
	df       map[string]int
	generic  map[string]bool // analysed forms of textnorm.GenericWords
	// Reused reports that an on-disk index was reused rather than built.
	Reused   bool
	inMemory bool         // the upsidedown index over the sorted store (collect)
	native   *nativeIndex // postings for the native scorer (in-memory indexes)
	tokens   tokenMemo    // analysed term of each token text seen in a query
	scoring  string       // the mapping's scoring model, as Index.Search reads it
}

func newMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	stops := make([]any, 0, len(textnorm.StopWords))
	for _, w := range textnorm.StopWordList() {
		stops = append(stops, w)
	}
	if err := im.AddCustomTokenMap("execkg_stopwords", map[string]any{"type": tokenmap.Name, "tokens": stops}); err != nil {
		return nil, err
	}
	if err := im.AddCustomTokenFilter("execkg_stop", map[string]any{"type": stop.Name, "stop_token_map": "execkg_stopwords"}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(analyzerName, map[string]any{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []any{lowercase.Name, "execkg_stop", en.SnowballStemmerName},
	}); err != nil {
		return nil, err
	}
	fm := bleve.NewTextFieldMapping()
	fm.Analyzer = analyzerName
	fm.Store = false
	fm.IncludeInAll = false
	fm.IncludeTermVectors = true // phrase queries need positions
	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(field, fm)
	im.DefaultMapping = dm
	im.DefaultAnalyzer = analyzerName
	im.ScoringModel = index.BM25Scoring
	return im, nil
}

// New indexes texts (text i gets id i).
func New(texts []string, opts Options) (*Index, error) {
	im, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("full-text mapping: %w", err)
	}
	norm := make([]string, len(texts))
	h := sha256.New()
	h.Write([]byte(analyzerVersion))
	for i, t := range texts {
		norm[i] = textnorm.Normalize(t)
		h.Write([]byte{0})
		h.Write([]byte(norm[i]))
	}
	fp := hex.EncodeToString(h.Sum(nil))

	ix := &Index{}
	if opts.Path == "" {
		kv := opts.Store
		if kv == "" {
			kv = memStoreName
		}
		ix.bi, err = bleve.NewUsing("", im, upsidedown.Name, kv, nil)
		ix.inMemory = true
		ix.scoring = index.DefaultScoringModel
		if im.ScoringModel == index.BM25Scoring {
			ix.scoring = index.BM25Scoring
		}
		if err != nil {
			return nil, fmt.Errorf("full-text index in memory: %w", err)
		}
	} else {
		ix.bi, ix.Reused, err = openOrCreate(opts.Path, im, fp)
		if err != nil {
			return nil, err
		}
	}
	ix.analyzer = ix.bi.Mapping().AnalyzerNamed(analyzerName)
	if ix.analyzer == nil {
		ix.bi.Close()
		return nil, fmt.Errorf("full-text index: analyzer %s missing from the mapping", analyzerName)
	}
	if !ix.Reused {
		b := ix.bi.NewBatch()
		for i, t := range norm {
			if err := b.Index(strconv.Itoa(i), map[string]any{field: t}); err != nil {
				ix.bi.Close()
				return nil, fmt.Errorf("full-text index: text %d: %w", i, err)
			}
		}
		if err := ix.bi.Batch(b); err != nil {
			ix.bi.Close()
			return nil, fmt.Errorf("full-text index: %w", err)
		}
		if opts.Path != "" {
			if err := ix.bi.SetInternal([]byte(fingerprintKey), []byte(fp)); err != nil {
				ix.bi.Close()
				return nil, fmt.Errorf("full-text index %s: %w", opts.Path, err)
			}
		}
	}
	ix.df = map[string]int{}
	ix.termID = map[string]int32{}
	for _, t := range norm {
		terms := ix.analyze(t)
		set := map[string]bool{}
		ids := make([]int32, len(terms))
		for i, x := range terms {
			if !set[x] {
				set[x] = true
				ix.df[x]++
			}
			id, ok := ix.termID[x]
			if !ok {
				id = int32(len(ix.termID))
				ix.termID[x] = id
			}
			ids[i] = id
		}
		ix.terms = append(ix.terms, terms)
		ix.termSet = append(ix.termSet, set)
		ix.docTerms = append(ix.docTerms, ids)
	}
	ix.generic = map[string]bool{}
	for w := range textnorm.GenericWords {
		for _, x := range ix.analyze(w) {
			ix.generic[x] = true
		}
	}
	if ix.inMemory && opts.Store == "" && !opts.BleveOnly {
		if ix.native, err = buildNative(ix); err != nil {
			ix.bi.Close()
			return nil, fmt.Errorf("full-text index: native postings: %w", err)
		}
	}
	return ix, nil
}

// openOrCreate reuses the index at path when its fingerprint matches,
// rebuilds a stale one, and refuses to delete a directory that is not a
// Bleve index.
func openOrCreate(path string, im mapping.IndexMapping, fp string) (bleve.Index, bool, error) {
	if _, err := os.Stat(path); err == nil {
		if bi, err := bleve.Open(path); err == nil {
			got, _ := bi.GetInternal([]byte(fingerprintKey))
			if string(got) == fp {
				return bi, true, nil
			}
			bi.Close()
		}
		if _, err := os.Stat(filepath.Join(path, "index_meta.json")); err != nil {
			entries, _ := os.ReadDir(path)
			if len(entries) > 0 {
				return nil, false, fmt.Errorf("full-text index path %s exists and is not a Bleve index; refusing to delete it: choose another path or remove it", path)
			}
		}
		if err := os.RemoveAll(path); err != nil {
			return nil, false, fmt.Errorf("full-text index %s is stale and cannot be removed: %w", path, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("full-text index %s: %w", path, err)
	}
	bi, err := bleve.New(path, im)
	if err != nil {
		return nil, false, fmt.Errorf("full-text index: create %s: %w", path, err)
	}
	return bi, false, nil
}

// Close releases the index.
func (ix *Index) Close() error { return ix.bi.Close() }

// Len is the number of indexed texts.
func (ix *Index) Len() int { return len(ix.terms) }

// analyze runs the index analyzer over an already normalised text.
func (ix *Index) analyze(text string) []string {
	var out []string
	for _, tok := range ix.analyzer.Analyze([]byte(text)) {
		out = append(out, string(tok.Term))
	}
	return out
}

// Terms returns the analysed terms of a text as the index sees them.
func (ix *Index) Terms(text string) []string { return ix.analyze(textnorm.Normalize(text)) }

// SearchOptions configure one search.
type SearchOptions struct {
	// K is the number of hits returned (DefaultK when 0).
	K int
	// PhraseBoost weighs the whole-phrase query against the single words
	// (DefaultPhraseBoost when 0).
	PhraseBoost float64
	// Guard drops hits that share only one word with the query when that
	// word is generic (textnorm.GenericWords: rate, risk, disease, …) or
	// carries less than MinCoverage of the IDF weight of the query's
	// indexed words.
	Guard bool
	// MinCoverage is the guard's IDF share (DefaultMinCoverage when 0).
	MinCoverage float64
	// Exclude hides these texts from this search (leave-one-out
	// evaluation); document frequencies still count them.
	Exclude []int
	// VariantWeight scales the boosts of every variant after the first
	// (abbreviation expansions are guesses); 0 means 1.
	VariantWeight float64
	// Scratch, when not nil, holds the hit list and the hits' matched
	// words from one search to the next: the hits returned then live only
	// until the next search with the same Scratch. A caller that copies
	// what it keeps before searching again (as grounding's Ground does)
	// is spared their allocation; the hits are the same.
	Scratch *Scratch
}

// Scratch is memory Search reuses for its hits (SearchOptions.Scratch);
// the zero value is ready. One search at a time may use it.
type Scratch struct {
	hits  []Hit
	arena []string
}

// Hit is one matching text.
type Hit struct {
	ID    int
	Score float64
	// Phrase is true when the whole query phrase occurs in the text.
	Phrase bool
	// Matched are the query's analysed terms found in the text.
	Matched []string
}

// Search queries with one or more variants of a finding's query text
// (QueryText output, optionally with abbreviations expanded): each
// variant's whole phrase (boosted) OR any of its words. Hits come best
// first; with the guard, up to 3K candidates are fetched so that dropped
// hits do not shorten the list.
func (ix *Index) Search(variants []string, o SearchOptions) ([]Hit, error) {
	if o.K <= 0 {
		o.K = DefaultK
	}
	if o.PhraseBoost == 0 {
		o.PhraseBoost = DefaultPhraseBoost
	}
	if o.MinCoverage == 0 {
		o.MinCoverage = DefaultMinCoverage
	}
	if o.VariantWeight == 0 {
		o.VariantWeight = 1
	}
	var qpos [][]int        // positions of qterms
	var boosts [][2]float64 // phrase and word boost of each analysed variant
	var qterms [][]string
	var qids [][]int32 // qterms by term number, -1 when not indexed
	// matchable bounds the texts the query can match: every match holds
	// a query term, so at most the sum of their document frequencies.
	matchable := 0
	var counted []string
	for i, v := range variants {
		terms, pos := ix.analyzeTerms(textnorm.Normalize(v))
		if len(terms) == 0 {
			continue
		}
		w := 1.0
		if i > 0 {
			w = o.VariantWeight
		}
		ids := make([]int32, len(terms))
		for j := range terms {
			ids[j] = -1
			if id, ok := ix.termID[terms[j]]; ok {
				ids[j] = id
			}
			if !slices.Contains(counted, terms[j]) {
				counted = append(counted, terms[j])
				matchable += ix.df[terms[j]]
			}
		}
		qpos = append(qpos, pos)
		boosts = append(boosts, [2]float64{w * o.PhraseBoost, w})
		qterms = append(qterms, terms)
		qids = append(qids, ids)
	}
	if matchable == 0 {
		// No query term is in the index, so no text matches the phrase or
		// any word: Bleve would return nothing.
		return nil, nil
	}
	size := o.K
	if o.Guard {
		size = 3 * o.K
	}
	// Asking for no more hits than can match returns the same hits (all of
	// them, in the same order) and spares Bleve's collector its
	// preallocation of size documents.
	size = min(size, matchable)
	var hits []Hit
	scored := false // by the native scorer
	if ix.native != nil && len(o.Exclude) == 0 {
		sc := ix.native.getScratch()
		defer ix.native.putScratch(sc)
		if ix.native.query(sc, qpos, qterms, qids, boosts) {
			ix.native.search(sc, size)
			hits = slices.Grow(sc.found[:0], len(sc.hits))[:len(sc.hits)]
			for i, h := range sc.hits {
				hits[i] = Hit{ID: ix.native.byOrd[h.ord], Score: h.score}
			}
			sc.found, scored = hits, true
		}
	}
	if !scored {
		var err error
		if hits, err = ix.bleveScored(qpos, qterms, boosts, o.Exclude, size); err != nil {
			return nil, fmt.Errorf("full-text search %q: %w", strings.Join(variants, " | "), err)
		}
	}
	// Document frequencies for the guard leave hidden texts out, so a
	// held-out phrase cannot make its own words look known.
	df := ix.df
	if len(o.Exclude) > 0 {
		df = make(map[string]int, len(ix.df))
		for t, n := range ix.df {
			df[t] = n
		}
		for _, id := range o.Exclude {
			if id >= 0 && id < len(ix.termSet) {
				for t := range ix.termSet[id] {
					df[t]--
				}
			}
		}
	}
	var out []Hit
	var arena []string // the hits' matched words
	if len(hits) > 0 {
		words := 0
		for _, qt := range qterms {
			words += len(qt)
		}
		n := min(len(hits), o.K)
		if sc := o.Scratch; sc != nil {
			out, arena = slices.Grow(sc.hits[:0], n), slices.Grow(sc.arena[:0], n*words)
			defer func() { sc.hits, sc.arena = out[:0], arena[:0] }()
		} else {
			out, arena = make([]Hit, 0, n), make([]string, 0, n*words)
		}
	}
	for _, hit := range hits {
		id := hit.ID
		keep := !o.Guard
		for i, qt := range qterms {
			phrase, matched := ix.match(id, qt, qids[i], &arena)
			if phrase {
				hit.Phrase = true
			}
			if len(matched) > len(hit.Matched) {
				hit.Matched = matched
			}
			if o.Guard && ix.passes(df, phrase, matched, qt, o.MinCoverage) {
				keep = true
			}
		}
		if !keep {
			continue
		}
		out = append(out, hit)
		if len(out) == o.K {
			break
		}
	}
	if len(out) == 0 {
		return nil, nil // the guard dropped every hit
	}
	return out, nil
}

// bleveScored returns the best size texts of the query (each variant's
// phrase OR its words, with their boosts), best first, with their scores
// and no guard, through Bleve's queries and collector: what the native
// scorer (native.go) computes, for the shapes it leaves to Bleve and for
// searches that hide texts.
func (ix *Index) bleveScored(pos [][]int, terms [][]string, boosts [][2]float64, exclude []int, size int) ([]Hit, error) {
	disj := make([]query.Query, 0, 2*len(pos))
	for v := range pos {
		p, m := matchQueries(pos[v], terms[v], boosts[v][0], boosts[v][1])
		disj = append(disj, p, m)
	}
	var q query.Query = query.NewDisjunctionQuery(disj)
	if len(exclude) > 0 {
		ids := make([]string, len(exclude))
		for i, id := range exclude {
			ids[i] = strconv.Itoa(id)
		}
		q = query.NewBooleanQuery([]query.Query{q}, nil, []query.Query{query.NewDocIDQuery(ids)})
	}
	hits, err := ix.collect(q, size)
	if err != nil {
		return nil, err
	}
	out := make([]Hit, len(hits))
	for i, h := range hits {
		id, err := strconv.Atoi(h.ID)
		if err != nil || id < 0 || id >= len(ix.terms) {
			return nil, fmt.Errorf("full-text index returned unknown document %q; rebuild the index", h.ID)
		}
		out[i] = Hit{ID: id, Score: h.Score}
	}
	return out, nil
}

// collect returns the best size hits of q, best first. The in-memory index
// runs q's searchers into Bleve's top-N collector by score directly, as
// Index.Search does for a request without fields, facets or highlights
// (the same searchers, scoring model and collector, so the same hits and
// scores), without the request's per-hit field loading and bookkeeping;
// an on-disk index goes through Index.Search.
func (ix *Index) collect(q query.Query, size int) (search.DocumentMatchCollection, error) {
	if !ix.inMemory {
		res, err := ix.bi.Search(bleve.NewSearchRequestOptions(q, size, 0, false))
		if err != nil {
			return nil, err
		}
		return res.Hits, nil
	}
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	ctx := context.WithValue(context.Background(), search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return ix.scoring }))
	s, err := q.Searcher(ctx, r, ix.bi.Mapping(), search.SearcherOptions{})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	coll := collector.NewTopNCollector(size, 0, search.SortOrder{&search.SortScore{Desc: true}})
	if err := coll.Collect(ctx, s, r); err != nil {
		return nil, err
	}
	return coll.Results(), nil
}

// matchQueries are the queries Bleve's MatchPhraseQuery and MatchQuery
// (operator or) build from an analysed text, with its tokens and their
// terms given: the same searchers score the same, without analysing the
// text twice more inside Bleve. For a one-term text both are the term query
// itself: a one-term phrase matches wherever the term occurs and scores as
// its conjunction of one (0 + score), and a disjunction of one scores its
// child times coord 1/1, with the same weight for query normalisation.
func matchQueries(pos []int, terms []string, phraseBoost, boost float64) (query.Query, query.Query) {
	term := func(t string, b float64) query.Query {
		tq := query.NewTermQuery(t)
		tq.SetField(field)
		tq.SetBoost(b)
		return tq
	}
	if len(terms) == 1 {
		return term(terms[0], phraseBoost), term(terms[0], boost)
	}
	// Bleve's tokenStreamToPhrase: one slot per position from the first
	// token's to the last's; a stop word leaves its slot empty.
	first, last := pos[0], pos[0]
	for _, p := range pos {
		first, last = min(first, p), max(last, p)
	}
	phrase := make([][]string, last-first+1)
	for j, p := range pos {
		phrase[p-first] = append(phrase[p-first], terms[j])
	}
	p := query.NewMultiPhraseQuery(phrase, field)
	p.SetBoost(phraseBoost)
	p.SetFuzziness(0)
	tqs := make([]query.Query, len(terms))
	for j, t := range terms {
		tqs[j] = term(t, boost)
	}
	m := query.NewDisjunctionQuery(tqs)
	m.SetMin(1)
	m.SetBoost(boost)
	return p, m
}

// match reports whether the query terms qt (by number, qid) occur as a
// contiguous run in text id, and which distinct query terms occur at all.
func (ix *Index) match(id int, qt []string, qid []int32, arena *[]string) (bool, []string) {
	doc := ix.docTerms[id]
	var matched []string
	for j, t := range qid {
		// a query and a text have a few terms each
		if t >= 0 && slices.Contains(doc, t) && !slices.Contains(matched, qt[j]) {
			if matched == nil {
				// Room for len(qt) words, cut from the search's arena
				// (one allocation for all its hits) while it lasts.
				if a := *arena; cap(a)-len(a) >= len(qt) {
					n := len(a)
					*arena = a[:n+len(qt)]
					matched = a[n : n : n+len(qt)]
				} else {
					matched = make([]string, 0, len(qt))
				}
			}
			matched = append(matched, qt[j])
		}
	}
	for i := 0; i+len(qid) <= len(doc); i++ {
		if slices.Equal(doc[i:i+len(qid)], qid) {
			return true, matched
		}
	}
	return false, matched
}

// passes is the single-word guard: a hit that shares exactly one word with
// a query holding two or more indexed words is kept only if that word is
// not generic and carries at least minCov of the IDF weight of the query's
// indexed words. Query words found in no text cannot be matched by any hit
// and are left out, so an unknown word ("statin myopathy") does not turn
// the one informative match into a dropped hit.
func (ix *Index) passes(df map[string]int, phrase bool, matched, qt []string, minCov float64) bool {
	if phrase || len(matched) != 1 {
		return phrase || len(matched) > 1
	}
	known := map[string]bool{}
	for _, t := range qt {
		if df[t] > 0 {
			known[t] = true
		}
	}
	if len(known) < 2 {
		return true
	}
	t := matched[0]
	if ix.generic[t] {
		return false
	}
	var total float64
	for x := range known {
		total += ix.idf(df, x)
	}
	return ix.idf(df, t)/total >= minCov
}

// idf is BM25's inverse document frequency over the indexed texts.
func (ix *Index) idf(df map[string]int, t string) float64 {
	n, d := float64(len(ix.terms)), float64(df[t])
	return math.Log(1 + (n-d+0.5)/(d+0.5))
}
