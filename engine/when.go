package engine

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
)

// Time phrases that date an event of a finding, relative to the case date
// or absolute; generic words of time only, no clinical vocabulary.
var (
	whenISO = regexp.MustCompile(`\b((?:19|20)\d\d)-(0[1-9]|1[0-2])-([0-2]\d|3[01])\b`)
	// Documents write dates day first ("12/02/2025", "03.06.66") and
	// months as month/year ("03/2025"). Two numbers alone ("3/12", "2/52")
	// are durations or ratios, never read as dates.
	whenDMY = regexp.MustCompile(`(?:^|[^\d/.])([0-2]?\d|3[01])[/.](0?[1-9]|1[0-2])[/.]((?:19|20)\d\d|\d\d)\b`)
	// whenMDY is the same date month first ("09/30/2025"), read only in
	// a document that writes its dates so (see monthFirstText).
	whenMDY = regexp.MustCompile(`(?:^|[^\d/.])(0?[1-9]|1[0-2])[/.]([0-2]?\d|3[01])[/.]((?:19|20)\d\d|\d\d)\b`)
	// fullDate is any a/b/year, for the document's date order.
	fullDate = regexp.MustCompile(`(?:^|[^\d/.])(\d{1,2})[/.](\d{1,2})[/.](?:19|20)\d\d\b`)
	whenMY   = regexp.MustCompile(`(?:^|[^\d/.])(0?[1-9]|1[0-2])/((?:19|20)\d\d)\b`)
	// Notes drop the year: "29/01" (day/month) and "09/25" (month/
	// two-digit year), both parts two digits. Which one it is follows from
	// which part can be a month and which reading lies nearer the case
	// date; "12/12" and the like are months of a duration, not a date.
	whenShort   = regexp.MustCompile(`(?:^|[^\d/.~])(\d\d)/(\d\d)(?:$|[^\d/])`)
	whenMonthYr = regexp.MustCompile(`(?i)\b(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:\s+|-)((?:19|20)\d\d)\b`)
	// whenDMonY is a day before a month name and a year ("20 Jun 2026",
	// "20-Jun-2026", "3rd March 2025"): that day.
	whenDMonY = regexp.MustCompile(`(?i)(?:^|[^\d/.])([0-2]?\d|3[01])(?:st|nd|rd|th)?(?:\s+|-)(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?(?:\s+|-)((?:19|20)\d\d)\b`)
	// whenPOD counts days from an event: a post-operative day ("POD 4",
	// "post-op day 4", "day 4 post-op") or a day after a procedure ("Day 1
	// post PCI", "day 3 after surgery"): the document is written that many
	// days after it.
	whenPOD = regexp.MustCompile(`(?i)\b(?:POD\s*#?\s*(\d{1,2})|post-?op(?:erative)?\s+day\s+(\d{1,2})|day\s*-?\s*(\d{1,2})\s+(?:post-?op(?:erative(?:ly)?)?|post|after|following))\b`)
	whenAgo = regexp.MustCompile(`(?i)\b(\d+|(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several)\b)\s*-?\s*(days?|d|weeks?|wks?|w|months?|mos?|years?|yrs?|y)\s+(?:ago|earlier|previously|before|prior)\b`)
	whenFor = regexp.MustCompile(`(?i)(?:\b(?:for|over)\s+(?:the\s+(?:last|past)\s+)?|(?:^|\s)[x×]\s*)(\d+|(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several)\b)\s*(days?|weeks?|wks?|months?|mos?|years?|yrs?)\b`)
	// "in the last 6 months": an event some time within that span.
	whenWithin = regexp.MustCompile(`(?i)\b(?:in|during|within)\s+the\s+(?:last|past|previous)\s+(\d+|(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several)\b)\s*(days?|weeks?|wks?|months?|mos?|years?|yrs?)\b`)
	// Clinical shorthand writes a duration as a count over the units in
	// a year, week or month: "for 3/12" (3 months), "x 2/52" (2 weeks);
	// ">6/12" or "over 6/12" is longer than that. A bare "2/52" is as
	// often a time to come ("r/v 2/52") and is left undated; never part
	// of a date ("3/12/2025").
	whenSlash    = regexp.MustCompile(`(?i)(?:^|[^\d/.])(?:(for|x|×)|(>=?|≥|over|more than|at least))\s*(\d{1,2})/(12|52|7)(?:$|[^\d/.])`)
	whenSinceYr  = regexp.MustCompile(`(?i)\bsince\s+((?:19|20)\d\d)\b`)
	whenYear     = regexp.MustCompile(`(?i)(?:^|[\s(,;])(?:in\s+)?((?:19|20)\d\d)\b`)
	whenRelative = regexp.MustCompile(`(?i)\b(today|this morning|this afternoon|tonight|just now|this admission|yesterday|yest|y'day|last night|this week|this wk|last week|last wk|this month|last month|last year|recently|recent)\b`)
)

