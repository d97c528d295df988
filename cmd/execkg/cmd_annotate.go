package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/annotate"
)

func init() {
	register(command{name: "annotate", summary: "annotation index: index SOURCE_DIR INDEX_DIR | validate INDEX_DIR | apply SOURCE_DIR INDEX_DIR [OUT_DIR]", run: runAnnotate})
}

const annotateUsage = `usage: execkg annotate index|validate|apply ARGS

subcommands:
  execkg annotate index    SOURCE_DIR INDEX_DIR           collect unique (wording, context, role) nodes; keeps codes already filled
  execkg annotate validate INDEX_DIR                      one concept, one code; print coverage
  execkg annotate apply    SOURCE_DIR INDEX_DIR [OUT_DIR] write the index's concepts back into every occurrence (in place without OUT_DIR)

The built-in pack's sources are rules/packs/esc-ccs-2024 and its index rules/packs/esc-ccs-2024/meta.`

func runAnnotate(args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" || a == "help" {
			fmt.Fprintln(stdout, annotateUsage)
			return 0
		}
	}
	if len(args) == 0 {
		fmt.Fprintln(stderr, annotateUsage)
		return 2
	}
	var err error
	switch args[0] {
	case "index":
		if len(args) != 3 {
			break
		}
		err = annotateIndex(args[1], args[2], stdout)
		return exitErr(stderr, "annotate index", err)
	case "validate":
		if len(args) != 2 {
			break
		}
		idx, err := annotate.Load(os.DirFS(args[1]), ".")
		if err != nil {
			return exitErr(stderr, "annotate validate", err)
		}
		probs := annotate.Validate(idx)
		for _, p := range probs {
			fmt.Fprintln(stderr, p.String())
		}
		printCoverage(stdout, annotate.Cover(idx))
		if len(probs) > 0 {
			fmt.Fprintf(stdout, "%d problem(s)\n", len(probs))
			return 1
		}
		return 0
	case "apply":
		if len(args) != 3 && len(args) != 4 {
			break
		}
		out := args[1]
		if len(args) == 4 {
			out = args[3]
		}
		return exitErr(stderr, "annotate apply", annotateApply(args[1], args[2], out, stdout))
	}
	fmt.Fprintln(stderr, annotateUsage)
	return 2
}

func exitErr(stderr io.Writer, what string, err error) int {
	if err != nil {
		fmt.Fprintf(stderr, "execkg %s: %v\n", what, err)
		return 1
	}
	return 0
}

func loadChecked(dir string) (*rules.Pack, error) {
	rep, _, err := preflightDir(dir)
	if err != nil {
		return nil, err
	}
	if !rep.OK() {
		return nil, fmt.Errorf("%s fails the preflight (%d errors; run 'execkg validate %s'):\n%v", dir, len(rep.Diagnostics), dir, rep.Err())
	}
	return rep.Pack, nil
}

func annotateIndex(src, indexDir string, stdout io.Writer) error {
	p, err := loadChecked(src)
	if err != nil {
		return err
	}
	var prev *annotate.Index
	if _, err := os.Stat(filepath.Join(indexDir, annotate.InputFile)); err == nil {
		if prev, err = annotate.Load(os.DirFS(indexDir), "."); err != nil {
			return err
		}
	}
	idx := annotate.Build(p, prev)
	if err := writeJSONAtomic(filepath.Join(indexDir, annotate.InputFile), idx.Inputs); err != nil {
		return err
	}
	if err := writeJSONAtomic(filepath.Join(indexDir, annotate.OutputFile), idx.Outputs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d input nodes, %d output nodes\n", indexDir, len(idx.Inputs), len(idx.Outputs))
	printCoverage(stdout, annotate.Cover(idx))
	return nil
}

func annotateApply(src, indexDir, outDir string, stdout io.Writer) error {
	p, err := loadChecked(src)
	if err != nil {
		return err
	}
	idx, err := annotate.Load(os.DirFS(indexDir), ".")
	if err != nil {
		return err
	}
	if probs := annotate.Validate(idx); len(probs) > 0 {
		return fmt.Errorf("index %s has %d problem(s), first: %s; run 'execkg annotate validate %s'", indexDir, len(probs), probs[0], indexDir)
	}
	n, err := annotate.Apply(p, idx)
	if err != nil {
		return err
	}
	// Check the result before writing anything: a code shared by two
	// concepts must not reach the tables.
	if ds := rules.Validate(p); len(ds) > 0 {
		return fmt.Errorf("applying the index would make the tables invalid (%d errors), first: %v", len(ds), ds[0])
	}
	files := map[string][]byte{}
	for _, t := range p.Tables {
		b, err := rules.Format(t)
		if err != nil {
			return fmt.Errorf("format %s: %w", t.File, err)
		}
		files[filepath.Join(outDir, t.File)] = b
	}
	for path, b := range files {
		if err := writeFileAtomic(path, b); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "applied %s to %d table files in %s: %d entities changed\n", indexDir, len(files), outDir, n)
	return nil
}

func printCoverage(w io.Writer, c annotate.Coverage) {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	fmt.Fprintf(w, "input nodes: %d coded of %d (%.1f%%); condition occurrences: %d coded of %d (%.1f%%)\n",
		c.CodedInputNodes, c.InputNodes, pct(c.CodedInputNodes, c.InputNodes), c.CodedInputOccurrences, c.InputOccurrences, pct(c.CodedInputOccurrences, c.InputOccurrences))
	fmt.Fprintf(w, "output nodes: %d coded of %d (%.1f%%); action occurrences: %d coded of %d (%.1f%%)\n",
		c.CodedOutputNodes, c.OutputNodes, pct(c.CodedOutputNodes, c.OutputNodes), c.CodedOutputOccurrences, c.OutputOccurrences, pct(c.CodedOutputOccurrences, c.OutputOccurrences))
}
