package units

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCanonicalSpellings(t *testing.T) {
	groups := map[string][]string{
		EGFR: {"mL/min/1.73 m²", "mL/min/1.73 m^2", "mL/min/1.73m2", "ml/min/1.73 m2", "ml/min/1,73m²",
			"mL/min/1.73 m2", " mL/min/1.73  m2 ", "ml/min per 1.73 m²", "ML/MIN/1.73 M2", "mL/min/1.73"},
		KgPerM2:      {"kg/m²", "kg/m^2", "kg/m2", "KG/M2", "kg / m2"},
		MmolPerL:     {"mmol/l", "mmol/L", "mmol / L", "mM"},
		MgPerDL:      {"mg/dl", "mg/dL", "MG/DL", "mg/100 mL"},
		UmolPerL:     {"µmol/L", "μmol/L", "umol/l", "micromol/L", "µM"},
		Percent:      {"%", "percent", "per cent", "Percent", "pct"},
		Millisecond:  {"ms", "msec", "milliseconds", "millisecond", "MS"},
		Millivolt:    {"mV", "mv", "millivolts"},
		Millimetre:   {"mm", "millimetres", "millimeter"},
		Years:        {"years", "yrs", "y", "year-old", "years old", "year", "y/o", "yo", "years of age"},
		MinPerWeek:   {"min/week", "min/wk", "minutes/week", "minutes per week", "mins/week"},
		HoursPerWeek: {"h/week", "hours per week", "hrs/week"},
		BPM:          {"bpm", "beats/min", "beats per minute", "/min", "min^-1"},
		Unitless:     {"unitless", "", "  ", "none", "-", "dimensionless"},
		MmHg:         {"mmHg", "mm Hg", "mmhg"},
	}
	for want, spellings := range groups {
		for _, s := range spellings {
			if got := Canonical(s); got != want {
				t.Errorf("Canonical(%q) = %q, want %q", s, got, want)
			}
			if !Known(s) {
				t.Errorf("Known(%q) = false, want true", s)
			}
		}
	}
}

func TestCanonicalKeepsUnitsApart(t *testing.T) {
	// Spellings that look alike but are different units must not merge.
	pairs := [][2]string{
		{"mm", "mM"},                 // millimetre vs millimolar
		{"mL/min", "mL/min/1.73 m2"}, // clearance vs indexed eGFR
		{"ms", "s"},
		{"mg/dL", "mg/L"},
		{"%", "fraction"},
	}
	for _, p := range pairs {
		if Same(p[0], p[1]) {
			t.Errorf("Same(%q, %q) = true, want false", p[0], p[1])
		}
	}
}

func TestUnknownUnit(t *testing.T) {
	cases := []struct{ in, want string }{
		{"  furlongs  per   fortnight ", "furlongs per fortnight"},
		{"IU/L", "IU/L"},
		{"Agatston units", "Agatston units"},
	}
	for _, c := range cases {
		if got := Canonical(c.in); got != c.want {
			t.Errorf("Canonical(%q) = %q, want %q", c.in, got, c.want)
		}
		if Known(c.in) {
			t.Errorf("Known(%q) = true, want false", c.in)
		}
	}
	// Unknown units compare by folded spelling.
	if !Same("IU/L", "iu / l") {
		t.Error("Same(IU/L, iu / l) = false; unknown units should match on folded spelling")
	}
	if v, err := Convert(12, "IU/L", "iu/l", ""); err != nil || v != 12 {
		t.Errorf("Convert unknown identity = %v, %v; want 12, nil", v, err)
	}
}

func TestConvert(t *testing.T) {
	cases := []struct {
		name     string
		v        float64
		from, to string
		analyte  string
		want     float64
		tol      float64
	}{
		{"identity egfr spellings", 24, "mL/min/1.73 m²", "mL/min/1.73 m^2", "estimated glomerular filtration rate", 24, 0},
		{"identity percent", 35, "percent", "%", "left ventricular ejection fraction", 35, 0},
		{"ldl mg/dL to mmol/L", 70, "mg/dL", "mmol/L", "low-density lipoprotein cholesterol", 70 / 38.67, 1e-9},
		{"ldl mmol/L to mg/dL", 1.4, "mmol/l", "mg/dl", "LDL-C", 1.4 * 38.67, 1e-9},
		{"non-HDL", 2.6, "mmol/L", "mg/dL", "non-HDL cholesterol", 2.6 * 38.67, 1e-9},
		{"total cholesterol", 200, "mg/dL", "mmol/L", "total cholesterol", 200 / 38.67, 1e-9},
		{"ldl via g/L", 0.7, "g/L", "mmol/L", "LDL cholesterol", 70 / 38.67, 1e-9},
		{"triglycerides", 1.7, "mmol/L", "mg/dL", "triglycerides", 1.7 * 88.57, 1e-9},
		{"glucose", 126, "mg/dL", "mmol/L", "fasting plasma glucose", 7.0, 1e-9},
		{"creatinine", 1.5, "mg/dL", "µmol/L", "serum creatinine", 132.6, 1e-9},
		{"creatinine back", 88.4, "umol/l", "mg/dl", "creatinine", 1, 1e-9},
		{"seconds to ms", 0.12, "s", "msec", "QRS duration", 120, 0},
		{"hours per week", 2.5, "hours per week", "min/week", "physical activity", 150, 0},
		{"st segment mm to mV", 1, "mm", "mV", "ST segment depression", 0.1, 0},
		{"st segment mV to mm", 0.2, "mV", "mm", "ST-segment depression", 2, 0},
		{"cm to mm", 6, "cm", "mm", "total stent length", 60, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Convert(c.v, c.from, c.to, c.analyte)
			if err != nil {
				t.Fatalf("Convert(%v, %q, %q, %q): %v", c.v, c.from, c.to, c.analyte, err)
			}
			if math.Abs(got-c.want) > c.tol {
				t.Errorf("Convert(%v, %q, %q, %q) = %v, want %v", c.v, c.from, c.to, c.analyte, got, c.want)
			}
		})
	}
}

