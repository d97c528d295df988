package engine

import (
	"strings"
	"testing"
)

// TestStayLabelPrefilterKeepsAnswers: the case-insensitive substring test
// labelDay runs before a stay label's pattern never skips a text the
// pattern matches (every dev document and its lines, every vignette, as
// written, upper-cased and with k and s written as their non-ASCII case
// folds, which the pattern also matches), and does skip some.
func TestStayLabelPrefilterKeepsAnswers(t *testing.T) {
	p, _ := readerProgram(t)
	fr := p.pack.Sections.Frame
	labels := append(append([]string{}, fr.AdmissionLabels...), fr.DischargeLabels...)
	if len(labels) == 0 {
		t.Fatal("the pack has no stay labels")
	}
	texts := append(devTexts(t, true), vignetteQuestions(t)...)
	texts = append(texts, "Admitted 16/04/2026", "AD\u212aM", "di\u017fcharged 17/04/2026", "ADM: 04/06/2025, D/C 05/06/2025")
	folded := strings.NewReplacer("k", "\u212a", "s", "\u017f")
	n := len(texts)
	for _, s := range texts[:n] {
		texts = append(texts, strings.ToUpper(s), folded.Replace(s))
	}
	skipped, matched := 0, 0
	for _, l := range labels {
		re := stayLabelRE(l)
		for _, text := range texts {
			may := mayHoldFold(text, l)
			m := re.MatchString(text)
			if m && !may {
				t.Fatalf("the substring test skips %q, which the label %q matches", text, l)
			}
			if !may {
				skipped++
			}
			if m {
				matched++
			}
		}
	}
	if skipped == 0 || matched == 0 {
		t.Fatalf("substring test skipped %d texts, the patterns matched %d: both should be some", skipped, matched)
	}
}
