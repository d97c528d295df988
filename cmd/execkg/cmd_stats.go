package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/executablekg/execkg/rules"
)

func init() {
	register(command{name: "stats", summary: "counts of a pack beside the reference system's published figures", run: runStats})
}

func runStats(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("stats", flag.ContinueOnError)
	fl.SetOutput(stderr)
	report := fl.String("report", "", "also write the counts as JSON to this path")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg stats [--report PATH] [DIR]"); !ok {
		return code
	}
	rep, label, err := preflightDir(fl.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "execkg stats:", err)
		return 2
	}
	if *report != "" {
		if err := writeJSONAtomic(*report, rep); err != nil {
			fmt.Fprintln(stderr, "execkg stats:", err)
			return 2
		}
	}
	printStats(stdout, label, rep.Stats)
	if !rep.OK() {
		fmt.Fprintf(stderr, "warning: %d validation error(s); run 'execkg validate' for details\n", len(rep.Diagnostics))
		return 1
	}
	return 0
}

func printStats(w io.Writer, label string, s rules.Stats) {
	ref := rules.ReferenceStats
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
	classes := []string{"I", "IIa", "IIb", "III"}
	for _, c := range classes {
		fmt.Fprintf(tw, "  class %s (rows; publication %d)\t%d\t%d\t\n", c, rules.PublishedClassSplit[c], s.ClassSplit[c], ref["class_"+c])
	}
	levels := make([]string, 0, len(s.LevelSplit))
	for l := range s.LevelSplit {
		levels = append(levels, l)
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
	if len(s.CodeSystems) > 0 {
		line(fmt.Sprintf("value sets: concepts rules test with a code (of %d)", s.UniqueConcepts), s.CodedConcepts, "")
		systems := make([]string, 0, len(s.CodeSystems))
		for k := range s.CodeSystems {
			systems = append(systems, k)
		}
		sort.Strings(systems)
		for _, k := range systems {
			c := s.CodeSystems[k]
			fmt.Fprintf(tw, "  %s: codes (class prefixes) / concepts (tested by rules)\t%d (%d) / %d (%d)\t–\t\n", c.Name, c.Codes, c.Prefixes, c.Concepts, c.InputConcepts)
		}
	}
	tw.Flush()
}
