package fulltext

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"

	"github.com/blevesearch/bleve/v2/search/scorer"
)

// Why a native scorer: building Bleve's searchers, reading postings
// through the key-value store and running them into its collector was a
// fifth of a short case's CPU, for an index that is written once and then
// only read. The in-memory index copies its postings out of Bleve once and
// scores Search's query (each variant's phrase OR its words) the way
// Bleve's upsidedown index does: the same scoring model (upsidedown has no
// field lengths, so its BM25 falls back to TF-IDF), the same query norm,
// coordination factors, summation order (searchers ordered by sort.Sort
// on their counts) and ties broken by Bleve's internal document order, so
// the same hits with bit-identical scores (TestSearchMatchesReference and
// TestNativeMatchesBleve hold it to Bleve). Shapes Bleve scores with other
// searchers (more than DisjunctionHeapTakeover clauses, a position holding
// two terms) and hidden texts go to Bleve.

// nativeIndex is the in-memory index's postings, copied from Bleve.
type nativeIndex struct {
	docTotal uint64    // Bleve's document count
	byOrd    []int     // text id by rank in Bleve's internal id order
	count    []uint64  // by term number: documents holding the term
	postings [][]npost // by term number, ascending rank
	scratch  sync.Pool // *nscratch
}

// nscratch is one search's working memory, reused across searches.
type nscratch struct {
	ts            []nterm
	cs            []nclause
	idx           []int // the clauses' term indexes, back to back
	tids          []int32
	cur, at, slot []int
	hits          []nhit
	// found holds Search's hits from hits, until it has built its answer
	// (which copies each Hit it keeps).
	found []Hit
}

func (n *nativeIndex) getScratch() *nscratch {
	if s, ok := n.scratch.Get().(*nscratch); ok {
		return s
	}
	return &nscratch{}
}

// putScratch returns a search's scratch; its hits must no longer be read.
func (n *nativeIndex) putScratch(s *nscratch) { n.scratch.Put(s) }

// npost is one text holding a term.
type npost struct {
	ord    int32
	tfNorm float64  // sqrt(freq) × field norm, as Bleve's term scorer multiplies them first
	pos    []uint64 // positions of the term in the text
}

// heapTakeover is searcher.DisjunctionHeapTakeover: Bleve scores a
// disjunction of more clauses with its heap searcher, whose summation
// order differs; such queries go to Bleve.
const heapTakeover = 10

func buildNative(ix *Index) (*nativeIndex, error) {
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	n := &nativeIndex{count: make([]uint64, len(ix.termID)), postings: make([][]npost, len(ix.termID))}
	if n.docTotal, err = r.DocCount(); err != nil {
		return nil, err
	}
	internal := map[int][]byte{}
	type raw struct {
		id     int
		tfNorm float64
		pos    []uint64
	}
	rows := make([][]raw, len(ix.termID))
	ctx := context.Background()
	for term, tid := range ix.termID {
		tfr, err := r.TermFieldReader(ctx, []byte(term), field, true, true, true)
		if err != nil {
			return nil, err
		}
		n.count[tid] = tfr.Count()
		for {
			d, err := tfr.Next(nil)
			if err != nil {
				tfr.Close()
				return nil, err
			}
			if d == nil {
				break
			}
			ext, err := r.ExternalID(d.ID)
			if err != nil {
				tfr.Close()
				return nil, err
			}
			id, err := strconv.Atoi(ext)
			if err != nil || id < 0 || id >= len(ix.terms) {
				tfr.Close()
				return nil, fmt.Errorf("full-text index holds unknown document %q", ext)
			}
			if _, ok := internal[id]; !ok {
				internal[id] = slices.Clone(d.ID)
			}
			var tf float64
			if d.Freq < scorer.MaxSqrtCache {
				tf = scorer.SqrtCache[int(d.Freq)]
			} else {
				tf = math.Sqrt(float64(d.Freq))
			}
			row := raw{id: id, tfNorm: tf * d.Norm}
			for _, v := range d.Vectors {
				if len(v.ArrayPositions) > 0 {
					tfr.Close()
					return nil, fmt.Errorf("full-text index: text %d has array positions", id)
				}
				row.pos = append(row.pos, v.Pos)
			}
			rows[tid] = append(rows[tid], row)
		}
		tfr.Close()
	}
	for id := range internal {
		n.byOrd = append(n.byOrd, id)
	}
	sort.Slice(n.byOrd, func(i, j int) bool { return bytes.Compare(internal[n.byOrd[i]], internal[n.byOrd[j]]) < 0 })
	ord := make(map[int]int32, len(n.byOrd))
	for i, id := range n.byOrd {
		ord[id] = int32(i)
	}
	for tid, rs := range rows {
		ps := make([]npost, len(rs))
		for i, x := range rs {
			ps[i] = npost{ord: ord[x.id], tfNorm: x.tfNorm, pos: x.pos}
		}
		slices.SortFunc(ps, func(a, b npost) int { return int(a.ord) - int(b.ord) })
		n.postings[tid] = ps
	}
	return n, nil
}

