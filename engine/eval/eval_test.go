package eval

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/executablekg/execkg/rules"
)

func f(v float64) *float64 { return &v }

// cond builds a condition keyed by concept name.
func cond(concept, op, threshold, unit string) Cond {
	return Cond{DecisionID: "r::g1::s1", GroupKey: "and_1", GroupType: "AND",
		ConceptKey: "name:" + rules.NormalizeName(concept), Concept: concept,
		Operator: op, Threshold: threshold, Unit: unit}
}

// has builds affirmed evidence; val/unit/cmp optional.
func has(concept, text string) Evidence {
	return Evidence{Concept: concept, ConceptKey: "name:" + rules.NormalizeName(concept), Text: text, Present: true}
}

func val(concept, text string, v float64, unit, cmp string) Evidence {
	e := has(concept, text)
	e.Value, e.Unit, e.Comparator = f(v), unit, cmp
	return e
}

func absent(concept, text string) Evidence {
	e := has(concept, text)
	e.Present = false
	return e
}

const (
	lvef = "left ventricular ejection fraction"
	egfr = "estimated glomerular filtration rate"
	ldl  = "low-density lipoprotein cholesterol"
	ptl  = "pre-test likelihood of obstructive coronary artery disease"
	dm   = "diabetes mellitus"
	hbr  = "high bleeding risk"
)

const pci = "percutaneous coronary intervention"

var day = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
var dayOpt = Options{CaseDate: day}

// withinYear is "unless PCI within the last 12 months".
func withinYear() Cond {
	c := cond(pci, "UNLESS", "", "")
	max := 12.0
	c.Window = &rules.Window{Max: &max, Unit: "months"}
	return c
}

// dated is affirmed evidence of an event daysAgo days before day.
func dated(concept, text string, daysAgo int) Evidence {
	e := has(concept, text)
	d := day.AddDate(0, 0, -daysAgo)
	e.When = &When{From: d, To: d}
	return e
}

