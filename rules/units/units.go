// Package units gives every unit one canonical spelling and converts values
// between units that measure the same thing.
//
// The reference system compared units as written, so "mL/min/1.73 m²" in
// the evidence and "mL/min/1.73 m^2" in the rule made a true eGFR condition
// false. Here both spellings canonicalise to one unit, and conversions that
// depend on the substance measured (cholesterol mmol/L ↔ mg/dL) are applied
// only when the analyte is known.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Canonical spellings. The ones used by rule tables follow
// rules/packs/ENCODING.md.
const (
	Percent      = "%"
	Fraction     = "fraction"
	Unitless     = "unitless"
	EGFR         = "mL/min/1.73 m2"
	MLPerMin     = "mL/min"
	KgPerM2      = "kg/m2"
	MmolPerL     = "mmol/L"
	MgPerDL      = "mg/dL"
	UmolPerL     = "µmol/L"
	MgPerL       = "mg/L"
	GPerL        = "g/L"
	GPerDL       = "g/dL"
	MmolPerMol   = "mmol/mol"
	NgPerL       = "ng/L"
	NgPerML      = "ng/mL"
	PgPerML      = "pg/mL"
	Years        = "years"
	MinPerWeek   = "min/week"
	HoursPerWeek = "h/week"
	BPM          = "bpm"
	Millisecond  = "ms"
	Second       = "s"
	Millivolt    = "mV"
	Millimetre   = "mm"
	Centimetre   = "cm"
	MmHg         = "mmHg"
	Kilogram     = "kg"
)

// aliases lists, per canonical unit, the spellings met in rule tables,
// LLM output and clinical notes. They are compared after key() folding
// (case, spaces, superscripts, decimal comma, "per"), so only genuinely
// different words need listing.
var aliases = map[string][]string{
	Percent:      {"%", "percent", "per cent", "pct", "percentage"},
	Fraction:     {"fraction"},
	Unitless:     {"", "unitless", "none", "-", "n/a", "dimensionless", "no unit", "score", "points", "point", "ratio"},
	EGFR:         {"mL/min/1.73 m2", "mL/min/1.73", "ml/min/1.73m2", "mL/min/1.73 sq m", "mL/min/1.73 m2 BSA", "ml/min per 1.73 m2"},
	MLPerMin:     {"mL/min", "ml/minute", "ml per minute"},
	KgPerM2:      {"kg/m2", "kg per m2", "kg/sq m"},
	MmolPerL:     {"mmol/L", "mmol/litre", "mmol/liter", "mM"},
	MgPerDL:      {"mg/dL", "mg/100 mL", "mg/decilitre", "mg/deciliter"},
	UmolPerL:     {"µmol/L", "umol/L", "micromol/L", "micromole/L", "µM"},
	MgPerL:       {"mg/L"},
	GPerL:        {"g/L"},
	GPerDL:       {"g/dL", "g/100 mL"},
	MmolPerMol:   {"mmol/mol"},
	NgPerL:       {"ng/L"},
	NgPerML:      {"ng/mL"},
	PgPerML:      {"pg/mL"},
	Years:        {"years", "year", "yrs", "yr", "y", "yo", "y/o", "y.o.", "years old", "year old", "year-old", "years-old", "years of age"},
	MinPerWeek:   {"min/week", "min/wk", "mins/week", "mins/wk", "minutes/week", "minute/week", "minutes/wk", "min/w"},
	HoursPerWeek: {"h/week", "h/wk", "hours/week", "hour/week", "hrs/week", "hr/week", "hrs/wk", "h/w"},
	BPM:          {"bpm", "beats/min", "beats/minute", "beat/min", "b/min", "/min", "1/min", "min-1", "min^-1"},
	Millisecond:  {"ms", "msec", "msecs", "millisecond", "milliseconds"},
	Second:       {"s", "sec", "secs", "second", "seconds"},
	Millivolt:    {"mV", "millivolt", "millivolts"},
	Millimetre:   {"mm", "millimetre", "millimetres", "millimeter", "millimeters"},
	Centimetre:   {"cm", "centimetre", "centimetres", "centimeter", "centimeters"},
	MmHg:         {"mmHg", "mm Hg", "mm of mercury"},
	Kilogram:     {"kg", "kilogram", "kilograms", "kgs"},
}

// lookup maps a folded spelling to its canonical unit; built from aliases.
var lookup = func() map[string]string {
	m := map[string]string{}
	for canon, as := range aliases {
		for _, a := range append([]string{canon}, as...) {
			k := key(a)
			if prev, dup := m[k]; dup && prev != canon {
				panic(fmt.Sprintf("units: spelling %q folds to %q for both %s and %s", a, k, prev, canon))
			}
			m[k] = canon
		}
	}
	return m
}()

