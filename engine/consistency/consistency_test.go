package consistency

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
)

// readJSONL decodes one value per non-empty line into fresh T values.
func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var v T
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s line %d: %v", path, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no cases", path)
	}
	return out
}

type analyzeCase struct {
	Text       string   `json:"text"`
	Target     string   `json:"target"`
	Found      bool     `json:"found"`
	Negated    bool     `json:"negated"`
	Uncertain  bool     `json:"uncertain"`
	Either     bool     `json:"either"`
	Other      bool     `json:"other"`
	Hypo       bool     `json:"hypothetical"`
	Unlikely   bool     `json:"unlikely"`
	Qualifiers []string `json:"qualifiers"`
	Cues       []string `json:"cues"`
	Clause     string   `json:"clause"`
	// Occurrence, when above 0, reads the target where it is written the
	// Occurrence-th time (Text.At), not where its words first occur.
	Occurrence int `json:"occurrence"`
}

// nthAt is the byte offset of the n-th occurrence (from 1) of s in text,
// or -1 (then Text.At leaves the text as it is).
func nthAt(t *testing.T, text, s string, n int) int {
	t.Helper()
	if n <= 0 {
		return -1
	}
	off := 0
	for i := 1; ; i++ {
		k := strings.Index(text[off:], s)
		if k < 0 {
			t.Fatalf("occurrence %d of %q: %q holds only %d", n, s, text, i-1)
		}
		if i == n {
			return off + k
		}
		off += k + len(s)
	}
}

func TestAnalyze(t *testing.T) {
	for _, c := range readJSONL[analyzeCase](t, "testdata/analyze_cases.jsonl") {
		t.Run(c.Target+" in "+c.Text, func(t *testing.T) {
			got := NewText(c.Text).At(nthAt(t, c.Text, c.Target, c.Occurrence)).Analyze(c.Target)
			want := Context{Target: c.Target, Found: c.Found, Clause: c.Clause, Negated: c.Negated, Uncertain: c.Uncertain,
				Either: c.Either, Other: c.Other, Hypothetical: c.Hypo, Unlikely: c.Unlikely, Qualifiers: c.Qualifiers, Cues: c.Cues}
			if want.Qualifiers == nil {
				want.Qualifiers = []string{}
			}
			if want.Cues == nil {
				want.Cues = []string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Analyze(%q, %q)\n got %+v\nwant %+v", c.Text, c.Target, got, want)
			}
		})
	}
}

type checkCase struct {
	Name      string    `json:"name"`
	Text      string    `json:"text"`
	Mention   string    `json:"mention"`
	Condition Condition `json:"condition"`
	Checks    string    `json:"checks"`
	Pass      bool      `json:"pass"`
	Check     string    `json:"check"`
	// Occurrence as in analyzeCase: the mention judged where it is
	// written the Occurrence-th time.
	Occurrence int `json:"occurrence"`
}

func TestCheck(t *testing.T) {
	cases := readJSONL[checkCase](t, "testdata/check_cases.jsonl")
	blocked := map[string]int{}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			checks, err := ParseChecks(c.Checks)
			if err != nil {
				t.Fatal(err)
			}
			v := Check(c.Text, c.Mention, c.Condition, checks)
			if c.Occurrence > 0 {
				v = NewText(c.Text).At(nthAt(t, c.Text, c.Mention, c.Occurrence)).Check(c.Mention, c.Condition, checks)
			}
			if v.Pass != c.Pass || v.Check != c.Check {
				t.Errorf("Check(%q, %q, %+v, %v)\n got pass=%v check=%q reason=%q\nwant pass=%v check=%q\ncontext %+v",
					c.Text, c.Mention, c.Condition, checks, v.Pass, v.Check, v.Reason, c.Pass, c.Check, v.Context)
			}
			if v.Reason == "" {
				t.Error("empty reason")
			}
			if !v.Pass && !strings.HasPrefix(v.Reason, v.Check+": ") {
				t.Errorf("reason %q does not start with the check name", v.Reason)
			}
		})
		if !c.Pass {
			blocked[c.Check]++
		}
	}
	// The table must exercise every check both ways.
	for _, name := range []string{CheckCertainty, CheckNegation, CheckQualifier, CheckAbsence} {
		if blocked[name] == 0 {
			t.Errorf("no case is blocked by %s", name)
		}
	}
}

func TestCheckReasonNamesCueAndClause(t *testing.T) {
	v := Check("EF 30%, no diabetes", "diabetes", Condition{Concept: "diabetes mellitus", Operator: "PRESENT"}, DefaultChecks)
	for _, want := range []string{"'no'", "'no diabetes'", "diabetes mellitus"} {
		if !strings.Contains(v.Reason, want) {
			t.Errorf("reason %q lacks %s", v.Reason, want)
		}
	}
	v = Check("Patient with angina.", "suspected CCS", Condition{Concept: "chronic coronary syndrome", Operator: "PRESENT"}, DefaultChecks)
	if v.Context.Found || !strings.Contains(v.Reason, "not found in the case text") {
		t.Errorf("mention outside the text: found=%v reason %q", v.Context.Found, v.Reason)
	}
}

