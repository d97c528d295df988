package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
)

func init() {
	register(command{
		name:    "lexicon",
		summary: "concept lexicon: import-rf2 (SNOMED CT synonyms), check (coverage of the pack), lookup",
		run:     runLexicon,
	})
}

func lexiconUsage(w io.Writer) {
	fmt.Fprintln(w, `usage: execkg lexicon import-rf2|check|lookup [flags] ARGS

subcommands:
  execkg lexicon import-rf2 DESCRIPTIONS_FILE [--lexicon PATH] [--out PATH]
      add the active synonyms and fully specified names (semantic tag stripped)
      of an RF2 description file to the lexicon concepts carrying that snomed_id;
      writes the lexicon to --out (default: standard output)
  execkg lexicon check [--pack DIR] [--lexicon PATH]
      every input concept of the pack must have an entry, and no term may name
      two concepts unless listed as ambiguous; exit status 1 otherwise
  execkg lexicon lookup [--lexicon PATH] TERM...
      the concepts a term names

--lexicon defaults to the pack's embedded meta/lexicon.json.`)
}

func runLexicon(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		lexiconUsage(stdout)
		return 0
	}
	switch args[0] {
	case "import-rf2":
		return lexiconImportRF2(args[1:], stdout, stderr)
	case "check":
		return lexiconCheck(args[1:], stdout, stderr)
	case "lookup":
		return lexiconLookup(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "execkg lexicon: unknown subcommand %q\n\n", args[0])
	lexiconUsage(stderr)
	return 2
}

// parseInterspersed parses flags that may come before or after the
// positional arguments (execkg lexicon import-rf2 FILE --out X).
func parseInterspersed(fs *flag.FlagSet, args []string, stdout, stderr io.Writer, header string) ([]string, int, bool) {
	var pos []string
	for {
		if code, ok := parseFlags(fs, args, stdout, stderr, header); !ok {
			return nil, code, false
		}
		if fs.NArg() == 0 {
			return pos, 0, true
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func lexiconImportRF2(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lexicon import-rf2", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lexPath := fs.String("lexicon", "", "lexicon to extend (default: the embedded one)")
	out := fs.String("out", "", "write the extended lexicon here (default: standard output)")
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr, "usage: execkg lexicon import-rf2 DESCRIPTIONS_FILE [--lexicon PATH] [--out PATH]")
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintln(stderr, "execkg lexicon import-rf2: want exactly one RF2 description file (sct2_Description_Snapshot-en_….txt)")
		return 2
	}
	lex, err := lexicon.Load(*lexPath)
	if err != nil {
		fmt.Fprintf(stderr, "execkg lexicon import-rf2: %v\n", err)
		return 1
	}
	f, err := os.Open(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "execkg lexicon import-rf2: %v\n", err)
		return 1
	}
	defer f.Close()
	st, err := lex.ImportRF2(pos[0], f)
	if err != nil {
		fmt.Fprintf(stderr, "execkg lexicon import-rf2: %v\n", err)
		return 1
	}
	data, err := lex.Marshal()
	if err != nil {
		fmt.Fprintf(stderr, "execkg lexicon import-rf2: %v\n", err)
		return 1
	}
	if *out == "" {
		stdout.Write(data)
	} else if err := writeFileAtomic(*out, data); err != nil {
		fmt.Fprintf(stderr, "execkg lexicon import-rf2: %v\n", err)
		return 1
	}
	coded := 0
	for _, c := range lex.Concepts {
		if c.SnomedID != "" {
			coded++
		}
	}
	fmt.Fprintf(stderr, "read %d description rows; %d active synonyms/FSNs belong to the %d coded lexicon concepts; added %d new synonyms to %d concepts\n",
		st.Rows, st.Matched, coded, st.Added, st.Concepts)
	if conf := lex.Conflicts(); len(conf) > 0 {
		fmt.Fprintf(stderr, "warning: %d terms now name more than one concept (run `execkg lexicon check`)\n", len(conf))
	}
	return 0
}

func lexiconCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lexicon check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lexPath := fs.String("lexicon", "", "lexicon to check (default: the embedded one)")
	packDir := fs.String("pack", "", "rule-table directory (default: the embedded pack)")
	if _, code, ok := parseInterspersed(fs, args, stdout, stderr, "usage: execkg lexicon check [--pack DIR] [--lexicon PATH]"); !ok {
		return code
	}
	lex, err := lexicon.Load(*lexPath)
	if err != nil {
		fmt.Fprintf(stderr, "execkg lexicon check: %v\n", err)
		return 1
	}
	fsys, sub, label, err := packSource(*packDir)
	if err != nil {
		fmt.Fprintf(stderr, "execkg lexicon check: %v\n", err)
		return 1
	}
	pack, err := rules.LoadFS(fsys, sub)
	if err != nil {
		fmt.Fprintf(stderr, "execkg lexicon check: %v\n", err)
		return 1
	}
	names := map[string]string{}
	for _, r := range pack.Rules() {
		for _, c := range r.Conditions() {
			names[lexicon.Key(c.Entity.Concept())] = c.Entity.Concept()
		}
	}
	var missing []string
	for k, n := range names {
		if lex.Concept(k) == nil {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	conflicts := lex.Conflicts()
	synonyms := 0
	for _, c := range lex.Concepts {
		synonyms += len(c.Synonyms)
	}
	fmt.Fprintf(stdout, "%s: %d input concepts; lexicon: %d concepts, %d synonyms\n", label, len(names), len(lex.Concepts), synonyms)
	for _, m := range missing {
		fmt.Fprintf(stdout, "missing: %q has no lexicon entry\n", m)
	}
	for _, c := range conflicts {
		fmt.Fprintf(stdout, "conflict: %q names %s (keep it in one entry or list it under \"ambiguous\")\n", c.Term, strings.Join(c.Concepts, "; "))
	}
	if len(missing) > 0 || len(conflicts) > 0 {
		fmt.Fprintf(stdout, "FAIL: %d missing, %d conflicts\n", len(missing), len(conflicts))
		return 1
	}
	fmt.Fprintln(stdout, "ok: every input concept has an entry, no term names two concepts")
	return 0
}

func lexiconLookup(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lexicon lookup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lexPath := fs.String("lexicon", "", "lexicon (default: the embedded one)")
	terms, code, ok := parseInterspersed(fs, args, stdout, stderr, "usage: execkg lexicon lookup [--lexicon PATH] TERM...")
	if !ok {
		return code
	}
	if len(terms) == 0 {
		fmt.Fprintln(stderr, "execkg lexicon lookup: give at least one term")
		return 2
	}
	lex, err := lexicon.Load(*lexPath)
	if err != nil {
		fmt.Fprintf(stderr, "execkg lexicon lookup: %v\n", err)
		return 1
	}
	status := 0
	for _, t := range terms {
		cs := lex.Lookup(t)
		if len(cs) == 0 {
			fmt.Fprintf(stdout, "%s\t(no concept)\n", t)
			status = 1
			continue
		}
		for _, c := range cs {
			code := ""
			if c.SnomedID != "" {
				code = " [SCTID " + c.SnomedID + "]"
			}
			fmt.Fprintf(stdout, "%s\t%s%s\n", t, c.Concept, code)
		}
	}
	return status
}
