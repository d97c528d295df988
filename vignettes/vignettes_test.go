package vignettes

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

func shippedInputs(t *testing.T) Inputs {
	t.Helper()
	p, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	cl, err := DefaultClauses()
	if err != nil {
		t.Fatal(err)
	}
	para, err := DefaultParaphrases()
	if err != nil {
		t.Fatal(err)
	}
	lex, err := lexicon.Load("")
	if err != nil {
		t.Fatal(err)
	}
	return Inputs{Pack: p, Clauses: cl, Lexicon: lex, Paraphrases: para}
}

// Regenerating from the shipped inputs gives the shipped files byte for
// byte; a pack, clause or lexicon change shows up here first.
func TestGenerateReproducesShippedFiles(t *testing.T) {
	in := shippedInputs(t)
	set, err := Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	files, err := set.Files()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := Data.ReadFile(name)
		if err != nil {
			t.Fatalf("%s is not shipped: %v (run `execkg vignettes generate`)", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from a fresh generation; run `execkg vignettes generate` and review the diff", name)
		}
	}
	// And a second run in the same process gives the same bytes.
	again, err := Generate(shippedInputs(t))
	if err != nil {
		t.Fatal(err)
	}
	f2, _ := again.Files()
	for name := range files {
		if !bytes.Equal(files[name], f2[name]) {
			t.Errorf("%s: two generations differ", name)
		}
	}
}

func TestShippedSetValidates(t *testing.T) {
	in := shippedInputs(t)
	vs, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := DefaultExcluded()
	if err != nil {
		t.Fatal(err)
	}
	rep := Validate(in.Pack, vs, doc.Excluded)
	for _, p := range rep.Problems {
		t.Error(p.Error())
	}
	if rep.Covered != rep.Usable || rep.Usable == 0 {
		t.Errorf("coverage %d of %d", rep.Covered, rep.Usable)
	}
	if doc.Count != len(doc.Excluded) || rep.ExcludedConcepts != doc.Count {
		t.Errorf("excluded: file says %d, lists %d, pack has %d", doc.Count, len(doc.Excluded), rep.ExcludedConcepts)
	}
	for _, ex := range doc.Excluded {
		if len(ex.Workflow) == 0 || !strings.Contains(ex.Reason, ex.Workflow[0]) {
			t.Errorf("exclusion %s: reason %q does not name its workflow kind", ex.Concept, ex.Reason)
		}
	}
	// The paraphrases exercise what the brief asks of them.
	var para strings.Builder
	for _, v := range vs {
		if v.Category == Paraphrase {
			para.WriteString(v.Question + " ")
		}
	}
	for _, want := range []string{"mg/dL", "m2", "suspected", "no ", "percent"} {
		if !strings.Contains(para.String(), want) {
			t.Errorf("no paraphrase contains %q", want)
		}
	}
}

// mutate returns a copy of the shipped set with one change applied.
func mutate(t *testing.T, f func(vs []Vignette) []Vignette) []Vignette {
	t.Helper()
	vs, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(vs)
	var cp []Vignette
	json.Unmarshal(b, &cp)
	return f(cp)
}

func TestValidateCatchesProblems(t *testing.T) {
	in := shippedInputs(t)
	f := func(x float64) *float64 { return &x }
	cases := []struct {
		name string
		edit func([]Vignette) []Vignette
		want string
	}{
		{"opening", func(vs []Vignette) []Vignette {
			vs[0].Question = strings.Replace(vs[0].Question, "Patient with", "Man with", 1)
			return vs
		}, `near_001: question: must start with "Patient with "`},
		{"too long", func(vs []Vignette) []Vignette {
			vs[0].Question = strings.TrimSuffix(vs[0].Question, ".") + strings.Repeat(" and more", 20) + "."
			return vs
		}, "near_001: question: "},
		{"too few findings", func(vs []Vignette) []Vignette { vs[1].Intended = vs[1].Intended[:2]; return vs }, "near_002: intended: 2 findings, want 3–4"},
		{"unknown key", func(vs []Vignette) []Vignette { vs[2].Intended[0].ConceptKey = "name:nothing"; return vs }, "concept key name:nothing is not tested by any rule"},
		{"text not in question", func(vs []Vignette) []Vignette { vs[3].Intended[0].Text = "zzz"; return vs }, `text "zzz" does not occur in the question`},
		{"value outside target", func(vs []Vignette) []Vignette {
			for i := range vs {
				for j, n := range vs[i].Intended {
					if len(n.Targets) > 0 && strings.HasPrefix(n.Targets[0], ">=") {
						vs[i].Intended[j].Value = f(-1000)
						return vs
					}
				}
			}
			t.Fatal("no node with a >= target")
			return vs
		}, "does not satisfy >="},
		{"absent with present true", func(vs []Vignette) []Vignette {
			for i := range vs {
				for j, n := range vs[i].Intended {
					if n.Operator == rules.OpAbsent {
						vs[i].Intended[j].Present = true
						return vs
					}
				}
			}
			return vs
		}, "operator ABSENT needs present false"},
		{"duplicate concept", func(vs []Vignette) []Vignette { vs[4].Intended[1] = vs[4].Intended[0]; return vs }, "concept already stated by intended[0]"},
		// Ten vignettes cannot cover every rule (dropping only the first no
		// longer loses one: its rows are covered again by others).
		{"lost coverage and count", func(vs []Vignette) []Vignette { return vs[:10] }, "coverage"},
		{"synonym beyond its term", func(vs []Vignette) []Vignette {
			for i := range vs {
				if vs[i].Category == Synonym {
					vs[i].Question = strings.Replace(vs[i].Question, "Patient with ", "Patient with known ", 1)
					return vs
				}
			}
			return vs
		}, "question differs from base"},
		{"bad id", func(vs []Vignette) []Vignette { vs[0].CaseID = "near-1"; return vs }, "does not match"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rep := Validate(in.Pack, mutate(t, tc.edit), nil)
			var all []string
			for _, p := range rep.Problems {
				all = append(all, p.Error())
			}
			if !strings.Contains(strings.Join(all, "\n"), tc.want) {
				t.Fatalf("problems:\n%s\nwant one containing %q", strings.Join(all, "\n"), tc.want)
			}
		})
	}
}

