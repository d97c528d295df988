package engine

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules/packs"
)

// TestSentenceMatchesWhole: the refractory patterns run stretch by stretch
// between "." and ";" find what they find run over the whole text, on
// every dev document, vignette and refractory reader case, and on texts
// strung from the refractory words with and without sentence stops.
func TestSentenceMatchesWhole(t *testing.T) {
	rd, err := packs.DefaultReading()
	if err != nil {
		t.Fatal(err)
	}
	v, err := compileRefractory(rd.Refractory)
	if err != nil {
		t.Fatal(err)
	}
	if v == nil || !v.split {
		t.Fatal("the default pack's refractory words make no split patterns: the test reads nothing")
	}
	texts := append(devTexts(t, false), vignetteQuestions(t)...)
	r := rd.Refractory
	var words []string
	for _, g := range r.Symptoms {
		words = append(words, g.Words...)
	}
	words = append(append(words, r.Links...), r.Therapies...)
	if r.Near != nil {
		words = append(words, r.Near.Links...)
	}
	if r.After != nil {
		words = append(words, r.After.Outcomes...)
	}
	for i := range words {
		words[i] = strings.TrimSuffix(words[i], "*")
	}
	fill := []string{" ", ", ", ". ", "; ", "\n", " and ", " with ", "-", "x.", ";", "é "}
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for k := 0; k < 2+i%9; k++ {
			b.WriteString(words[(i*7+k*13)%len(words)])
			b.WriteString(fill[(i+k*5)%len(fill)])
		}
		texts = append(texts, b.String(), strings.ToUpper(b.String()))
	}
	found := 0
	for _, text := range texts {
		for _, p := range []struct {
			name  string
			re    *regexp.Regexp
			words []string
		}{{"re", v.re, v.links}, {"near", v.near, v.nearLinks}, {"after", v.after, v.outcomes}} {
			if p.re == nil {
				continue
			}
			got := sentenceMatches(p.re, text, p.words, true)
			want := p.re.FindAllStringSubmatchIndex(text, -1)
			if len(got) == 0 && len(want) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s on %q: by sentence %v, whole text %v", p.name, text, got, want)
			}
			found++
		}
	}
	if found < 100 {
		t.Fatalf("only %d texts matched a refractory pattern: the test reaches too little", found)
	}
}