func TestConvertIncompatible(t *testing.T) {
	cases := []struct {
		name     string
		v        float64
		from, to string
		analyte  string
		detail   string // substring of the error
	}{
		{"mass vs percent", 70, "mg/dL", "%", "left ventricular ejection fraction", "no conversion"},
		{"molar needs analyte", 70, "mg/dL", "mmol/L", "", "depends on the substance"},
		{"molar unknown analyte", 70, "mg/dL", "mmol/L", "haemoglobin", "depends on the substance"},
		{"clearance vs egfr", 60, "mL/min", "mL/min/1.73 m2", "estimated glomerular filtration rate", "no conversion"},
		{"mm vs mV without ST", 1, "mm", "mV", "total stent length", "depends on the substance"},
		{"years vs ms", 70, "years", "ms", "age", "no conversion"},
		{"unknown unit", 3, "furlongs", "mm", "", "unknown unit"},
		{"fraction not allowed", 0.35, "", "%", "left ventricular ejection fraction", "AllowFraction"},
		{"hba1c percent vs mmol/mol", 7, "%", "mmol/mol", "glycated haemoglobin", "no conversion"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Convert(c.v, c.from, c.to, c.analyte)
			if err == nil {
				t.Fatalf("Convert(%v, %q, %q, %q) = nil error, want incompatible", c.v, c.from, c.to, c.analyte)
			}
			var ie *IncompatibleError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T, want *IncompatibleError", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, Canonical(c.from)) || !strings.Contains(msg, Canonical(c.to)) {
				t.Errorf("error %q does not name both units %q and %q", msg, Canonical(c.from), Canonical(c.to))
			}
			if !strings.Contains(msg, c.detail) {
				t.Errorf("error %q lacks %q", msg, c.detail)
			}
		})
	}
}

func TestConvertFraction(t *testing.T) {
	on := Options{AllowFraction: true}
	cases := []struct {
		v        float64
		from, to string
		want     float64
		ok       bool
	}{
		{0.35, "", "%", 35, true},
		{0.35, "unitless", "%", 35, true},
		{0.35, "fraction", "%", 35, true},
		{1, "fraction", "%", 100, true},
		{35, "", "%", 0, false},           // 35 is clearly not a fraction
		{-0.1, "fraction", "%", 0, false}, // negative
		{40, "%", "fraction", 0.4, true},
		{40, "%", "unitless", 0, false}, // unitless target may be a ratio such as FFR
		{140, "%", "fraction", 0, false},
	}
	for _, c := range cases {
		got, err := ConvertWith(c.v, c.from, c.to, "left ventricular ejection fraction", on)
		if c.ok != (err == nil) {
			t.Errorf("ConvertWith(%v, %q, %q) error = %v, want ok=%v", c.v, c.from, c.to, err, c.ok)
			continue
		}
		if c.ok && got != c.want {
			t.Errorf("ConvertWith(%v, %q, %q) = %v, want %v (exact, no float noise)", c.v, c.from, c.to, got, c.want)
		}
	}
}

func TestAnalyteOf(t *testing.T) {
	cases := map[string]string{
		"low-density lipoprotein cholesterol": Cholesterol,
		"LDL-C":                               Cholesterol,
		"non-HDL cholesterol":                 Cholesterol,
		"serum triglycerides":                 Triglycerides,
		"HbA1c":                               "",
		"fasting plasma glucose":              Glucose,
		"creatinine":                          Creatinine,
		"ST segment depression":               STSegment,
		"lipoprotein(a)":                      "", // different molar mass; must not borrow the cholesterol factor
		"left ventricular ejection fraction":  "",
		"":                                    "",
	}
	for in, want := range cases {
		if got := AnalyteOf(in); got != want {
			t.Errorf("AnalyteOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAliasesFoldUniquely(t *testing.T) {
	// Every alias must reach its own canonical unit (the init panics on a
	// clash between units; this also catches an alias folding to nothing).
	for canon, as := range aliases {
		for _, a := range as {
			if got := Canonical(a); got != canon {
				t.Errorf("alias %q of %q canonicalises to %q", a, canon, got)
			}
		}
	}
}