func TestEvaluateCond(t *testing.T) {
	closed := Options{ClosedWorld: true}
	cases := []struct {
		name   string
		c      Cond
		ev     []Evidence
		opt    Options
		want   Truth
		reason string // exact when it starts with "=", else substring
	}{
		// UNLESS: the exception blocks only when known.
		{"unless not mentioned", cond(hbr, "UNLESS", "", ""), nil, Options{}, True, "=not stated, so the exception does not apply"},
		{"unless not mentioned closed", cond(hbr, "UNLESS", "", ""), nil, closed, True, "exception does not apply"},
		{"unless stated absent", cond(hbr, "UNLESS", "", ""), []Evidence{absent(hbr, "no HBR")}, Options{}, True, "stated absent: 'no HBR'"},
		{"unless stated present", cond(hbr, "UNLESS", "", ""), []Evidence{has(hbr, "HBR")}, Options{}, False, "=exception applies: 'HBR' is known"},
		{"unless value", cond(lvef, "UNLESS", "", ""), []Evidence{val(lvef, "LVEF 30%", 30, "%", "")}, Options{}, False, "is known"},
		// One statement that makes the exception hold blocks, whatever
		// the order of the others: an undated copy of a dated event (an
		// is-a derivation) and a stated absence do not lift it.
		{"unless dated in window then undated", withinYear(), []Evidence{dated(pci, "PCI 3 weeks ago", 21), has(pci, "PCI")}, dayOpt, False, "exception applies"},
		{"unless undated then dated in window", withinYear(), []Evidence{has(pci, "PCI"), dated(pci, "PCI 3 weeks ago", 21)}, dayOpt, False, "exception applies"},
		{"unless dated outside window", withinYear(), []Evidence{dated(pci, "PCI 2 years ago", 730)}, dayOpt, True, "exception does not apply"},
		{"unless absent then present", cond(hbr, "UNLESS", "", ""), []Evidence{absent(hbr, "no HBR"), has(hbr, "HBR")}, Options{}, False, "=exception applies: 'HBR' is known"},
		// PRESENT
		{"present affirmed", cond(dm, "PRESENT", "", ""), []Evidence{has(dm, "diabetes")}, Options{}, True, "=matched 'diabetes'"},
		{"present via value", cond(lvef, "PRESENT", "", ""), []Evidence{{ConceptKey: "name:" + lvef, Text: "LVEF 30%", Value: f(30), Unit: "%"}}, Options{}, True, "stated value counts as present"},
		{"present stated absent", cond(dm, "PRESENT", "", ""), []Evidence{absent(dm, "no diabetes")}, Options{}, False, "=stated absent: 'no diabetes'"},
		{"present not mentioned open", cond(dm, "PRESENT", "", ""), nil, Options{}, Unknown, "=not mentioned"},
		{"present not mentioned closed", cond(dm, "PRESENT", "", ""), nil, closed, False, "closed world"},
		{"present other concept only", cond(dm, "PRESENT", "", ""), []Evidence{has("hypertension", "HTN")}, Options{}, Unknown, "=not mentioned"},
		{"present operator spelling", cond(dm, "present", "", ""), []Evidence{has(dm, "DM2")}, Options{}, True, "matched"},
		// ABSENT
		{"absent stated", cond(hbr, "ABSENT", "", ""), []Evidence{absent(hbr, "no high bleeding risk")}, Options{}, True, "=stated absent: 'no high bleeding risk'"},
		{"absent affirmed", cond(hbr, "ABSENT", "", ""), []Evidence{has(hbr, "high bleeding risk")}, Options{}, False, "=stated present: 'high bleeding risk'"},
		{"absent not mentioned open", cond(hbr, "ABSENT", "", ""), nil, Options{}, Unknown, "=not mentioned"},
		{"absent not mentioned closed", cond(hbr, "ABSENT", "", ""), nil, closed, True, "counts as absent"},
		{"absent affirmed closed", cond(hbr, "ABSENT", "", ""), []Evidence{has(hbr, "HBR")}, closed, False, "stated present"},
		// numeric, point values and boundaries
		{"le below", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "LVEF 30%", 30, "%", "")}, Options{}, True, "=matched 'LVEF 30%': 30 % <= 35 %"},
		{"le boundary", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "LVEF 35%", 35, "%", "=")}, Options{}, True, "35 % <= 35 %"},
		{"le above", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "LVEF 36%", 36, "%", "")}, Options{}, False, "=matched 'LVEF 36%': 36 %, not <= 35 %"},
		{"gt boundary", cond(lvef, ">", "35", "%"), []Evidence{val(lvef, "LVEF 35%", 35, "%", "")}, Options{}, False, "not > 35 %"},
		{"gt just above", cond(lvef, ">", "35", "%"), []Evidence{val(lvef, "LVEF 35.5%", 35.5, "%", "")}, Options{}, True, "35.5 % > 35 %"},
		{"gt 5 at 5", cond(ptl, ">", "5", "%"), []Evidence{val(ptl, "PTL 5%", 5, "%", "")}, Options{}, False, ""},
		{"gt 5 at 6", cond(ptl, ">", "5", "%"), []Evidence{val(ptl, "PTL 6%", 6, "%", "")}, Options{}, True, ""},
		{"ge boundary", cond("age", ">=", "65", "years"), []Evidence{val("age", "65-year-old", 65, "year-old", "")}, Options{}, True, "65 years >= 65 years"},
		{"lt boundary", cond(egfr, "<", "30", "mL/min/1.73 m2"), []Evidence{val(egfr, "eGFR 30", 30, "ml/min/1.73m²", "")}, Options{}, False, ""},
		{"eq", cond("NYHA class", "=", "3", "unitless"), []Evidence{val("NYHA class", "NYHA III", 3, "", "")}, Options{}, True, "3 = 3"},
		{"eq other", cond("NYHA class", "=", "3", "unitless"), []Evidence{val("NYHA class", "NYHA II", 2, "", "")}, Options{}, False, ""},
		{"ne", cond("NYHA class", "!=", "4", "unitless"), []Evidence{val("NYHA class", "NYHA II", 2, "", "")}, Options{}, True, ""},
		{"ne same", cond("NYHA class", "≠", "4", "unitless"), []Evidence{val("NYHA class", "NYHA IV", 4, "", "")}, Options{}, False, ""},
		{"decimal comma threshold", cond("fractional flow reserve", "<=", "0,8", "unitless"), []Evidence{val("fractional flow reserve", "FFR 0.78", 0.78, "", "")}, Options{}, True, ""},
		// numeric, evidence stated as a bound
		{"bound lt inside le", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "LVEF < 35%", 35, "%", "<")}, Options{}, True, "< 35 % lies within <= 35 %"},
		{"bound lt outside gt", cond(lvef, ">", "40", "%"), []Evidence{val(lvef, "LVEF < 35%", 35, "%", "<")}, Options{}, False, "< 35 % lies outside > 40 %"},
		{"bound lt overlaps lt", cond(lvef, "<", "30", "%"), []Evidence{val(lvef, "LVEF < 35%", 35, "%", "<")}, Options{}, Unknown, "< 35 % may or may not be < 30 %"},
		{"bound le vs lt same t", cond(lvef, "<", "35", "%"), []Evidence{val(lvef, "LVEF <= 35%", 35, "%", "<=")}, Options{}, Unknown, ""},
		{"bound lt vs lt same t", cond(lvef, "<", "35", "%"), []Evidence{val(lvef, "LVEF < 35%", 35, "%", "<")}, Options{}, True, ""},
		{"bound lt vs ge same t", cond(lvef, ">=", "35", "%"), []Evidence{val(lvef, "LVEF < 35%", 35, "%", "<")}, Options{}, False, ""},
		{"bound le vs ge same t", cond(lvef, ">=", "35", "%"), []Evidence{val(lvef, "LVEF <= 35%", 35, "%", "≤")}, Options{}, Unknown, ""},
		{"bound gt vs gt same t", cond(lvef, ">", "35", "%"), []Evidence{val(lvef, "LVEF > 35%", 35, "%", ">")}, Options{}, True, ""},
		{"bound ge vs gt", cond(lvef, ">", "35", "%"), []Evidence{val(lvef, "LVEF >= 40%", 40, "%", ">=")}, Options{}, True, ""},
		{"bound gt vs le", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "LVEF > 35%", 35, "%", ">")}, Options{}, False, ""},
		{"bound ge vs le same t", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "LVEF >= 35%", 35, "%", ">=")}, Options{}, Unknown, ""},
		{"bound vs eq", cond("NYHA class", "=", "3", "unitless"), []Evidence{val("NYHA class", "NYHA >= 3", 3, "", ">=")}, Options{}, Unknown, ""},
		{"bound vs ne outside", cond("NYHA class", "!=", "1", "unitless"), []Evidence{val("NYHA class", "NYHA > 1", 1, "", ">")}, Options{}, True, ""},
		{"bad comparator", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "LVEF ~30%", 30, "%", "~")}, Options{}, Unknown, "comparator \"~\""},
		// units
		{"egfr unit spelling (reference normalisation error)", cond(egfr, "<", "30", "mL/min/1.73 m^2"), []Evidence{val(egfr, "eGFR of 24 mL/min/1.73 m²", 24, "mL/min/1.73 m²", "")}, Options{}, True, "24 mL/min/1.73 m2 < 30 mL/min/1.73 m2"},
		{"egfr decimal comma unit", cond(egfr, "<", "30", "mL/min/1.73 m2"), []Evidence{val(egfr, "eGFR 24 ml/min/1,73m²", 24, "ml/min/1,73m²", "")}, Options{}, True, ""},
		{"ldl 70 mg/dL vs < 1.4 mmol/L", cond(ldl, "<", "1.4", "mmol/L"), []Evidence{val(ldl, "LDL-C 70 mg/dL", 70, "mg/dl", "")}, Options{}, False, "70 mg/dL = 1.8102 mmol/L, not < 1.4 mmol/L"},
		{"ldl 54 mg/dL vs < 1.4 mmol/L", cond(ldl, "<", "1.4", "mmol/L"), []Evidence{val(ldl, "LDL-C 54 mg/dL", 54, "mg/dL", "")}, Options{}, True, "54 mg/dL = 1.3964 mmol/L < 1.4 mmol/L"},
		{"ldl bound in mg/dL", cond(ldl, "<", "1.4", "mmol/L"), []Evidence{val(ldl, "LDL-C < 50 mg/dL", 50, "mg/dL", "<")}, Options{}, True, "lies within"},
		{"not comparable", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "EF 70 mg/dL", 70, "mg/dL", "")}, Options{}, Unknown, "unit mg/dL vs % not comparable"},
		{"unitless vs percent strict", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "EF 0.30", 0.30, "", "")}, Options{}, Unknown, "unit unitless vs % not comparable"},
		{"fraction allowed", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "EF 0.35", 0.35, "", "")}, Options{AllowFraction: true}, True, "0.35 = 35 % <= 35 %"},
		{"fraction allowed but not a fraction", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "EF 30", 30, "", "")}, Options{AllowFraction: true}, Unknown, "not comparable"},
		{"unknown units differ", cond("calcium score", ">", "400", "Agatston units"), []Evidence{val("calcium score", "CAC 500 AU", 500, "AU", "")}, Options{}, Unknown, "unit AU vs Agatston units not comparable"},
		// missing value and encoding errors
		{"value not stated", cond(lvef, "<=", "35", "%"), []Evidence{has(lvef, "reduced LVEF")}, Options{}, Unknown, "=matched 'reduced LVEF': value not stated"},
		{"numeric stated absent", cond(lvef, "<=", "35", "%"), []Evidence{absent(lvef, "LVEF not measured")}, Options{}, Unknown, "no value to compare"},
		{"numeric not mentioned closed", cond(lvef, "<=", "35", "%"), nil, closed, Unknown, "no value to compare"},
		{"bad threshold", cond(lvef, "<=", "about 35", "%"), []Evidence{val(lvef, "LVEF 30%", 30, "%", "")}, Options{}, Unknown, "fix the rule encoding"},
		{"bad operator", cond(lvef, "APPROX", "35", "%"), []Evidence{val(lvef, "LVEF 30%", 30, "%", "")}, Options{}, Unknown, "fix the rule encoding"},
		// several matching evidence items
		{"any true wins", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "LVEF 40%", 40, "%", ""), val(lvef, "LVEF 30%", 30, "%", "")}, Options{}, True, "'LVEF 30%'"},
		{"false beats unknown", cond(lvef, "<=", "35", "%"), []Evidence{val(lvef, "EF 2 mg/dL", 2, "mg/dL", ""), val(lvef, "LVEF 40%", 40, "%", "")}, Options{}, False, "'LVEF 40%'"},
		{"unknowns joined", cond(lvef, "<=", "35", "%"), []Evidence{has(lvef, "reduced EF"), val(lvef, "EF < 40%", 40, "%", "<")}, Options{}, Unknown, "value not stated; matched 'EF < 40%'"},
		{"present absent and affirmed", cond(dm, "PRESENT", "", ""), []Evidence{absent(dm, "no diabetes"), has(dm, "type 2 diabetes")}, Options{}, True, "'type 2 diabetes'"},
		// key fallback on concept name
		{"key from concept name", Cond{Concept: "Diabetes  Mellitus", Operator: "PRESENT"}, []Evidence{{Concept: "diabetes mellitus", Text: "DM", Present: true}}, Options{}, True, "'DM'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := EvaluateCond(c.c, c.ev, c.opt)
			if got.Truth != c.want {
				t.Errorf("truth = %v, want %v (reason %q)", got.Truth, c.want, got.Reason)
			}
			if got.Reason == "" {
				t.Error("empty reason: every condition must say why")
			}
			if exact, ok := strings.CutPrefix(c.reason, "="); ok {
				if got.Reason != exact {
					t.Errorf("reason = %q, want %q", got.Reason, exact)
				}
			} else if !strings.Contains(got.Reason, c.reason) {
				t.Errorf("reason = %q, want it to contain %q", got.Reason, c.reason)
			}
			matched := 0
			for _, e := range c.ev {
				if e.Key() == c.c.key() {
					matched++
				}
			}
			if len(got.Evidence) != matched {
				t.Errorf("matched evidence = %d, want %d", len(got.Evidence), matched)
			}
		})
	}
}

