package engine

import (
	"testing"
	"time"
)

// A number word is a whole word: "and prior" is no "a(n) d(ay) prior"
// (review4 N1: "Hypertension and prior MI" had dated the MI yesterday and
// made it acute).
func TestWhenNumberWordIsWholeWord(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, text := range []string{
		"Hypertension and prior MI",
		"Stable angina and earlier MI",
		"Diabetes and prior PCI",
		"CAD and before that a CABG",
	} {
		if w := whenOf(text, now, 30); w != nil {
			t.Errorf("%q dated %v..%v; it states no time", text, w.From, w.To)
		}
	}
	if w := whenOf("MI a day prior", now, 30); w == nil {
		t.Errorf("'a day prior' dates nothing; it is one day before")
	}
}
