package engine

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/vignettes"
)

// TestNameTokensKeepStenoses: the name filter (and the memo) only skip
// texts the patterns read nothing from. Every dev document, each of its lines, every
// vignette and every stenosis case (as written, upper- and lower-cased, and
// with its letters k and s written as their non-ASCII case folds) reads the
// same reports with the filter as without it, as do 4000 texts strung from
// the anatomy vocabulary; each pattern tried at name starts finds what its
// scan of the whole text finds; and the filter does skip texts (the
// vignettes that name no vessel).
func TestNameTokensKeepStenoses(t *testing.T) {
	r, err := newAnatomyReader(packAnatomy(t))
	if err != nil {
		t.Fatal(err)
	}
	if r.names == nil {
		t.Fatal("the default pack's anatomy vocabulary builds no name filter")
	}
	texts := devTexts(t, true)
	vs, err := vignettes.Default()
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	for _, v := range vs {
		texts = append(texts, v.Question)
		if !r.names.mayName(v.Question) {
			skipped++
		}
	}
	var cases []struct{ Text, Want string }
	readCases(t, "stenoses.json", &cases)
	for _, c := range cases {
		texts = append(texts, c.Text, strings.ToUpper(c.Text), strings.ToLower(c.Text),
			strings.NewReplacer("k", "\u212a", "s", "\u017f").Replace(c.Text))
	}
	texts = append(texts, composed(r.a, composedN())...)
	anchoredPatterns := 0
	for _, p := range r.res {
		if p.anchored != nil {
			anchoredPatterns++
		}
	}
	if anchoredPatterns == 0 {
		t.Error("no anatomy pattern is tried at name starts")
	}
	for _, text := range texts {
		if starts, ok := r.names.starts(text); ok {
			for i, p := range r.res {
				if p.anchored == nil || p.pct || p.opening >= 0 { // TestPercentStartsKeepMatches, TestOpeningStartsKeepMatches
					continue
				}
				if got, want := findAllAt(p.anchored, text, starts), p.re.FindAllStringSubmatchIndex(text, -1); !reflect.DeepEqual(got, want) {
					t.Errorf("pattern %d tried at name starts finds %v in %q, the scan %v", i, got, text, want)
				}
			}
		}
		got, want := r.stenoses(text), r.read(text)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the name filter changes the reports of %q:\n got %+v\nwant %+v", text, got, want)
		}
	}
	if skipped == 0 {
		t.Errorf("the name filter passes all %d vignettes; it should skip those naming no vessel", len(vs))
	}
}

// composed returns n texts strung from the anatomy vocabulary (names,
// segment, lesion, occlusion and normal words, percentages) with the
// separators the patterns care about, in mixed case, so that the
// filter and the anchored tries meet glued, listed and partial reports.
func composed(a *rules.Anatomy, n int) []string {
	var words []string
	for _, v := range a.Vessels {
		for _, w := range append(append([]string(nil), v.Words...), v.Branches...) {
			words = append(words, strings.ReplaceAll(w, "#", "2"))
		}
	}
	for _, s := range a.Segments {
		words = append(words, s.Words...)
	}
	words = append(words, a.LesionWords...)
	words = append(words, a.OccludedAfter...)
	words = append(words, a.OccludedBefore...)
	words = append(words, a.NormalAfter...)
	words = append(words, a.NotNative...)
	words = append(words, a.NotStenosis...)
	words = append(words, "70%", "<50%", "95 %", "from", "the", "in", "and", "x", "12", "d12", "ℹ")
	seps := []string{" ", "", "-", "/", ", ", ". ", ": ", "\n", " and ", "; ", "(", ")"}
	rng := rand.New(rand.NewSource(1))
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		var b strings.Builder
		for k := 2 + rng.Intn(8); k > 0; k-- {
			w := words[rng.Intn(len(words))]
			switch rng.Intn(4) {
			case 0:
				w = strings.ToUpper(w)
			case 1:
				w = strings.ToLower(w)
			}
			b.WriteString(w)
			b.WriteString(seps[rng.Intn(len(seps))])
		}
		out = append(out, b.String())
	}
	return out
}
