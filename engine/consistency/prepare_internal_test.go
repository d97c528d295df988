package consistency

import (
	"strings"
	"testing"
)

// A case text is tokenised once, not once per Check: Check runs for every
// condition and mention of a case, and re-tokenising made a case's time
// grow with the square of its length. The cache stays bounded.
func TestPrepareSharesCaseText(t *testing.T) {
	text := strings.Repeat("Patient with chronic coronary syndrome and no diabetes. ", 20)
	if prepare(text) != prepare(text) {
		t.Fatal("the same case text was tokenised twice")
	}
	short := "no diabetes"
	if prepare(short) == prepare(short) {
		t.Error("short texts are not worth caching")
	}
	for i := 0; i < 3000; i++ {
		prepare(text + strings.Repeat("x", i))
	}
	prepCache.Lock()
	defer prepCache.Unlock()
	if prepCache.bytes > prepCacheBytes {
		t.Errorf("cache holds %d bytes, more than %d", prepCache.bytes, prepCacheBytes)
	}
}

func BenchmarkCheckLongCase(b *testing.B) {
	text := strings.Repeat("Patient with chronic coronary syndrome, an LDL-C of 2.1 mmol/L and no diabetes. ", 100)
	cond := Condition{Concept: "diabetes mellitus", Wording: "diabetes", Operator: "PRESENT"}
	for i := 0; i < b.N; i++ {
		Check(text, "no diabetes", cond, DefaultChecks)
	}
}
