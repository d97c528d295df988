package consistency

import (
	"strings"
	"testing"
)

// A long case text is tokenised once, not once per Check: Check runs for
// every condition and mention of a case, and re-tokenising made a case's
// time grow with the square of its length. Short texts (mentions,
// phrases) are not kept; the cache is a fixed ring of recentSlots texts.
func TestRecentTextSharesCaseText(t *testing.T) {
	text := strings.Repeat("Patient with chronic coronary syndrome and no diabetes. ", 20)
	if recentText(text) != recentText(text) {
		t.Fatal("the same case text was tokenised twice")
	}
	short := "no diabetes"
	if recentText(short) == recentText(short) {
		t.Error("short texts are not worth caching")
	}
	// After recentSlots other long texts the first is read again.
	first := recentText(text)
	for i := 1; i <= recentSlots; i++ {
		recentText(text + strings.Repeat("x", i))
	}
	if recentText(text) == first {
		t.Error("the ring kept a text past recentSlots others")
	}
}

func BenchmarkCheckLongCase(b *testing.B) {
	text := strings.Repeat("Patient with chronic coronary syndrome, an LDL-C of 2.1 mmol/L and no diabetes. ", 100)
	cond := Condition{Concept: "diabetes mellitus", Wording: "diabetes", Operator: "PRESENT"}
	for i := 0; i < b.N; i++ {
		Check(text, "no diabetes", cond, DefaultChecks)
	}
}
