package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/analysis/baseline"
	"github.com/executablekg/execkg/analysis/reproduce"
	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/reference"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/vignettes"
)

func init() {
	register(command{name: "reproduce", summary: "offline evaluation: check vignettes and reference, run the KG and VectorRAG arms, print the results table, write paper_numbers.json and the error CSV", run: runReproduce})
}

// armFlag collects repeated NAME=PATH prediction files.
type armFlag []string

func (a *armFlag) String() string     { return strings.Join(*a, ",") }
func (a *armFlag) Set(s string) error { *a = append(*a, s); return nil }

// evalFlags are the settings shared by reproduce and report.
type evalFlags struct {
	ef            engineFlags
	vignettesPath string
	referencePath string
	kgPredictions string
	noKG          bool
	arms          armFlag
	baselineModel string
	noBaseline    bool
	snapshotPath  string
	refresh       bool
	rescore       string
	workers       int
	docs          docFlags
}

func (f *evalFlags) register(fl *flag.FlagSet) {
	f.ef.register(fl)
	fl.StringVar(&f.vignettesPath, "vignettes", "", "vignettes, JSON lines (default: the shipped set)")
	fl.StringVar(&f.referencePath, "reference", "", "reference, JSON lines (default: the shipped reference)")
	fl.StringVar(&f.kgPredictions, "kg-predictions", "", "score this prediction file as the KG arm instead of running the pipeline")
	fl.BoolVar(&f.noKG, "no-kg", false, "do not run the KG arm")
	fl.Var(&f.arms, "arm", "extra arm from a prediction file, NAME=PATH (repeatable)")
	fl.StringVar(&f.baselineModel, "baseline-model", "", "Ollama chat model for the VectorRAG generator (host from OLLAMA_HOST); default: the offline margin selector")
	fl.BoolVar(&f.noBaseline, "no-baseline", false, "do not run the VectorRAG arm")
	fl.StringVar(&f.snapshotPath, "snapshot", "", "baseline retrieval snapshot (default: the shipped analysis/data/baseline_snapshot.jsonl)")
	fl.BoolVar(&f.refresh, "refresh-snapshot", false, "recompute the baseline retrieval and write it to --snapshot (default analysis/data/baseline_snapshot.jsonl)")
	fl.StringVar(&f.rescore, "rescore-topk", "1,2,3", "re-score the KG trace with these anchors per finding (each at most --topk)")
	fl.IntVar(&f.workers, "workers", 2, "KG cases answered at once")
	f.docs.register(fl)
}

// closer collects cleanups.
type closer []func()

func (c closer) run() {
	for i := len(c) - 1; i >= 0; i-- {
		c[i]()
	}
}

// prepared is a ready reproduction.
type prepared struct {
	cfg          reproduce.Config
	baseline     *reproduce.BaselineNumbers
	snapshot     []byte // refreshed snapshot to write, or nil
	snapshotPath string
	kgNote       string
}