func TestChooseValue(t *testing.T) {
	ptr := func(x float64) *float64 { return &x }
	lvef := &Clause{Concept: "left ventricular ejection fraction", Value: "an LVEF of {v}%", Unit: "%", Min: ptr(10), Max: ptr(70), Step: ptr(1)}
	cond := func(op, th, unit string) rules.Condition {
		return rules.Condition{Entity: rules.Entity{EntityOriginal: "LVEF",
			EntityStandardizedList: []rules.Standardized{{Candidate: "left ventricular ejection fraction"}},
			LogicStructured:        rules.Logic{Operator: op, Threshold: rules.Threshold(th), Unit: unit}}}
	}
	c := &Concept{Key: "name:left ventricular ejection fraction", Name: "left ventricular ejection fraction"}
	cases := []struct {
		name   string
		conds  []rules.Condition
		edge   bool
		lo, hi float64 // allowed result range (inclusive)
	}{
		{"edge of <=", []rules.Condition{cond("<=", "35", "%")}, true, 35, 35},
		{"inside <=", []rules.Condition{cond("<=", "35", "%")}, false, 10, 34},
		{"strict < never at the edge", []rules.Condition{cond("<", "40", "%")}, true, 10, 39},
		{"range", []rules.Condition{cond(">", "35", "%"), cond("<=", "50", "%")}, false, 36, 49},
		{"range edge", []rules.Condition{cond(">", "35", "%"), cond("<=", "50", "%")}, true, 50, 50},
	}
	for _, tc := range cases {
		for h := uint64(0); h < 40; h++ {
			v, targets, err := chooseValue(lvef, finding{c: c, conds: tc.conds}, h, tc.edge)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if v < tc.lo || v > tc.hi || v != math.Round(v) {
				t.Fatalf("%s (h=%d): value %g outside [%g, %g] or off the grid", tc.name, h, v, tc.lo, tc.hi)
			}
			if len(targets) != len(tc.conds) {
				t.Fatalf("%s: targets %v", tc.name, targets)
			}
		}
	}
	// A band the grid cannot reach is an error naming the fix.
	_, _, err := chooseValue(lvef, finding{c: c, conds: []rules.Condition{cond(">", "80", "%")}}, 0, false)
	if err == nil || !strings.Contains(err.Error(), "widen min/max") {
		t.Fatalf("unreachable band: err = %v", err)
	}
	// Values of another unit are converted before comparing.
	ldl := &Clause{Concept: "low-density lipoprotein cholesterol", Value: "an LDL-C of {v} mg/dL", Unit: "mg/dL", Min: ptr(40), Max: ptr(200), Step: ptr(1)}
	lc := &Concept{Key: "name:ldl", Name: "low-density lipoprotein cholesterol"}
	lcond := rules.Condition{Entity: rules.Entity{EntityStandardizedList: []rules.Standardized{{Candidate: lc.Name}},
		LogicStructured: rules.Logic{Operator: ">=", Threshold: "1.4", Unit: "mmol/L"}}}
	v, _, err := chooseValue(ldl, finding{c: lc, conds: []rules.Condition{lcond}}, 7, false)
	if err != nil || v < 55 {
		t.Fatalf("LDL in mg/dL for >= 1.4 mmol/L: %g, %v (1.4 mmol/L = 54.1 mg/dL)", v, err)
	}
	if !Satisfies([]eval.Cond{{ConceptKey: lc.Key, Concept: lc.Name, Operator: ">=", Threshold: "1.4", Unit: "mmol/L"}}, v, "mg/dL") {
		t.Fatal("chosen value does not satisfy the condition")
	}
}

