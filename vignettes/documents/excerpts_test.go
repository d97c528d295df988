package documents

import (
	"strings"
	"testing"
)

func TestExcerpts(t *testing.T) {
	docs := []Document{{Text: "a\n\nb\nc"}, {Text: "d\ne\n"}, {Text: "f"}}
	got := Excerpts(docs, 2, 2)
	if len(got) != 2 || got[0] != "a\nb" || got[1] != "c\nd" {
		t.Errorf("2 of 3 two-line windows: %q", got)
	}
	if got := Excerpts(docs, 2, 10); len(got) != 3 || got[2] != "e\nf" {
		t.Errorf("all windows: %q", got)
	}
	if got := Excerpts(docs, 7, 1); len(got) != 0 {
		t.Errorf("longer than the documents: %q", got)
	}
	dev, err := Load(Dev)
	if err != nil {
		t.Fatal(err)
	}
	for _, lines := range []int{1, 10, 40, 200} {
		ex := Excerpts(dev, lines, 8)
		if len(ex) == 0 {
			t.Fatalf("dev has no %d-line excerpt", lines)
		}
		for _, e := range ex {
			if n := strings.Count(e, "\n") + 1; n != lines {
				t.Errorf("%d-line excerpt has %d lines", lines, n)
			}
		}
	}
}
