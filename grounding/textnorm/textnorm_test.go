package textnorm

import "testing"

func TestNormalize(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Myocardial Ischaemia", "myocardial ischemia"},
		{"oedema of the legs", "edema of the legs"},
		{"Dyspnoea", "dyspnea"},
		{"haemorrhage", "hemorrhage"},
		{"coeliac disease", "celiac disease"},
		{"aerobic exercise", "aerobic exercise"},
		{"toe pain", "toe pain"},
		{"does", "does"},
		{"eGFR <30 mL/min/1.73 m²", "egfr 30 ml min 1 73 m2"},
		{"ST-segment depression", "st segment depression"},
		{"patient's angina", "patient angina"},
		{"Heart–failure (HFrEF)", "heart failure hfref"},
		{"  ", ""},
	}
	for _, c := range cases {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFoldKeepsPunctuation(t *testing.T) {
	if got := Fold("LVEF ≤ 35 %"); got != "lvef <= 35 %" {
		t.Errorf("Fold = %q", got)
	}
}
