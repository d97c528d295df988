package engine

import (
	"path/filepath"
	"testing"
)

// TestAnswerFacts: testdata/answer-facts/*.json, case texts in, the facts
// the whole answer must (want) and must not (not) hold out; one file per
// reading vocabulary that takes anchors away (senses, risk scores).
func TestAnswerFacts(t *testing.T) {
	files, err := filepath.Glob("testdata/answer-facts/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata/answer-facts holds no case files (%v)", err)
	}
	for _, path := range files {
		var cases []readerCase
		readCaseFile(t, "../answer-facts", filepath.Base(path), &cases)
		if len(cases) == 0 {
			t.Fatalf("%s holds no cases", path)
		}
		for _, tc := range cases {
			got := askFacts(t, tc)
			for _, w := range tc.Want {
				if !got[w] {
					t.Errorf("%s: %q: want %s, got %v", path, tc.Text, w, keysOf(got))
				}
			}
			for _, n := range tc.Not {
				if got[n] {
					t.Errorf("%s: %q: must not hold %s", path, tc.Text, n)
				}
			}
		}
	}
}
