package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/grounding/evaluate"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

func init() {
	register(command{
		name:    "grounding-eval",
		summary: "measure grounding: lexicon synonyms and rule wordings as findings, accuracy@1/@3 and MRR per channel and fusion",
		run:     runGroundingEval,
	})
}

// groundingFlags are the flags shared by commands that build a Grounder.
type groundingFlags struct {
	pack, lexicon, embedder, model, cache, indexPath string
	dim                                              int
	threshold                                        float64
	context, noAbbrev, guard                         bool
	fusion                                           string
	rrfK, minRelative                                float64
	anchors                                          int
}

func (f *groundingFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.pack, "pack", "", "built-in pack id or rule-table directory (default: the embedded ESC CCS 2024 pack); its own lexicon unless --lexicon")
	fs.StringVar(&f.lexicon, "lexicon", "", "lexicon JSON (default: the pack's embedded meta/lexicon.json)")
	fs.StringVar(&f.embedder, "embedder", "builtin", "vector-channel embedder: builtin (lexical n-grams, offline) or ollama")
	fs.StringVar(&f.model, "model", "", "Ollama embedding model (default $"+embed.EnvModel+"); host from $OLLAMA_HOST")
	fs.IntVar(&f.dim, "dim", embed.DefaultBuiltinDim, "vector size of the builtin embedder")
	fs.StringVar(&f.cache, "cache", "", "embedding cache directory (default: none)")
	fs.StringVar(&f.indexPath, "index-path", "", "keep the full-text index on disk here (default: in memory)")
	fs.Float64Var(&f.threshold, "threshold", -1, "vector cosine cut-off (default: 0.80, or the builtin embedder's measured value)")
	fs.BoolVar(&f.context, "context", false, "add the guideline context to the grounding text")
	fs.BoolVar(&f.noAbbrev, "no-abbrev", false, "do not expand abbreviations from the index's long forms")
	fs.BoolVar(&f.guard, "guard", false, "drop full-text hits that share only one generic or low-IDF word with the finding")
	fs.StringVar(&f.fusion, "fusion", grounding.MethodScore, "fusion: "+strings.Join(grounding.Methods, ", "))
	fs.Float64Var(&f.rrfK, "rrf-k", grounding.DefaultRRFK, "k of reciprocal rank fusion")
	fs.IntVar(&f.anchors, "anchors", grounding.DefaultAnchors, "anchors kept per finding (at most)")
	fs.Float64Var(&f.minRelative, "min-relative", grounding.DefaultMinRelative, "score fusion: drop anchors below this share of the best anchor's fused score (0 keeps all)")
}

// build loads pack and lexicon and builds the Grounder.
func (f *groundingFlags) build() (*grounding.Grounder, *lexicon.Lexicon, error) {
	id, dir := f.pack, ""
	if id != "" && !packs.Has(id) {
		id, dir = "", f.pack
	}
	src, err := onePack("grounding-eval", id, dir)
	if err != nil {
		return nil, nil, err
	}
	pack, err := rules.LoadFS(src.FS, src.Sub)
	if err != nil {
		return nil, nil, fmt.Errorf("load pack: %w", err)
	}
	lex, err := src.lexicon(f.lexicon)
	if err != nil {
		return nil, nil, err
	}
	var e embed.Embedder
	switch f.embedder {
	case "builtin":
		e = embed.NewBuiltin(f.dim)
	case "ollama":
		if e, err = embed.NewOllama(f.model, 0); err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, fmt.Errorf("--embedder %q: use builtin or ollama", f.embedder)
	}
	opts := []grounding.Option{
		grounding.WithEmbedder(e),
		grounding.WithGuard(f.guard),
		grounding.WithAbbreviations(!f.noAbbrev),
		grounding.WithFusion(grounding.Fusion{Method: f.fusion, RRFK: f.rrfK, Anchors: f.anchors, MinRelative: f.minRelative}),
	}
	if f.threshold >= 0 {
		opts = append(opts, grounding.WithThreshold(f.threshold))
	}
	if f.cache != "" {
		opts = append(opts, grounding.WithCacheDir(f.cache))
	}
	if f.indexPath != "" {
		opts = append(opts, grounding.WithIndexPath(f.indexPath))
	}
	g, err := grounding.New(grounding.Records(pack, lex, f.context), opts...)
	if err != nil {
		return nil, nil, err
	}
	return g, lex, nil
}