func loadTestPack(t testing.TB) []Rule {
	t.Helper()
	p, err := rules.LoadFS(os.DirFS("testdata"), "pack")
	if err != nil {
		t.Fatalf("load testdata/pack: %v", err)
	}
	var out []Rule
	for _, r := range p.Rules() {
		out = append(out, FromRuleRef(r))
	}
	return out
}

func TestFromRuleRef(t *testing.T) {
	rs := loadTestPack(t)
	if len(rs) != 3 {
		t.Fatalf("rules = %d, want 3", len(rs))
	}
	r := rs[0]
	if r.ID != "TEST_PACK::table_01.json::row_0::rule_0" || r.RowID != "table_01.json::row_0" {
		t.Errorf("ids = %q, %q", r.ID, r.RowID)
	}
	want := []Cond{
		{DecisionID: r.ID + "::g1::s1", GroupKey: "and_1", GroupType: "AND", ConceptKey: "name:suspected chronic coronary syndrome",
			Concept: "suspected chronic coronary syndrome", Wording: "suspected CCS", Context: "in suspected CCS", Role: "ClinicalCondition", Operator: "PRESENT"},
		{DecisionID: r.ID + "::g1::s2", GroupKey: "and_1", GroupType: "AND", ConceptKey: "name:" + ptl,
			Concept: ptl, Wording: "likelihood", Role: "ClinicalParameter", Operator: ">", Threshold: "5", Unit: "%"},
		{DecisionID: r.ID + "::g1::s3", GroupKey: "and_1", GroupType: "AND", ConceptKey: "name:" + ptl,
			Concept: ptl, Wording: "likelihood", Role: "ClinicalParameter", Operator: "<=", Threshold: "50", Unit: "%"},
	}
	if !reflect.DeepEqual(r.Conds, want) {
		t.Errorf("conds =\n%+v\nwant\n%+v", r.Conds, want)
	}
	if k := rs[1].Conds[0].ConceptKey; k != "sct:405004009" {
		t.Errorf("coded concept key = %q, want sct:405004009", k)
	}
	if g := rs[1].Conds[2].GroupType; g != "OR" {
		t.Errorf("OR member group type = %q", g)
	}
	if got := FromRuleRef(rules.RuleRef{ID: "x", RowID: "y"}); got.ID != "x" || len(got.Conds) != 0 {
		t.Errorf("nil rule = %+v", got)
	}
}

