package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/executablekg/execkg/engine/graph"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

func init() {
	register(command{
		name:    "build",
		summary: "load a pack into the graph (embedded store, or Neo4j with --neo4j / NEO4J_URI) and check the counts",
		run:     runBuild,
	})
}

// buildReport is what --report writes.
type buildReport struct {
	Source    string            `json:"source"`
	Store     string            `json:"store"`
	DryRun    bool              `json:"dry_run"`
	Stats     *graph.BuildStats `json:"stats,omitempty"`
	Counts    *graph.Counts     `json:"counts,omitempty"`
	Predicted graph.Counts      `json:"predicted"`
}

func runBuild(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("build", flag.ContinueOnError)
	fl.SetOutput(stderr)
	uri := fl.String("neo4j", "", "Neo4j Bolt URI (default $NEO4J_URI; with neither, the embedded store is built)")
	user := fl.String("user", "", "Neo4j user (default $NEO4J_USER; empty: no authentication)")
	password := fl.String("password", "", "Neo4j password (default $NEO4J_PASSWORD; prefer the variable, flags show in ps)")
	database := fl.String("database", "", "Neo4j database (default $NEO4J_DATABASE, else the server's default)")
	var packFlag, dirFlag string
	registerPackFlags(fl, &packFlag, &dirFlag)
	dir := &dirFlag
	dryRun := fl.Bool("dry-run", false, "only preflight and map the pack; write nothing, print the predicted counts")
	clear := fl.Bool("clear-graph", false, "delete the named pack's nodes (same pack id and version) before writing; other packs stay")
	refresh := fl.Bool("refresh-all", false, "re-embed every grounding text, also unchanged ones")
	withContext := fl.Bool("include-context", false, "add the guideline context to the grounding text")
	lexPath := fl.String("lexicon", "", "lexicon JSON for grounding synonyms (default: the pack's meta/lexicon.json when present; 'none' for no synonyms)")
	embedder := fl.String("embedder", envStr("KG_EMBEDDER", "builtin"), "embed the grounding texts with: builtin (lexical n-grams, offline), ollama, or none (env KG_EMBEDDER)")
	embedModel := fl.String("embed-model", envStr("OLLAMA_EMBED_MODEL", "nomic-embed-text"), "Ollama embedding model (env OLLAMA_EMBED_MODEL; host from OLLAMA_HOST)")
	batch := fl.Int("batch", 500, "rows per Neo4j write transaction")
	report := fl.String("report", "", "also write stats and counts as JSON to this path (with --pack all: an object keyed by pack id)")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg build [--neo4j URI] [--pack ID|all | --dir DIR] [--dry-run] [--clear-graph] [--refresh-all] [--include-context] [flags]"); !ok {
		return code
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "execkg build: unexpected argument %q (pass the rule directory with --dir)\n", fl.Arg(0))
		return 2
	}
	env := func(v *string, name string) {
		if *v == "" {
			*v = os.Getenv(name)
		}
	}
	env(uri, "NEO4J_URI")
	env(user, "NEO4J_USER")
	env(password, "NEO4J_PASSWORD")
	env(database, "NEO4J_DATABASE")

	// Preflight: every file of every pack is parsed and checked before
	// anything is written.
	srcs, err := resolvePacks(packFlag, *dir)
	if err != nil {
		fmt.Fprintln(stderr, "execkg build:", err)
		return 2
	}
	type job struct {
		src  packSrc
		pack *rules.Pack
		out  buildReport
		opt  graph.BuildOptions
	}
	var jobs []*job
	for _, src := range srcs {
		rep, err := src.preflight()
		if err != nil {
			fmt.Fprintln(stderr, "execkg build:", err)
			return 2
		}
		if !rep.OK() {
			for _, d := range rep.Diagnostics {
				fmt.Fprintln(stderr, d.Error())
			}
			fmt.Fprintf(stderr, "execkg build: %s: preflight found %d error(s); nothing was written (run 'execkg validate' for the list)\n", src.Label, len(rep.Diagnostics))
			return 1
		}
		pack := rep.Pack
		s := rep.Stats
		fmt.Fprintf(stdout, "%s: preflight ok (%d files, %d rules, %d conditions, %d actions)\n", src.Label, s.Files, s.Rules, s.ConditionOccurrences, s.Actions)
		if err := graph.Check(pack); err != nil {
			fmt.Fprintln(stderr, "execkg build:", err)
			return 1
		}
		jobs = append(jobs, &job{src: src, pack: pack, out: buildReport{Source: src.Label, Predicted: graph.Predict(pack), DryRun: *dryRun}})
	}
	reports := func() int {
		if len(jobs) == 1 && packFlag != allPacks {
			return writeBuildReport(*report, jobs[0].out, stderr)
		}
		all := map[string]buildReport{}
		for _, j := range jobs {
			all[j.src.ID] = j.out
		}
		return writeBuildReport(*report, all, stderr)
	}

	if *dryRun {
		for _, j := range jobs {
			j.out.Store = "none (dry run)"
			fmt.Fprintf(stdout, "dry run: pack %s %s maps onto the graph schema; nothing was written\n", j.pack.Guideline.ID, j.pack.Guideline.Version)
			printCounts(stdout, nil, j.out.Predicted)
		}
		return reports()
	}

	var emb embed.Embedder
	switch *embedder {
	case "none":
	case "builtin", "":
		emb = embed.NewBuiltin(0)
	case "ollama":
		e, err := embed.NewOllama(*embedModel, 0)
		if err != nil {
			fmt.Fprintln(stderr, "execkg build:", err)
			return 2
		}
		emb = embed.NewCache(e, cacheDir("embeddings"))
	default:
		fmt.Fprintf(stderr, "execkg build: unknown --embedder %q: use builtin, ollama or none\n", *embedder)
		return 2
	}
	for _, j := range jobs {
		j.opt = graph.BuildOptions{IncludeContext: *withContext, RefreshAll: *refresh, ClearGraph: *clear}
		lex, lexLabel, err := buildLexicon(*lexPath, j.src.FS, j.src.Sub)
		if err != nil {
			fmt.Fprintln(stderr, "execkg build:", err)
			return 2
		}
		j.opt.Grounding = recordGrounding(j.pack, lex)
		j.opt.Embedder = emb
		embLabel := "none"
		if emb != nil {
			embLabel = emb.Name()
		}
		fmt.Fprintf(stdout, "grounding: wording, concept name, synonyms from %s; context %s; embedder %s\n", lexLabel, onOff(*withContext), embLabel)
	}

	// Ctrl-C stops between write batches; a rerun completes the graph.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var neo *graph.Neo4j
	storeName := "embedded"
	if *uri != "" {
		n, err := graph.OpenNeo4j(ctx, graph.Neo4jConfig{URI: *uri, User: *user, Password: *password, Database: *database, BatchSize: *batch})
		if err != nil {
			fmt.Fprintln(stderr, "execkg build:", err)
			return 2
		}
		defer n.Close()
		db := *database
		if db == "" {
			db = "default"
		}
		storeName = "neo4j " + *uri + " database " + db
		neo = n
	}
	fmt.Fprintf(stdout, "store: %s\n", storeName)
	failed := false
	for _, j := range jobs {
		j.out.Store = storeName
		// One graph holds every pack side by side, each node marked with
		// its pack id and version; --clear-graph clears only this pack.
		var store graph.Store = graph.NewMemory()
		if neo != nil {
			store = neo.View(j.pack.Guideline.ID, j.pack.Guideline.Version)
		}
		code := loadOne(ctx, store, j.pack, j.opt, &j.out, stdout, stderr)
		store.Close()
		switch code {
		case 0:
		case 2:
			return code
		default:
			if ctx.Err() != nil {
				return code
			}
			failed = true
		}
	}
	if code := reports(); code != 0 {
		return code
	}
	if failed {
		return 1
	}
	return 0
}

