package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

func init() {
	register(command{name: "stats", summary: "counts of a pack beside the reference system's published figures", run: runStats})
}

func runStats(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("stats", flag.ContinueOnError)
	fl.SetOutput(stderr)
	report := fl.String("report", "", "also write the counts as JSON to this path (with --pack all: an object keyed by pack id)")
	var pack, dir string
	registerPackFlags(fl, &pack, &dir)
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg stats [--report PATH] [--pack ID|all] [DIR]"); !ok {
		return code
	}
	srcs, err := packArgs(fl, pack, dir)
	if err != nil {
		fmt.Fprintln(stderr, "execkg stats:", err)
		return 2
	}
	code := 0
	reps := map[string]any{}
	for i, src := range srcs {
		rep, err := src.preflight()
		if err != nil {
			fmt.Fprintln(stderr, "execkg stats:", err)
			return 2
		}
		reps[src.ID] = rep
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		// The reference system's figures are of the CCS pack; beside another
		// pack they would read as its target.
		ref := rules.ReferenceStats
		if rep.Pack != nil && rep.Pack.Guideline.ID != packs.DefaultID {
			ref = map[string]int{}
		}
		printStats(stdout, src.Label, rep.Stats, rep.Pack.Scheme(), ref)
		if !rep.OK() {
			fmt.Fprintf(stderr, "warning: %d validation error(s); run 'execkg validate' for details\n", len(rep.Diagnostics))
			code = 1
		}
	}
	if *report != "" {
		var v any = reps
		if len(srcs) == 1 && pack != allPacks {
			v = reps[srcs[0].ID]
		}
		if err := writeJSONAtomic(*report, v); err != nil {
			fmt.Fprintln(stderr, "execkg stats:", err)
			return 2
		}
	}
	return code
}

func printStats(w io.Writer, label string, s rules.Stats, sc *rules.Grading, ref map[string]int) {
	fmt.Fprintf(w, "%s\n\n", label)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tours\treference system\t")
	line := func(name string, ours int, refKey string) {
		r := "–"
		if v, ok := ref[refKey]; ok {
			r = fmt.Sprint(v)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t\n", name, ours, r)
	}
	line("files", s.Files, "")
	line("tables", s.Tables, "")
	line("rows", s.Rows, "")
	line("rules", s.Rules, "rules")
	if sc.Scheme == rules.DefaultGrading.Scheme {
		// The ESC classes, beside the CCS publication and the reference
		// system, which share the scheme.
		for _, c := range sc.Values(false) {
			fmt.Fprintf(tw, "  class %s (rows; publication %d)\t%d\t%d\t\n", c, rules.PublishedClassSplit[c], s.ClassSplit[c], ref["class_"+c])
		}
	} else {
		for _, g := range sc.Grades {
			line("  "+sc.Label(g.Value, "")+" (rows)", s.ClassSplit[g.Value], "")
		}
		line("  neither for nor against (direction INSUFFICIENT)", s.DirectionSplit[rules.DirectionInsufficient], "")
	}
	levels := make([]string, 0, len(s.LevelSplit))
	for l := range s.LevelSplit {
		if l != "" || len(sc.Levels) > 0 {
			levels = append(levels, l)
		}
	}
	sort.Strings(levels)
	for _, l := range levels {
		line("  level "+l, s.LevelSplit[l], "")
	}
	line("condition occurrences", s.ConditionOccurrences, "condition_occurrences")
	line("unique input nodes (wording, context, role)", s.UniqueInputNodes, "unique_input_nodes")
	line("unique concepts", s.UniqueConcepts, "")
	line("  PRESENT", s.Operators.Present, "present")
	line("  ABSENT", s.Operators.Absent, "absent")
	line("  numeric", s.Operators.Numeric, "numeric")
	line("  UNLESS (exceptions)", s.Operators.Unless, "")
	line("  dated by a time window", s.Windows, "")
	line("actions", s.Actions, "actions")
	for _, in := range rules.Intents {
		if n := s.IntentSplit[in]; n > 0 {
			line("  intent "+in, n, "")
		}
	}
	if n := s.IntentSplit[""]; n > 0 {
		line("  no intent", n, "")
	}
	line("unique output nodes", s.UniqueOutputNodes, "")
	line("single-condition rules", s.SingleConditionRules, "single_condition_rules")
	line("rules with an OR group", s.RulesWithORGroup, "")
	line("workflow / availability rows", s.WorkflowRows, "")
	line("definitions: is-a relations", s.Definitions.IsA, "")
	line("definitions: numeric bands", s.Definitions.Bands, "")
	line("definitions: composites (any/all/at-least-N)", s.Definitions.Composites, "")
	line("  composite members with a time window", s.Definitions.Windows, "")
	line("definitions: implied value bands", s.Definitions.Values, "")
	line("coded input nodes", s.CodedInputNodes, "coded_input_nodes")
	line("uncoded input nodes", s.UncodedInputNodes, "")
	line("coded condition occurrences", s.CodedOccurrences, "")
	line("uncoded condition occurrences", s.UncodedOccurrences, "")
	line("coded actions", s.CodedActions, "")
	line("distinct SNOMED CT codes", s.DistinctCodes, "")
	tw.Flush()
}