func TestEvaluateRule(t *testing.T) {
	rs := loadTestPack(t)
	workup, ccta, drug := rs[0], rs[1], rs[2]
	gfr := func(v float64, unit string) Evidence {
		return Evidence{ConceptKey: "sct:405004009", Concept: "Glomerular filtration rate", Text: "eGFR", Present: true, Value: f(v), Unit: unit}
	}
	tachy := Evidence{ConceptKey: "sct:6285003", Concept: "Tachyarrhythmia", Text: "fast irregular heart rate", Present: true}
	cases := []struct {
		name    string
		rule    Rule
		ev      []Evidence
		opt     Options
		want    Truth
		groups  []Truth
		missing []string
	}{
		{"and range holds", workup, []Evidence{has("suspected chronic coronary syndrome", "suspected CCS"), val(ptl, "PTL 35%", 35, "%", "")}, Options{}, True, []Truth{True}, nil},
		{"and range upper boundary", workup, []Evidence{has("suspected chronic coronary syndrome", "suspected CCS"), val(ptl, "PTL 50%", 50, "%", "")}, Options{}, True, []Truth{True}, nil},
		{"and range out", workup, []Evidence{has("suspected chronic coronary syndrome", "suspected CCS"), val(ptl, "PTL 60%", 60, "%", "")}, Options{}, False, []Truth{False}, nil},
		{"and missing finding", workup, []Evidence{val(ptl, "PTL 35%", 35, "%", "")}, Options{}, Unknown, []Truth{Unknown},
			[]string{"suspected chronic coronary syndrome present"}},
		{"and missing finding closed world", workup, []Evidence{val(ptl, "PTL 35%", 35, "%", "")}, Options{ClosedWorld: true}, False, []Truth{False}, nil},
		{"and false decides despite unknown", workup, []Evidence{val(ptl, "PTL 3%", 3, "%", "")}, Options{}, False, []Truth{False}, nil},
		{"and nothing stated", workup, nil, Options{}, Unknown, []Truth{Unknown},
			[]string{"suspected chronic coronary syndrome present", ptl + " > 5 %", ptl + " <= 50 %"}},
		{"or one member", ccta, []Evidence{tachy}, Options{}, True, []Truth{True}, nil},
		{"or egfr unit spelled differently", ccta, []Evidence{gfr(24, "mL/min/1.73 m²")}, Options{}, True, []Truth{True}, nil},
		{"or all unknown", ccta, nil, Options{}, Unknown, []Truth{Unknown},
			[]string{"one of: Glomerular filtration rate < 30 mL/min/1.73 m2; Tachyarrhythmia present; severe obesity present"}},
		{"or false members drop out of missing", ccta, []Evidence{gfr(60, "mL/min/1.73 m2"), absent("severe obesity", "not obese")}, Options{}, Unknown, []Truth{Unknown},
			[]string{"Tachyarrhythmia present"}},
		{"or all false", ccta, []Evidence{gfr(60, "mL/min/1.73 m2"), absent("severe obesity", "not obese"), {ConceptKey: "sct:6285003", Text: "sinus rhythm, no arrhythmia"}}, Options{}, False, []Truth{False}, nil},
		{"or closed world", ccta, []Evidence{gfr(60, "mL/min/1.73 m2")}, Options{ClosedWorld: true}, False, []Truth{False}, nil},
		{"and+or fires", drug, []Evidence{has("chronic coronary syndrome", "CCS"), absent(hbr, "no HBR"), val(lvef, "LVEF 30%", 30, "%", "")}, Options{}, True, []Truth{True, True}, nil},
		{"and+or absent unknown open", drug, []Evidence{has("chronic coronary syndrome", "CCS"), has(dm, "diabetes")}, Options{}, Unknown, []Truth{Unknown, True},
			[]string{hbr + " absent"}},
		{"and+or absent closed world fires", drug, []Evidence{has("chronic coronary syndrome", "CCS"), has(dm, "diabetes")}, Options{ClosedWorld: true}, True, []Truth{True, True}, nil},
		{"and+or both groups unknown", drug, []Evidence{has("chronic coronary syndrome", "CCS"), val(lvef, "LVEF < 45%", 45, "%", "<")}, Options{}, Unknown, []Truth{Unknown, Unknown},
			[]string{hbr + " absent", "one of: diabetes mellitus present; left ventricular ejection fraction <= 35 %"}},
		{"and+or hbr stated", drug, []Evidence{has("chronic coronary syndrome", "CCS"), has(hbr, "HBR"), has(dm, "DM")}, Options{ClosedWorld: true}, False, []Truth{False, True}, nil},
		{"empty rule", Rule{ID: "empty"}, []Evidence{tachy}, Options{}, Unknown, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := EvaluateRule(c.rule, c.ev, c.opt)
			if got.Truth != c.want {
				t.Errorf("truth = %v, want %v; conditions: %s", got.Truth, c.want, trace(got))
			}
			if got.Fired() != (c.want == True) {
				t.Errorf("Fired() = %v", got.Fired())
			}
			var gs []Truth
			for _, g := range got.Groups {
				gs = append(gs, g.Truth)
			}
			if !reflect.DeepEqual(gs, c.groups) {
				t.Errorf("groups = %v, want %v", gs, c.groups)
			}
			if !reflect.DeepEqual(got.Missing, c.missing) {
				t.Errorf("missing = %q, want %q", got.Missing, c.missing)
			}
			if len(got.Conditions) != len(c.rule.Conds) {
				t.Errorf("condition results = %d, want %d", len(got.Conditions), len(c.rule.Conds))
			}
			for _, cr := range got.Conditions {
				if cr.Reason == "" {
					t.Errorf("condition %s has no reason", cr.DecisionID)
				}
			}
			// A buffer that indexed the evidence, and is told what is
			// missing after the fact, answers the same, as does the rule
			// with its needs worded in advance.
			b := RuleBuffer{SkipMissing: true}
			b.Index(c.ev)
			prepared := c.rule.Prepared()
			ix := b.Evaluate(prepared, c.ev, c.opt)
			if ix.Missing != nil {
				t.Errorf("SkipMissing: missing = %q", ix.Missing)
			}
			ix.Missing = b.Missing(prepared, ix)
			if !reflect.DeepEqual(ix, got) {
				t.Errorf("indexed evaluation = %+v, want %+v", ix, got)
			}
		})
	}
}

