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

// Index holds unit vectors, addressed by their position.
type Index struct {
	dim  int
	vecs [][]float32
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
		ix.vecs = append(ix.vecs, Normalize(v))
	}
	return ix, nil
}

// Dim is the vector dimension (0 for an empty index).
func (ix *Index) Dim() int { return ix.dim }

// Len is the number of vectors.
func (ix *Index) Len() int { return len(ix.vecs) }

// Search returns up to k vectors with cosine ≥ threshold, best first (ties
// by position). exclude, if not nil, hides vectors from this search.
func (ix *Index) Search(q []float32, k int, threshold float64, exclude func(id int) bool) ([]Hit, error) {
	if len(ix.vecs) == 0 || k <= 0 {
		return nil, nil
	}
	if len(q) != ix.dim {
		return nil, fmt.Errorf("vector index: query has dimension %d, index %d; embed queries with the embedder that built the index", len(q), ix.dim)
	}
	qn := Normalize(q)
	var hits []Hit
	for i, v := range ix.vecs {
		if exclude != nil && exclude(i) {
			continue
		}
		var s float32
		for j, x := range v {
			s += x * qn[j]
		}
		if float64(s) >= threshold && s != 0 {
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
