package consistency

import "testing"

// FuzzAnalyze: the analyser behind `execkg context` never panics on raw
// text and target (the command's JSON decoding repairs invalid UTF-8; a
// library caller's strings are not repaired). Seeds: testdata/fuzz/FuzzAnalyze.
func FuzzAnalyze(f *testing.F) {
	f.Add("No history of diabetes, but possible CCS.", "diabetes")
	f.Fuzz(func(t *testing.T, text, target string) {
		c := Analyze(text, target)
		if c.Target != target {
			t.Fatalf("target %q came back as %q", target, c.Target)
		}
		_ = Check(text, target, Condition{Concept: target, Wording: target, Operator: "PRESENT"}, DefaultChecks)
	})
}
