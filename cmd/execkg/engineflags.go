package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/graph"
	"github.com/executablekg/execkg/engine/llm"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
)

// engineFlags are the settings shared by ask, batch and reproduce. Each
// flag falls back to the reference system's environment variable where one
// exists, so a .env file works unchanged.
type engineFlags struct {
	pack        string
	dir         string
	lexicon     string
	checks      consistency.Checks
	closedWorld bool
	topK        int
	debug       bool
	neo4jURI    string
	embedder    string
	embedModel  string
	llm         bool
	fractions   bool
	llmCfg      llm.Config
	llmClient   *llm.Client
	// maxBytes, when > 0, is the longest question answered (set by batch).
	maxBytes int
	// neo is the Neo4j store program opened, nil with the embedded one.
	neo *graph.Neo4j
	// neoShared: neo was shared by several packs' views (answerer with
	// --pack all), so close closes it; a single Program closes its own.
	neoShared bool
	// packs are the packs the last program or answerer compiled.
	packs []*rules.Pack
}

func (f *engineFlags) register(fl *flag.FlagSet) {
	f.checks = consistency.DefaultChecks
	if c, err := consistency.ChecksFromEnv(); err == nil {
		f.checks = c
	}
	registerPackFlags(fl, &f.pack, &f.dir)
	fl.StringVar(&f.lexicon, "lexicon", "", "concept lexicon JSON (default: the pack's meta/lexicon.json)")
	fl.Var(&f.checks, "checks", "step (v) checks: certainty,negation,qualifier (default), add absence, or none (env KG_FILTERS)")
	fl.BoolVar(&f.closedWorld, "closed-world", envBool("KG_CLOSED_WORLD"), "read unmentioned findings as absent, as the reference system did (env KG_CLOSED_WORLD)")
	fl.IntVar(&f.topK, "topk", envInt("KG_TOPK", 3), "concept anchors kept per finding (env KG_TOPK)")
	fl.BoolVar(&f.debug, "debug", false, "include the full trace in each record")
	fl.StringVar(&f.neo4jURI, "neo4j", "", "answer from a Neo4j graph at this Bolt URI (env NEO4J_URI; user/password/database from NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE); default: embedded store")
	fl.StringVar(&f.embedder, "embedder", envStr("KG_EMBEDDER", "builtin"), "vector channel embedder: builtin (lexical, offline) or ollama (env KG_EMBEDDER)")
	fl.StringVar(&f.embedModel, "embed-model", envStr("OLLAMA_EMBED_MODEL", "nomic-embed-text"), "Ollama embedding model (env OLLAMA_EMBED_MODEL; host from OLLAMA_HOST)")
	fl.BoolVar(&f.llm, "llm", envBool("KG_LLM"), "read documents with the Ollama LLM (--llm-mode read: into the patient model; steps: steps (i) and (iv)) (env KG_LLM; model KG_LLM_MODEL, host OLLAMA_HOST)")
	fl.BoolVar(&f.fractions, "fractions", false, "let a unitless 0-1 value meet a percent threshold (LVEF 0.35 → 35%)")
	cfg, err := llm.ConfigFromEnv()
	if err != nil {
		cfg = llm.DefaultConfig() // a bad env value is reported when --llm is used
	}
	f.llmCfg = cfg
	f.llmCfg.RegisterFlags(fl)
}

// close releases what program opened besides the Program itself.
func (f *engineFlags) close() {
	if f.llmClient != nil {
		f.llmClient.Close()
	}
	if f.neoShared && f.neo != nil {
		f.neo.Close()
	}
}

// program builds the engine from the flags: one pack (--pack ID or --dir),
// with that pack's own lexicon unless --lexicon names another file.
func (f *engineFlags) program(ctx context.Context) (*engine.Program, error) {
	src, err := onePack("this command", f.pack, f.dir)
	if err != nil {
		return nil, err
	}
	pack, lex, err := f.load(src)
	if err != nil {
		return nil, err
	}
	opts, err := f.options(ctx)
	if err != nil {
		return nil, err
	}
	opts = append([]engine.Option{engine.WithLexicon(lex)}, opts...)
	if f.neo != nil {
		opts = append(opts, engine.WithStore(f.neo))
	}
	f.packs = []*rules.Pack{pack}
	return engine.New(ctx, pack, opts...)
}

// answerer is what ask, batch and serve answer cases with: one pack's
// Program, or an engine.Multi for --pack all.
type answerer interface {
	AskOn(ctx context.Context, caseID, text string, date time.Time, opts ...engine.EvalOption) (*engine.Result, error)
	AskPatient(ctx context.Context, m *patient.Model, opts ...engine.EvalOption) (*engine.Result, error)
	Evaluate(ctx context.Context, caseID string, ev []eval.Evidence, opts ...engine.EvalOption) (*engine.Result, error)
	Settings() string
	Close() error
}

