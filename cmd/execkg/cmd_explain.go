package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/graph"
	"github.com/executablekg/execkg/rules"
)

func init() {
	register(command{name: "explain", summary: "draw one row's rules as the graph holds them: execkg explain ROW_ID [--format mermaid|text]", run: runExplain})
}

func runExplain(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("explain", flag.ContinueOnError)
	fl.SetOutput(stderr)
	format := fl.String("format", "mermaid", "mermaid (a flowchart to paste into Markdown) or text")
	var pack, dir string
	registerPackFlags(fl, &pack, &dir)
	// Accept the row id before or after the flags.
	var pos []string
	for len(args) > 0 {
		if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg explain [--format mermaid|text] ROW_ID   (e.g. table_08.json::row_2)"); !ok {
			return code
		}
		if fl.NArg() == 0 {
			break
		}
		pos = append(pos, fl.Arg(0))
		args = fl.Args()[1:]
	}
	if len(pos) != 1 {
		fl.Usage()
		return 2
	}
	rowID := pos[0]
	// A multi-pack row id ("esc-ccs-2024/table_08.json::row_2") names its pack.
	if pfx, rest, ok := strings.Cut(rowID, "/"); ok && dir == "" && (pack == "" || pack == allPacks || pack == pfx) {
		pack, rowID = pfx, rest
	}
	if pack == allPacks {
		fmt.Fprintf(stderr, "execkg explain: with --pack all, name the row with its pack: PACK_ID/%s\n", rowID)
		return 2
	}
	src, err := onePack("explain", pack, dir)
	if err != nil {
		fmt.Fprintln(stderr, "execkg explain:", err)
		return 2
	}
	label := src.Label
	rep, err := src.preflight()
	if err != nil || !rep.OK() {
		fmt.Fprintln(stderr, "execkg explain: cannot load", label, err)
		return 1
	}
	p := rep.Pack
	if _, _, ok := p.Row(rowID); !ok {
		fmt.Fprintf(stderr, "execkg explain: no row %q in %s (row ids look like table_08.json::row_2)\n", rowID, label)
		return 1
	}
	ctx := context.Background()
	st := graph.NewMemory()
	if _, err := st.Load(ctx, p, graph.BuildOptions{}); err != nil {
		fmt.Fprintln(stderr, "execkg explain:", err)
		return 1
	}
	var keys []string
	for _, r := range p.Rules() {
		if r.RowID == rowID {
			for _, c := range r.Conditions() {
				keys = append(keys, rules.ConceptKey(c.Entity))
			}
		}
	}
	bundles, err := st.Bundles(ctx, keys)
	if err != nil {
		fmt.Fprintln(stderr, "execkg explain:", err)
		return 1
	}
	for _, b := range bundles {
		if b.RowID != rowID {
			continue
		}
		switch *format {
		case "mermaid":
			writeMermaid(stdout, b, p.Scheme())
		case "text":
			writeRuleText(stdout, b, p.Scheme())
		default:
			fmt.Fprintf(stderr, "execkg explain: unknown --format %q (mermaid or text)\n", *format)
			return 2
		}
	}
	return 0
}

func mq(s string) string { return strings.NewReplacer(`"`, "'", "<", "&lt;", ">", "&gt;").Replace(s) }

func condLabel(d graph.Decision) string {
	op := d.Operator
	if d.Threshold != "" {
		op += " " + d.Threshold + " " + d.Unit
	}
	return fmt.Sprintf("g%d·s%d %s · %s", d.GroupIndex, d.Step, op, d.LogicType)
}

// writeMermaid draws the rule as the reference README draws it: the
// DecisionNode chain, RESULTS_IN, concepts and actions.
func writeMermaid(w io.Writer, b graph.Bundle, sc *rules.Grading) {
	id := func(s string) string {
		return "n" + strings.NewReplacer(":", "_", ".", "_", "-", "_").Replace(s[strings.LastIndex(s, "::rule_"):])
	}
	fmt.Fprintf(w, "%%%% %s\nflowchart LR\n", b.RuleID)
	rec := "rec"
	for _, d := range b.Decisions {
		n := id(d.DecisionID)
		fmt.Fprintf(w, "    %s[\"DecisionNode %s\"]\n", n, mq(condLabel(d)))
		rel := "EVALUATES"
		if d.TargetLabel == "ClinicalCondition" {
			rel = "CHECKS_FOR"
		}
		concept := d.ConceptName
		if d.SnomedID != "" {
			concept += "<br/>" + d.SnomedID
		}
		fmt.Fprintf(w, "    %s -- \"%s\" --> %s_c[\"%s<br/>%s\"]\n", n, rel, n, d.TargetLabel, mq(concept))
	}
	for _, e := range b.LeadsTo {
		fmt.Fprintf(w, "    %s -- \"LEADS_TO\" --> %s\n", id(e.From), id(e.To))
	}
	r := b.Recommendation
	fmt.Fprintf(w, "    %s[\"RecommendationNode<br/>%s<br/>%s · %s\"]\n", rec, mq(r.RecommendationSummary), gradeWords(sc, r.Strength, r.Level, " · "), r.Direction)
	for _, d := range b.ResultsIn {
		fmt.Fprintf(w, "    %s -- \"RESULTS_IN\" --> %s\n", id(d), rec)
	}
	for i, a := range b.Actions {
		fmt.Fprintf(w, "    %s -- \"%s\" --> a%d[\"%s<br/>%s · %s\"]\n", rec, a.Relation, i, a.TargetLabel, mq(a.ConceptName), a.Intent)
	}
	fmt.Fprintf(w, "    %s -- \"MENTIONED_IN\" --> src[\"GuidelineSource<br/>%s, table %d\"]\n", rec, mq(b.Source.Title), b.Source.Table)
}

// gradeWords is a row's grade in the scheme's terms, its level (if the
// scheme has levels) after sep: "Class I, Level A", "Grade B".
func gradeWords(sc *rules.Grading, class, level, sep string) string {
	s := sc.Term(class)
	if l, ok := sc.Level(level); ok {
		s += sep + l.Term
	} else if level != "" {
		s += sep + level
	}
	return s
}

func writeRuleText(w io.Writer, b graph.Bundle, sc *rules.Grading) {
	r := b.Recommendation
	fmt.Fprintf(w, "%s  (%s, %s)\n  %s\n", b.RuleID, gradeWords(sc, r.Strength, r.Level, ", "), r.Direction, r.FullText)
	group := -1
	for _, d := range b.Decisions {
		if d.GroupIndex != group {
			group = d.GroupIndex
			kind := "all of"
			if d.LogicType == rules.LogicOR {
				kind = "any of"
			}
			fmt.Fprintf(w, "  group %d (%s):\n", group, kind)
		}
		op := d.Operator
		if d.Threshold != "" {
			op += " " + d.Threshold + " " + d.Unit
		}
		if d.Window != "" {
			op += " dated " + d.Window
		}
		fmt.Fprintf(w, "    - %s %s   [%s]\n", d.ConceptName, op, d.EntityOriginal)
	}
	for _, a := range b.Actions {
		// The intent says what to do; the relation is the graph's edge.
		fmt.Fprintf(w, "  → %s  (%s, intent %s)\n", engine.ActionSummary([]engine.Action{{Concept: a.ConceptName, Intent: a.Intent, Relation: a.Relation}}), a.Relation, a.Intent)
	}
}