// loadOne writes one pack into the store and compares the counts with the
// prediction; 0 when the graph holds what the pack predicts.
func loadOne(ctx context.Context, store graph.Store, pack *rules.Pack, opt graph.BuildOptions, out *buildReport, stdout, stderr io.Writer) int {
	t0 := time.Now()
	st, err := store.Load(ctx, pack, opt)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "execkg build: interrupted; committed batches stay in the graph, run the same command again to complete it")
			return 1
		}
		fmt.Fprintln(stderr, "execkg build:", err)
		return 1
	}
	counts, err := store.Counts(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "execkg build:", err)
		return 1
	}
	out.Stats, out.Counts = &st, &counts
	fmt.Fprintf(stdout, "built %s %s in %s: %d nodes, %d relationships, %d write batch(es); cleared %d, pruned %d nodes and %d relationships\n",
		st.PackID, st.PackVersion, time.Since(t0).Round(time.Millisecond), st.Nodes, st.Edges, st.Batches, st.Cleared, st.PrunedNodes, st.PrunedEdges)
	fmt.Fprintf(stdout, "embeddings: %d new (%d distinct texts), %d kept, %d dropped\n", st.Embedded, st.EmbeddedTexts, st.EmbeddingsKept, st.EmbeddingsDropped)
	printCounts(stdout, &counts, out.Predicted)
	if diff := out.Predicted.Diff(counts); len(diff) > 0 {
		fmt.Fprintf(stderr, "execkg build: the graph does not hold what the pack predicts (%s); rerun with --clear-graph, and report a bug if it persists\n", strings.Join(diff, "; "))
		return 1
	}
	return 0
}

