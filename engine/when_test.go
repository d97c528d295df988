package engine

import (
	"testing"
	"time"
)

func TestWhenOfReadsTimePhrases(t *testing.T) {
	now := time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		text     string
		from, to time.Time
	}{
		{"NSTEMI 2018", day(2018, 1, 1), day(2018, 12, 31)},
		{"PCI 6 weeks ago", day(2026, 2, 1), day(2026, 2, 1)},
		{"on DAPT for 2 months", day(2026, 1, 13), day(2026, 1, 13)},
		{"since 2019", day(2019, 1, 1), day(2019, 12, 31)},
		{"DES today", day(2026, 3, 15), day(2026, 3, 15)},
		{"stented March 2021", day(2021, 3, 1), day(2021, 3, 31)},
		{"MI on 2026-02-20", day(2026, 2, 20), day(2026, 2, 20)},
		{"12/02/2025 PCI pLAD", day(2025, 2, 12), day(2025, 2, 12)},
		{"d/c 05/06/25 (elective PCI)", day(2025, 6, 5), day(2025, 6, 5)},
		{"Echo 03/2025", day(2025, 3, 1), day(2025, 3, 31)},
	} {
		w := whenOf(c.text, now)
		if w == nil {
			t.Errorf("%q: no date read", c.text)
			continue
		}
		if !sameDay(w.From, c.from) || !sameDay(w.To, c.to) {
			t.Errorf("%q: got %s–%s (%q), want %s–%s", c.text, w.From.Format(time.DateOnly), w.To.Format(time.DateOnly), w.Text,
				c.from.Format(time.DateOnly), c.to.Format(time.DateOnly))
		}
	}
	for _, text := range []string{"prior PCI", "LVEF 35%", "eGFR 45 mL/min/1.73 m2", "BP 148/86", "OPD r/v 2/52", "6/12 exertional tightness", "31/02/2025"} {
		if w := whenOf(text, now); w != nil {
			t.Errorf("%q: read a date %+v from no time phrase", text, w)
		}
	}
}

func sameDay(a, b time.Time) bool { return a.Format(time.DateOnly) == b.Format(time.DateOnly) }