func (f *evalFlags) prepare(ctx context.Context) (*prepared, closer, error) {
	var cl closer
	if f.ef.pack != "" && f.ef.pack != packs.DefaultDir {
		// The vignettes, reference answers and documents are the default
		// pack's; another pack has none to score against.
		return nil, cl, fmt.Errorf("reproduce scores the %s vignettes and documents: drop --pack %s (or pass an edited copy of that pack with --dir)", packs.DefaultDir, f.ef.pack)
	}
	fsys, sub, _, err := packSource(f.ef.dir)
	if err != nil {
		return nil, cl, err
	}
	pack, err := rules.LoadFS(fsys, sub)
	if err != nil {
		return nil, cl, err
	}
	vs, err := vignettes.Load(f.vignettesPath)
	if err != nil {
		return nil, cl, err
	}
	var excluded []vignettes.Exclusion
	if f.vignettesPath == "" {
		doc, err := vignettes.DefaultExcluded()
		if err != nil {
			return nil, cl, err
		}
		excluded = doc.Excluded
	}
	ref, err := reference.Load(f.referencePath)
	if err != nil {
		return nil, cl, err
	}
	var merged []reference.Case
	if f.referencePath == "" {
		if merged, err = reference.DefaultMerged(); err != nil {
			return nil, cl, err
		}
	}
	eq, err := reference.DefaultEquivalences()
	if err != nil {
		return nil, cl, err
	}
	lex, err := dirLexicon(f.ef.dir, f.ef.lexicon)
	if err != nil {
		return nil, cl, err
	}
	p := &prepared{cfg: reproduce.Config{Pack: pack, Vignettes: vs, Excluded: excluded, Reference: ref, Merged: merged,
		Equivalences: eq, Candidates: reference.Candidates(pack, lex)}}
	for _, s := range strings.Split(f.rescore, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		k, err := strconv.Atoi(s)
		if err != nil || k < 1 {
			return nil, cl, fmt.Errorf("--rescore-topk: %q is not a positive number", s)
		}
		if k <= f.ef.topK {
			p.cfg.TopK = append(p.cfg.TopK, k)
		}
	}
	sort.Ints(p.cfg.TopK)

	// Our arm: the pipeline with its trace on, or a stored file.
	switch {
	case f.noKG:
	case f.kgPredictions != "":
		p.cfg.Ours = &analysis.FileArm{ArmName: "kg", Path: f.kgPredictions}
		p.kgNote = "stored predictions " + f.kgPredictions
	default:
		f.ef.debug = true // the error analysis, re-scoring and coverage read the trace
		prog, err := f.ef.program(ctx)
		if err != nil {
			return nil, cl, fmt.Errorf("KG arm: %w", err)
		}
		cl = append(cl, func() { prog.Close() }, f.ef.close)
		p.cfg.Ours = &analysis.AskerArm{ArmName: "kg", Asker: prog, Workers: f.workers}
		p.kgNote = prog.Settings()
	}

	// VectorRAG over the frozen retrieval, with the pipeline's embedder.
	if !f.noBaseline {
		var emb embed.Embedder
		switch f.ef.embedder {
		case "builtin", "":
			emb = embed.NewBuiltin(0)
		case "ollama":
			e, err := embed.NewOllama(f.ef.embedModel, 0)
			if err != nil {
				return nil, cl, err
			}
			emb = embed.NewCache(e, cacheDir("embeddings"))
		default:
			return nil, cl, fmt.Errorf("unknown --embedder %q: use builtin or ollama", f.ef.embedder)
		}
		var gen baseline.Generator = baseline.DefaultMargin
		if f.baselineModel != "" {
			g, err := baseline.NewOllama(os.Getenv("OLLAMA_HOST"), f.baselineModel)
			if err != nil {
				return nil, cl, err
			}
			gen = g
		}
		snap, path := analysis.DefaultSnapshot()
		if f.snapshotPath != "" {
			path = f.snapshotPath
			if !f.refresh {
				if snap, err = os.ReadFile(path); err != nil {
					return nil, cl, fmt.Errorf("read baseline snapshot: %w", err)
				}
			}
		}
		arm, num, fresh, err := reproduce.BuildBaseline(ctx, pack, vs, reproduce.BaselineConfig{
			Embedder: emb, Generator: gen, Snapshot: snap, SnapshotPath: path, Refresh: f.refresh})
		if err != nil {
			return nil, cl, err
		}
		p.cfg.Others = append(p.cfg.Others, arm)
		p.baseline, p.snapshot, p.snapshotPath = num, fresh, path
	}
	for _, a := range f.arms {
		name, path, ok := strings.Cut(a, "=")
		if !ok || name == "" || path == "" {
			return nil, cl, fmt.Errorf("--arm %q: want NAME=PATH", a)
		}
		p.cfg.Others = append(p.cfg.Others, &analysis.FileArm{ArmName: name, Path: path})
	}
	return p, cl, nil
}

// run prepares and runs a reproduction, writing a refreshed snapshot.
func (f *evalFlags) run(ctx context.Context, stdout io.Writer) (*prepared, *reproduce.Output, closer, error) {
	p, cl, err := f.prepare(ctx)
	if err != nil {
		return nil, nil, cl, err
	}
	if p.snapshot != nil {
		if err := writeFileAtomic(p.snapshotPath, p.snapshot); err != nil {
			return nil, nil, cl, err
		}
		fmt.Fprintf(stdout, "wrote %s (rebuild to ship it)\n", p.snapshotPath)
	}
	out, err := reproduce.Run(ctx, p.cfg)
	if err != nil {
		return nil, nil, cl, err
	}
	out.Numbers.Baseline = p.baseline
	var asker analysis.Asker
	if a, ok := p.cfg.Ours.(*analysis.AskerArm); ok {
		asker = a.Asker
	}
	start := time.Now()
	ds, err := f.docs.score(ctx, docRun{asker: asker, pack: p.cfg.Pack, dir: f.ef.dir, lexPath: f.ef.lexicon, workers: f.workers}, stdout)
	if err != nil {
		return nil, nil, cl, err
	}
	if ds != nil {
		out.Numbers.Documents = ds
		out.Timings["documents"] = time.Since(start)
	}
	return p, out, cl, nil
}

