package engine

import (
	"strings"
	"testing"

	"github.com/executablekg/execkg/engine/extract"
)

// TestLineBoundScansAgree: listItemBounds and extract.ItemStart keep
// their searches to the span's line (a line break is one of their stops
// and no other stop holds one); their answers are those of the search
// through the whole text, at every span of texts mixing every stop.
func TestLineBoundScansAgree(t *testing.T) {
	texts := []string{
		"Zorbex 5 mg, plinth 10 mg; quarnol -> velt\nnext line. two - three: four",
		"a; b\n\nc → d => e, f. g – h; i: j -> k\nl",
		"no stop at all on this line",
		"\n,;. -> → => \n",
		"first, second\nthird line without\nfourth; fifth. sixth",
	}
	for _, text := range texts {
		for start := 0; start <= len(text); start++ {
			if got, want := extract.ItemStart(text, start), itemStartWhole(text, start); got != want {
				t.Errorf("ItemStart(%q, %d) = %d, whole-text search %d", text, start, got, want)
			}
			for end := start + 1; end <= len(text); end++ {
				lo, hi := listItemBounds(text, start, end)
				wlo, whi := listItemBoundsWhole(text, start, end)
				if lo != wlo || hi != whi {
					t.Errorf("listItemBounds(%q, %d, %d) = %d, %d, whole-text search %d, %d", text, start, end, lo, hi, wlo, whi)
				}
			}
		}
	}
}

func listItemBoundsWhole(text string, start, end int) (int, int) {
	if start < 0 || end > len(text) || start >= end {
		return 0, 0
	}
	lo, hi := 0, len(text)
	for _, stop := range []string{"\n", ",", ";", ". ", " -> ", " → ", " => "} {
		if i := strings.LastIndex(text[:start], stop); i >= 0 && i+len(stop) > lo {
			lo = i + len(stop)
		}
		if i := strings.Index(text[end:], stop); i >= 0 && end+i < hi {
			hi = end + i
		}
	}
	return lo, hi
}

func itemStartWhole(text string, pos int) int {
	lo := 0
	for _, sep := range []string{"\n", ". ", "; ", ": ", " - ", " – ", " -> ", " → "} {
		if i := strings.LastIndex(text[:pos], sep); i >= 0 && i+len(sep) > lo {
			lo = i + len(sep)
		}
	}
	return lo
}
