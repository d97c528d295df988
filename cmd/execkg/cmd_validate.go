package main

import (
	"flag"
	"fmt"
	"io"
)

func init() {
	register(command{name: "validate", summary: "check rule-table files (default: the built-in pack); non-zero exit on any error", run: runValidate})
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	report := fl.String("report", "", "write the counts and diagnostics as JSON to this path")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg validate [--report PATH] [DIR]"); !ok {
		return code
	}
	rep, label, err := preflightDir(fl.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "execkg validate:", err)
		return 2
	}
	for _, d := range rep.Diagnostics {
		fmt.Fprintln(stderr, d.Error())
	}
	if *report != "" {
		if err := writeJSONAtomic(*report, rep); err != nil {
			fmt.Fprintln(stderr, "execkg validate:", err)
			return 2
		}
	}
	s := rep.Stats
	if !rep.OK() {
		fmt.Fprintf(stdout, "%s: %d error(s) in %d files\n", label, len(rep.Diagnostics), len(rep.Files))
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok (%d files, %d tables, %d rows, %d rules, %d conditions, %d actions)\n",
		label, s.Files, s.Tables, s.Rows, s.Rules, s.ConditionOccurrences, s.Actions)
	return 0
}
