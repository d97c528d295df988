package evidence

import (
	"strings"
	"testing"
)

func TestCovers(t *testing.T) {
	cases := []struct {
		mention string
		phrases []string
		want    bool
	}{
		{"s/p CABG 2015", []string{"coronary artery bypass graft", "CABG"}, true},
		{"s/p CABG", []string{"coronary artery bypass graft failure", "CABG failure", "failed bypass graft"}, false},
		{"LVEF 30%", []string{"preserved left ventricular ejection fraction", "preserved LVEF", "HFpEF"}, false},
		{"LVEF 30%", []string{"left ventricular ejection fraction", "LVEF", "EF"}, true},
		{"high bleeding risk", []string{"low bleeding risk"}, false},
		{"myocardial ischaemia", []string{"chronic myocardial ischemia"}, false},
		{"chronic myocardial ischaemia", []string{"myocardial ischemia"}, true},
		{"ischaemic heart failure", []string{"heart failure of ischaemic aetiology"}, true}, // 3 of 4, "aetiology" changes nothing
		{"heart failure of ischemic etiology", []string{"heart failure of ischaemic aetiology"}, true},
		{"vasospastic angina", []string{"vasospasm angina"}, true},
		{"one-vessel disease", []string{"1-vessel coronary disease"}, true},
		{"1-vessel coronary disease", []string{"one vessel coronary disease"}, true},
		{"type 2 diabetes", []string{"type 1 diabetes"}, false},
		// A number is no content word of its own for the two-thirds allowance.
		{"Type 2 respiratory failure", []string{"type 2 diabetes", "diabetes type 2"}, false},
		{"Type 2 MI", []string{"type 2 diabetes"}, false},
		{"type 2 diabetic", []string{"type 2 diabetes"}, true},
		// Acronyms: adjacent initials, one function word skipped at most.
		{"INOCA on invasive testing", []string{"ischaemia with non-obstructive coronary arteries"}, true},
		{"GTN spray prn", []string{"pain radiating to the neck"}, false},
		{"PSA undetectable", []string{"presentation suggesting ACS"}, false},
		{"", []string{"x"}, false},
	}
	for _, c := range cases {
		if got := coversBoth(t, c.mention, c.phrases); got != c.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", c.mention, c.phrases, got, c.want)
		}
	}
}

func TestCoversLongPhrases(t *testing.T) {
	cases := []struct {
		mention string
		phrases []string
		want    bool
	}{
		{"a condition likely to prevent adequate CT image quality", []string{"condition preventing adequate computed tomography image quality"}, true},
		{"complete revascularisation achievable with PCI", []string{"complete revascularization achievable with percutaneous coronary intervention"}, true},
		{"s/p CABG", []string{"coronary artery bypass graft failure"}, false},
		{"heart failure", []string{"heart failure with preserved ejection fraction"}, false},
		{"left main stenosis of 60%", []string{"left main coronary artery diameter stenosis", "left main stenosis"}, true},
		{"stenosis of 60%", []string{"left main coronary artery diameter stenosis"}, false},
		// A degree word is stated or the phrase is another grade:
		// coronary calcification is not heavy or dense calcification.
		{"adjusted upward given coronary calcification on CT", []string{"heavy coronary calcification"}, false},
		{"coronary calcification on CT", []string{"densely calcified coronary arteries"}, false},
		{"heavily calcified coronary arteries", []string{"heavily calcified coronaries"}, true},
	}
	for _, c := range cases {
		if got := coversBoth(t, c.mention, c.phrases); got != c.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", c.mention, c.phrases, got, c.want)
		}
	}
}

func TestCoversOppositeGrades(t *testing.T) {
	// "elevated" is a grade: a low risk never states an elevated one.
	if ok, _ := Covers("STS 1.2% - low surgical risk", []string{"elevated surgical risk", "high surgical risk"}); ok {
		t.Error("low surgical risk must not cover elevated surgical risk")
	}
	if ok, _ := Covers("elevated surgical risk (STS 9%)", []string{"elevated surgical risk"}); !ok {
		t.Error("a stated elevated risk covers itself")
	}
}

// coversBoth is Covers, checked to agree with Phrases.Covers (the phrases
// read once), phrase included.
func coversBoth(t *testing.T, mention string, phrases []string) bool {
	t.Helper()
	got, p := Covers(mention, phrases)
	set, sp := NewPhrases(phrases).Covers(mention)
	if set != got || sp != p {
		t.Errorf("Covers(%q, %q) = %v %q, Phrases.Covers %v %q", mention, phrases, got, p, set, sp)
	}
	all, ap := CoversAll(mention, phrases)
	if sa, sap := NewPhrases(phrases).CoversAll(mention); sa != all || sap != ap {
		t.Errorf("CoversAll(%q, %q) = %v %q, Phrases.CoversAll %v %q", mention, phrases, all, ap, sa, sap)
	}
	return got
}

// TestSameWordFirstLetter: sameWord's first-letter shortcut answers as
// the rules without it, over pairs of words, plurals, stems, numbers, a
// lone "s" and the empty word.
func TestSameWordFirstLetter(t *testing.T) {
	ref := func(a, b string) bool {
		if a == b {
			return true
		}
		if isNum(a) || isNum(b) {
			return false
		}
		a, b = strings.TrimSuffix(a, "s"), strings.TrimSuffix(b, "s")
		if a == b {
			return true
		}
		n := 0
		for n < len(a) && n < len(b) && a[n] == b[n] {
			n++
		}
		return n >= 5 && 4*n >= 3*min(len(a), len(b))
	}
	words := []string{"", "s", "ss", "sa", "as", "2", "2.5", "s2", "ischemia", "ischemic", "ischemias", "vasospasm", "vasospastic",
		"stent", "stents", "stenosis", "stenoses", "angina", "anginas", "artery", "arteries", "arter", "sartery", "beta", "betas"}
	same := 0
	for _, a := range words {
		for _, b := range words {
			if got, want := sameWord(a, b), ref(a, b); got != want {
				t.Errorf("sameWord(%q, %q) = %v, the rules say %v", a, b, got, want)
			}
			if ref(a, b) && a != b {
				same++
			}
		}
	}
	if same < 10 {
		t.Fatalf("only %d pairs of different words are the same word; the check is too weak", same)
	}
}
