package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/executablekg/execkg/analysis/report"
)

func init() {
	register(command{name: "report", summary: "self-contained HTML report of the evaluation: results table, plots, condition coverage", run: runReport})
}

func runReport(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("report", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var f evalFlags
	f.register(fl)
	out := fl.String("out", "report.html", "write the HTML page here")
	title := fl.String("title", "ExecutableKG evaluation: ESC chronic coronary syndromes 2024", "page title")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg report [--out report.html] [reproduce flags]\n\nRuns the same evaluation as `execkg reproduce` and renders it as one offline HTML page (inline CSS and SVG, no scripts)."); !ok {
		return code
	}
	ctx := context.Background()
	p, res, cl, err := f.run(ctx, stdout)
	defer cl.run()
	if err != nil {
		fmt.Fprintln(stderr, "execkg report:", err)
		return 1
	}
	var notes []string
	if p.kgNote != "" {
		notes = append(notes, "KG arm: "+p.kgNote)
	}
	if b := res.Numbers.Baseline; b != nil {
		notes = append(notes, fmt.Sprintf("VectorRAG arm: %s over the top %d rows by exact cosine (%s), snapshot %s", b.Generator, b.K, b.Embedder, b.Snapshot))
	}
	v := res.Numbers.Vignettes
	notes = append(notes, fmt.Sprintf("%d vignettes, %d of %d usable concepts covered; reference recomputed and equal to the stored file (%d pairs)",
		v.Total, v.CoveredConcepts, v.UsableConcepts, res.Numbers.Reference.Pairs))
	var b bytes.Buffer
	if err := report.Render(&b, report.Input{Title: *title, Numbers: &res.Numbers, Scores: res.Scores, Coverage: res.Coverage, Pack: p.cfg.Pack, Notes: notes}); err != nil {
		fmt.Fprintln(stderr, "execkg report:", err)
		return 1
	}
	if err := writeFileAtomic(*out, b.Bytes()); err != nil {
		fmt.Fprintln(stderr, "execkg report:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (%d KB)\n", *out, b.Len()/1024)
	return 0
}