func TestParseChecks(t *testing.T) {
	cases := []struct {
		in   string
		want Checks
		err  string
	}{
		{"", DefaultChecks, ""},
		{"default", DefaultChecks, ""},
		{"certainty,negation,qualifier", DefaultChecks, ""},
		{" Certainty , Negation ", Checks{Certainty: true, Negation: true}, ""},
		{"none", Checks{}, ""},
		{"default,absence", Checks{true, true, true, true}, ""},
		{"certainty,negation,qualifier,absence", Checks{true, true, true, true}, ""},
		{"all", Checks{true, true, true, true}, ""},
		{"absence", Checks{Absence: true}, ""},
		{"negation+qualifier", Checks{Negation: true, Qualifier: true}, ""},
		{"none,absence", Checks{}, "cannot be combined"},
		{"certainty,speling", Checks{}, `unknown check "speling"`},
	}
	for _, c := range cases {
		got, err := ParseChecks(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseChecks(%q) err = %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseChecks(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		back, err := ParseChecks(got.String())
		if err != nil || back != got {
			t.Errorf("round trip of %q via %q = %+v, %v", c.in, got.String(), back, err)
		}
	}
}

func TestChecksFromEnvAndFlag(t *testing.T) {
	t.Setenv(EnvFilters, "none")
	if c, err := ChecksFromEnv(); err != nil || c != (Checks{}) {
		t.Errorf("KG_FILTERS=none: %+v, %v", c, err)
	}
	t.Setenv(EnvFilters, "")
	if c, err := ChecksFromEnv(); err != nil || c != DefaultChecks {
		t.Errorf("KG_FILTERS empty: %+v, %v", c, err)
	}
	t.Setenv(EnvFilters, "bogus")
	if _, err := ChecksFromEnv(); err == nil || !strings.Contains(err.Error(), EnvFilters) {
		t.Errorf("KG_FILTERS=bogus: err %v should name the variable", err)
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	c := DefaultChecks
	fs.Var(&c, "checks", "")
	if err := fs.Parse([]string{"--checks", "default,absence"}); err != nil || !c.Absence {
		t.Errorf("flag: %+v, %v", c, err)
	}
}

func TestClauses(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"Patient with severe obesity with a BMI of 42 kg/m², severe renal failure and an eGFR of 24 mL/min/1.73 m².",
			[]string{"Patient", "severe obesity", "a BMI of 42 kg/m²", "severe renal failure", "an eGFR of 24 mL/min/1.73 m²"}},
		{"eGFR 24 ml/min/1,73m²; LDL-C 1.8 mmol/L", []string{"eGFR 24 ml/min/1,73m²", "LDL-C 1.8 mmol/L"}},
		{"Angina, which improved, but dyspnoea persists.", []string{"Angina", "improved", "dyspnoea persists"}},
		{"documented or suspected CCS", []string{"documented or suspected CCS"}},
		{"HF due to ischaemia", []string{"HF", "ischaemia"}},
	}
	for _, c := range cases {
		ts := tokenize(c.text)
		var got []string
		for i := 0; i < len(ts); {
			if ts[i].clause < 0 {
				i++
				continue
			}
			j := i
			for j+1 < len(ts) && ts[j+1].clause == ts[i].clause {
				j++
			}
			got = append(got, c.text[ts[i].start:ts[j].end])
			i = j + 1
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("clauses of %q = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestCueListsNameNoDisease(t *testing.T) {
	// The cue lists must stay generic; a disease word in them would make
	// step (v) guideline-specific.
	diseaseWords := []string{"angina", "infarct", "coronary", "heart", "failure", "diabet", "syndrome", "ischaem", "ischem", "stenosis", "cardi"}
	for _, d := range cueRules.defs {
		for _, w := range diseaseWords {
			if strings.Contains(d.text, w) {
				t.Errorf("cue %q names a disease word %q", d.text, w)
			}
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	text := "Patient with decompensated heart failure, fast irregular heart rate, 0.2 mV ST-segment depression on the resting ECG and a clinical likelihood of obstructive CAD of 90%."
	cond := Condition{Concept: "chronic heart failure", Wording: "chronic heart failure", Context: "patients with chronic heart failure", Operator: "PRESENT"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if Check(text, "decompensated heart failure", cond, DefaultChecks).Pass {
			b.Fatal("should be blocked")
		}
	}
}
