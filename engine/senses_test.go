package engine

import "testing"

// TestSenses: testdata/senses/facts.json, case texts in, the facts the
// answer must (want) and must not (not) hold out.
func TestSenses(t *testing.T) {
	var cases []readerCase
	readCaseFile(t, "../senses", "facts.json", &cases)
	if len(cases) == 0 {
		t.Fatal("testdata/senses/facts.json holds no cases")
	}
	for _, tc := range cases {
		got := askFacts(t, tc)
		for _, w := range tc.Want {
			if !got[w] {
				t.Errorf("testdata/senses/facts.json: %q: want %s, got %v", tc.Text, w, keysOf(got))
			}
		}
		for _, n := range tc.Not {
			if got[n] {
				t.Errorf("testdata/senses/facts.json: %q: must not hold %s", tc.Text, n)
			}
		}
	}
}
