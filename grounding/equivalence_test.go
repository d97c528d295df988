package grounding

import (
	"context"
	"reflect"
	"sync"
	"testing"

	"github.com/executablekg/execkg/grounding/embed"
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

// denseOnly hides an embedder's sparse form (AppendSparse), so the
// Grounder embeds queries dense and searches with vector.Index.Search.
type denseOnly struct{ embed.Embedder }

// TestSparseQueriesSameAsDense: over the findings corpus and the shipped
// pack, grounding with the built-in embedder's sparse query vectors
// (SearchSparse) retrieves exactly (hits, scores, ranks) what the dense
// query vectors retrieve, with and without a hidden phrase, and grounds to
// the same anchors.
func TestSparseQueriesSameAsDense(t *testing.T) {
	fs := corpusFindings(t)
	if testing.Short() {
		var some []string
		for i := 0; i < len(fs); i += 8 {
			some = append(some, fs[i])
		}
		fs = some
	}
	recs := packRecords(t)
	ref, err := New(recs, WithCacheSize(0), WithEmbedder(denseOnly{embed.NewBuiltin(0)}), WithThreshold(embed.BuiltinThreshold))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	g, err := New(recs, WithCacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, ok := g.cfg.embedder.(sparseEmbedder); !ok || !g.vec.Sparse() {
		t.Fatal("the built-in embedder and its index no longer take the sparse path; this test compares nothing")
	}
	ctx := context.Background()
	hits := 0
	for i, f := range fs {
		o := g.RetrieveDefaults()
		if i%3 == 0 {
			o.Hide = f
		}
		want, err := ref.Retrieve(ctx, f, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := g.Retrieve(ctx, f, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Retrieve(%q, hide %q): sparse query\n%+v\ndense query\n%+v", f, o.Hide, got.Vector, want.Vector)
		}
		hits += len(got.Vector)
		wa, err := ref.Ground(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		ga, err := g.Ground(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ga, wa) {
			t.Fatalf("Ground(%q): sparse query %+v, dense %+v", f, ga, wa)
		}
	}
	if hits == 0 {
		t.Fatal("no vector hits compared")
	}
}
