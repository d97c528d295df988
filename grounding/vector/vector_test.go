package vector

import (
	"math"
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