func runReproduce(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var f evalFlags
	f.register(fl)
	numbers := fl.String("numbers", "paper_numbers.json", "write every number to this JSON file")
	errorsCSV := fl.String("errors", "error_analysis.csv", "write the KG error analysis (one line per FP/FN pair) to this CSV")
	predOut := fl.String("predictions-out", "", "also write each arm's predictions as DIR/<arm>.jsonl")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg reproduce [flags]\n\nOffline by default: no server is contacted unless --baseline-model, --llm, --neo4j or --embedder ollama ask for one."); !ok {
		return code
	}
	start := time.Now()
	ctx := context.Background()
	p, out, cl, err := f.run(ctx, stdout)
	defer cl.run()
	if err != nil {
		fmt.Fprintln(stderr, "execkg reproduce:", err)
		return 1
	}
	n := &out.Numbers
	fmt.Fprintf(stdout, "Vignettes: %d (near %d, synonym %d, paraphrase %d), valid; %d of %d usable concepts covered, %d workflow-only excluded.\n",
		n.Vignettes.Total, n.Vignettes.ByCategory[vignettes.Near], n.Vignettes.ByCategory[vignettes.Synonym], n.Vignettes.ByCategory[vignettes.Paraphrase],
		n.Vignettes.CoveredConcepts, n.Vignettes.UsableConcepts, n.Vignettes.ExcludedConcepts)
	fmt.Fprintln(stdout, "Reference: recomputed, equals the stored file.")
	if p.kgNote != "" {
		fmt.Fprintf(stdout, "KG arm: %s\n", p.kgNote)
	}
	if b := n.Baseline; b != nil {
		fmt.Fprintf(stdout, "VectorRAG arm: %s, top %d by exact cosine with %s, snapshot %s\n", b.Generator, b.K, b.Embedder, b.Snapshot)
	}
	fmt.Fprintln(stdout)
	reproduce.PrintTable(stdout, n)
	reproduce.PrintDetails(stdout, n)
	if n.Documents != nil {
		fmt.Fprintln(stdout)
		n.Documents.WriteTable(stdout)
		if f.docs.errorsCSV != "" {
			fmt.Fprintf(stdout, "wrote %s (%d document errors)\n", f.docs.errorsCSV, len(n.Documents.Errors))
		}
	}
	if err := writeJSONAtomic(*numbers, n); err != nil {
		fmt.Fprintln(stderr, "execkg reproduce:", err)
		return 1
	}
	fmt.Fprintf(stdout, "\nwrote %s\n", *numbers)
	if out.Coverage != nil || len(out.Errors) > 0 {
		csv, err := analysis.ErrorCSV(out.Errors)
		if err == nil {
			err = writeFileAtomic(*errorsCSV, csv)
		}
		if err != nil {
			fmt.Fprintln(stderr, "execkg reproduce:", err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s (%d errors)\n", *errorsCSV, len(out.Errors))
	}
	if *predOut != "" {
		for name, res := range out.Results {
			path := filepath.Join(*predOut, name+".jsonl")
			var b strings.Builder
			if err := analysis.WritePredictions(&b, res); err != nil {
				fmt.Fprintln(stderr, "execkg reproduce:", err)
				return 1
			}
			if err := writeFileAtomic(path, []byte(b.String())); err != nil {
				fmt.Fprintln(stderr, "execkg reproduce:", err)
				return 1
			}
			fmt.Fprintf(stdout, "wrote %s\n", path)
		}
	}
	var parts []string
	for k, d := range out.Timings {
		parts = append(parts, fmt.Sprintf("%s %.2f s", k, d.Seconds()))
	}
	sort.Strings(parts)
	fmt.Fprintf(stdout, "done in %.1f s (%s)\n", time.Since(start).Seconds(), strings.Join(parts, ", "))
	return 0
}
