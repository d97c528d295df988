package engine

import (
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
)

// TestDistinctNested: a "distinct" pair is kept when a name or synonym of
// the concept holds one of the other's as whole words, and the build
// fails naming the entry when none does (the entry could never apply).
func TestDistinctNested(t *testing.T) {
	keys := map[string]string{"ccta": "k1", "ica": "k2", "heart failure": "k3"}
	names := map[string][]string{
		"k1": {"CCTA", "CT coronary angiography"},
		"k2": {"ICA", "coronary angiography"},
		"k3": {"heart failure", "HF"},
	}
	ok := &rules.Hierarchy{Distinct: []rules.Distinct{{Concept: "CCTA", From: "ICA", Source: "s"}}}
	if err := distinctNested(ok, keys, names); err != nil {
		t.Fatalf("CT coronary angiography holds coronary angiography: %v", err)
	}
	for _, c := range []struct {
		d    rules.Distinct
		want string
	}{
		{rules.Distinct{Concept: "heart failure", From: "ICA", Source: "s"}, "no name or lexicon synonym of it holds"},
		// Reversed: "coronary angiography" holds no phrase of CCTA.
		{rules.Distinct{Concept: "ICA", From: "CCTA", Source: "s"}, "no name or lexicon synonym of it holds"},
		{rules.Distinct{Concept: "stress echo", From: "ICA", Source: "s"}, "names a concept the pack does not have"},
	} {
		err := distinctNested(&rules.Hierarchy{Distinct: []rules.Distinct{c.d}}, keys, names)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "distinct[0]") {
			t.Errorf("%+v: got %v, want an error naming distinct[0] and %q", c.d, err, c.want)
		}
	}
	// Whole words only: "HF" is no word of "HFpEF".
	if anyHolds([]string{"HFpEF"}, []string{"HF"}) {
		t.Error("anyHolds matched inside a word")
	}
}
