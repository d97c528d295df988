package consistency

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/executablekg/execkg/vignettes/documents"
)

// TestCoveringKeepsContext: context judges its six cue kinds on the cues
// covering a focus word (covering) instead of on every cue of the text;
// at every word of the dev documents, with one focus word and with
// three, the context is the one the judgements on all cues give.
func TestCoveringKeepsContext(t *testing.T) {
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		t.Fatal(err)
	}
	judged, cued := 0, 0
	for k, d := range docs {
		if k%3 != 0 {
			continue // a third of the documents keep the test short
		}
		tx := NewText(d.Text)
		for i := range tx.toks {
			if !tx.toks[i].word {
				continue
			}
			a := analysis{text: tx.text, toks: tx.toks, hits: tx.hits, found: true, from: i, to: i, cFrom: i, cTo: i}
			for _, focus := range [][]int{{i}, {i, i + 1, i + 2}} {
				got, want := a.context("m", focus), contextOnAllCues(a, "m", focus)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, token %d: context %+v, on all cues %+v", d.DocID, i, got, want)
				}
				judged++
				if len(got.Cues) > 0 {
					cued++
				}
			}
		}
	}
	if judged == 0 || cued == 0 {
		t.Fatalf("%d contexts judged, %d with cues: both should be some", judged, cued)
	}
}

// contextOnAllCues is context as it was before covering: each kind
// judged on every cue of the text.
func contextOnAllCues(a analysis, target string, focus []int) Context {
	c := Context{Target: target, Found: a.found, Qualifiers: []string{}, Cues: []string{}}
	c.Clause = strings.TrimSpace(a.text[a.toks[a.cFrom].start:a.toks[a.cTo].end])
	c.Qualifiers = a.qualifiers()
	var neg, unc, either, other, hyp, unl []string
	c.Negated, neg = a.under(kindNegation, focus[:1])
	c.Uncertain, unc = a.under(kindUncertainty, focus)
	c.Either, either = a.under(kindEither, focus)
	c.Other, other = a.under(kindExperiencer, focus[:1])
	neg = append(neg, other...)
	c.Hypothetical, hyp = a.under(kindHypothetical, focus[:1])
	c.Unlikely, unl = a.under(kindUnlikely, focus[:1])
	want := append(append(append(append(neg, unc...), either...), hyp...), unl...)
	if len(want) == 0 {
		return c
	}
	for _, h := range a.hits {
		if slices.Contains(want, h.def.text) && !slices.Contains(c.Cues, h.def.text) {
			c.Cues = append(c.Cues, h.def.text)
		}
	}
	return c
}
