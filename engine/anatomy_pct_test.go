package engine

import (
	"reflect"
	"strings"
	"testing"
)

// TestPercentStartsKeepMatches: each anatomy pattern that opens with the
// percentage, tried anchored at percentStarts, finds what its scan of the
// whole text finds, on every dev document and its lines, every vignette,
// every stenosis case and texts strung from the anatomy vocabulary with
// comparators, ranges, dashes and stray percent signs.
func TestPercentStartsKeepMatches(t *testing.T) {
	r, err := newAnatomyReader(packAnatomy(t))
	if err != nil {
		t.Fatal(err)
	}
	texts := anatomyCorpus(t, func(s string) []string { return []string{s, strings.ToUpper(s)} })
	pcts := []string{"70%", " 50 %", "<50%", "≥ 70 %", "≤70%", ">= 90%", "30-40%", "30 – 40 %", "1234%", "%", "%%", "- 5%", "\t80\n%", "x%"}
	for i, s := range composed(r.a, composedN()) {
		texts = append(texts, s, pcts[i%len(pcts)]+" "+s, s+" "+pcts[(i*3)%len(pcts)]+" "+s)
	}
	tried, found := 0, 0
	for _, text := range texts {
		for i, p := range r.res {
			if !p.pct {
				continue
			}
			tried++
			got, want := findAllAt(p.anchored, text, percentStarts(text)), p.re.FindAllStringSubmatchIndex(text, -1)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("pattern %d tried at percent starts finds %v in %q, the scan %v", i, got, text, want)
			}
			if len(want) > 0 {
				found++
			}
		}
	}
	if tried == 0 || found < minFound(500) {
		t.Fatalf("%d tries, %d texts with a match: the percentage patterns are not reached", tried, found)
	}
}

// anatomyCorpus is the texts the anatomy speed-up equivalence tests read:
// every dev document and its lines, every vignette, and each stenosis
// case in the forms variants writes it.
func anatomyCorpus(t *testing.T, variants func(string) []string) []string {
	texts := append(devTexts(t, true), vignetteQuestions(t)...)
	var cases []struct{ Text, Want string }
	readCases(t, "stenoses.json", &cases)
	for _, c := range cases {
		texts = append(texts, variants(c.Text)...)
	}
	return texts
}
