// Package vector is the exact cosine-similarity index of the grounding
// vector channel. The pack has a few thousand grounding phrases, so a flat
// scan (one dot product per phrase, vectors unit-normalised at build) is
// exact and takes well under a millisecond; no approximate index is needed.
package vector

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// Index holds unit vectors, addressed by their position. Dense vectors
// (a neural embedder's) are kept in one contiguous slice so a search
// streams through memory. Sparse ones (the built-in lexical embedder sets a
// few dozen of its 512 dimensions) are kept as posting lists, one per
// dimension, so a search touches only the dimensions the query sets and
// the vectors that set them too.
type Index struct {
	dim  int
	n    int
	data []float32 // dense: n rows of dim; nil when sparse
	// postings[d] lists the vectors with a non-zero value in dimension d,
	// by ascending position; nil when dense.
	postings [][]posting
	acc      sync.Pool // *accumulator
}

// accumulator holds a sparse search's partial sums, one array per lane
// indexed by vector (dense, so a lane's sums share cache lines), all zero
// between searches, and the query's non-zero dimensions.
type accumulator struct {
	sums [lanes][]float32
	// lanes holds the query's dimensions by the lane dot adds them into
	// (id holds the dimension).
	lanes [lanes][]posting
	// dims and vals hold a dense query's non-zero dimensions and values.
	dims []int32
	vals []float32
}

type posting struct {
	id  int32
	val float32
}

// lanes is dot's unrolling: partial sums kept apart, so the sparse search
// can add the same products into the same partial sums in the same order
// and score exactly as the dense dot does.
const lanes = 4

// sparseBelow: an index whose vectors set under this share of their
// dimensions on average is kept sparse.
const sparseBelow = 0.25

// Hit is one indexed vector with its cosine similarity to the query.
type Hit struct {
	ID    int
	Score float64
}

// New builds an index over vecs (copied and normalised). All vectors must
// have one dimension; zero vectors are kept but never match.
func New(vecs [][]float32) (*Index, error) {
	ix := &Index{}
	norm := make([][]float32, 0, len(vecs))
	nonzero := 0
	for i, v := range vecs {
		if i == 0 {
			ix.dim = len(v)
		}
		if len(v) != ix.dim {
			return nil, fmt.Errorf("vector index: vector %d has dimension %d, vector 0 has %d; all vectors must come from one embedder", i, len(v), ix.dim)
		}
		u := Normalize(v)
		for _, x := range u {
			if x != 0 {
				nonzero++
			}
		}
		norm = append(norm, u)
		ix.n++
	}
	if ix.n == 0 || float64(nonzero) >= sparseBelow*float64(ix.n*ix.dim) {
		for _, u := range norm {
			ix.data = append(ix.data, u...)
		}
		return ix, nil
	}
	ix.postings = make([][]posting, ix.dim)
	for id, u := range norm {
		for d, x := range u {
			if x != 0 {
				ix.postings[d] = append(ix.postings[d], posting{int32(id), x})
			}
		}
	}
	ix.acc.New = func() any {
		a := &accumulator{}
		for l := range a.sums {
			a.sums[l] = make([]float32, ix.n)
		}
		return a
	}
	return ix, nil
}

// Dim is the vector dimension (0 for an empty index).
func (ix *Index) Dim() int { return ix.dim }

// Len is the number of vectors.
func (ix *Index) Len() int { return ix.n }

// Search returns up to k vectors with cosine ≥ threshold, best first (ties
// by position). exclude, if not nil, hides vectors from this search.
func (ix *Index) Search(q []float32, k int, threshold float64, exclude func(id int) bool) ([]Hit, error) {
	if ix.n == 0 || k <= 0 {
		return nil, nil
	}
	if len(q) != ix.dim {
		return nil, fmt.Errorf("vector index: query has dimension %d, index %d; embed queries with the embedder that built the index", len(q), ix.dim)
	}
	var hits []Hit
	if ix.postings == nil {
		qn := Normalize(q)
		d := ix.dim
		for i := 0; i < ix.n; i++ {
			if s := dot(ix.data[i*d:(i+1)*d], qn); float64(s) >= threshold && s != 0 && (exclude == nil || !exclude(i)) {
				hits = append(hits, Hit{ID: i, Score: float64(s)})
			}
		}
	} else {
		ap := ix.acc.Get().(*accumulator)
		ap.dims, ap.vals = ap.dims[:0], ap.vals[:0]
		for d, x := range q {
			if x != 0 {
				ap.dims, ap.vals = append(ap.dims, int32(d)), append(ap.vals, x)
			}
		}
		hits = ix.searchSparse(ap, ap.dims, ap.vals, threshold, exclude)
		ix.acc.Put(ap)
	}
	return best(hits, k), nil
}

