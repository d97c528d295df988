package eval

import (
	"fmt"
	"math"
	"time"

	"github.com/executablekg/execkg/rules"
)

// When says when a stated event happened (or an ongoing therapy began):
// some time between From and To, both inclusive ("2018" is the whole
// year, "6 weeks ago" one day). Text is the phrase that dated it.
type When struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	Text string    `json:"text,omitempty"`
	// Stay marks the stay a discharge document reports, which dates an
	// undated procedure of it: a span of days, but a stated one, so a
	// window that asks for the day (rules.Window.Dated) reads it.
	Stay bool `json:"stay,omitempty"`
}

// caseDate is the options' case date, or today.
func caseDate(opt Options) time.Time {
	if !opt.CaseDate.IsZero() {
		return opt.CaseDate
	}
	return time.Now().UTC()
}

// inWindow relates the event's date to the condition's window in three
// values: true when every moment the date allows lies inside, false when
// none does, unknown otherwise; an undated event is unknown.
func inWindow(w rules.Window, e Evidence, opt Options) (Truth, string) {
	if e.When == nil {
		return Unknown, fmt.Sprintf("%s is not dated, so it may or may not be %s", quote(e), w)
	}
	now := caseDate(opt)
	// Elapsed whole days from the latest and the earliest possible date
	// of the event to the case date: dates are days, not instants.
	dayOf := func(t time.Time) float64 { return math.Floor(float64(t.Unix()) / 86400) }
	minAgo := dayOf(now) - dayOf(e.When.To)
	maxAgo := dayOf(now) - dayOf(e.When.From)
	if minAgo < 0 && maxAgo >= 0 {
		minAgo = 0 // the rest of the case day has not happened yet
	}
	lo, hi := w.Days()
	loV, hiV := math.Inf(-1), math.Inf(1)
	if lo != nil {
		loV = *lo
	}
	if hi != nil {
		hiV = *hi
	}
	dated := fmt.Sprintf("%s (%s, %s before %s)", quote(e), e.When.Text, ago(minAgo, maxAgo), now.Format("2006-01-02"))
	if w.Dated && !e.When.Stay && maxAgo-minAgo > 1 && !(maxAgo < loV || minAgo > hiV) {
		return Unknown, dated + " is not dated to its day, so it may or may not be " + w.String()
	}
	switch {
	case minAgo >= loV && maxAgo <= hiV:
		return True, dated + " lies " + w.String()
	case maxAgo < loV || minAgo > hiV:
		return False, dated + " lies outside " + w.String()
	}
	return Unknown, dated + " may or may not lie " + w.String()
}

func ago(lo, hi float64) string {
	if math.Round(lo) == math.Round(hi) {
		return fmt.Sprintf("%.0f days", lo)
	}
	return fmt.Sprintf("%.0f–%.0f days", lo, hi)
}
