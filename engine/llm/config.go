package llm

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Environment variables read by ConfigFromEnv (and so by FromEnv). Each has
// a flag of the same meaning registered by Config.RegisterFlags.
const (
	// EnvHost overrides the server for the LLM steps only; when it is empty
	// the Ollama client's own OLLAMA_HOST is used (default
	// http://127.0.0.1:11434), so the embedder and the LLM can share it.
	EnvHost    = "KG_LLM_HOST"
	EnvModel   = "KG_LLM_MODEL"
	EnvTimeout = "KG_LLM_TIMEOUT"
	EnvRetries = "KG_LLM_RETRIES"
	EnvBackoff = "KG_LLM_BACKOFF"
	EnvSeed    = "KG_LLM_SEED"
	EnvNumCtx  = "KG_LLM_NUM_CTX"
	EnvThink   = "KG_LLM_THINK"
	EnvStream  = "KG_LLM_STREAM"
	EnvCache   = "KG_LLM_CACHE"
	EnvFailLog = "KG_LLM_FAIL_LOG"
	EnvStrict  = "KG_STRICT_LLM"
	EnvChunk   = "KG_LLM_CHUNK_BYTES"
	EnvMode    = "KG_LLM_MODE"
)

// Modes of Config.Mode: what the LLM does in the pipeline.
const (
	// ModeRead: the model reads each document into the patient model
	// (PatientReader, one call per document or part); the engine grounds,
	// formats and checks its facts.
	ModeRead = "read"
	// ModeSteps: the model does steps (i) and (iv), finding extraction
	// and evidence formatting (Extractor, Formatter), as the reference
	// system did.
	ModeSteps = "steps"
)

// Defaults of Config.
const (
	DefaultModel   = "qwen3:32b" // the paper's model
	DefaultTimeout = 5 * time.Minute
	DefaultRetries = 2
	DefaultBackoff = 2 * time.Second
	DefaultSeed    = 42
	// maxBackoff caps the doubling wait between attempts.
	maxBackoff = 30 * time.Second
)

// Config configures the LLM client of steps (i) and (iv). Temperature is
// not configurable: it is always 0, so that with the fixed Seed a rerun
// asks the same question the same way.
type Config struct {
	// Host is the Ollama server URL (flag -llm-host, env KG_LLM_HOST), e.g.
	// http://gpu-box:11434; "host:port" means http. Empty: OLLAMA_HOST via
	// api.ClientFromEnvironment.
	Host string
	// Model is the chat model (flag -llm-model, env KG_LLM_MODEL).
	Model string
	// Timeout bounds one HTTP attempt (flag -llm-timeout, env
	// KG_LLM_TIMEOUT, a Go duration such as 90s or a number of seconds).
	Timeout time.Duration
	// Retries is how many more attempts follow a transient failure:
	// connection refused or reset, HTTP 5xx/429, a timeout, a reply cut off
	// before "done" (flag -llm-retries, env KG_LLM_RETRIES). Invalid replies
	// are not retried: at temperature 0 the model would answer the same.
	Retries int
	// Backoff is the wait before the first retry; it doubles per retry up
	// to 30s (flag -llm-backoff, env KG_LLM_BACKOFF).
	Backoff time.Duration
	// Seed is passed as options.seed (flag -llm-seed, env KG_LLM_SEED).
	Seed int
	// NumCtx, when > 0, is passed as options.num_ctx (flag -llm-num-ctx,
	// env KG_LLM_NUM_CTX); 0 keeps the server's default context size.
	NumCtx int
	// Think lets a reasoning model think before answering (flag
	// -llm-think, env KG_LLM_THINK). Default false: requests carry
	// think=false, which servers ignore for models that cannot think.
	Think bool
	// Stream asks the server to stream the reply as NDJSON chunks (flag
	// -llm-stream, env KG_LLM_STREAM); the result is the same, but a long
	// reply keeps the connection busy through idle-timeout proxies.
	Stream bool
	// CachePath is the answer cache, a JSON-lines file (flag -llm-cache,
	// env KG_LLM_CACHE). Empty: answers are cached in memory only.
	CachePath string
	// FailLogPath is the failure log, a JSON-lines file (flag
	// -llm-fail-log, env KG_LLM_FAIL_LOG). Empty: failures are not logged
	// (lenient fallbacks still happen).
	FailLogPath string
	// Strict makes a failed call fail the case with an error (flag
	// -llm-strict, env KG_STRICT_LLM=1). Otherwise the extractor falls back
	// to the deterministic clause extractor and the formatter keeps each
	// finding as present without a value, as the reference system did.
	Strict bool
	// ChunkBytes is the longest document part one reading call gets (flag
	// -llm-chunk-bytes, env KG_LLM_CHUNK_BYTES); a longer document is read
	// in parts cut at paragraph, line or sentence boundaries. 0: the
	// default, 8 KiB.
	ChunkBytes int
	// Mode is ModeRead (default) or ModeSteps (flag -llm-mode, env
	// KG_LLM_MODE).
	Mode string
}

