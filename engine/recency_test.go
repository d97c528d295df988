package engine

import "testing"

func TestRecentPhrase(t *testing.T) {
	days := defaultReading(t).recentDays
	for _, tc := range []struct{ text, want string }{
		{"DES to mid RCA 1 week ago", "1 week ago"},
		{"PCI with DES to LCx today", "today"},
		{"stented last month", "last month"},
		{"PCI three weeks ago", "three weeks ago"},
		{"PCI 3 months ago", "3 months ago"},
		{"PCI 4 months ago", ""},
		{"PCI 4 years ago", ""},
		{"PCI in 2019", ""},
		{"PCI to RCA", ""},
		{"PCI 10 days earlier", "10 days earlier"},
		{"PCI 120 days ago", ""},
	} {
		if got := recentPhrase(tc.text, days); got != tc.want {
			t.Errorf("recentPhrase(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
