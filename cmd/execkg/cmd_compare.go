package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/analysis/reproduce"
	"github.com/executablekg/execkg/reference"
	"github.com/executablekg/execkg/vignettes"
)

func init() {
	register(command{name: "compare", summary: "score prediction files against the reference: NAME=PATH ... (first is compared with the others by McNemar)", run: runCompare})
}

func runCompare(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("compare", flag.ContinueOnError)
	fl.SetOutput(stderr)
	rulesDir := fl.String("rules", "", "rule directory (default: the built-in pack)")
	vpath := fl.String("vignettes", "", "vignettes, JSON lines (default: the shipped set)")
	rpath := fl.String("reference", "", "reference, JSON lines (default: the shipped reference)")
	noCheck := fl.Bool("no-check", false, "do not validate the vignettes or recompute the reference (for a reference from elsewhere)")
	out := fl.String("out", "", "write every number as JSON here")
	errorsCSV := fl.String("errors", "", "write the first arm's error analysis (needs its trace) as CSV here")
	rescoreK := fl.Int("rescore", 0, "write the first arm re-scored from its trace with this many anchors per finding to --rescore-out")
	rescoreOut := fl.String("rescore-out", "", "where --rescore writes the re-scored predictions (JSON lines)")
	topk := fl.String("topk", "1,2,3", "anchors-per-finding settings to re-score the first arm at, in the summary (each at most its trace's top-k)")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg compare [flags] NAME=PATH [NAME=PATH ...]\n\nPrediction files are JSON lines of engine.Result (case_id, predicted_row_ids, error; a trace enables the error analysis)."); !ok {
		return code
	}
	if fl.NArg() == 0 {
		fl.Usage()
		return 2
	}
	fail := func(err error) int { fmt.Fprintln(stderr, "execkg compare:", err); return 1 }
	pack, err := loadPack(*rulesDir)
	if err != nil {
		return fail(err)
	}
	vs, err := vignettes.Load(*vpath)
	if err != nil {
		return fail(err)
	}
	ref, err := reference.Load(*rpath)
	if err != nil {
		return fail(err)
	}
	cfg := reproduce.Config{Pack: pack, Vignettes: vs, Reference: ref, SkipChecks: *noCheck}
	if *vpath == "" {
		doc, err := vignettes.DefaultExcluded()
		if err != nil {
			return fail(err)
		}
		cfg.Excluded = doc.Excluded
	}
	if *rpath == "" {
		if cfg.Merged, err = reference.DefaultMerged(); err != nil {
			return fail(err)
		}
	}
	if cfg.Equivalences, err = reference.DefaultEquivalences(); err != nil {
		return fail(err)
	}
	for _, s := range strings.Split(*topk, ",") {
		var k int
		if _, err := fmt.Sscanf(strings.TrimSpace(s), "%d", &k); err == nil && k > 0 {
			cfg.TopK = append(cfg.TopK, k)
		}
	}
	for i, a := range fl.Args() {
		name, path, ok := strings.Cut(a, "=")
		if !ok || name == "" || path == "" {
			return fail(fmt.Errorf("argument %q: want NAME=PATH", a))
		}
		arm := &analysis.FileArm{ArmName: name, Path: path}
		if i == 0 {
			cfg.Ours = arm
		} else {
			cfg.Others = append(cfg.Others, arm)
		}
	}
	ctx := context.Background()
	res, err := reproduce.Run(ctx, cfg)
	if err != nil {
		// A trace that cannot serve a k is reported in the numbers, not
		// fatal; anything else is.
		return fail(err)
	}
	reproduce.PrintTable(stdout, &res.Numbers)
	reproduce.PrintDetails(stdout, &res.Numbers)
	if *out != "" {
		if err := writeJSONAtomic(*out, res.Numbers); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", *out)
	}
	if *errorsCSV != "" {
		if res.Numbers.Ours == nil || res.Numbers.Ours.TracedCases == 0 {
			return fail(fmt.Errorf("--errors: %s has no traces (run the pipeline with --debug)", cfg.Ours.Name()))
		}
		b, err := analysis.ErrorCSV(res.Errors)
		if err == nil {
			err = writeFileAtomic(*errorsCSV, b)
		}
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "wrote %s (%d errors)\n", *errorsCSV, len(res.Errors))
	}
	if *rescoreK > 0 {
		if *rescoreOut == "" {
			return fail(fmt.Errorf("--rescore needs --rescore-out"))
		}
		first := res.Results[cfg.Ours.Name()]
		rescored, st, err := analysis.RescoreAll(analysis.NewPackIndex(pack), first, *rescoreK)
		if err != nil {
			return fail(err)
		}
		var b strings.Builder
		if err := analysis.WritePredictions(&b, rescored); err != nil {
			return fail(err)
		}
		if err := writeFileAtomic(*rescoreOut, []byte(b.String())); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "wrote %s (top %d; %d unattributed evidence items kept; self-check mismatches %d)\n", *rescoreOut, *rescoreK, st.Unattributed, st.SelfCheckMismatches)
	}
	return 0
}
