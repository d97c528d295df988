package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/analysis/docbench"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/vignettes/documents"
)

// docFlags select and log the document benchmark split that reproduce and
// report score.
type docFlags struct {
	split          string
	file           string
	errorsCSV      string
	log            string
	note           string
	remeasureFinal bool
}

func (d *docFlags) register(fl *flag.FlagSet) {
	fl.StringVar(&d.split, "documents", documents.Dev, "document benchmark split to score: dev, test (measured sparingly, logged), final (measured once, logged), fhir-dev, fhir-test (coded EHR records; logged) or none")
	fl.StringVar(&d.file, "documents-file", "", "score this documents JSON-lines file instead of a shipped split (not logged)")
	fl.StringVar(&d.errorsCSV, "documents-errors", "documents_errors.csv", "write every document miss and violation, with its stage, to this CSV")
	fl.StringVar(&d.log, "documents-log", "", "measurement log for the test and final splits (default "+documents.LogFile+", run from the repository root)")
	fl.StringVar(&d.note, "documents-note", "", "a note stored with a logged measurement")
	fl.BoolVar(&d.remeasureFinal, "remeasure-final", false, "measure the final split although the log says it was measured (say why in --documents-note)")
}

// docRun is what scoring the documents needs from the reproduction.
type docRun struct {
	asker   analysis.Asker
	pack    *rules.Pack
	dir     string // --dir of the pack ("" = built-in)
	lexPath string
	workers int
}

// score runs and scores the selected split; nil when none is selected.
func (d *docFlags) score(ctx context.Context, r docRun, stdout io.Writer) (*docbench.Score, error) {
	if d.split == "none" && d.file == "" {
		return nil, nil
	}
	if r.asker == nil {
		fmt.Fprintln(stdout, "Documents: not scored (no KG pipeline in this run; drop --no-kg / --kg-predictions).")
		return nil, nil
	}
	split, docs, err := d.load()
	if err != nil {
		return nil, err
	}
	logPath := ""
	if d.file == "" && documents.Logged(split) {
		if logPath, err = d.checkLog(split); err != nil {
			return nil, err
		}
	}
	fsys, sub, _, err := packSource(r.dir)
	if err != nil {
		return nil, err
	}
	h, err := rules.LoadHierarchyFS(fsys, sub)
	if err != nil {
		return nil, err
	}
	lex, err := dirLexicon(r.dir, r.lexPath)
	if err != nil {
		return nil, err
	}
	if probs := documents.Validate(docs, func(id string) bool { _, _, ok := r.pack.Row(id); return ok }); len(probs) > 0 {
		return nil, fmt.Errorf("documents (%s): %d problem(s), first: %v", split, len(probs), probs[0])
	}
	results, err := docbench.Ask(ctx, r.asker, docs, r.workers)
	if err != nil {
		return nil, err
	}
	k := docbench.PackKnowledge(analysis.NewPackIndex(r.pack), lex, h)
	s := k.Run(split, docs, results)
	if logPath != "" {
		m := documents.Measurement{Time: time.Now().UTC().Format(time.RFC3339), Commit: gitCommit(), Split: split,
			Docs: s.Total.Docs, MustHit: s.Total.MustHit, Must: s.Total.Must, Violated: s.Total.Violated,
			MustNot: s.Total.MustNot, Clean: s.Total.Clean, Recall: s.Total.Recall(), Violation: s.Total.ViolationRate(), Note: d.note}
		if err := documents.AppendLog(logPath, m); err != nil {
			return nil, fmt.Errorf("documents: log the %s measurement: %w", split, err)
		}
		fmt.Fprintf(stdout, "logged the %s measurement in %s\n", split, logPath)
	}
	if d.errorsCSV != "" {
		csv, err := docbench.ErrorCSV(s.Errors)
		if err == nil {
			err = writeFileAtomic(d.errorsCSV, csv)
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (d *docFlags) load() (string, []documents.Document, error) {
	if d.file != "" {
		docs, err := documents.LoadFile(d.file)
		return d.file, docs, err
	}
	docs, err := documents.Load(d.split)
	return d.split, docs, err
}

// checkLog finds the measurement log and refuses a second final
// measurement unless asked.
func (d *docFlags) checkLog(split string) (string, error) {
	p := d.log
	if p == "" {
		p = documents.LogFile
		if _, err := os.Stat(documents.RepoDir); err != nil {
			return "", fmt.Errorf("the %s split is logged when measured: run from the repository root or pass --documents-log PATH", split)
		}
	}
	ms, err := documents.ReadLog(p)
	if err != nil {
		return "", err
	}
	if split == documents.Final && !d.remeasureFinal {
		for _, m := range ms {
			if m.Split == documents.Final {
				return "", fmt.Errorf("the final split was measured on %s at %s; it is measured once (pass --remeasure-final with --documents-note saying why)", m.Time, m.Commit)
			}
		}
	}
	return p, nil
}

// gitCommit names the checked-out commit ("-dirty" with uncommitted
// changes to tracked files), or "unknown" outside a repository.
func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output()
	if err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "-dirty"
	}
	return c
}
