package engine

import (
	"reflect"
	"strings"
	"testing"
)

// TestOpeningStartsKeepMatches: each anatomy pattern that opens with a
// word list (the grade words, the occluded-before words), tried anchored
// at the tokens openingTokens names, finds what its scan of the whole
// text finds, and the reports read are those of the scan: on every dev
// document and its lines, every vignette, every stenosis case (as
// written, upper-cased, and with k and s written as their non-ASCII case
// folds, where the text is scanned) and texts strung from the anatomy
// vocabulary with its grade and stenosis words.
func TestOpeningStartsKeepMatches(t *testing.T) {
	r, err := newAnatomyReader(packAnatomy(t))
	if err != nil {
		t.Fatal(err)
	}
	texts := anatomyCorpus(t, func(s string) []string {
		return []string{s, strings.ToUpper(s), strings.NewReplacer("k", "\u212a", "s", "\u017f").Replace(s)}
	})
	var extra []string
	for _, g := range r.a.Grades {
		extra = append(extra, g.Words...)
	}
	extra = append(append(extra, r.a.Nouns...), r.a.NounsBefore...)
	for i, s := range composed(r.a, composedN()) {
		w := extra[i%len(extra)]
		texts = append(texts, w+" "+s, s+" "+strings.ToUpper(w)+" "+extra[(i*7)%len(extra)]+" "+s, w+s)
	}
	opening := 0
	for _, p := range r.res {
		if p.opening >= 0 {
			opening++
		}
	}
	if opening < 2 {
		t.Fatalf("%d anatomy patterns tried at their opening words; the grade and occluded-before patterns should be", opening)
	}
	tried, found := 0, 0
	for _, text := range texts {
		for i, p := range r.res {
			if p.opening < 0 {
				continue
			}
			at, ok := openingStartsIn(text, r.openings[p.opening])
			if !ok {
				continue
			}
			tried++
			got, want := findAllAt(p.anchored, text, at), p.re.FindAllStringSubmatchIndex(text, -1)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("pattern %d tried at its opening words finds %v in %q, the scan %v", i, got, text, want)
			}
			if len(want) > 0 {
				found++
			}
		}
	}
	if tried == 0 || found < minFound(200) {
		t.Fatalf("%d tries, %d texts with a match: the opening-word patterns are not reached", tried, found)
	}
	// The reads with the anchored tries equal those with every pattern
	// scanned for.
	scan, err := newAnatomyReader(packAnatomy(t))
	if err != nil {
		t.Fatal(err)
	}
	for i := range scan.res {
		if scan.res[i].opening >= 0 {
			scan.res[i].opening, scan.res[i].anchored = -1, nil
		}
	}
	for _, text := range texts {
		if got, want := r.read(text), scan.read(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("the opening-word tries change the reports of %q:\n got %+v\nwant %+v", text, got, want)
		}
	}
}