// whenStage dates a finding's event from its time phrases (generic words
// of time; the recent window is the pack's).
type whenStage struct{}

func (whenStage) Name() string          { return "when" }
func (whenStage) Reads() read.Input     { return read.Finding }
func (whenStage) Emits() []patient.Kind { return nil }

// Satisfies nothing: the reader dates facts others make.
func (whenStage) Satisfies(eval.Cond) consistency.Checks { return consistency.Checks{} }

var monthNum = map[string]time.Month{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

// unitDays is a time word's length in days.
func unitDays(u string) float64 {
	switch u = strings.ToLower(u); {
	case strings.HasPrefix(u, "d"):
		return 1
	case strings.HasPrefix(u, "w"):
		return 7
	case strings.HasPrefix(u, "m"):
		return 30.4375
	case strings.HasPrefix(u, "y"):
		return 365.25
	}
	return 0
}

func count(s string) float64 {
	if n, err := strconv.Atoi(s); err == nil {
		return float64(n)
	}
	return float64(numberWords[strings.ToLower(s)])
}

func daysBefore(now time.Time, d float64) time.Time {
	return now.Add(-time.Duration(d * float64(24*time.Hour)))
}

// whenOf reads the first time phrase of a finding that dates its event,
// as an interval of possible dates relative to now; nil when none. An
// ongoing state "for 2 months" / "since 2019" is dated by its start.
// "Recent" / "recently" without a date is within the pack's recent window
// (meta/reading.json recency); a pack without one leaves it undated.
func (p *Program) whenOf(text string, now time.Time) *eval.When {
	w := whenOf(text, now, p.reading.recentDays)
	if w != nil && comparedWith(text, w.Text) {
		return nil
	}
	return w
}

// comparedBefore: words that set a time up as the point of comparison,
// not the event's own time ("new compared with 2023", "worse than in
// March 2024", "vs 2021").
var comparedBefore = regexp.MustCompile(`(?i)\b(?:compared\s+(?:with|to)|in\s+comparison\s+(?:with|to)|relative\s+to|cf\.?|vs\.?|versus)(?:\s+(?:in|on|at|from|that\s+of|the))*\s*[(]?$`)

// comparedWith reports whether the time phrase at of text is the time of
// what the finding is compared with: the finding is now, and new or
// changed since then ("T inversion V2-V4 (new compared with 2023)").
func comparedWith(text, at string) bool {
	i := strings.Index(text, at)
	if i < 0 {
		return false
	}
	return comparedBefore.MatchString(text[:i])
}

func whenOf(text string, now time.Time, recentDays int) *eval.When {
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	end := func(t time.Time) time.Time { return t.Add(24*time.Hour - time.Second) }
	// Most findings name no time: a pattern is run only when the text
	// holds what it needs (a digit, one of its words; see mayHold).
	digits := strings.ContainsAny(text, "0123456789")
	// mayHold for each word list, the text lowered once.
	low, wide := "", false
	for i := 0; i < len(text) && !wide; i++ {
		wide = text[i] >= 0x80
	}
	if !wide {
		low = strings.ToLower(text)
	}
	holds := func(words []string) bool {
		if wide {
			return true
		}
		for _, w := range words {
			if strings.Contains(low, w) {
				return true
			}
		}
		return false
	}
	if !digits && !holds(whenWords) {
		return nil
	}
	// Every pattern but whenDMY's, whenShort's and the word ones needs a
	// year (19xx or 20xx); whenDMY needs its separators.
	year := digits && hasYear(text)
	// whenShort and whenSlash need a "/" between two digits, whenDMY two
	// separators so placed.
	slash := digits && flanked(text, "/") > 0
	dmy := digits && flanked(text, "/.") > 1
	if m := find(whenISO, text, year && strings.Contains(text, "-")); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		d, _ := strconv.Atoi(m[3])
		t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		return &eval.When{From: t, To: end(t), Text: m[0]}
	}
	dayMonth, dI, moI := whenDMY, 1, 2
	if monthFirst(now) {
		dayMonth, dI, moI = whenMDY, 2, 1
	}
	if m := find(dayMonth, text, dmy); m != nil {
		d, _ := strconv.Atoi(m[dI])
		mo, _ := strconv.Atoi(m[moI])
		y, _ := strconv.Atoi(m[3])
		if len(m[3]) == 2 {
			// A two-digit year is this century unless that is after now.
			if y += 2000; y > now.Year() {
				y -= 100
			}
		}
		t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		if d > 0 && t.Day() == d {
			return &eval.When{From: t, To: end(t), Text: strings.TrimLeft(m[0], " ([,;:-")}
		}
	}
	if m := find(whenMY, text, year && strings.Contains(text, "/")); m != nil {
		mo, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		t := time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, time.UTC)
		return &eval.When{From: t, To: t.AddDate(0, 1, 0).Add(-time.Second), Text: strings.TrimLeft(m[0], " ([,;:-")}
	}
	if m := find(whenShort, text, slash); m != nil {
		a, b := m[1], m[2]
		if monthFirst(now) {
			a, b = b, a // "09/29": September 29th
		}
		if w := shortDate(a, b, now); w != nil {
			w.Text = m[1] + "/" + m[2]
			return w
		}
	}
	if m := find(whenPOD, text, digits && holds(whenPODWords)); m != nil {
		if n := count(m[1] + m[2] + m[3]); n > 0 {
			t := day(daysBefore(now, n))
			return &eval.When{From: t, To: end(t), Text: m[0]}
		}
	}
	if m := find(whenAgo, text, holds(whenAgoWords)); m != nil {
		if n := count(m[1]); n > 0 {
			t := day(daysBefore(now, n*unitDays(m[2])))
			return &eval.When{From: t, To: end(t), Text: m[0]}
		}
	}
	if m := find(whenWithin, text, holds(whenWithinWords)); m != nil {
		if n := count(m[1]); n > 0 {
			return &eval.When{From: day(daysBefore(now, n*unitDays(m[2]))), To: end(day(now)), Text: m[0]}
		}
	}
	if m := find(whenFor, text, holds(whenForWords)); m != nil {
		if n := count(m[1]); n > 0 {
			t := day(daysBefore(now, n*unitDays(m[2])))
			return &eval.When{From: t, To: end(t), Text: m[0]}
		}
	}
	if m := find(whenSlash, text, slash); m != nil {
		if n := count(m[3]); n > 0 {
			per := map[string]float64{"12": 30.4375, "52": 7, "7": 1}[m[4]]
			t := day(daysBefore(now, n*per))
			w := &eval.When{From: t, To: end(t), Text: strings.Trim(m[0], " ()[],;:-.")}
			if m[2] != "" {
				// Longer than the span: it began at that date or before,
				// by how much the words do not say.
				w.From = t.AddDate(-100, 0, 0)
			}
			return w
		}
	}
	if m := find(whenDMonY, text, year); m != nil {
		y, _ := strconv.Atoi(m[3])
		d, _ := strconv.Atoi(m[1])
		t := time.Date(y, monthNum[strings.ToLower(m[2])[:3]], d, 0, 0, 0, 0, time.UTC)
		if t.Day() == d {
			return &eval.When{From: t, To: end(t), Text: strings.Trim(m[0], " ()[],;:-.")}
		}
	}
	if m := find(whenMonthYr, text, year); m != nil {
		y, _ := strconv.Atoi(m[2])
		t := time.Date(y, monthNum[strings.ToLower(m[1])[:3]], 1, 0, 0, 0, 0, time.UTC)
		return &eval.When{From: t, To: t.AddDate(0, 1, 0).Add(-time.Second), Text: m[0]}
	}
	if m := find(whenSinceYr, text, year); m != nil {
		y, _ := strconv.Atoi(m[1])
		t := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
		return &eval.When{From: t, To: t.AddDate(1, 0, 0).Add(-time.Second), Text: m[0]}
	}
	if m := find(whenRelative, text, holds(whenRelativeWords)); m != nil {
		today := day(now)
		w := &eval.When{Text: m[0]}
		switch strings.ToLower(m[1]) {
		case "yesterday", "yest", "y'day", "last night":
			w.From = today.AddDate(0, 0, -1)
			w.To = end(w.From)
		case "this week", "this wk":
			w.From, w.To = today.AddDate(0, 0, -6), end(today)
		case "last week", "last wk":
			w.From, w.To = today.AddDate(0, 0, -13), end(today.AddDate(0, 0, -7))
		case "this month":
			w.From, w.To = today.AddDate(0, 0, -30), end(today)
		case "last month":
			w.From, w.To = today.AddDate(0, -2, 0), end(today.AddDate(0, -1, 0))
		case "last year":
			w.From, w.To = today.AddDate(-2, 0, 0), end(today.AddDate(-1, 0, 0))
		case "recently", "recent":
			if recentDays <= 0 {
				return nil
			}
			w.From, w.To = day(daysBefore(now, float64(recentDays))), end(today)
		default:
			w.From, w.To = today, end(today)
		}
		return w
	}
	if m := find(whenYear, text, year); m != nil {
		y, _ := strconv.Atoi(m[1])
		if y <= now.Year() {
			t := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
			return &eval.When{From: t, To: t.AddDate(1, 0, 0).Add(-time.Second), Text: m[1]}
		}
	}
	return nil
}

