package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/graph"
	"github.com/executablekg/execkg/engine/llm"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/grounding/lexicon"
)

// engineFlags are the settings shared by ask, batch and reproduce. Each
// flag falls back to the reference system's environment variable where one
// exists, so a .env file works unchanged.
type engineFlags struct {
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
	// groundCache bounds the grounding cache (distinct findings; 0: off).
	groundCache int
	// neo is the Neo4j store program opened, nil with the embedded one.
	neo *graph.Neo4j
}

func (f *engineFlags) register(fl *flag.FlagSet) {
	f.checks = consistency.DefaultChecks
	if c, err := consistency.ChecksFromEnv(); err == nil {
		f.checks = c
	}
	fl.StringVar(&f.dir, "dir", "", "rule-table directory (default: the built-in pack)")
	fl.StringVar(&f.lexicon, "lexicon", "", "concept lexicon JSON (default: the pack's meta/lexicon.json)")
	fl.Var(&f.checks, "checks", "step (v) checks: certainty,negation,qualifier (default), add absence, or none (env KG_FILTERS)")
	fl.BoolVar(&f.closedWorld, "closed-world", envBool("KG_CLOSED_WORLD"), "read unmentioned findings as absent, as the reference system did (env KG_CLOSED_WORLD)")
	fl.IntVar(&f.topK, "topk", envInt("KG_TOPK", 3), "concept anchors kept per finding (env KG_TOPK)")
	fl.BoolVar(&f.debug, "debug", false, "include the full trace in each record")
	fl.StringVar(&f.neo4jURI, "neo4j", "", "answer from a Neo4j graph at this Bolt URI (env NEO4J_URI; user/password/database from NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE); default: embedded store")
	fl.StringVar(&f.embedder, "embedder", envStr("KG_EMBEDDER", "builtin"), "vector channel embedder: builtin (lexical, offline) or ollama (env KG_EMBEDDER)")
	fl.StringVar(&f.embedModel, "embed-model", envStr("OLLAMA_EMBED_MODEL", "nomic-embed-text"), "Ollama embedding model (env OLLAMA_EMBED_MODEL; host from OLLAMA_HOST)")
	fl.BoolVar(&f.llm, "llm", envBool("KG_LLM"), "use the Ollama LLM for steps (i) and (iv) (env KG_LLM; model KG_LLM_MODEL, host OLLAMA_HOST)")
	fl.BoolVar(&f.fractions, "fractions", false, "let a unitless 0-1 value meet a percent threshold (LVEF 0.35 → 35%)")
	fl.IntVar(&f.groundCache, "grounding-cache", grounding.DefaultCacheSize, "distinct findings whose grounding is kept for reuse across cases (0: off; answers are the same either way)")
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
}

// program builds the engine from the flags.
func (f *engineFlags) program(ctx context.Context) (*engine.Program, error) {
	rep, label, err := preflightDir(f.dir)
	if err != nil {
		return nil, err
	}
	if !rep.OK() {
		return nil, fmt.Errorf("%s fails the preflight (%d errors; run 'execkg validate'), first: %v", label, len(rep.Diagnostics), rep.Diagnostics[0])
	}
	lex, err := lexicon.Load(f.lexicon)
	if err != nil {
		return nil, err
	}
	opts := []engine.Option{
		engine.WithLexicon(lex), engine.WithChecks(f.checks), engine.WithClosedWorld(f.closedWorld),
		engine.WithTopK(f.topK), engine.WithTrace(f.debug), engine.WithFractions(f.fractions),
		engine.WithMaxBytes(f.maxBytes), engine.WithGroundingOptions(grounding.WithCacheSize(f.groundCache)),
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
		opts = append(opts, engine.WithStore(st))
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
		opts = append(opts, engine.WithExtractor(c.Extractor()), engine.WithFormatter(c.Formatter()))
	}
	return engine.New(ctx, rep.Pack, opts...)
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