func TestClauseFormatting(t *testing.T) {
	ptr := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		c    Clause
		v    float64
		want string
	}{
		{Clause{Value: "NYHA class {v}", Format: "roman", Step: ptr(1)}, 3, "NYHA class III"},
		{Clause{Value: "an FFR-CT of {v}", Step: ptr(0.01)}, 0.8, "an FFR-CT of 0.8"},
		{Clause{Value: "a stent diameter of {v} mm", Step: ptr(0.25)}, 3.25, "a stent diameter of 3.25 mm"},
		{Clause{Value: "an LDL-C of {v} mmol/L", Step: ptr(0.1)}, 1.4000000000000001, "an LDL-C of 1.4 mmol/L"},
	} {
		if got := tc.c.Render(tc.v); got != tc.want {
			t.Errorf("Render(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestArticles(t *testing.T) {
	for _, tc := range []struct{ prefix, next, want string }{
		{"an ", "ejection fraction", "an "},
		{"an ", "left ventricular ejection fraction", "a "},
		{"a ", "LVEF", "an "},
		{"a ", "PCI", "a "},
		{"a ", "HFrEF", "an "},
		{"no ", "DM", "no "},
		{"with a ", "eGFR", "with an "},
		{"banana ", "x", "banana "},
	} {
		if got := fixArticle(tc.prefix, tc.next); got != tc.want {
			t.Errorf("fixArticle(%q, %q) = %q, want %q", tc.prefix, tc.next, got, tc.want)
		}
	}
}

func TestConflicts(t *testing.T) {
	cl, err := DefaultClauses()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b       string
		aAbs, bAbs bool
		conflict   bool
	}{
		{"suspected chronic coronary syndrome", "chronic coronary syndrome", false, false, true},
		{"diabetes mellitus", "type 2 diabetes mellitus", true, false, true},
		{"diabetes mellitus", "type 2 diabetes mellitus", false, false, false},
		{"heart failure", "decompensated heart failure", true, false, true},
		{"low surgical risk", "high surgical risk", false, false, true},
		{"asymptomatic individual", "chest pain", false, false, true},
		{"chest pain", "asymptomatic individual", false, false, true},
		{"aspirin", "ezetimibe", false, false, false},
		{"suspected vasospastic angina", "vasospastic angina", false, false, true},
	} {
		got := cl.conflicts(tc.a, tc.b, tc.aAbs, tc.bAbs) != ""
		if got != tc.conflict {
			t.Errorf("conflicts(%q absent=%v, %q absent=%v) = %v, want %v", tc.a, tc.aAbs, tc.b, tc.bAbs, got, tc.conflict)
		}
	}
}

func TestParseClausesErrors(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"version":1,"clauses":[{"concept":"x"}]}`, "give present, absent or value wording"},
		{`{"version":1,"clauses":[{"concept":"x","value":"an x of 3","min":1,"max":2,"step":1,"term":"x"}]}`, "{v} exactly once"},
		{`{"version":1,"clauses":[{"concept":"x","value":"{v} x","term":"x"}]}`, "needs min, max and step"},
		{`{"version":1,"clauses":[{"concept":"x","present":"a y"}]}`, ""},
		{`{"version":1,"clauses":[{"concept":"x","present":"y","term":"z"}]}`, `term "z" occurs in none`},
		{`{"version":1,"clauses":[{"concept":"x","present":"x"},{"concept":"X","present":"x"}]}`, "listed again"},
		{`{"version":1,"clauses":[],"bogus":1}`, "unknown field"},
	} {
		_, err := ParseClauses("c.json", []byte(tc.json))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", tc.json, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.json, err, tc.want)
		}
	}
}

// A concept with no wording stops generation with a message naming it.
func TestGenerateNamesMissingWording(t *testing.T) {
	in := shippedInputs(t)
	var kept []Clause
	for _, c := range in.Clauses.Clauses {
		if c.Concept != "severe obesity" {
			kept = append(kept, c)
		}
	}
	b, _ := json.Marshal(ClauseTable{Version: 1, Clauses: kept, Exclusive: in.Clauses.Exclusive})
	cl, err := ParseClauses("trimmed.json", b)
	if err != nil {
		t.Fatal(err)
	}
	in.Clauses = cl
	_, err = Generate(in)
	if err == nil || !strings.Contains(err.Error(), `"severe obesity"`) {
		t.Fatalf("err = %v, want it to name severe obesity", err)
	}
}