func (c Config) chunkBytes() int {
	if c.ChunkBytes > 0 {
		return c.ChunkBytes
	}
	return DefaultChunkBytes
}

// DefaultConfig is the configuration with every field at its default:
// OLLAMA_HOST, qwen3:32b, 5 min per attempt, 2 retries from 2s, seed 42,
// no thinking, no streaming, no files, lenient.
func DefaultConfig() Config {
	return Config{
		Model:   DefaultModel,
		Timeout: DefaultTimeout,
		Retries: DefaultRetries,
		Backoff: DefaultBackoff,
		Seed:    DefaultSeed,
		Mode:    ModeRead,
	}
}

// ConfigFromEnv is DefaultConfig overridden by the KG_LLM_* variables and
// KG_STRICT_LLM. A malformed value is an error naming the variable.
func ConfigFromEnv() (Config, error) {
	c := DefaultConfig()
	str := func(name string, dst *string) {
		if v := strings.TrimSpace(os.Getenv(name)); v != "" {
			*dst = v
		}
	}
	str(EnvHost, &c.Host)
	str(EnvModel, &c.Model)
	str(EnvCache, &c.CachePath)
	str(EnvFailLog, &c.FailLogPath)
	str(EnvMode, &c.Mode)
	var errs []string
	note := func(err error) {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	note(envDuration(EnvTimeout, &c.Timeout))
	note(envDuration(EnvBackoff, &c.Backoff))
	note(envInt(EnvRetries, &c.Retries))
	note(envInt(EnvSeed, &c.Seed))
	note(envInt(EnvNumCtx, &c.NumCtx))
	note(envInt(EnvChunk, &c.ChunkBytes))
	note(envBool(EnvThink, &c.Think))
	note(envBool(EnvStream, &c.Stream))
	note(envBool(EnvStrict, &c.Strict))
	if len(errs) > 0 {
		return c, fmt.Errorf("llm config: %s", strings.Join(errs, "; "))
	}
	return c, c.Check()
}

// RegisterFlags binds the fields of c to flags on fs, with c's current
// values as defaults, so flags given on the command line override the
// environment: cfg, _ := llm.ConfigFromEnv(); cfg.RegisterFlags(fs);
// fs.Parse(args); llm.New(cfg).
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.Host, "llm-host", c.Host, "Ollama server URL for the LLM steps (env "+EnvHost+"; empty: OLLAMA_HOST)")
	fs.StringVar(&c.Model, "llm-model", c.Model, "chat model for steps (i) and (iv) (env "+EnvModel+")")
	fs.DurationVar(&c.Timeout, "llm-timeout", c.Timeout, "time limit of one LLM HTTP attempt (env "+EnvTimeout+")")
	fs.IntVar(&c.Retries, "llm-retries", c.Retries, "retries after a transient LLM failure (env "+EnvRetries+")")
	fs.DurationVar(&c.Backoff, "llm-backoff", c.Backoff, "wait before the first retry, doubled per retry (env "+EnvBackoff+")")
	fs.IntVar(&c.Seed, "llm-seed", c.Seed, "sampling seed passed to the model (env "+EnvSeed+")")
	fs.IntVar(&c.NumCtx, "llm-num-ctx", c.NumCtx, "context size passed as num_ctx; 0: server default (env "+EnvNumCtx+")")
	fs.BoolVar(&c.Think, "llm-think", c.Think, "let a reasoning model think first; default sends think=false (env "+EnvThink+")")
	fs.BoolVar(&c.Stream, "llm-stream", c.Stream, "ask for streamed replies (env "+EnvStream+")")
	fs.StringVar(&c.CachePath, "llm-cache", c.CachePath, "LLM answer cache, JSON lines; reruns repeat no answered call (env "+EnvCache+")")
	fs.StringVar(&c.FailLogPath, "llm-fail-log", c.FailLogPath, "log of failed LLM calls, JSON lines (env "+EnvFailLog+")")
	fs.StringVar(&c.Mode, "llm-mode", c.Mode, "what the LLM does: read (each document into the patient model; the engine grounds and checks) or steps (finding extraction and evidence formatting) (env "+EnvMode+")")
	fs.IntVar(&c.ChunkBytes, "llm-chunk-bytes", c.ChunkBytes, "longest document part one LLM reading call gets; 0: 8 KiB (env "+EnvChunk+")")
	fs.BoolVar(&c.Strict, "llm-strict", c.Strict, "a failed LLM call fails the case instead of falling back (env "+EnvStrict+"=1)")
}