// exact maps spellings exactly as listed, a fast path that skips folding
// for the common case of a unit written the canonical way.
var exact = func() map[string]string {
	m := map[string]string{}
	for canon, as := range aliases {
		m[canon] = canon
		for _, a := range as {
			m[a] = canon
		}
	}
	return m
}()

// folder rewrites spelling variants that carry no meaning. Applied to the
// lower-cased unit before spaces are removed.
var folder = strings.NewReplacer(
	"²", "2", "³", "3", "^2", "2", "^3", "3",
	"μ", "µ", // Greek mu → micro sign
	",", ".", // decimal comma: 1,73 m² → 1.73 m2
	" per ", "/",
	"·", "",
)

// key folds a spelling for lookup: lower case, no spaces, superscripts
// and decimal commas normalised. "mM" and "mm" would collide after
// lower-casing, so a capital M (molar) is kept apart first.
func key(u string) string {
	s := strings.TrimSpace(u)
	if s == "mM" || s == "µM" || s == "μM" {
		s = strings.ReplaceAll(s, "M", "molar")
	}
	s = strings.ToLower(s)
	s = folder.Replace(" " + s + " ")
	return strings.Join(strings.Fields(s), "")
}

// clean trims and collapses white space, for units we do not know.
func clean(u string) string { return strings.Join(strings.Fields(u), " ") }

// Canonical returns the canonical spelling of u. An unknown unit is
// returned cleaned (trimmed, spaces collapsed); use Known to tell the two
// apart. The empty unit is Unitless.
func Canonical(u string) string {
	if c, ok := exact[u]; ok {
		return c
	}
	if c, ok := lookup[key(u)]; ok {
		return c
	}
	return clean(u)
}

// Known reports whether u is a spelling of a unit in the table.
func Known(u string) bool {
	if _, ok := exact[u]; ok {
		return true
	}
	_, ok := lookup[key(u)]
	return ok
}

// Same reports whether a and b are one unit after canonicalisation.
// Unknown units are the same when they fold to the same key.
func Same(a, b string) bool {
	if ca, cb := Canonical(a), Canonical(b); ca == cb {
		return true
	}
	return !Known(a) && !Known(b) && key(a) == key(b)
}

// Options widen what Convert accepts.
type Options struct {
	// AllowFraction lets a fraction (0–1, unit "fraction" or unitless)
	// convert to percent and back. Off by default: a unitless 0.8 is a
	// ratio such as FFR, and reading it as 80 % would be wrong.
	AllowFraction bool
}

// IncompatibleError says two units cannot be compared.
type IncompatibleError struct {
	Value    float64
	From, To string
	Analyte  string
	Detail   string
}