func trace(r RuleResult) string {
	var b strings.Builder
	for _, c := range r.Conditions {
		b.WriteString("\n  " + c.DecisionID + " " + c.Truth.String() + ": " + c.Reason)
	}
	return b.String()
}

func TestGroupWithoutKey(t *testing.T) {
	r := Rule{ID: "r", Conds: []Cond{
		{Concept: "a", Operator: "PRESENT"},
		{Concept: "b", Operator: "PRESENT", GroupType: "OR"},
		{Concept: "c", Operator: "PRESENT", GroupType: "or"},
	}}
	got := EvaluateRule(r, []Evidence{{Concept: "a", Present: true}, {Concept: "c", Present: true}}, Options{})
	if len(got.Groups) != 2 || got.Groups[0].Key != "and" || got.Groups[1].Key != "or" || got.Groups[1].Type != "OR" {
		t.Fatalf("groups = %+v", got.Groups)
	}
	if got.Truth != True {
		t.Errorf("truth = %v, want true: %s", got.Truth, trace(got))
	}
}

func TestResultJSON(t *testing.T) {
	rs := loadTestPack(t)
	got := EvaluateRule(rs[1], []Evidence{{ConceptKey: "sct:6285003", Text: "AF with fast rate", Present: true}}, Options{})
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"truth":"true"`, `"truth":"unknown"`, `"reason":"matched 'AF with fast rate'"`, `"row_id":"table_01.json::row_1"`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON lacks %s:\n%s", want, s)
		}
	}
	var back RuleResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Truth != True || back.Conditions[1].Truth != True || back.Conditions[0].Truth != Unknown {
		t.Errorf("round trip lost truth values: %+v", back)
	}
}

func TestEvidenceUnmarshal(t *testing.T) {
	cases := []struct {
		in      string
		want    Evidence
		wantErr string
	}{
		{`{"concept":"x","present":true,"value":30,"unit":"%"}`, Evidence{Concept: "x", Present: true, Value: f(30), Unit: "%"}, ""},
		{`{"concept":"x","present":true,"value":"90"}`, Evidence{Concept: "x", Present: true, Value: f(90)}, ""},
		{`{"concept":"x","present":true,"value":"0,8"}`, Evidence{Concept: "x", Present: true, Value: f(0.8)}, ""},
		{`{"concept":"x","present":true,"value":""}`, Evidence{Concept: "x", Present: true}, ""},
		{`{"concept":"x","present":false,"value":null}`, Evidence{Concept: "x"}, ""},
		{`{"original_text":"clinical likelihood 90%","standardized_concept":"pre-test likelihood","present":true,"value":"90","unit":"%","comparator":"="}`,
			Evidence{Concept: "pre-test likelihood", Text: "clinical likelihood 90%", Present: true, Value: f(90), Unit: "%", Comparator: "="}, ""},
		{`{"concept":"x","value":"high"}`, Evidence{}, "not a number"},
		{`{"concept":"x","value":[1]}`, Evidence{}, "value"},
	}
	for _, c := range cases {
		var got Evidence
		err := json.Unmarshal([]byte(c.in), &got)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err = %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.in, got, c.want)
		}
	}
}

func TestNeed(t *testing.T) {
	cases := map[string]Cond{
		"left ventricular ejection fraction <= 35 %":               cond(lvef, "≤", "35", "%"),
		"diabetes mellitus present":                                cond(dm, "PRESENT", "", ""),
		"high bleeding risk absent":                                cond(hbr, "ABSENT", "", ""),
		"SYNTAX score > 22":                                        cond("SYNTAX score", ">", "22", "unitless"),
		"estimated glomerular filtration rate < 30 mL/min/1.73 m2": cond(egfr, "<", "30", "mL/min/1.73 m^2"),
		"eGFR present":                                             {Wording: "eGFR", Operator: "PRESENT"},
	}
	for want, c := range cases {
		if got := Need(c); got != want {
			t.Errorf("Need(%+v) = %q, want %q", c, got, want)
		}
	}
}

func BenchmarkEvaluateRule(b *testing.B) {
	rs := loadTestPack(b)
	// The biggest shape in the pack: an AND group plus an eight-member OR
	// group, against a vignette's worth of evidence.
	r := rs[2]
	for i := 0; i < 6; i++ {
		c := cond("or finding "+string(rune('a'+i)), "PRESENT", "", "")
		c.GroupKey, c.GroupType = "or_1", "OR"
		r.Conds = append(r.Conds, c)
	}
	ev := []Evidence{
		has("chronic coronary syndrome", "CCS"), absent(hbr, "no HBR"), val(lvef, "LVEF 40%", 40, "%", ""),
		val(egfr, "eGFR 24", 24, "mL/min/1.73 m²", ""), val(ldl, "LDL-C 70 mg/dL", 70, "mg/dL", ""),
		has("hypertension", "HTN"), has("or finding f", "f"), val(ptl, "PTL 35%", 35, "%", ""),
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := EvaluateRule(r, ev, Options{})
		if res.Truth != True {
			b.Fatalf("truth = %v", res.Truth)
		}
	}
}

// An index over many distinct concepts (a long document) finds each
// condition's items as a scan of all the evidence does.
func TestIndexManyKeys(t *testing.T) {
	var ev []Evidence
	var r Rule
	for i := 0; i < 3*manyKeys; i++ {
		name := "finding " + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/26)
		ev = append(ev, has(name, name))
		if i%5 == 0 {
			ev = append(ev, absent(name, "no "+name)) // a second item of the key
		}
		if i%3 == 0 {
			r.Conds = append(r.Conds, cond(name, rules.OpPresent, "", ""))
		}
	}
	r.Conds = append(r.Conds, cond("not stated", rules.OpPresent, "", ""))
	want := EvaluateRule(r, ev, Options{})
	var b RuleBuffer
	b.Index(ev)
	if b.byKey == nil {
		t.Fatalf("%d keys kept without a map", len(b.keys))
	}
	if got := b.Evaluate(r, ev, Options{}); !reflect.DeepEqual(got, want) {
		t.Errorf("indexed = %+v\nwant %+v", got, want)
	}
}
