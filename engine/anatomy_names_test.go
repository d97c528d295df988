package engine

import (
	"reflect"
	"strings"
	"testing"

	"github.com/executablekg/execkg/vignettes"
	"github.com/executablekg/execkg/vignettes/documents"
)

// TestNameTokensKeepStenoses: the name filter (and the memo) only skip
// texts the patterns read nothing from. Every dev document, each of its lines, every
// vignette and every stenosis case (as written, upper- and lower-cased, and
// with its letters k and s written as their non-ASCII case folds) reads the
// same reports with the filter as without it; and the filter does skip
// texts (the vignettes that name no vessel).
func TestNameTokensKeepStenoses(t *testing.T) {
	r, err := newAnatomyReader(packAnatomy(t))
	if err != nil {
		t.Fatal(err)
	}
	if r.names == nil {
		t.Fatal("the default pack's anatomy vocabulary builds no name filter")
	}
	var texts []string
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		texts = append(texts, d.Text)
		texts = append(texts, strings.Split(d.Text, "\n")...)
	}
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
	for _, text := range texts {
		got, want := r.stenoses(text), r.read(text)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the name filter changes the reports of %q:\n got %+v\nwant %+v", text, got, want)
		}
	}
	if skipped == 0 {
		t.Errorf("the name filter passes all %d vignettes; it should skip those naming no vessel", len(vs))
	}
}