// Check reports a configuration that cannot work.
func (c Config) Check() error {
	switch {
	case strings.TrimSpace(c.Model) == "":
		return fmt.Errorf("llm config: no model; pass -llm-model or set %s (e.g. %s)", EnvModel, DefaultModel)
	case c.Timeout <= 0:
		return fmt.Errorf("llm config: timeout %v must be positive; pass -llm-timeout or set %s (e.g. 2m)", c.Timeout, EnvTimeout)
	case c.Retries < 0:
		return fmt.Errorf("llm config: retries %d must be ≥ 0; pass -llm-retries or set %s", c.Retries, EnvRetries)
	case c.Backoff < 0:
		return fmt.Errorf("llm config: backoff %v must be ≥ 0; pass -llm-backoff or set %s", c.Backoff, EnvBackoff)
	case c.Mode != "" && c.Mode != ModeRead && c.Mode != ModeSteps:
		return fmt.Errorf("llm config: mode %q is not %s or %s; pass -llm-mode or set %s", c.Mode, ModeRead, ModeSteps, EnvMode)
	case c.ChunkBytes < 0:
		return fmt.Errorf("llm config: chunk bytes %d must be ≥ 0; pass -llm-chunk-bytes or set %s", c.ChunkBytes, EnvChunk)
	case c.NumCtx < 0:
		return fmt.Errorf("llm config: num_ctx %d must be ≥ 0; pass -llm-num-ctx or set %s", c.NumCtx, EnvNumCtx)
	}
	return nil
}

func envDuration(name string, dst *time.Duration) error {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return nil
	}
	// A bare number is seconds, as timeouts are usually written in .env files.
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		*dst = time.Duration(n * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%s=%q is not a duration (write 90s, 2m or a number of seconds)", name, v)
	}
	*dst = d
	return nil
}

func envInt(name string, dst *int) error {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("%s=%q is not an integer", name, v)
	}
	*dst = n
	return nil
}

func envBool(name string, dst *bool) error {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(name)))
	switch v {
	case "":
	case "1", "true", "yes", "on":
		*dst = true
	case "0", "false", "no", "off":
		*dst = false
	default:
		return fmt.Errorf("%s=%q is not a boolean (write 1 or 0)", name, v)
	}
	return nil
}