// The words without which whenAgo, whenFor and whenRelative cannot match
// (each needs one of its list); the other patterns need a digit.
var (
	whenAgoWords      = []string{"ago", "earlier", "previously", "before", "prior"}
	whenPODWords      = []string{"pod", "post-op", "postop", "post op", "postoperative", "post", "after", "following"}
	whenForWords      = []string{"for", "over", "x", "×"}
	whenWithinWords   = []string{"last", "past", "previous"}
	whenRelativeWords = []string{"today", "this", "tonight", "just", "yest", "y'day", "last", "recent"}
	whenWords         = append(append(append(append([]string{}, whenAgoWords...), whenForWords...), whenRelativeWords...), whenWithinWords...)
)

// whenUnitWords: one of them is in every unit whenFor reads.
var whenUnitWords = []string{"day", "week", "wk", "mo", "year", "yr"}

// mayHold reports whether text may hold one of the words as the
// case-insensitive patterns read them: always for non-ASCII text (the
// patterns' case folding reaches beyond ASCII: the Kelvin sign is k).
func mayHold(text string, words []string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return true
		}
	}
	low := strings.ToLower(text)
	for _, w := range words {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// find runs re only when the text may hold a match.
// hasYear reports whether text holds 19 or 20 followed by two digits.
func hasYear(text string) bool {
	for i := 0; i+3 < len(text); i++ {
		if (text[i] == '1' && text[i+1] == '9' || text[i] == '2' && text[i+1] == '0') && isDigit(text[i+2]) && isDigit(text[i+3]) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// flanked counts, up to two, the bytes of text among seps with a digit on
// either side.
func flanked(text, seps string) int {
	n := 0
	for i := 1; i+1 < len(text) && n < 2; i++ {
		if strings.IndexByte(seps, text[i]) >= 0 && isDigit(text[i-1]) && isDigit(text[i+1]) {
			n++
		}
	}
	return n
}

func find(re *regexp.Regexp, text string, may bool) []string {
	if !may {
		return nil
	}
	return re.FindStringSubmatch(text)
}

// cutWhen dates findings whose date the splitter cut off into the next
// fragment ("LMS bifurcation PCI" + "with two-stent technique 6 weeks
// ago"), as cutDateEvidence does for the recent forms: the fragments are
// joined by "with"/"+"/"plus", the date closes the second one and the first
// has none of its own.
func (p *Program) cutWhen(text string, findings []extract.Finding, now time.Time) map[string]*eval.When {
	out := map[string]*eval.When{}
	for i := 1; i < len(findings); i++ {
		f, g := findings[i-1], findings[i]
		if f.Start < 0 || g.Start < f.End || g.Start > len(text) || !cutJoin.MatchString(text[f.End:g.Start]) {
			continue
		}
		w := p.whenOf(g.Text, now)
		if w == nil || !strings.HasSuffix(strings.TrimRight(g.Text, " )."), w.Text) || p.whenOf(f.Text, now) != nil {
			continue
		}
		out[f.ID] = w
	}
	return out
}

// shortDate reads a yearless "aa/bb": a day and month in the year that puts
// it nearest the case date (a plan may name a date to come), or a month and
// two-digit year within the last thirty years or the next one; the
// reading nearer the case date wins when both can be. "bb" of 12 with "aa"
// at most 12 is a count of months ("clopidogrel 12/12"), not a date.
func shortDate(a, b string, now time.Time) *eval.When {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	if y == 12 && x <= 12 {
		return nil
	}
	var best *eval.When
	dist := func(w *eval.When) float64 {
		mid := w.From.Add(w.To.Sub(w.From) / 2)
		return math.Abs(now.Sub(mid).Hours())
	}
	if x >= 1 && x <= 31 && y >= 1 && y <= 12 {
		for _, yr := range []int{now.Year() - 1, now.Year(), now.Year() + 1} {
			t := time.Date(yr, time.Month(y), x, 0, 0, 0, 0, time.UTC)
			if t.Day() != x {
				continue
			}
			w := &eval.When{From: t, To: t.Add(24*time.Hour - time.Second)}
			if best == nil || dist(w) < dist(best) {
				best = w
			}
		}
	}
	if x >= 1 && x <= 12 {
		yr := 2000 + y
		if yr >= now.Year()-30 && yr <= now.Year()+1 {
			t := time.Date(yr, time.Month(x), 1, 0, 0, 0, 0, time.UTC)
			w := &eval.When{From: t, To: t.AddDate(0, 1, 0).Add(-time.Second)}
			if best == nil || dist(w) < dist(best) {
				best = w
			}
		}
	}
	return best
}

// monthFirstZone marks a case date whose document writes its dates month
// first (US order, "09/30/2025"): the zone is UTC under another name, so
// the date's instant and every calculation on it are unchanged and the
// order travels with the date to every reader that dates a phrase.
var monthFirstZone = time.FixedZone("UTC month-first", 0)

// monthFirst reports whether the case date carries the month-first order.
func monthFirst(now time.Time) bool { return now.Location() == monthFirstZone }

// monthFirstText reports whether a document writes its dates month first:
// one of its full dates can only be read so (the second number above 12:
// "09/30/2025") and none can only be read day first ("30/09/2025"). A
// document has one date order; with no date that settles it, dates are
// read day first.
func monthFirstText(text string) bool {
	if !strings.Contains(text, "/") && !strings.Contains(text, ".") {
		return false
	}
	mdy, dmy := false, false
	for _, m := range fullDate.FindAllStringSubmatch(text, -1) {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		switch {
		case a >= 1 && a <= 12 && b > 12 && b <= 31:
			mdy = true
		case b >= 1 && b <= 12 && a > 12 && a <= 31:
			dmy = true
		}
	}
	return mdy && !dmy
}

// documentDate is the case date a document's phrases are dated from: the
// date itself, carrying the document's date order (monthFirstText).
func documentDate(text string, date time.Time) time.Time {
	if monthFirstText(text) {
		return date.In(monthFirstZone)
	}
	return date
}

// sinceWord opens the event a state runs from ("no angina since the PCI").
var sinceWord = regexp.MustCompile(`(?i)\bsince\b`)

// sinceStart reports whether the finding names the concept only as the
// start of a state, after "since", and the time phrase at dating it is
// not written after that "since": "Today: no angina since the PCI" dates
// the absence of angina to today, while the PCI came before it ("since the
// PCI in 03/2025" is dated by its own phrase). A finding that names the
// concept before its "since" ("PCI, well since") is dated as written.
func sinceStart(finding, at string, names []string) bool {
	loc := sinceWord.FindStringIndex(finding)
	if loc == nil || len(names) == 0 {
		return false
	}
	after := finding[loc[1]:]
	if at != "" && strings.Contains(after, at) {
		return false
	}
	lower := strings.ToLower(finding)
	named := false
	for _, n := range names {
		for _, sp := range namedAll(lower, finding, n) {
			if sp[0] < loc[0] {
				return false
			}
			named = true
		}
	}
	return named
}
