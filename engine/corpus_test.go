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
	for _, d := range docs {
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
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Question
	}
	return out
}
