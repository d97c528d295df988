package engine

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/executablekg/execkg/vignettes/documents"
)

// TestWhenGuardsKeepDates: whenOf's cheap guards never skip a text its
// date patterns match: whenShort and whenSlash match only where a "/"
// stands between two digits, whenDMY only where two "/" or "." do, on
// every dev document line and 20000 random strings of digits, separators
// and date words.
func TestWhenGuardsKeepDates(t *testing.T) {
	var texts []string
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		texts = append(texts, strings.Split(d.Text, "\n")...)
	}
	parts := []string{"12/02/2025", " 3/12", "29/01 ", "03.06.66", "x 2/52", "1", "2", "3", "0", "12", "52", "7", "19", "20", "25", "2025", "/", ".", "-", " ", "~", "x", "for ", ">", "over ", "(", "a", "é"}
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for k := rng.Intn(10); k >= 0; k-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		texts = append(texts, b.String())
	}
	matched := 0
	for _, text := range texts {
		for _, c := range []struct {
			name  string
			match bool
			guard bool
		}{
			{"whenShort", whenShort.MatchString(text), flanked(text, "/") > 0},
			{"whenSlash", whenSlash.MatchString(text), flanked(text, "/") > 0},
			{"whenDMY", whenDMY.MatchString(text), flanked(text, "/.") > 1},
		} {
			if c.match && !c.guard {
				t.Fatalf("%s matches %q, which its guard skips", c.name, text)
			}
			if c.match {
				matched++
			}
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d matches: the test reaches too few dates", matched)
	}
}
