package engine

import (
	"context"
	"strings"
	"testing"
)

// TestStatedAsKeepsStatedIn: statedAs, which takes the name's lower case
// read once per program (phraseForms, eachName), answers as statedIn,
// which lower-cases the name at every call, for every pack phrase and
// concept name against the findings of a sixth of the dev documents; and
// eachName gives the names in statedIn's order. Fails when a lowered form
// is out of line with its phrase.
func TestStatedAsKeepsStatedIn(t *testing.T) {
	p, _ := readerProgram(t)
	ctx := context.Background()
	pairs, stated := 0, 0
	for i, text := range devTexts(t, false) {
		if i%6 != 0 {
			continue
		}
		fs, err := p.cfg.extractor.Extract(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fs {
			as, err := p.grounder.Ground(ctx, f.Text)
			if err != nil {
				t.Fatal(err)
			}
			lower, padded := " "+strings.ToLower(f.Text)+" ", " "+f.Text+" "
			for _, a := range append(as, p.verbatimAnchors(f.Text)...) {
				want := append([]string{a.Concept}, p.phrases[a.ConceptKey]...)
				var got []string
				p.eachName(a, func(n, nl string) {
					got = append(got, n)
					pairs++
					if statedAs(lower, padded, n, nl) != statedIn(lower, f.Text, n) {
						t.Fatalf("%q, name %q: statedAs %v, statedIn %v", f.Text, n, !statedIn(lower, f.Text, n), statedIn(lower, f.Text, n))
					}
					if statedIn(lower, f.Text, n) {
						stated++
					}
				})
				if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
					t.Fatalf("%q: eachName gives %q, want %q", f.Text, got, want)
				}
			}
		}
	}
	if pairs == 0 || stated == 0 {
		t.Fatalf("%d pairs, %d stated: the corpus tests nothing", pairs, stated)
	}
	t.Logf("%d (finding, name) pairs, %d stated", pairs, stated)
}
