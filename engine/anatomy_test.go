package engine

import (
	"fmt"
	"strings"
	"testing"
)

func TestStenoses(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // vessel:percent[p][s] per report, "p" proximal, "s" significant
	}{
		{"LAD 80%", "LAD:80s"},
		{"80% mid-LAD", "LAD:80s"},
		{"pLAD 90%", "LAD:90ps"},
		{"90% stenosis of the proximal LAD", "LAD:90ps"},
		{"RCA 90%, LCx 75%", "RCA:90s LCx:75s"},
		{"three-vessel disease (LAD 80%, LCx 75%, RCA 90%)", "LAD:80s LCx:75s RCA:90s"},
		{"LM 60%", "LM:60s"},
		{"distal LMS 40%", "LM:40"},
		{"Two-vessel disease: 80% proximal LAD, 75% OM1", "LAD:80ps LCx:75s"},
		{"occluded RCA", "RCA:100s"},
		{"RCA CTO", "RCA:100s"},
		{"non-obstructive CAD (max 30% LAD)", "LAD:30"},
		{"LAD <50%", "LAD:50"},
		{"85% long (38 mm) calcified proximal LAD lesion", "LAD:85ps"},
		{"90% tight eccentric mid-RCA stenosis", "RCA:90s"},
		{"LVEF 45% and LAD normal", ""},
		// Not native stenoses, or not coronary at all.
		{"occluded SVG-RCA", ""},
		{"SVG-LAD and SVG-OM occluded (graft failure)", ""},
		{"80% in-stent restenosis within the LAD DES", ""},
		{"focal mid-LAD spasm >90%", ""},
		{"LVEF 45%, PTP 15%", ""},
		{"carotid stenosis 80%", ""},
		{"PCI to LAD 2016", ""},
	} {
		var got []string
		for _, s := range stenoses(tc.text) {
			g := fmt.Sprintf("%s:%g", s.Vessel, s.Percent)
			if s.Proximal {
				g += "p"
			}
			if s.significant() {
				g += "s"
			}
			got = append(got, g)
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("stenoses(%q) = %q, want %q", tc.text, g, tc.want)
		}
	}
}

func TestContradicts(t *testing.T) {
	for _, tc := range []struct {
		n       int
		concept string
		present bool
		want    bool
	}{
		{2, "one-vessel coronary artery disease", true, true},
		{2, "two-vessel coronary artery disease", true, false},
		{1, "multivessel coronary artery disease", true, true},
		{3, "multivessel coronary artery disease", true, false},
		{2, "multivessel coronary artery disease", false, true},
		{1, "obstructive coronary artery disease", false, true},
		{1, "left ventricular ejection fraction", true, false},
	} {
		if got := contradicts(tc.n, tc.concept, tc.present); got != tc.want {
			t.Errorf("contradicts(%d, %q, %v) = %v, want %v", tc.n, tc.concept, tc.present, got, tc.want)
		}
	}
}

func TestCreatinineIsNotRead(t *testing.T) {
	for _, s := range []string{"Cr 180 µmol/L", "creatinine 2.1 mg/dL", "serum creatinine 150"} {
		if !creatinineRE.MatchString(s) {
			t.Errorf("creatinineRE does not match %q", s)
		}
	}
	if creatinineRE.MatchString("CrCl 25 mL/min") {
		t.Errorf("creatinineRE matches a creatinine clearance")
	}
}
