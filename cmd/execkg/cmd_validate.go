package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/executablekg/execkg/rules/preflight"
)

func init() {
	register(command{name: "validate", summary: "check rule-table files (default: the built-in pack; --pack all: every one); non-zero exit on any error", run: runValidate})
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	report := fl.String("report", "", "write the counts and diagnostics as JSON to this path (with --pack all: an object keyed by pack id)")
	var pack, dir string
	registerPackFlags(fl, &pack, &dir)
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg validate [--report PATH] [--pack ID|all] [DIR]"); !ok {
		return code
	}
	srcs, err := packArgs(fl, pack, dir)
	if err != nil {
		fmt.Fprintln(stderr, "execkg validate:", err)
		return 2
	}
	code := 0
	reps := map[string]*preflight.Report{}
	for _, src := range srcs {
		rep, err := src.preflight()
		if err != nil {
			fmt.Fprintln(stderr, "execkg validate:", err)
			return 2
		}
		reps[src.ID] = rep
		for _, d := range rep.Diagnostics {
			fmt.Fprintln(stderr, d.Error())
		}
		s := rep.Stats
		if !rep.OK() {
			fmt.Fprintf(stdout, "%s: %d error(s) in %d files\n", src.Label, len(rep.Diagnostics), len(rep.Files))
			code = 1
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%d files, %d tables, %d rows, %d rules, %d conditions, %d actions)\n",
			src.Label, s.Files, s.Tables, s.Rows, s.Rules, s.ConditionOccurrences, s.Actions)
	}
	if *report != "" {
		var v any = reps
		if len(srcs) == 1 && pack != allPacks {
			v = reps[srcs[0].ID]
		}
		if err := writeJSONAtomic(*report, v); err != nil {
			fmt.Fprintln(stderr, "execkg validate:", err)
			return 2
		}
	}
	return code
}

// packArgs resolves --pack, --dir and the optional DIR argument of
// validate and stats.
func packArgs(fl *flag.FlagSet, pack, dir string) ([]packSrc, error) {
	if fl.NArg() > 1 {
		return nil, fmt.Errorf("one rule directory at most, got %d arguments", fl.NArg())
	}
	if d := fl.Arg(0); d != "" {
		if dir != "" {
			return nil, fmt.Errorf("rule directory given twice (--dir %s and %s)", dir, d)
		}
		dir = d
	}
	return resolvePacks(pack, dir)
}
