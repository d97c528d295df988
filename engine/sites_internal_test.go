package engine

import (
	"strings"
	"testing"
)

// TestSitesShortcutsKeepAnswers: the two speed-ups of the site readers
// decide as the patterns do. The substring test never skips a mention the
// other-site words match (every dev document and its lines, every
// vignette and the pack's phrases, as written, upper-cased and with k and
// s written as their non-ASCII case folds, which go to the pattern), and
// does skip some; the concepts judged once per Program as another organ's
// are those the names' patterns give.
func TestSitesShortcutsKeepAnswers(t *testing.T) {
	p, _ := readerProgram(t)
	if len(p.reading.sites) == 0 {
		t.Fatal("the pack has no sites")
	}
	texts := append(devTexts(t, true), vignetteQuestions(t)...)
	for _, names := range p.phrases {
		texts = append(texts, names...)
	}
	folded := strings.NewReplacer("k", "\u212a", "s", "\u017f")
	n := len(texts)
	for _, s := range texts[:n] {
		texts = append(texts, strings.ToUpper(s), folded.Replace(s))
	}
	skipped, matched := 0, 0
	for _, s := range p.reading.sites {
		for _, text := range texts {
			lower := ""
			may := s.mayMatchOthers(text, &lower)
			m := s.others.MatchString(text)
			if m && !may {
				t.Fatalf("the substring test skips %q, which the other-site words match", text)
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
		t.Fatalf("substring test skipped %d texts, the pattern matched %d: both should be some", skipped, matched)
	}
	dropped := 0
	for k, names := range p.phrases {
		other, own := false, false
		for _, n := range names {
			for _, s := range p.reading.sites {
				own = own || s.words.MatchString(n)
				other = other || s.others.MatchString(n)
			}
		}
		// Asked twice: once judged, once remembered.
		for range 2 {
			if got, want := p.otherOrganKey(k), other && !own; got != want {
				t.Errorf("concept %s: judged another organ's %v, its names say %v", k, got, want)
			}
		}
		if other && !own {
			dropped++
		}
	}
	if dropped == 0 {
		t.Error("no concept is another organ's: withoutOtherOrgan drops nothing")
	}
}