// SearchSparse is Search for a query given by its non-zero dimensions
// (ascending, each once) and their values: the same hits, scored
// bit for bit the same, without the dense query vector. Values may be
// zero (such a dimension adds nothing, as in Search).
func (ix *Index) SearchSparse(dims []int32, vals []float32, k int, threshold float64, exclude func(id int) bool) ([]Hit, error) {
	if ix.n == 0 || k <= 0 {
		return nil, nil
	}
	if len(dims) != len(vals) {
		return nil, fmt.Errorf("vector index: sparse query has %d dimensions and %d values", len(dims), len(vals))
	}
	for i, d := range dims {
		if d < 0 || int(d) >= ix.dim || (i > 0 && d <= dims[i-1]) {
			return nil, fmt.Errorf("vector index: sparse query dimension %d at %d is out of range or order for dimension %d; embed queries with the embedder that built the index", d, i, ix.dim)
		}
	}
	if ix.postings == nil {
		q := make([]float32, ix.dim)
		for i, d := range dims {
			q[d] = vals[i]
		}
		return ix.Search(q, k, threshold, exclude)
	}
	ap := ix.acc.Get().(*accumulator)
	hits := ix.searchSparse(ap, dims, vals, threshold, exclude)
	ix.acc.Put(ap)
	return best(hits, k), nil
}

// Sparse reports whether the index keeps posting lists (SearchSparse then
// reads no dense query).
func (ix *Index) Sparse() bool { return ix.postings != nil }

// best sorts hits best first (ties by position) and keeps k.
func best(hits []Hit, k int) []Hit {
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return a.ID - b.ID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// searchSparse scores every vector through the posting lists, with ap's
// sums, against the query given by its dimensions dims (ascending) and
// their values vals, and returns those dot would score ≥ threshold and
// non-zero, unsorted.
func (ix *Index) searchSparse(ap *accumulator, dims []int32, vals []float32, threshold float64, exclude func(id int) bool) []Hit {
	// The query's non-zero values as Normalize scales them (its zeros add
	// nothing to the squared norm), grouped by dot's lane and by ascending
	// dimension within a lane: dot adds dimension d into partial sum
	// d%lanes, except its tail loop, which adds the last dim%lanes
	// dimensions into the first. Within a lane that is ascending order,
	// which the search keeps; the lanes are independent sums, so filling
	// one lane's sums at a time adds the same products in the same order
	// and keeps one lane's array (not all four) hot in cache.
	var n float64
	for _, x := range vals {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return nil // a zero query matches nothing
	}
	sc := 1 / math.Sqrt(n)
	unrolled := ix.dim / lanes * lanes
	for l := range ap.lanes {
		ap.lanes[l] = ap.lanes[l][:0]
	}
	for i, x := range vals {
		if x == 0 {
			continue
		}
		d := int(dims[i])
		v := float32(float64(x) * sc)
		if v == 0 {
			continue // an underflow to zero in the scaling adds nothing
		}
		lane := d % lanes
		if d >= unrolled {
			lane = 0
		}
		ap.lanes[lane] = append(ap.lanes[lane], posting{int32(d), v})
	}
	for l, qs := range ap.lanes {
		sums := ap.sums[l]
		for _, qd := range qs {
			x := qd.val
			// Unrolled by four: the ids of one list are distinct, so each
			// sum still gets this dimension's product once, in order.
			ps := ix.postings[qd.id]
			for ; len(ps) >= 4; ps = ps[4:] {
				p0, p1, p2, p3 := ps[0], ps[1], ps[2], ps[3]
				sums[p0.id] += float32(p0.val * x)
				sums[p1.id] += float32(p1.val * x)
				sums[p2.id] += float32(p2.val * x)
				sums[p3.id] += float32(p3.val * x)
			}
			for _, p := range ps {
				sums[p.id] += float32(p.val * x)
			}
		}
	}
	// float64(s) >= threshold exactly when s >= t, the least float32 not
	// below threshold (a NaN threshold stays NaN and keeps nothing).
	t := float32(threshold)
	if float64(t) < threshold {
		t = math.Nextafter32(t, float32(math.Inf(1)))
	}
	// A vector the query's dimensions did not reach sums to zero, which
	// never matches: every row is read, then the lanes are cleared for the
	// next search (cheaper than tracking the rows touched, since a query
	// reaches most rows).
	var hits []Hit
	s0 := ap.sums[0]
	s1, s2, s3 := ap.sums[1][:len(s0)], ap.sums[2][:len(s0)], ap.sums[3][:len(s0)]
	for id := range s0 {
		if s := s0[id] + s1[id] + s2[id] + s3[id]; s >= t && s != 0 && (exclude == nil || !exclude(id)) {
			hits = append(hits, Hit{ID: id, Score: float64(s)})
		}
	}
	clear(s0)
	clear(s1)
	clear(s2)
	clear(s3)
	return hits
}

// dot is the inner product of two equally long vectors, unrolled by
// lanes (four). The sparse search reproduces its order of additions.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Normalize returns v scaled to unit length (a zero vector stays zero).
func Normalize(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	s := 1 / math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(float64(x) * s)
	}
	return out
}