func (e *IncompatibleError) Error() string {
	msg := fmt.Sprintf("units: cannot compare %s with %s", e.From, e.To)
	if e.Analyte != "" {
		msg += fmt.Sprintf(" for %q", e.Analyte)
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Convert converts value from one unit to another for the named analyte
// (a concept name such as "low-density lipoprotein cholesterol"; it
// selects substance-specific factors). Identical units after
// canonicalisation return the value unchanged. Anything without a known
// conversion returns an *IncompatibleError.
func Convert(value float64, from, to, analyte string) (float64, error) {
	return ConvertWith(value, from, to, analyte, Options{})
}

// ConvertWith is Convert with options.
func ConvertWith(value float64, from, to, analyte string, opt Options) (float64, error) {
	cf, ct := Canonical(from), Canonical(to)
	if Same(from, to) {
		return value, nil
	}
	if opt.AllowFraction {
		if v, ok, err := fraction(value, cf, ct); ok || err != nil {
			if err != nil {
				return 0, &IncompatibleError{Value: value, From: cf, To: ct, Analyte: analyte, Detail: err.Error()}
			}
			return v, nil
		}
	}
	if f, ok := factor(cf, ct, analyteOf(analyte)); ok {
		return tidy(value * f), nil
	}
	detail := "no conversion between these units"
	if !opt.AllowFraction && ((cf == Percent && (ct == Fraction || ct == Unitless)) || (ct == Percent && (cf == Fraction || cf == Unitless))) {
		detail = "a fraction converts to percent only when the caller allows it (Options.AllowFraction)"
	} else if a := analyteOf(analyte); a == "" && needsAnalyte(cf, ct) {
		detail = "the conversion depends on the substance measured and the analyte is not one of cholesterol, triglycerides, glucose, creatinine"
	} else if !Known(from) || !Known(to) {
		detail = "unknown unit; add its spelling to rules/units if it is a variant of a known one"
	}
	return 0, &IncompatibleError{Value: value, From: cf, To: ct, Analyte: analyte, Detail: detail}
}

// fraction handles fraction ↔ percent. ok is false when the units are not
// that pair; err is set when they are but the value is no fraction.
func fraction(v float64, from, to string) (float64, bool, error) {
	isFrac := func(u string) bool { return u == Fraction || u == Unitless }
	switch {
	case isFrac(from) && to == Percent:
		if v < 0 || v > 1 {
			return 0, false, fmt.Errorf("value %s is not a fraction between 0 and 1", fmtFloat(v))
		}
		return tidy(v * 100), true, nil
	case from == Percent && to == Fraction:
		// Only to an explicit fraction: a unitless target may be a ratio.
		if v < 0 || v > 100 {
			return 0, false, fmt.Errorf("value %s %% is not a percentage between 0 and 100", fmtFloat(v))
		}
		return tidy(v / 100), true, nil
	}
	return 0, false, nil
}

// edge is a conversion: value in From × Factor = value in To.
type edge struct {
	From, To string
	Factor   float64
}

// generic conversions hold for any substance.
var generic = []edge{
	{Second, Millisecond, 1000},
	{Centimetre, Millimetre, 10},
	{HoursPerWeek, MinPerWeek, 60},
	{GPerDL, GPerL, 10},
	{GPerL, MgPerDL, 100},
	{MgPerDL, MgPerL, 10},
	{MmolPerL, UmolPerL, 1000},
	{NgPerML, NgPerL, 1000},
	{PgPerML, NgPerL, 1},
}

// Analytes with substance-specific factors.
const (
	Cholesterol   = "cholesterol"
	Triglycerides = "triglycerides"
	Glucose       = "glucose"
	Creatinine    = "creatinine"
	STSegment     = "ST segment"
)

// specific conversions depend on the analyte (molar mass, or for the ECG
// the standard calibration of 10 mm per mV).
var specific = map[string][]edge{
	Cholesterol:   {{MmolPerL, MgPerDL, 38.67}},
	Triglycerides: {{MmolPerL, MgPerDL, 88.57}},
	Glucose:       {{MmolPerL, MgPerDL, 18.0}},
	Creatinine:    {{MgPerDL, UmolPerL, 88.4}},
	STSegment:     {{Millivolt, Millimetre, 10}},
}

// analyteWords maps words in a concept name to an analyte. Matched on the
// lower-cased name as substrings, so "LDL-C", "non-HDL cholesterol" and
// "low-density lipoprotein cholesterol" all count as cholesterol.
var analyteWords = []struct{ word, analyte string }{
	{"triglycer", Triglycerides},
	{"cholesterol", Cholesterol},
	{"ldl", Cholesterol},
	{"hdl", Cholesterol},
	{"glucose", Glucose},
	{"glycaemia", Glucose},
	{"glycemia", Glucose},
	{"creatinine", Creatinine},
	{"st segment", STSegment},
	{"st-segment", STSegment},
	{"st depression", STSegment},
	{"st-depression", STSegment},
	{"st elevation", STSegment},
	{"st-elevation", STSegment},
}

// AnalyteOf returns the analyte a concept name measures, or "" when none
// with specific factors.
func AnalyteOf(concept string) string { return analyteOf(concept) }

func analyteOf(concept string) string {
	s := strings.ToLower(concept)
	if s == "" {
		return ""
	}
	for _, w := range analyteWords {
		if strings.Contains(s, w.word) {
			return w.analyte
		}
	}
	return ""
}

// needsAnalyte reports whether some analyte would connect the two units,
// so the error can say the analyte was the missing piece.
func needsAnalyte(from, to string) bool {
	for a := range specific {
		if _, ok := factor(from, to, a); ok {
			return true
		}
	}
	return false
}

// factor finds a chain of conversions from → to (breadth first over the
// generic edges plus those of the analyte) and multiplies their factors.
func factor(from, to, analyte string) (float64, bool) {
	edges := generic
	if sp := specific[analyte]; len(sp) > 0 {
		edges = append(append([]edge{}, generic...), sp...)
	}
	type node struct {
		unit string
		f    float64
	}
	seen := map[string]bool{from: true}
	queue := []node{{from, 1}}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n.unit == to {
			return n.f, true
		}
		for _, e := range edges {
			switch {
			case e.From == n.unit && !seen[e.To]:
				seen[e.To] = true
				queue = append(queue, node{e.To, n.f * e.Factor})
			case e.To == n.unit && !seen[e.From]:
				seen[e.From] = true
				queue = append(queue, node{e.From, n.f / e.Factor})
			}
		}
	}
	return 0, false
}

// tidy rounds away binary noise from multiplying by decimal factors
// (0.35 × 100 = 35.00000000000001), so boundary comparisons after a
// conversion behave as they would on paper.
func tidy(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil {
		return v
	}
	return r
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
