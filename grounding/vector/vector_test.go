package vector

import (
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

func TestSearch(t *testing.T) {
	ix, err := New([][]float32{{1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 0}, {2, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := ix.Search([]float32{3, 0, 0}, 10, 0.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	// {1,0,0} and {2,0,0} tie at 1 (by position), {1,1,0} at 0.707; {0,1,0} below
	// threshold; the zero vector never matches.
	if len(hits) != 3 || hits[0].ID != 0 || hits[1].ID != 4 || hits[2].ID != 1 {
		t.Fatalf("hits %+v", hits)
	}
	if math.Abs(hits[2].Score-math.Sqrt(0.5)) > 1e-6 {
		t.Errorf("cosine %v, want 0.7071", hits[2].Score)
	}
	hits, _ = ix.Search([]float32{3, 0, 0}, 1, 0, func(id int) bool { return id == 0 })
	if len(hits) != 1 || hits[0].ID != 4 {
		t.Fatalf("exclude/k: %+v", hits)
	}
	if _, err := ix.Search([]float32{1, 0}, 1, 0, nil); err == nil || !strings.Contains(err.Error(), "dimension 2") {
		t.Errorf("dimension mismatch: %v", err)
	}
	if _, err := New([][]float32{{1, 0}, {1}}); err == nil {
		t.Error("mixed dimensions accepted")
	}
}

// TestSparseScoresExact: posting-list search of sparse vectors scores
// exactly (bit for bit) as the dense dot product and ranks the same, for
// dimensions with and without an unrolling tail.
func TestSparseScoresExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{512, 67} {
		var vecs [][]float32
		for i := 0; i < 400; i++ {
			v := make([]float32, dim)
			for j := 0; j < 1+rng.IntN(12); j++ {
				v[rng.IntN(dim)] = rng.Float32()*2 - 1
			}
			vecs = append(vecs, v)
		}
		ix, err := New(vecs)
		if err != nil {
			t.Fatal(err)
		}
		if ix.postings == nil {
			t.Fatalf("dim %d: sparse vectors indexed dense", dim)
		}
		for qi := 0; qi < 50; qi++ {
			q := vecs[rng.IntN(len(vecs))]
			if qi%2 == 1 {
				q = append([]float32(nil), q...)
				q[rng.IntN(dim)] += rng.Float32()
			}
			got, err := ix.Search(q, len(vecs), -1, nil)
			if err != nil {
				t.Fatal(err)
			}
			qn := Normalize(q)
			var want []Hit
			for i, v := range vecs {
				if s := dot(Normalize(v), qn); s != 0 {
					want = append(want, Hit{ID: i, Score: float64(s)})
				}
			}
			sort.SliceStable(want, func(a, b int) bool { return want[a].Score > want[b].Score })
			if len(got) != len(want) {
				t.Fatalf("dim %d query %d: %d hits, dense scoring gives %d", dim, qi, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("dim %d query %d hit %d: %+v, dense scoring gives %+v", dim, qi, i, got[i], want[i])
				}
			}
		}
	}
	dense, _ := New([][]float32{{1, 2, 3, 4}, {4, 3, 2, 1}})
	if dense.postings != nil {
		t.Error("dense vectors indexed as postings")
	}
}

// TestSearchSparseSameAsSearch: a query given by its non-zero dimensions
// (SearchSparse) gets exactly Search's hits for the dense query, on sparse
// and dense indexes, with listed zero values, thresholds, k and exclusion;
// malformed sparse queries are refused.
func TestSearchSparseSameAsSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct{ dim, set int }{{512, 12}, {67, 12}, {8, 6}} {
		var vecs [][]float32
		for i := 0; i < 300; i++ {
			v := make([]float32, c.dim)
			for j := 0; j < 1+rng.IntN(c.set); j++ {
				v[rng.IntN(c.dim)] = rng.Float32()*2 - 1
			}
			vecs = append(vecs, v)
		}
		ix, err := New(vecs)
		if err != nil {
			t.Fatal(err)
		}
		for qi := 0; qi < 60; qi++ {
			q := append([]float32(nil), vecs[rng.IntN(len(vecs))]...)
			q[rng.IntN(c.dim)] += rng.Float32()
			var dims []int32
			var vals []float32
			for d, x := range q {
				if x != 0 || rng.IntN(20) == 0 { // some listed zeros
					dims, vals = append(dims, int32(d)), append(vals, x)
				}
			}
			k, th := 1+rng.IntN(40), []float64{-1, 0, 0.3, 0.5}[qi%4]
			ex := func(id int) bool { return id%7 == qi%7 }
			if qi%3 == 0 {
				ex = nil
			}
			want, err := ix.Search(q, k, th, ex)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ix.SearchSparse(dims, vals, k, th, ex)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("dim %d query %d: %d hits, Search gives %d", c.dim, qi, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("dim %d query %d hit %d: %+v, Search gives %+v", c.dim, qi, i, got[i], want[i])
				}
			}
		}
		if c.dim == 8 && ix.Sparse() {
			t.Fatal("dense vectors indexed as postings")
		}
		if c.dim == 512 && !ix.Sparse() {
			t.Fatal("sparse vectors indexed dense")
		}
		for _, bad := range []struct {
			dims []int32
			vals []float32
		}{{[]int32{3, 2}, []float32{1, 1}}, {[]int32{1, 1}, []float32{1, 1}}, {[]int32{int32(c.dim)}, []float32{1}}, {[]int32{-1}, []float32{1}}, {[]int32{1}, nil}} {
			if _, err := ix.SearchSparse(bad.dims, bad.vals, 5, 0, nil); err == nil {
				t.Errorf("dim %d: sparse query %v %v accepted", c.dim, bad.dims, bad.vals)
			}
		}
	}
}

// TestSparseThresholdBoundary: the sparse search's float32 cut-off keeps a
// score exactly when float64(score) >= threshold, for thresholds at a
// score, just above and just below it (between two float32 values).
func TestSparseThresholdBoundary(t *testing.T) {
	var vecs [][]float32
	for i := 1; i <= 40; i++ {
		v := make([]float32, 512)
		v[0], v[1+i%7] = float32(i), float32(41-i)
		vecs = append(vecs, v)
	}
	ix, err := New(vecs)
	if err != nil || !ix.Sparse() {
		t.Fatalf("sparse index: %v", err)
	}
	q := make([]float32, 512)
	q[0], q[3] = 1, 0.25
	all, err := ix.Search(q, 100, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range all {
		for _, th := range []float64{h.Score, math.Nextafter(h.Score, 2), math.Nextafter(h.Score, -2), float64(math.Nextafter32(float32(h.Score), 2)), -math.Inf(1), math.Inf(1), math.NaN()} {
			got, err := ix.Search(q, 100, th, nil)
			if err != nil {
				t.Fatal(err)
			}
			kept := false
			for _, g := range got {
				if g.ID == h.ID {
					kept = true
				}
			}
			if want := h.Score >= th; kept != want {
				t.Fatalf("score %v, threshold %v: kept %v, want %v", h.Score, th, kept, want)
			}
		}
	}
}
