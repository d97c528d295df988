package grounding

import (
	"context"
	"reflect"
	"sync"
	"testing"
)

// The cache changes nothing but the cost: a cached Grounder answers every
// finding, first time and again, concurrently too, as one without a cache,
// and a caller reordering or renumbering its answer does not change the
// next one.
func TestCacheAnswersAsUncached(t *testing.T) {
	cached, plain := newGrounder(t, WithCacheSize(4)), newGrounder(t, WithCacheSize(0))
	// "eGFR 35" and "no rapid AF" share their query variants with "eGFR 24" and
	// "rapid AF", and so their retrieval.
	findings := []string{"rapid AF", "HF", "eGFR 24", "morbid obesity", "suspected stable CAD", "ST depression at rest", "Rapid AF", "", "eGFR 35", "no rapid AF", "24"}
	want := map[string][]Anchor{}
	ctx := context.Background()
	for _, f := range findings {
		as, err := plain.Ground(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		want[f] = as
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := 0; j < 3*len(findings); j++ {
				f := findings[(w+j)%len(findings)]
				as, err := cached.Ground(ctx, f)
				if err != nil {
					t.Error(err)
					return
				}
				if !reflect.DeepEqual(as, want[f]) {
					t.Errorf("%q: cached %v, uncached %v", f, concepts(as), concepts(want[f]))
					return
				}
				for i := range as {
					as[i].Rank = 99 // callers renumber their copy
				}
				if len(as) > 1 {
					as[0], as[1] = as[1], as[0]
				}
			}
		}(w)
	}
	wg.Wait()
}
