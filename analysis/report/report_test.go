package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/analysis/reproduce"
)

func TestRenderIsSelfContained(t *testing.T) {
	n := &reproduce.Numbers{
		Arms: []reproduce.ArmNumbers{
			{Arm: "kg", Totals: analysis.Totals{TP: 9, FP: 1, FN: 2, Precision: 0.9, Recall: 9.0 / 11, F1: 0.857, Exact: 3, ExactBy: map[string]int{"near": 2, "synonym": 1}, EmptyReference: 1, Abstention: 1}},
			{Arm: "rag <&>", Totals: analysis.Totals{TP: 2, FP: 5, FN: 9, Precision: 2.0 / 7, Recall: 2.0 / 11, F1: 0.22, ExactBy: map[string]int{}, EmptyReference: 1}},
		},
		McNemar: []analysis.McNemar{{A: "kg", B: "rag <&>", OnlyA: 3, OnlyB: 0, P: 0.25}},
		Ours: &reproduce.OursNumbers{Arm: "kg", TracedCases: 4, Errors: &reproduce.ErrorNumbers{FP: 1, FN: 2,
			ByKind: map[string]map[string]int{"FP": {analysis.CatGrounding: 1}, "FN": {analysis.CatExtraction: 2}}}},
	}
	scores := []*analysis.ArmScore{
		{Arm: "kg", Tables: []analysis.TableScore{{Table: "table_08.json", Reference: 4, Recall: 0.75}, {Table: "table_12.json", Reference: 0}}},
		{Arm: "rag <&>", Tables: []analysis.TableScore{{Table: "table_08.json", Reference: 4, Recall: 0.25}}},
	}
	cov := &analysis.Coverage{Conditions: 2, EverEvaluated: 1, EverTrue: 1, Rules: []analysis.RuleCoverage{
		{RuleID: "r0", RowID: "table_08.json::row_2", Table: "table_08.json", Evaluated: 2, Fired: 1,
			Conditions: []analysis.CondCoverage{{DecisionID: "d1", Concept: "eGFR", Operator: "<", Threshold: "30", True: 1, False: 1}, {DecisionID: "d2", Concept: "x"}}},
	}}
	var b bytes.Buffer
	if err := Render(&b, Input{Numbers: n, Scores: scores, Coverage: cov, Notes: []string{"note <b>"}}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<h2>Results</h2>", "9 / 1 / 2", "3 / 0, p = 0.250", "rag &lt;&amp;&gt;", "note &lt;b&gt;",
		`class="chip both"`, `class="chip never"`, "T8", "near-miss-grounding", "Condition coverage"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "T12") {
		t.Error("page has a script, or a table without reference pairs in the recall plot")
	}
	// Every inline SVG is well-formed XML.
	svgs := 0
	for rest := page; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		frag := rest[i : i+j+len("</svg>")]
		d := xml.NewDecoder(strings.NewReader(frag))
		for {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("svg %d is not well-formed: %v\n%s", svgs, err, frag)
			}
		}
		svgs++
		rest = rest[i+j:]
	}
	if svgs != 3 {
		t.Fatalf("%d plots, want 3 (P/R/F1, errors, recall per table)", svgs)
	}
}

func TestRenderNeedsNumbers(t *testing.T) {
	if err := Render(io.Discard, Input{}); err == nil {
		t.Fatal("want an error without numbers")
	}
}
