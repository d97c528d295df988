package fulltext

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var texts = []string{
	"estimated glomerular filtration rate", // 0
	"eGFR",                                 // 1
	"fast irregular heart rate",            // 2
	"tachyarrhythmia",                      // 3
	"heart failure",                        // 4
	"decompensated heart failure",          // 5
	"intermediate coronary artery stenosis in a proximal or mid coronary segment", // 6
	"ST segment depression",     // 7
	"severe obesity",            // 8
	"severe renal failure",      // 9
	"diabetes mellitus",         // 10
	"myocardial ischemia",       // 11
	"chronic coronary syndrome", // 12
	"resting heart rate",        // 13
}

func ids(h []Hit) []int {
	var out []int
	for _, x := range h {
		out = append(out, x.ID)
	}
	return out
}

func has(h []Hit, id int) bool {
	for _, x := range h {
		if x.ID == id {
			return true
		}
	}
	return false
}

func newIndex(t *testing.T) *Index {
	t.Helper()
	ix, err := New(texts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func TestSearchRanksPhraseFirst(t *testing.T) {
	ix := newIndex(t)
	h, err := ix.Search([]string{QueryText("0.2 mV ST-segment depression")}, SearchOptions{Guard: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(h) == 0 || h[0].ID != 7 || !h[0].Phrase {
		t.Fatalf("hits %+v", h)
	}
	if has(h, 6) {
		t.Errorf("guard kept the stenosis text matched only by 'segment': %v", ids(h))
	}
	h, _ = ix.Search([]string{"ST-segment depression"}, SearchOptions{})
	if !has(h, 6) {
		t.Errorf("without the guard the single-word hit must be there: %v", ids(h))
	}
}

func TestGuardDropsGenericSingleWord(t *testing.T) {
	ix := newIndex(t)
	q := []string{"fast irregular heart rate"}
	on, _ := ix.Search(q, SearchOptions{Guard: true})
	off, _ := ix.Search(q, SearchOptions{})
	if on[0].ID != 2 || off[0].ID != 2 {
		t.Fatalf("top hit on %v off %v", ids(on), ids(off))
	}
	if has(on, 0) || !has(off, 0) {
		t.Errorf("'rate' alone must find eGFR only without the guard: on %v off %v", ids(on), ids(off))
	}
	// two shared words are kept: resting heart rate shares heart and rate
	if !has(on, 13) {
		t.Errorf("two-word overlap dropped: %v", ids(on))
	}
	// a one-word query keeps its single-word hits
	one, _ := ix.Search([]string{"rate"}, SearchOptions{Guard: true})
	if !has(one, 0) {
		t.Errorf("one-word query lost its hits: %v", ids(one))
	}
	// severe renal failure vs severe obesity: only the qualifier shared
	sev, _ := ix.Search([]string{"severe renal failure"}, SearchOptions{Guard: true})
	if sev[0].ID != 9 || has(sev, 8) || has(sev, 4) {
		t.Errorf("severe renal failure: %v", ids(sev))
	}
}

func TestStemmingAndSpelling(t *testing.T) {
	ix := newIndex(t)
	h, _ := ix.Search([]string{"diabetic"}, SearchOptions{Guard: true})
	if len(h) == 0 || h[0].ID != 10 {
		t.Errorf("diabetic → diabetes: %v", ids(h))
	}
	h, _ = ix.Search([]string{"Myocardial ischaemia"}, SearchOptions{Guard: true})
	if len(h) == 0 || h[0].ID != 11 || !h[0].Phrase {
		t.Errorf("ischaemia → ischemia: %+v", h)
	}
}

func TestExcludeAndVariants(t *testing.T) {
	ix := newIndex(t)
	h, _ := ix.Search([]string{"egfr"}, SearchOptions{Guard: true, Exclude: []int{1}})
	if has(h, 1) {
		t.Errorf("excluded text returned: %v", ids(h))
	}
	h, _ = ix.Search([]string{"egfr", "estimated glomerular filtration rate"}, SearchOptions{Guard: true, Exclude: []int{1}})
	if len(h) == 0 || h[0].ID != 0 {
		t.Errorf("expanded variant must find the long form: %v", ids(h))
	}
	h, _ = ix.Search([]string{"", "of the"}, SearchOptions{})
	if len(h) != 0 {
		t.Errorf("empty query found %v", ids(h))
	}
	h, _ = ix.Search([]string{"heart"}, SearchOptions{K: 2})
	if len(h) != 2 {
		t.Errorf("K=2 returned %d hits", len(h))
	}
}

func TestOnDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ft")
	ix, err := New(texts, Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Reused {
		t.Error("fresh index reported as reused")
	}
	ix.Close()
	ix, err = New(texts, Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Reused {
		t.Error("identical texts: index not reused")
	}
	h, _ := ix.Search([]string{"tachyarrhythmia"}, SearchOptions{})
	if len(h) != 1 || h[0].ID != 3 {
		t.Errorf("reused index: %v", ids(h))
	}
	ix.Close()
	ix, err = New(texts[:3], Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ix.Reused {
		t.Error("changed texts: stale index reused")
	}
	if h, _ := ix.Search([]string{"tachyarrhythmia"}, SearchOptions{}); len(h) != 0 {
		t.Errorf("stale documents survived the rebuild: %v", ids(h))
	}
	ix.Close()

	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o644)
	if _, err := New(texts, Options{Path: other}); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Errorf("foreign directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "notes.txt")); err != nil {
		t.Error("foreign file deleted")
	}
}

func TestVariantWeight(t *testing.T) {
	ix := newIndex(t)
	v := []string{"egfr", "estimated glomerular filtration rate"}
	full, _ := ix.Search(v, SearchOptions{})
	half, _ := ix.Search(v, SearchOptions{VariantWeight: 0.5})
	score := func(h []Hit, id int) float64 {
		for _, x := range h {
			if x.ID == id {
				return x.Score
			}
		}
		return 0
	}
	// text 1 ("eGFR") matches the first variant only, text 0 the second;
	// Bleve normalises a query's scores as a whole, so compare the ratio.
	rf, rh := score(full, 0)/score(full, 1), score(half, 0)/score(half, 1)
	if r := rh / rf; r < 0.45 || r > 0.55 {
		t.Errorf("second variant's hits weigh %.2f of the first's relative to the unweighted search, want 0.5", r)
	}
}