// nterm is one term searcher of a query.
type nterm struct {
	tid   int32 // term number, -1 when not indexed
	count uint64
	idf   float64
	boost float64
	qw    float64 // query weight: boost × idf × query norm
}

// nclause is one clause of the top-level disjunction: a term, a
// disjunction of terms (a variant's words, min 1) or a phrase (the
// conjunction of its terms, at their offsets).
type nclause struct {
	kind   int
	terms  []int // nterm indexes, in the clause's searcher order
	offset []int // phrase: offset of each of terms from the first slot
	count  uint64
	weight float64
}

const (
	clauseTerm = iota
	clauseWords
	clausePhrase
)

// byCount orders clauses or terms as Bleve's OrderedSearcherList does:
// sort.Sort on Count, so equal counts land where Bleve's sort puts them.
type byCount struct {
	n    int
	less func(i, j int) bool
	swap func(i, j int)
}

func (b byCount) Len() int           { return b.n }
func (b byCount) Less(i, j int) bool { return b.less(i, j) }
func (b byCount) Swap(i, j int)      { b.swap(i, j) }

// query builds into sc the query of Search's variants (their tokens,
// terms and term numbers) with the boosts Search gives them; false when
// Bleve would use searchers the native scorer does not copy.
func (n *nativeIndex) query(sc *nscratch, pos [][]int, terms [][]string, qids [][]int32, boosts [][2]float64) bool {
	sc.ts, sc.cs, sc.idx = sc.ts[:0], sc.cs[:0], sc.idx[:0]
	if 2*len(pos) > heapTakeover {
		return false
	}
	newTerm := func(tid int32, boost float64) int {
		t := nterm{tid: tid, boost: boost}
		if tid >= 0 {
			t.count = n.count[tid]
		}
		t.idf = 1.0 + math.Log(float64(n.docTotal)/float64(t.count+1.0))
		sc.ts = append(sc.ts, t)
		return len(sc.ts) - 1
	}
	ts := func() []nterm { return sc.ts }
	// weigh sorts a clause's terms as Bleve orders its searchers and
	// returns the clause's weight and count (sums in that order).
	weigh := func(c *nclause) {
		t := ts()
		sort.Sort(byCount{len(c.terms), func(i, j int) bool { return t[c.terms[i]].count < t[c.terms[j]].count },
			func(i, j int) {
				c.terms[i], c.terms[j] = c.terms[j], c.terms[i]
				if c.offset != nil {
					c.offset[i], c.offset[j] = c.offset[j], c.offset[i]
				}
			}})
		for _, i := range c.terms {
			s := t[i].boost * t[i].idf
			c.weight += s * s
			c.count += t[i].count
		}
	}
	for v := range pos {
		pb, b := boosts[v][0], boosts[v][1]
		if len(terms[v]) == 1 {
			for _, boost := range [2]float64{pb, b} {
				i := newTerm(qids[v][0], boost)
				start := len(sc.idx)
				sc.idx = append(sc.idx, i)
				s := sc.ts[i].boost * sc.ts[i].idf
				sc.cs = append(sc.cs, nclause{kind: clauseTerm, terms: sc.idx[start:len(sc.idx):len(sc.idx)], count: sc.ts[i].count, weight: s * s})
			}
			continue
		}
		if len(terms[v]) > heapTakeover {
			return false
		}
		// The phrase's term searchers, in slot order (the analyser's
		// positions increase; two terms at one position would make a
		// disjunction slot, which goes to Bleve).
		first := pos[v][0]
		start := len(sc.idx)
		for j, p := range pos[v] {
			if j > 0 && p <= pos[v][j-1] {
				return false
			}
			sc.idx = append(sc.idx, newTerm(qids[v][j], pb))
		}
		ph := nclause{kind: clausePhrase, terms: sc.idx[start:len(sc.idx):len(sc.idx)], offset: make([]int, len(pos[v]))}
		for j, p := range pos[v] {
			ph.offset[j] = p - first
		}
		weigh(&ph)
		start = len(sc.idx)
		for j := range terms[v] {
			sc.idx = append(sc.idx, newTerm(qids[v][j], b))
		}
		words := nclause{kind: clauseWords, terms: sc.idx[start:len(sc.idx):len(sc.idx)]}
		weigh(&words)
		sc.cs = append(sc.cs, ph, words)
	}
	cs := sc.cs
	sort.Sort(byCount{len(cs), func(i, j int) bool { return cs[i].count < cs[j].count },
		func(i, j int) { cs[i], cs[j] = cs[j], cs[i] }})
	sum := 0.0
	for _, c := range cs {
		sum += c.weight
	}
	norm := 1.0 / math.Sqrt(sum)
	for i := range sc.ts {
		sc.ts[i].qw = sc.ts[i].boost * sc.ts[i].idf * norm
	}
	return true
}

// nhit is a scored text: its rank in Bleve's order and its score.
type nhit struct {
	ord   int32
	score float64
}

