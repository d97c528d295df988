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
	q    []posting // query dimensions (id holds the dimension)
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
	keep := func(i int, s float32) {
		if float64(s) >= threshold && s != 0 && (exclude == nil || !exclude(i)) {
			hits = append(hits, Hit{ID: i, Score: float64(s)})
		}
	}
	if ix.postings == nil {
		qn := Normalize(q)
		d := ix.dim
		for i := 0; i < ix.n; i++ {
			keep(i, dot(ix.data[i*d:(i+1)*d], qn))
		}
	} else {
		ap := ix.acc.Get().(*accumulator)
		// The query's non-zero values as Normalize scales them (its zeros
		// add nothing to the squared norm).
		var n float64
		for _, x := range q {
			n += float64(x) * float64(x)
		}
		ap.q = ap.q[:0]
		if n > 0 {
			sc := 1 / math.Sqrt(n)
			for d, x := range q {
				if x != 0 {
					ap.q = append(ap.q, posting{int32(d), float32(float64(x) * sc)})
				}
			}
		}
		// The products dot would add, minus those with a zero factor
		// (adding a zero never changes a partial sum, which starts at +0),
		// in dot's order: by ascending dimension within each lane.
		unrolled := ix.dim / lanes * lanes
		for _, qd := range ap.q {
			d, x := int(qd.id), qd.val
			if x == 0 {
				continue // an underflow to zero in the scaling
			}
			lane := d % lanes
			if d >= unrolled {
				lane = 0 // dot's tail loop adds into the first sum
			}
			sums := ap.sums[lane]
			// Unrolled by four: the ids of one list are distinct, so each
			// sum still gets this dimension's product once, in order.
			ps := ix.postings[d]
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
		// A vector the query's dimensions did not reach sums to zero,
		// which never matches: every row is read, then the lanes are
		// cleared for the next search (cheaper than tracking the rows
		// touched).
		s0, s1, s2, s3 := ap.sums[0], ap.sums[1][:len(ap.sums[0])], ap.sums[2][:len(ap.sums[0])], ap.sums[3][:len(ap.sums[0])]
		for id := range s0 {
			if s := s0[id] + s1[id] + s2[id] + s3[id]; s != 0 {
				keep(id, s)
			}
		}
		clear(s0)
		clear(s1)
		clear(s2)
		clear(s3)
		ix.acc.Put(ap)
	}
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
	return hits, nil
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
