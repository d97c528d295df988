package grounding

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/executablekg/execkg/grounding/fulltext"
	"github.com/executablekg/execkg/internal/corpus"
)

// corpusFindings reads the grounding test corpus (internal/corpus).
func corpusFindings(t testing.TB) []string { return corpus.Findings(t, "testdata/findings.txt") }

// TestGroundSameOnBothStores: over the findings corpus and the shipped
// pack, Ground answers exactly (anchors, scores, hits) the same on the
// sorted full-text store as on Bleve's gtreap.
func TestGroundSameOnBothStores(t *testing.T) {
	fs := corpusFindings(t)
	if testing.Short() {
		var some []string
		for i := 0; i < len(fs); i += 8 {
			some = append(some, fs[i])
		}
		fs = some
	}
	recs := packRecords(t)
	ref, err := New(recs, WithCacheSize(0), WithFullTextStore(fulltext.GtreapStore))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	g, err := New(recs, WithCacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx := context.Background()
	grounded := 0
	for _, f := range fs {
		want, err := ref.Ground(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.Ground(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Ground(%q) differs between the stores:\nsorted %+v\ngtreap %+v", f, got, want)
		}
		if len(want) > 0 {
			grounded++
		}
	}
	if grounded < len(fs)/2 {
		t.Fatalf("only %d of %d findings grounded; the comparison is too weak", grounded, len(fs))
	}
}

// TestGroundConcurrentUncached: without the anchors cache, goroutines
// sharing one Grounder (pooled search scratch: vector sums, embedder
// buffers, Fuse's concept slots) answer every finding exactly as one
// goroutine does.
func TestGroundConcurrentUncached(t *testing.T) {
	all := corpusFindings(t)
	var fs []string
	for i := 0; i < len(all); i += 12 {
		fs = append(fs, all[i])
	}
	g, err := New(packRecords(t), WithCacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx := context.Background()
	want := make([][]Anchor, len(fs))
	for i, f := range fs {
		if want[i], err = g.Ground(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := range fs {
				i := (j*7 + w*31) % len(fs)
				got, err := g.Ground(ctx, fs[i])
				if err != nil || !reflect.DeepEqual(got, want[i]) {
					t.Errorf("worker %d, Ground(%q) = %+v, %v; alone %+v", w, fs[i], got, err, want[i])
					return
				}
			}
		}(w)
	}
	wg.Wait()
}
