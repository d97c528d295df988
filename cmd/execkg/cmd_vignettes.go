package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/reference"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/vignettes"
)

func init() {
	register(command{name: "vignettes", summary: "generate or validate the evaluation vignettes", run: runVignettes})
}

func runVignettes(args []string, stdout, stderr io.Writer) int {
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "usage: execkg vignettes generate|validate [flags]\n\nsubcommands:")
		fmt.Fprintln(w, "  execkg vignettes generate [--root DIR] [--check] [--lexicon PATH] [--rules DIR]")
		fmt.Fprintln(w, "  execkg vignettes validate [--file PATH] [--rules DIR]")
	}
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "generate":
		return runVignettesGenerate(args[1:], stdout, stderr)
	case "validate":
		return runVignettesValidate(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "execkg vignettes: unknown subcommand %q\n", args[0])
	usage(stderr)
	return 2
}

// loadPack loads a rule directory, or the built-in pack for "".
func loadPack(dir string) (*rules.Pack, error) {
	fsys, sub, _, err := packSource(dir)
	if err != nil {
		return nil, err
	}
	return rules.LoadFS(fsys, sub)
}

func runVignettesGenerate(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("vignettes generate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	root := fl.String("root", ".", "repository root: writes vignettes/data/{vignettes.jsonl,excluded.json} and reference/data/reference*.jsonl under it")
	check := fl.Bool("check", false, "write nothing; exit 1 when the files under --root differ from a fresh generation")
	lexPath := fl.String("lexicon", "", "concept lexicon for the synonym vignettes (default: the pack's meta/lexicon.json)")
	rulesDir := fl.String("rules", "", "rule directory (default: the built-in pack)")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg vignettes generate [--root DIR] [--check] [--lexicon PATH] [--rules DIR]"); !ok {
		return code
	}
	p, err := loadPack(*rulesDir)
	if err != nil {
		fmt.Fprintln(stderr, "execkg vignettes generate:", err)
		return 1
	}
	set, files, err := generateAll(p, *lexPath)
	if err != nil {
		fmt.Fprintln(stderr, "execkg vignettes generate:", err)
		return 1
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	stale := 0
	for _, n := range names {
		path := filepath.Join(*root, n)
		data := files[n]
		old, rerr := os.ReadFile(path)
		if *check {
			switch {
			case data == nil && rerr == nil:
				fmt.Fprintf(stderr, "%s should not exist (no concepts are merged); run `execkg vignettes generate`\n", path)
				stale++
			case data != nil && (rerr != nil || !bytes.Equal(old, data)):
				fmt.Fprintf(stderr, "%s differs from a fresh generation; run `execkg vignettes generate`\n", path)
				stale++
			}
			continue
		}
		if data == nil { // a merged reference that no longer applies
			if rerr == nil {
				if err := os.Remove(path); err != nil {
					fmt.Fprintln(stderr, "execkg vignettes generate:", err)
					return 1
				}
				fmt.Fprintf(stdout, "removed %s\n", path)
			}
			continue
		}
		if err := writeFileAtomic(path, data); err != nil {
			fmt.Fprintln(stderr, "execkg vignettes generate:", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", path)
	}
	if stale > 0 {
		return 1
	}
	counts := map[string]int{}
	for _, v := range set.Vignettes {
		counts[v.Category]++
	}
	fmt.Fprintf(stdout, "%d vignettes (near %d, synonym %d, paraphrase %d); %d workflow-only concepts excluded\n",
		len(set.Vignettes), counts[vignettes.Near], counts[vignettes.Synonym], counts[vignettes.Paraphrase], len(set.Excluded))
	return 0
}

// generateAll generates the vignettes and computes the reference (and the
// merged-concept reference when any concepts are merged). Files are keyed
// by path from the repository root; a nil value means the file must not
// exist.
func generateAll(p *rules.Pack, lexPath string) (*vignettes.Set, map[string][]byte, error) {
	set, err := generateVignettes(p, lexPath)
	if err != nil {
		return nil, nil, err
	}
	vf, err := set.Files()
	if err != nil {
		return nil, nil, err
	}
	files := map[string][]byte{}
	for n, b := range vf {
		files[filepath.Join(vignettes.RepoDir, n)] = b
	}
	ref, merged, err := computeReferences(p, set.Vignettes)
	if err != nil {
		return nil, nil, err
	}
	if files[filepath.Join(reference.RepoDir, reference.ReferenceFile)], err = reference.Marshal(ref); err != nil {
		return nil, nil, err
	}
	mp := filepath.Join(reference.RepoDir, reference.MergedFile)
	files[mp] = nil
	if merged != nil {
		if files[mp], err = reference.Marshal(merged); err != nil {
			return nil, nil, err
		}
	}
	return set, files, nil
}

// computeReferences computes the reference and, when the equivalence file
// or the pack merges any concepts, the merged-concept variant (else nil).
func computeReferences(p *rules.Pack, vs []vignettes.Vignette) (ref, merged []reference.Case, err error) {
	ref = reference.Compute(p, vs, nil)
	eq, err := reference.DefaultEquivalences()
	if err != nil {
		return nil, nil, err
	}
	m, err := reference.MergeMap(p, eq)
	if err != nil {
		return nil, nil, err
	}
	if len(m) > 0 {
		merged = reference.Compute(p, vs, m)
	}
	return ref, merged, nil
}

// generateVignettes runs the generator on the shipped clause table and
// paraphrases.
func generateVignettes(p *rules.Pack, lexPath string) (*vignettes.Set, error) {
	cl, err := vignettes.DefaultClauses()
	if err != nil {
		return nil, err
	}
	para, err := vignettes.DefaultParaphrases()
	if err != nil {
		return nil, err
	}
	lex, err := lexicon.Load(lexPath)
	if err != nil {
		return nil, err
	}
	return vignettes.Generate(vignettes.Inputs{Pack: p, Clauses: cl, Lexicon: lex, Paraphrases: para})
}

func runVignettesValidate(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("vignettes validate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	file := fl.String("file", "", "vignettes to check, JSON lines (default: the shipped set)")
	rulesDir := fl.String("rules", "", "rule directory (default: the built-in pack)")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg vignettes validate [--file PATH] [--rules DIR]"); !ok {
		return code
	}
	p, err := loadPack(*rulesDir)
	if err != nil {
		fmt.Fprintln(stderr, "execkg vignettes validate:", err)
		return 2
	}
	vs, err := vignettes.Load(*file)
	if err != nil {
		fmt.Fprintln(stderr, "execkg vignettes validate:", err)
		return 2
	}
	var ex []vignettes.Exclusion
	if *file == "" {
		doc, err := vignettes.DefaultExcluded()
		if err != nil {
			fmt.Fprintln(stderr, "execkg vignettes validate:", err)
			return 2
		}
		ex = doc.Excluded
	}
	rep := vignettes.Validate(p, vs, ex)
	printVignetteReport(stdout, rep)
	for _, pr := range rep.Problems {
		fmt.Fprintln(stderr, pr.Error())
	}
	if !rep.OK() {
		fmt.Fprintf(stderr, "%d problem(s)\n", len(rep.Problems))
		return 1
	}
	return 0
}

func printVignetteReport(w io.Writer, rep *vignettes.Report) {
	fmt.Fprintf(w, "vignettes: near %d, synonym %d, paraphrase %d\n", rep.Counts[vignettes.Near], rep.Counts[vignettes.Synonym], rep.Counts[vignettes.Paraphrase])
	fmt.Fprintf(w, "coverage: %d of %d usable concepts stated by a near vignette (%d workflow-only concepts excluded)\n", rep.Covered, rep.Usable, rep.ExcludedConcepts)
	fmt.Fprintf(w, "style: %.2f findings per vignette, %d–%d words\n", rep.MeanFindings, rep.MinWords, rep.MaxWords)
}
