package evidence

import (
	"encoding/json"
	"os"
	"testing"
)

// TestFirstBytesKeepSiblings: the first-byte filter of heldByAnother
// never sets a sibling aside. Any two words sameWord reads as one share a
// first byte in firstBytes (the empty word and "s" included), and
// heldByAnother answers as without the filter for every concept of
// testdata/rivals.json and every stated and missing word pair drawn from
// its names and mentions.
func TestFirstBytesKeepSiblings(t *testing.T) {
	const path = "testdata/rivals.json"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Names map[string][]string `json:"names"`
		Cases []struct {
			Mention string `json:"mention"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	words := []string{"", "s", "ss", "S", "ischemia", "ischemic", "vasospasm", "vasospastic", "2", "II", "é", "éa", "risk", "risks"}
	var mentions []string
	for _, ps := range f.Names {
		for _, p := range ps {
			words = append(words, phraseOf(p).words...)
		}
	}
	for _, c := range f.Cases {
		mentions = append(mentions, c.Mention)
		words = append(words, contentWords(c.Mention)...)
	}
	for _, a := range words {
		for _, w := range words {
			if w != "" && sameWord(a, w) && firstBytes([]string{a})&(1<<(w[0]&63)) == 0 {
				t.Fatalf("sameWord(%q, %q) but firstBytes(%q) lacks %q's first byte", a, w, a, w)
			}
		}
	}
	filtered, all := NewNames(f.Names), NewNames(f.Names)
	for k := range all.first {
		for i := range all.first[k] {
			all.first[k][i] = ^uint64(0)
		}
	}
	held := 0
	for _, m := range mentions {
		mw := contentWords(m)
		for key := range f.Names {
			for i := range mw {
				for j := range mw {
					stated, missing := []string{mw[i]}, []string(nil)
					if j != i {
						missing = []string{mw[j]}
					}
					got, want := filtered.heldByAnother(key, stated, missing, m), all.heldByAnother(key, stated, missing, m)
					if got != want {
						t.Fatalf("heldByAnother(%q, %q, %q, %q) = %v with the filter, %v without", key, stated, missing, m, got, want)
					}
					if want {
						held++
					}
				}
			}
		}
	}
	if held == 0 {
		t.Fatal("no rival holds any word pair: the comparison reaches nothing")
	}
}
