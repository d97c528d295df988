package grounding

import (
	"reflect"
	"slices"
	"testing"

	"github.com/executablekg/execkg/grounding/fulltext"
)

// TestSearchScratchSameHits: full-text searches that reuse one Scratch
// (as Ground does through its pooled hit buffer) return the hits, scores
// and matched words a search with fresh memory returns, for every query
// variant set of the findings corpus, each search right after another.
// A hit list is compared before the next search may reuse its memory.
func TestSearchScratchSameHits(t *testing.T) {
	g, err := New(packRecords(t), WithCacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	o := g.RetrieveDefaults()
	var sc fulltext.Scratch
	searched, matched := 0, 0
	for _, f := range corpusFindings(t) {
		c, _ := g.prepare(f, o)
		if c.Query == "" {
			continue
		}
		so := fulltext.SearchOptions{K: o.K, Guard: o.Guard, VariantWeight: expansionWeight}
		want, err := g.ft.Search(c.Variants, so)
		if err != nil {
			t.Fatal(err)
		}
		so.Scratch = &sc
		got, err := g.ft.Search(c.Variants, so)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(slices.Clone(got), want) {
			t.Fatalf("%q: with a scratch %v, without %v", f, got, want)
		}
		searched++
		for _, h := range got {
			matched += len(h.Matched)
		}
	}
	if searched == 0 || matched == 0 {
		t.Fatalf("%d searches, %d matched words: the corpus tests nothing", searched, matched)
	}
	t.Logf("%d searches, %d matched words", searched, matched)
}
