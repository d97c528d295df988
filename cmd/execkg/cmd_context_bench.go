package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/consistency/contextbench"
)

func init() {
	register(command{name: "context-bench", summary: "execkg's ConText analyser and medspaCy's side by side on an annotated corpus: per-label P/R/F1, sentences per second", run: runContextBench})
}

//go:embed context_bench_medspacy.py
var medspacyScript []byte

// defaultBenchCorpus is the development half; the held-out half is
// measured sparingly (see its README).
const defaultBenchCorpus = "engine/consistency/testdata/corpus/dev.jsonl"

// EnvMedspacyPython names the Python interpreter that has medspaCy.
const EnvMedspacyPython = "EXECKG_MEDSPACY_PYTHON"

type benchSystem struct {
	name   string
	pred   []contextbench.Labels
	res    contextbench.Result
	rate   float64 // sentences per second
	note   string  // why it did not run
	detail string  // version and how it was timed
}

func runContextBench(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("context-bench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	python := fl.String("python", os.Getenv(EnvMedspacyPython), "Python interpreter with medspaCy installed (default $"+EnvMedspacyPython+"); empty skips medspaCy. scripts/context-bench.sh installs it into a virtual environment")
	logPath := fl.String("log", "", "append this measurement (date, commit, figures for both systems) to FILE")
	misses := fl.String("misses", "", "write the rows where execkg disagrees with the gold to FILE (JSON lines), for development")
	minSec := fl.Float64("min-seconds", 1, "repeat execkg's pass over the rows for at least this long when timing it")
	usage := fmt.Sprintf(`usage: execkg context-bench [flags] [CORPUS.jsonl ...]

Runs execkg's analyser (engine/consistency) and medspaCy's ConText with its
default rules on the same rows and reports, per label (negated, uncertain,
hypothetical, experiencer), precision, recall and F1, and sentences per
second; then, per kind of row, how many each gets right on every label.
Rows are {"id","genre","text","target","negated","uncertain","hypothetical",
"experiencer","kind"}; the default corpus is %s.
medspaCy marks the first case-insensitive occurrence of the target as the
entity. Both are timed in process, without start-up or model loading.
`, defaultBenchCorpus)
	if code, ok := parseFlags(fl, args, stdout, stderr, usage); !ok {
		return code
	}
	paths := fl.Args()
	if len(paths) == 0 {
		paths = []string{defaultBenchCorpus}
	}
	code := 0
	for _, p := range paths {
		rows, err := contextbench.Read(p)
		if err != nil {
			hint := ""
			if errors.Is(err, os.ErrNotExist) && len(fl.Args()) == 0 {
				hint = " (the default corpus is relative to the repository root: run there or name a corpus file)"
			}
			fmt.Fprintf(stderr, "execkg context-bench: %v%s\n", err, hint)
			return 2
		}
		ek := benchExeckg(rows, time.Duration(*minSec*float64(time.Second)))
		ms := benchMedspacy(rows, *python, stderr)
		report := benchReport(p, rows, []*benchSystem{ek, ms})
		fmt.Fprint(stdout, report)
		if *misses != "" {
			if err := writeMisses(*misses, rows, ek.pred); err != nil {
				fmt.Fprintf(stderr, "execkg context-bench: %v\n", err)
				code = 1
			}
		}
		if *logPath != "" {
			if err := appendBenchLog(*logPath, report); err != nil {
				fmt.Fprintf(stderr, "execkg context-bench: %v\n", err)
				code = 1
			} else {
				fmt.Fprintf(stdout, "appended to %s\n", *logPath)
			}
		}
	}
	return code
}

func benchExeckg(rows []contextbench.Row, minDur time.Duration) *benchSystem {
	s := &benchSystem{name: "execkg"}
	s.pred = make([]contextbench.Labels, len(rows))
	for i, r := range rows {
		s.pred[i] = contextbench.Execkg(r)
	}
	// Time whole passes until minDur has gone by.
	n := 0
	start := time.Now()
	for n == 0 || time.Since(start) < minDur {
		for _, r := range rows {
			consistency.Analyze(r.Text, r.Target)
		}
		n++
	}
	el := time.Since(start).Seconds()
	s.rate = float64(n*len(rows)) / el
	s.detail = fmt.Sprintf("%d pass(es) over the rows in %.2f s", n, el)
	s.res = contextbench.Evaluate(rows, s.pred)
	return s
}

// benchMedspacy runs the embedded script under python; a system with a
// note (and no predictions) when it cannot.
func benchMedspacy(rows []contextbench.Row, python string, stderr io.Writer) *benchSystem {
	s := &benchSystem{name: "medspaCy"}
	if python == "" {
		s.note = "skipped: no Python with medspaCy given (--python or $" + EnvMedspacyPython + "); scripts/context-bench.sh installs one"
		return s
	}
	dir, err := os.MkdirTemp("", "execkg-context-bench")
	if err != nil {
		s.note = "skipped: " + err.Error()
		return s
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "context_bench_medspacy.py")
	if err := os.WriteFile(script, medspacyScript, 0o644); err != nil {
		s.note = "skipped: " + err.Error()
		return s
	}
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, r := range rows {
		_ = enc.Encode(map[string]string{"text": r.Text, "target": r.Target})
	}
	cmd := exec.Command(python, script)
	cmd.Stdin = &in
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if i := strings.LastIndex(msg, "\n"); i >= 0 {
			msg = msg[i+1:]
		}
		s.note = fmt.Sprintf("skipped: %s %s failed (%v): %s", python, script, err, msg)
		return s
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var done struct {
			Done     bool    `json:"done"`
			Seconds  float64 `json:"seconds"`
			Rows     int     `json:"rows"`
			Medspacy string  `json:"medspacy"`
		}
		if json.Unmarshal(line, &done) == nil && done.Done {
			if done.Seconds > 0 {
				s.rate = float64(done.Rows) / done.Seconds
			}
			s.detail = fmt.Sprintf("medspaCy %s, 1 pass in %.2f s", done.Medspacy, done.Seconds)
			break
		}
		var l contextbench.Labels
		if err := json.Unmarshal(line, &l); err != nil {
			s.note = fmt.Sprintf("skipped: medspaCy output line %d: %v", len(s.pred)+1, err)
			s.pred = nil
			return s
		}
		s.pred = append(s.pred, l)
	}
	if len(s.pred) != len(rows) {
		s.note = fmt.Sprintf("skipped: medspaCy answered %d of %d rows", len(s.pred), len(rows))
		s.pred = nil
		return s
	}
	s.res = contextbench.Evaluate(rows, s.pred)
	return s
}