// buildLexicon loads the lexicon for grounding synonyms: an explicit path,
// "none", or the pack's own meta/lexicon.json when it has one.
func buildLexicon(p string, fsys fs.FS, sub string) (*lexicon.Lexicon, string, error) {
	switch {
	case p == "none":
		return nil, "no lexicon", nil
	case p != "":
		l, err := lexicon.Load(p)
		return l, p, err
	}
	// The pack's own lexicon is optional: without one the grounding text
	// holds wording and concept name only.
	lp := path.Join(sub, "meta", "lexicon.json")
	if _, err := fs.Stat(fsys, lp); err != nil {
		return nil, "no lexicon (the pack has no meta/lexicon.json)", nil
	}
	l, err := lexicon.LoadFS(fsys, lp)
	if fsys == packs.FS() {
		lp = "the built-in lexicon"
		if sub != packs.DefaultDir {
			lp += " of " + sub
		}
	}
	return l, lp, err
}

// recordGrounding gives each DecisionNode the phrases of its
// grounding.Record (wording, concept name, lexicon synonyms), the same
// callback engine.New loads its store with, so a graph built here and one
// loaded by the engine hold equal grounding texts and hashes (and the engine
// keeps the vectors built here). The context line is added by the graph
// build with --include-context.
func recordGrounding(pack *rules.Pack, lex *lexicon.Lexicon) func(rules.Condition) (string, []string) {
	byID := map[string]grounding.Record{}
	for _, r := range grounding.Records(pack, lex, false) {
		byID[r.DecisionID] = r
	}
	return func(c rules.Condition) (string, []string) {
		r, ok := byID[c.DecisionID]
		if !ok {
			return graph.DefaultGrounding(c)
		}
		return r.Text, r.Aliases
	}
}

// printCounts prints nodes per label and relationships per type, stored
// beside predicted (or predicted only), marking differences.
func printCounts(w io.Writer, stored *graph.Counts, predicted graph.Counts) {
	line := func(name string, got *int, want int) {
		if got == nil {
			fmt.Fprintf(w, "  %-22s %9d\n", name, want)
			return
		}
		mark := ""
		if *got != want {
			mark = "  <- differs"
		}
		fmt.Fprintf(w, "  %-22s %9d %9d%s\n", name, *got, want, mark)
	}
	pick := func(m map[string]int, k string) *int {
		if stored == nil {
			return nil
		}
		v := m[k]
		return &v
	}
	if stored != nil {
		fmt.Fprintf(w, "  %-22s %9s %9s\n", "", "stored", "predicted")
	} else {
		fmt.Fprintf(w, "  %-22s %9s\n", "", "predicted")
	}
	var sn, sr map[string]int
	var tn, tr *int
	if stored != nil {
		sn, sr = stored.Nodes, stored.Relationships
		n, r := stored.TotalNodes(), stored.TotalRelationships()
		tn, tr = &n, &r
	}
	for _, l := range graph.Labels {
		line(l, pick(sn, l), predicted.Nodes[l])
	}
	for _, t := range graph.RelTypes {
		line(t, pick(sr, t), predicted.Relationships[t])
	}
	line("nodes", tn, predicted.TotalNodes())
	line("relationships", tr, predicted.TotalRelationships())
}

func writeBuildReport(p string, r any, stderr io.Writer) int {
	if p == "" {
		return 0
	}
	if err := writeJSONAtomic(p, r); err != nil {
		fmt.Fprintln(stderr, "execkg build:", err)
		return 2
	}
	return 0
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
