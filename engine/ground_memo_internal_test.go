package engine

import (
	"context"
	"reflect"
	"testing"
)

// TestGroundMemoKeepsAnswers: the per-case memo (Program.ground) gives
// every finding of the dev documents the grounder's own anchors, asked
// first or again, however a caller reorders or renumbers the list it got.
func TestGroundMemoKeepsAnswers(t *testing.T) {
	p, _ := readerProgram(t)
	ctx := context.Background()
	repeats := 0
	for i, text := range devTexts(t, false) {
		if i%4 != 0 {
			continue // a quarter of the documents keep the test short
		}
		fs, err := p.cfg.extractor.Extract(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		c := &call{}
		for _, f := range fs {
			for range 2 {
				if _, ok := c.grounded[f.Text]; ok {
					repeats++
				}
				got, err := p.ground(ctx, c, f.Text)
				if err != nil {
					t.Fatal(err)
				}
				want, err := p.grounder.Ground(ctx, f.Text)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%q: memo %v, grounder %v", f.Text, got, want)
				}
				for j := range got { // a caller's renumbering stays its own
					got[j].Rank, got[j].ConceptKey = -1, "x"
				}
			}
		}
	}
	if repeats == 0 {
		t.Fatal("no finding was answered from the memo")
	}
}