func benchReport(path string, rows []contextbench.Row, systems []*benchSystem) string {
	var b strings.Builder
	kinds := contextbench.KindNames(rows)
	fmt.Fprintf(&b, "corpus %s: %d rows, %d kinds\n", path, len(rows), len(kinds))
	var ran []*benchSystem
	for _, s := range systems {
		if s.note != "" {
			fmt.Fprintf(&b, "%s: %s\n", s.name, s.note)
			continue
		}
		ran = append(ran, s)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "label\tgold+")
	for _, s := range ran {
		fmt.Fprintf(tw, "\t%s P\tR\tF1", s.name)
	}
	fmt.Fprintln(tw)
	for _, name := range contextbench.LabelNames {
		gold := 0
		if len(ran) > 0 {
			sc := ran[0].res.Labels[name]
			gold = sc.TP + sc.FN
		}
		fmt.Fprintf(tw, "%s\t%d", name, gold)
		for _, s := range ran {
			sc := s.res.Labels[name]
			fmt.Fprintf(tw, "\t%.3f\t%.3f\t%.3f", sc.Precision(), sc.Recall(), sc.F1())
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprint(tw, "target found\t")
	for _, s := range ran {
		fmt.Fprintf(tw, "\t%d/%d\t\t", s.res.Found, s.res.Rows)
	}
	fmt.Fprintln(tw)
	fmt.Fprint(tw, "sentences/s\t")
	for _, s := range ran {
		fmt.Fprintf(tw, "\t%.0f\t\t", s.rate)
	}
	fmt.Fprintln(tw)
	fmt.Fprint(tw, "\nkind (all labels right)\trows")
	for _, s := range ran {
		fmt.Fprintf(tw, "\t%s\t\t", s.name)
	}
	fmt.Fprintln(tw)
	for _, k := range kinds {
		n := 0
		if len(ran) > 0 {
			n = ran[0].res.Kinds[k].Rows
		}
		fmt.Fprintf(tw, "%s\t%d", k, n)
		for _, s := range ran {
			ks := s.res.Kinds[k]
			fmt.Fprintf(tw, "\t%d (%.0f%%)\t\t", ks.Right, 100*float64(ks.Right)/float64(max(ks.Rows, 1)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, s := range ran {
		fmt.Fprintf(&b, "%s timing: %s\n", s.name, s.detail)
	}
	return b.String()
}

// writeMisses writes the rows execkg gets wrong, with its labels and cues.
func writeMisses(path string, rows []contextbench.Row, pred []contextbench.Labels) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for i, r := range rows {
		g := r.Gold()
		if g == pred[i] {
			continue
		}
		c := consistency.Analyze(r.Text, r.Target)
		if err := enc.Encode(map[string]any{"id": r.ID, "kind": r.Kind, "text": r.Text, "target": r.Target,
			"gold": g, "got": pred[i], "cues": c.Cues, "clause": c.Clause}); err != nil {
			return err
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// appendBenchLog appends a dated entry with the commit to the log.
func appendBenchLog(path, report string) error {
	commit := "unknown commit"
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
			commit += " (with uncommitted changes)"
		}
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n## %s, commit %s\n\n```\n%s```\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), commit, report)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