// answerer builds the Program of the one pack selected, or, for --pack all,
// one engine.Multi over every built-in pack: each pack with its own
// lexicon and, with Neo4j, its own view of the one graph holding them all.
func (f *engineFlags) answerer(ctx context.Context) (answerer, error) {
	if f.pack != allPacks {
		return f.program(ctx)
	}
	if f.lexicon != "" {
		return nil, fmt.Errorf("--lexicon %s names one lexicon, but --pack all reads every pack with its own (meta/lexicon.json): drop --lexicon or pick one pack", f.lexicon)
	}
	srcs, err := resolvePacks(f.pack, f.dir)
	if err != nil {
		return nil, err
	}
	var members []engine.Member
	f.packs = nil
	for _, src := range srcs {
		pack, lex, err := f.load(src)
		if err != nil {
			return nil, err
		}
		members = append(members, engine.Member{ID: src.ID, Pack: pack, Options: []engine.Option{engine.WithLexicon(lex)}})
		f.packs = append(f.packs, pack)
	}
	opts, err := f.options(ctx)
	if err != nil {
		return nil, err
	}
	if f.neo != nil {
		f.neoShared = true
		for i := range members {
			g := members[i].Pack.Guideline
			members[i].Options = append(members[i].Options, engine.WithStore(f.neo.View(g.ID, g.Version)))
		}
	}
	return engine.NewMulti(ctx, members, opts...)
}

// load preflights one pack and loads its lexicon (--lexicon, else the
// pack's own).
func (f *engineFlags) load(src packSrc) (*rules.Pack, *lexicon.Lexicon, error) {
	rep, err := src.preflight()
	if err != nil {
		return nil, nil, err
	}
	if !rep.OK() {
		return nil, nil, fmt.Errorf("%s fails the preflight (%d errors; run 'execkg validate'), first: %v", src.Label, len(rep.Diagnostics), rep.Diagnostics[0])
	}
	lex, err := src.lexicon(f.lexicon)
	if err != nil {
		return nil, nil, err
	}
	return rep.Pack, lex, nil
}

// options are the engine options every pack gets; they open the Neo4j
// store (f.neo) and the LLM client when the flags ask for them.
func (f *engineFlags) options(ctx context.Context) ([]engine.Option, error) {
	opts := []engine.Option{
		engine.WithChecks(f.checks), engine.WithClosedWorld(f.closedWorld),
		engine.WithTopK(f.topK), engine.WithTrace(f.debug), engine.WithFractions(f.fractions),
		engine.WithMaxBytes(f.maxBytes),
	}
	switch f.embedder {
	case "builtin", "":
	case "ollama":
		e, err := embed.NewOllama(f.embedModel, 0)
		if err != nil {
			return nil, err
		}
		opts = append(opts, engine.WithEmbedder(embed.NewCache(e, cacheDir("embeddings"))))
	default:
		return nil, fmt.Errorf("unknown --embedder %q: use builtin or ollama", f.embedder)
	}
	uri := f.neo4jURI
	if uri == "" {
		uri = os.Getenv("NEO4J_URI")
	}
	if uri != "" {
		cfg := graph.Neo4jConfigFromEnv()
		cfg.URI = uri
		st, err := graph.OpenNeo4j(ctx, cfg)
		if err != nil {
			return nil, err
		}
		f.neo = st
	}
	if f.llm {
		if _, err := llm.ConfigFromEnv(); err != nil {
			return nil, err
		}
		c, err := llm.New(f.llmCfg)
		if err != nil {
			return nil, err
		}
		f.llmClient = c
		if f.llmCfg.Mode == llm.ModeSteps {
			opts = append(opts, engine.WithExtractor(c.Extractor()), engine.WithFormatter(c.Formatter()))
		} else {
			// The model reads the document into the patient model; the
			// engine grounds, formats and checks every fact's words.
			opts = append(opts, engine.WithPatientReader(c.PatientReader()))
		}
	}
	return opts, nil
}

// cacheDir is where on-disk caches live: KG_CACHE_DIR, else the user cache.
func cacheDir(sub string) string {
	if d := os.Getenv("KG_CACHE_DIR"); d != "" {
		return d + "/" + sub
	}
	if d, err := os.UserCacheDir(); err == nil {
		return d + "/execkg/" + sub
	}
	return ".cache/execkg/" + sub
}

func envStr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func envBool(k string) bool {
	b, _ := strconv.ParseBool(os.Getenv(k))
	return b
}

func envInt(k string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(k)); err == nil {
		return n
	}
	return def
}
