// Package vector is the exact cosine-similarity index of the grounding
// vector channel. The pack has a few thousand grounding phrases, so a flat
// scan (one dot product per phrase, vectors unit-normalised at build) is
// exact and takes well under a millisecond; no approximate index is needed.
package vector

import (
	"fmt"
	"math"
	"sort"
)

// Index holds unit vectors, addressed by their position, in one
// contiguous slice so a search streams through memory.
type Index struct {
	dim  int
	n    int
	data []float32
}

// Hit is one indexed vector with its cosine similarity to the query.
type Hit struct {
	ID    int
	Score float64
}

// New builds an index over vecs (copied and normalised). All vectors must
// have one dimension; zero vectors are kept but never match.
func New(vecs [][]float32) (*Index, error) {
	ix := &Index{}
	for i, v := range vecs {
		if i == 0 {
			ix.dim = len(v)
		}
		if len(v) != ix.dim {
			return nil, fmt.Errorf("vector index: vector %d has dimension %d, vector 0 has %d; all vectors must come from one embedder", i, len(v), ix.dim)
		}
		ix.data = append(ix.data, Normalize(v)...)
		ix.n++
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
	qn := Normalize(q)
	var hits []Hit
	d := ix.dim
	for i := 0; i < ix.n; i++ {
		s := dot(ix.data[i*d:(i+1)*d], qn)
		if float64(s) >= threshold && s != 0 && (exclude == nil || !exclude(i)) {
			hits = append(hits, Hit{ID: i, Score: float64(s)})
		}
	}
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].Score != hits[b].Score {
			return hits[a].Score > hits[b].Score
		}
		return hits[a].ID < hits[b].ID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits, nil
}

// dot is the inner product of two equally long vectors, unrolled by four.
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
