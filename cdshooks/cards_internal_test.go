package cdshooks

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/rules/packs"
)

// Every row of the built-in pack gets a summary under 140 characters that
// keeps its class and level, cut at a word where the text is longer.
func TestSummaryEveryRow(t *testing.T) {
	p, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tab := range p.Tables {
		for _, row := range tab.Rows {
			rec := engine.Recommendation{Text: row.Text, Class: row.Class, Level: row.Level}
			s := summary(rec)
			n++
			if c := utf8.RuneCountInString(s); c >= 140 {
				t.Errorf("%s row %d: summary of %d characters: %s", tab.File, row.Row, c, s)
			}
			if !strings.HasSuffix(s, "(class "+row.Class+", level "+row.Level+")") {
				t.Errorf("%s row %d: summary %q lost class or level", tab.File, row.Row, s)
			}
			if cut, ok := strings.CutSuffix(strings.TrimSuffix(s, " (class "+row.Class+", level "+row.Level+")"), "…"); ok {
				words := strings.Fields(cut)
				if last := words[len(words)-1]; !strings.Contains(row.Text, cut) || strings.HasSuffix(last, ",") {
					t.Errorf("%s row %d: cut %q is not the text's start at a word", tab.File, row.Row, cut)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d rows in the built-in pack", n)
	}
}

func TestMarkdownEscapes(t *testing.T) {
	for in, want := range map[string]string{
		"LVEF <35%":             `LVEF \<35%`,
		"*not* [a link](x)":     `\*not\* \[a link\](x)`,
		"line\nbreak":           "line break",
		"`code` and _under_ #1": "\\`code\\` and \\_under\\_ \\#1",
	} {
		if got := md(in); got != want {
			t.Errorf("md(%q) = %q, want %q", in, got, want)
		}
	}
}