func runGroundingEval(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grounding-eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var gf groundingFlags
	gf.register(fs)
	jsonPath := fs.String("json", "", "also write the report as JSON to this file")
	sweep := fs.String("sweep", "0.20,0.25,0.30,0.35,0.40,0.45,0.50,0.60,0.70,0.80", "vector thresholds to sweep, comma-separated")
	failures := fs.Int("failures", 10, "wrong top-1 examples to list per method and query kind")
	var traces multiFlag
	fs.Var(&traces, "trace", "instead of the benchmark, ground this finding and print every channel's hits and the anchors (repeatable)")
	loo := fs.Bool("loo", false, "with --trace: hide the finding's own phrase (leave-one-out)")
	if code, ok := parseFlags(fs, args, stdout, stderr, "usage: execkg grounding-eval [flags]\n\n"+
		"Every lexicon synonym and every distinct input-node wording is grounded as a finding;\n"+
		"the right concept must be the top anchor (acc@1) or among the top 3 (acc@3).\n"+
		"Leave-one-out hides the query's own phrase from both indexes; in-index does not."); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "grounding-eval: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	var ths []float64
	for _, s := range strings.Split(*sweep, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		t, err := strconv.ParseFloat(s, 64)
		if err != nil || t < 0 || t > 1 {
			fmt.Fprintf(stderr, "grounding-eval: --sweep value %q is not a cosine between 0 and 1\n", s)
			return 2
		}
		ths = append(ths, t)
	}
	start := time.Now()
	g, lex, err := gf.build()
	if err != nil {
		fmt.Fprintf(stderr, "grounding-eval: %v\n", err)
		return 1
	}
	defer g.Close()
	built := time.Since(start)
	if len(traces) > 0 {
		return printTraces(g, traces, *loo, gf, stdout, stderr)
	}
	qs, skipped := evaluate.Queries(g.Records(), lex)
	rep, err := evaluate.Run(context.Background(), g, qs, evaluate.Config{Thresholds: ths, RRFK: gf.rrfK, Anchors: gf.anchors, MinRelative: gf.minRelative, Failures: *failures})
	if err != nil {
		fmt.Fprintf(stderr, "grounding-eval: %v\n", err)
		return 1
	}
	rep.SkippedLexicon = skipped
	rep.Print(stdout)
	fmt.Fprintf(stdout, "\nindex build %s, evaluation %s\n", built.Round(time.Millisecond), (time.Since(start) - built).Round(time.Millisecond))
	if *jsonPath != "" {
		if err := writeJSONAtomic(*jsonPath, rep); err != nil {
			fmt.Fprintf(stderr, "grounding-eval: %v\n", err)
			return 1
		}
	}
	return 0
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

// printTraces grounds each finding and prints both channels' hits and the
// fused anchors, for debugging grounding and the lexicon.
func printTraces(g *grounding.Grounder, findings []string, loo bool, gf groundingFlags, stdout, stderr io.Writer) int {
	if gf.minRelative < 0 || gf.minRelative > 1 {
		fmt.Fprintf(stderr, "grounding-eval: --min-relative %v: want a share between 0 and 1\n", gf.minRelative)
		return 2
	}
	for _, f := range findings {
		o := g.RetrieveDefaults()
		if loo {
			o.Hide = f
		}
		c, err := g.Retrieve(context.Background(), f, o)
		if err != nil {
			fmt.Fprintf(stderr, "grounding-eval: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "finding %q → query %q, variants %q\n", f, c.Query, c.Variants)
		for _, ch := range []struct {
			name string
			hits []grounding.PhraseHit
		}{{"full text", c.FullText}, {"vector", c.Vector}} {
			fmt.Fprintf(stdout, "  %s: %d hits\n", ch.name, len(ch.hits))
			for i, h := range ch.hits {
				if i == 8 {
					break
				}
				fmt.Fprintf(stdout, "    %2d %7.3f %q %v\n", h.Rank, h.Score, h.Phrase, h.Matched)
			}
		}
		for _, fu := range []grounding.Fusion{g.Fusion(), {Method: grounding.MethodRRF, RRFK: gf.rrfK, Anchors: gf.anchors}} {
			fmt.Fprintf(stdout, "  anchors (%s):\n", fu.Method)
			for _, a := range g.Fuse(c, fu) {
				fmt.Fprintf(stdout, "    %d %.4f %s via %v (%d rules)", a.Rank, a.Score, a.Concept, a.Channels, len(a.RuleIDs))
				if a.FullText != nil {
					fmt.Fprintf(stdout, " ft#%d %.2f", a.FullText.Rank, a.FullText.Score)
				}
				if a.Vector != nil {
					fmt.Fprintf(stdout, " vec#%d %.3f", a.Vector.Rank, a.Vector.Score)
				}
				fmt.Fprintln(stdout)
			}
		}
	}
	return 0
}
