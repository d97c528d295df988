package evidence

import (
	"fmt"
	"strings"
	"testing"
)

func show(ms []Measure) string {
	var parts []string
	for _, m := range ms {
		s := fmt.Sprintf("%s%g %s", m.Comparator, m.Value, m.Canon)
		parts = append(parts, strings.TrimSpace(s))
	}
	return strings.Join(parts, " | ")
}

func TestParseMeasures(t *testing.T) {
	cases := []struct{ in, want string }{
		{"an LVEF of 37%", "37 %"},
		{"eGFR of 24 mL/min/1.73 m²", "24 mL/min/1.73 m2"},
		{"eGFR 24 ml/min/1.73m2", "24 mL/min/1.73 m2"},
		{"eGFR 28 mL/min per 1.73 m^2", "28 mL/min/1.73 m2"},
		{"BMI of 42 kg/m²", "42 kg/m2"},
		{"LDL-C 1,9 mmol/L", "1.9 mmol/L"},
		{"LDL 85 mg/dl", "85 mg/dL"},
		{"0.2 mV ST-segment depression on the resting ECG", "0.2 mV"},
		{"clinical likelihood of obstructive CAD of 90%", "90 %"},
		{"78-year-old man", "78 years"},
		{"aged 81 years", "81 years"},
		{"LVEF < 35%", "<35 %"},
		{"EF below 40 %", "<40 %"},
		{"ejection fraction of at most 35%", "<=35 %"},
		{"LVEF ≥ 50%", ">=50 %"},
		{"EF 30-35%", ">=30 % | <=35 %"},
		{"NYHA class III", "3 unitless"},
		{"NYHA II-III", ">=2 unitless | <=3 unitless"},
		{"SYNTAX score of 28", "28"},
		{"QRS duration 160 msec", "160 ms"},
		{"Duke treadmill score of −12", "-12"},
		{"FFR-CT 0.78", "0.78"},
		{"hypokinesia in 3 of 16 segments", "3"},
		{"T2DM on SGLT2 inhibitor", ""},
		{"CYP2C19 loss-of-function", ""},
		{"stent length 65 mm", "65 mm"},
		{"150 minutes per week of exercise", "150 min/week"},
		{"expected survival well beyond 1 year", ">1 years"},
		{"likely to live >2y", ">2 years"},
		{"prognosis over 5 y", ">5 years"},
	}
	for _, c := range cases {
		if got := show(ParseMeasures(c.in)); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}