// search scores every text holding a query term (sc's query) and leaves
// the best size in sc.hits, best first, ties in Bleve's internal document
// order.
func (n *nativeIndex) search(sc *nscratch, size int) {
	ts, cs := sc.ts, sc.cs
	// Distinct indexed terms and a cursor into each one's postings.
	tids := sc.tids[:0]
	for _, t := range ts {
		if t.tid >= 0 && !slices.Contains(tids, t.tid) {
			tids = append(tids, t.tid)
		}
	}
	sc.tids = tids
	cur := grow(&sc.cur, len(tids))
	at := grow(&sc.at, len(tids))   // posting of the current text per term, -1 when absent
	slot := grow(&sc.slot, len(ts)) // ts index → tids index
	for k := range cur {
		cur[k] = 0
	}
	for i, t := range ts {
		slot[i] = -1
		if t.tid >= 0 {
			slot[i] = slices.Index(tids, t.tid)
		}
	}
	hits := sc.hits[:0]
	score := func(i int) (float64, bool) {
		k := slot[i]
		if k < 0 || at[k] < 0 {
			return 0, false
		}
		s := n.postings[tids[k]][at[k]].tfNorm * ts[i].idf
		if ts[i].qw != 1.0 {
			s = s * ts[i].qw
		}
		return s, true
	}
	for {
		// The next text: the smallest rank under any cursor.
		next := int32(-1)
		for k, tid := range tids {
			if p := n.postings[tid]; cur[k] < len(p) && (next < 0 || p[cur[k]].ord < next) {
				next = p[cur[k]].ord
			}
		}
		if next < 0 {
			break
		}
		for k, tid := range tids {
			at[k] = -1
			if p := n.postings[tid]; cur[k] < len(p) && p[cur[k]].ord == next {
				at[k] = cur[k]
				cur[k]++
			}
		}
		var sum float64
		matched := 0
		for _, c := range cs {
			switch c.kind {
			case clauseTerm:
				if s, ok := score(c.terms[0]); ok {
					sum += s
					matched++
				}
			case clauseWords:
				var ws float64
				k := 0
				for _, i := range c.terms {
					if s, ok := score(i); ok {
						ws += s
						k++
					}
				}
				if k >= 1 {
					sum += ws * (float64(k) / float64(len(c.terms)))
					matched++
				}
			case clausePhrase:
				var ps float64
				all := true
				for _, i := range c.terms {
					s, ok := score(i)
					if !ok {
						all = false
						break
					}
					ps += s
				}
				if all && n.phraseAt(c, slot, at, tids) {
					sum += ps
					matched++
				}
			}
		}
		if matched > 0 {
			hits = append(hits, nhit{ord: next, score: sum * (float64(matched) / float64(len(cs)))})
		}
	}
	sc.hits = bestHits(hits, size)
}

// compareHits orders hits best first: by score, then by rank (texts are
// distinct, so no two hits tie).
func compareHits(a, b nhit) int {
	switch {
	case a.score > b.score:
		return -1
	case a.score < b.score:
		return 1
	}
	return int(a.ord) - int(b.ord)
}

// bestHits returns the size best hits, best first, reordering hits. The
// order is total, so choosing the size best first (a heap whose root is
// the worst kept) and sorting only them gives the list a sort of every hit
// cut to size gives; a NaN score, which no order ranks, sorts every hit.
func bestHits(hits []nhit, size int) []nhit {
	if size <= 0 || len(hits) <= size || slices.ContainsFunc(hits, func(h nhit) bool { return h.score != h.score }) {
		slices.SortFunc(hits, compareHits)
		if size >= 0 && len(hits) > size {
			hits = hits[:size]
		}
		return hits
	}
	heap := hits[:size]
	// worse(i, j): heap[i] ranks below heap[j] (the root is the worst).
	worse := func(i, j int) bool { return compareHits(heap[i], heap[j]) > 0 }
	down := func(i int) {
		for {
			w := i
			if l := 2*i + 1; l < size && worse(l, w) {
				w = l
			}
			if r := 2*i + 2; r < size && worse(r, w) {
				w = r
			}
			if w == i {
				return
			}
			heap[i], heap[w] = heap[w], heap[i]
			i = w
		}
	}
	for i := size/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, h := range hits[size:] {
		if compareHits(h, heap[0]) < 0 {
			heap[0] = h
			down(0)
		}
	}
	slices.SortFunc(heap, compareHits)
	return heap
}

// grow returns (*b)[:n], reallocating when short.
func grow(b *[]int, n int) []int {
	if cap(*b) < n {
		*b = make([]int, n)
	}
	*b = (*b)[:n]
	return *b
}

// phraseAt reports whether the phrase's terms occur at their offsets from
// one start in the current text (Bleve's phrase paths with slop 0: a stop
// word's empty slot is one position).
func (n *nativeIndex) phraseAt(c nclause, slot, at []int, tids []int32) bool {
	posOf := func(j int) []uint64 {
		k := slot[c.terms[j]]
		return n.postings[tids[k]][at[k]].pos
	}
	// The slot at offset 0 starts the path.
	first := slices.Index(c.offset, 0)
	for _, p0 := range posOf(first) {
		ok := true
		for j := range c.terms {
			if j != first && !slices.Contains(posOf(j), p0+uint64(c.offset[j])) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
