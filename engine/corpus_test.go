package engine

import (
	"strings"
	"testing"

	"github.com/executablekg/execkg/vignettes"
	"github.com/executablekg/execkg/vignettes/documents"
)

// devTexts: every dev document's text and, with lines, each of its lines
// after it: the corpus the equivalence tests of the speed-ups read.
func devTexts(t *testing.T, lines bool) []string {
	t.Helper()
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for i, d := range docs {
		if skipInShort(i) {
			continue
		}
		texts = append(texts, d.Text)
		if lines {
			texts = append(texts, strings.Split(d.Text, "\n")...)
		}
	}
	return texts
}

// vignetteQuestions: the shipped vignettes' questions, in order.
func vignetteQuestions(t *testing.T) []string {
	t.Helper()
	vs, err := vignettes.Default()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, v := range vs {
		if !skipInShort(i) {
			out = append(out, v.Question)
		}
	}
	return out
}

// skipInShort: with -short (the race step of .ci/run) the corpus-wide
// equivalence tests read every sixth item only. They check a speed-up
// against its plain form, sequentially, so the race detector learns
// nothing more from the whole corpus; go test without -short reads it all.
func skipInShort(i int) bool {
	return testing.Short() && i%6 != 0
}

// composedN: how many anatomy texts composed() strings for the anatomy
// equivalence tests; a quarter of them with -short (the race step).
func composedN() int {
	if testing.Short() {
		return 1000
	}
	return 4000
}

// minFound: the matches an anatomy equivalence test must meet to show its
// patterns are reached, scaled with -short to the smaller corpus.
func minFound(n int) int {
	if testing.Short() {
		return n / 8
	}
	return n
}
