// Package llm reads free text with a chat model served by Ollama: a
// document into the patient model (PatientReader, one call per document or
// part: facts in the patient's words with their statuses, placed in the
// text by Go, grounded and checked by the engine), or, the older way, step
// (i) a case into findings (Extractor) and step (iv) every finding–anchor
// pair of a case into structured evidence in one call (Formatter). The
// model only reads; Go code decides. Every request runs at
// temperature 0 with a fixed seed and a JSON Schema generated from the Go
// reply type as "format"; every reply is validated against that schema,
// cached on disk and, when a call fails, logged.
package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"

	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
)

// Client talks to one model on one Ollama server. It is safe for
// concurrent use; make one per run and Close it at the end.
type Client struct {
	cfg   Config
	api   *api.Client
	host  string
	cache *answerCache
	fails *appendFile // nil: no failure log

	flightMu sync.Mutex
	flight   map[cacheKey]*flightCall

	calls     atomic.Int64
	hits      atomic.Int64
	failures  atomic.Int64
	fallbacks atomic.Int64
	rejected  atomic.Int64

	extractor *Extractor
	formatter *Formatter
}

// flightCall lets concurrent askers of the same question share one call.
type flightCall struct {
	done  chan struct{}
	reply json.RawMessage
	n     int
	err   error
}

// FromEnv is New(ConfigFromEnv()).
func FromEnv() (*Client, error) {
	cfg, err := ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	return New(cfg)
}

// New checks cfg, loads the answer cache and opens the failure log. It
// does not contact the server: the first call does.
func New(cfg Config) (*Client, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, flight: map[cacheKey]*flightCall{}}
	if strings.TrimSpace(cfg.Host) == "" {
		// OLLAMA_HOST, resolved by the Ollama client itself.
		ac, err := api.ClientFromEnvironment()
		if err != nil {
			return nil, fmt.Errorf("llm: Ollama client from OLLAMA_HOST=%q: %w; set OLLAMA_HOST or pass -llm-host", envconfig.Var("OLLAMA_HOST"), err)
		}
		c.api, c.host = ac, envconfig.Host().String()
	} else {
		u, err := parseHost(cfg.Host)
		if err != nil {
			return nil, err
		}
		// No http.Client timeout: each attempt has its own context deadline.
		c.api, c.host = api.NewClient(u, &http.Client{}), u.String()
	}
	var err error
	if c.cache, err = openCache(cfg.CachePath); err != nil {
		return nil, err
	}
	if cfg.FailLogPath != "" {
		if c.fails, err = openAppend(cfg.FailLogPath); err != nil {
			c.cache.close()
			return nil, fmt.Errorf("llm fail log: %w (set %s to a writable path)", err, EnvFailLog)
		}
	}
	c.extractor = &Extractor{c: c}
	c.formatter = &Formatter{c: c}
	return c, nil
}

// parseHost accepts "http(s)://host[:port][/path]" and "host[:port]"; a
// bare host gets Ollama's port 11434.
func parseHost(h string) (*url.URL, error) {
	h = strings.TrimSpace(h)
	bare := !strings.Contains(h, "://")
	if bare {
		h = "http://" + h
	}
	u, err := url.Parse(h)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("llm: host %q is not an http(s) URL; pass -llm-host or set %s like http://127.0.0.1:11434", h, EnvHost)
	}
	if bare && u.Port() == "" {
		u.Host = net.JoinHostPort(u.Hostname(), "11434")
	}
	return u, nil
}

// Extractor is step (i) with this client.
func (c *Client) Extractor() extract.Extractor { return c.extractor }

// Formatter is step (iv) with this client.
func (c *Client) Formatter() evidence.Formatter { return c.formatter }

// Config returns the configuration the client was made with.
func (c *Client) Config() Config { return c.cfg }

// Host is the server URL requests go to.
func (c *Client) Host() string { return c.host }

// Stats counts what the client did since it was made.
type Stats struct {
	Calls         int64 // HTTP attempts sent to the server (retries included)
	CacheHits     int64 // questions answered from the cache
	Failures      int64 // questions that failed (after retries)
	Fallbacks     int64 // failures replaced by the lenient fallback
	Rejected      int64 // pairs the model said are not about their concept
	CacheEntries  int   // answers in the cache now
	CacheSkipped  int   // unreadable cache lines ignored on load
	CacheFilePath string
}

// Stats returns the counters.
func (c *Client) Stats() Stats {
	return Stats{
		Calls: c.calls.Load(), CacheHits: c.hits.Load(), Failures: c.failures.Load(),
		Fallbacks: c.fallbacks.Load(), Rejected: c.rejected.Load(),
		CacheEntries: c.cache.len(), CacheSkipped: c.cache.skipped, CacheFilePath: c.cfg.CachePath,
	}
}

// Close closes the cache file and the failure log. Every line was synced
// when written, so nothing is lost without it; it releases the files.
func (c *Client) Close() error {
	err := c.cache.close()
	if c.fails != nil {
		if e := c.fails.close(); err == nil {
			err = e
		}
	}
	return err
}

// CallError is a call that failed: the server could not be reached or
// answered an error after all retries, or its reply was unusable. It names
// what failed and says how to fix it.
type CallError struct {
	Kind     string // "extract" or "format"
	Host     string
	Model    string
	CaseHash string
	Case     string // the case text, shortened
	Finding  string // the finding ID, when one pair failed
	Attempts int
	Err      error
}

func (e *CallError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm %s: model %s at %s, case %s (%q)", e.Kind, e.Model, e.Host, e.CaseHash, e.Case)
	if e.Finding != "" {
		fmt.Fprintf(&b, ", finding %s", e.Finding)
	}
	if e.Attempts > 0 {
		fmt.Fprintf(&b, ": failed after %d attempt(s)", e.Attempts)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	if h := hint(e.Err, e.Model); h != "" {
		b.WriteString("; " + h)
	}
	return b.String()
}

func (e *CallError) Unwrap() error { return e.Err }

// hint says how to fix a failure of the given kind.
func hint(err error, model string) string {
	var se api.StatusError
	var re *ReplyError
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("the model did not answer in time: raise -llm-timeout / %s, or check the server load", EnvTimeout)
	case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
		return fmt.Sprintf("the server does not have the model: run `ollama pull %s` there, or choose another with -llm-model / %s", model, EnvModel)
	case errors.As(err, &se):
		return "see the Ollama server log"
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("no server listens there: start `ollama serve`, or point -llm-host / %s / OLLAMA_HOST at it", EnvHost)
	case errors.As(err, &re):
		return fmt.Sprintf("the model did not follow the reply schema: try another model (-llm-model / %s); unset %s to fall back instead of failing", EnvModel, EnvStrict)
	case errors.Is(err, errIncomplete):
		return "the connection closed before the reply was complete: check the server and any proxy in between"
	}
	return ""
}

// errIncomplete: the reply stream ended without a "done" message. The
// Ollama client does not report a stream cut off mid-way, so this is how a
// dropped connection or a bare 5xx without body shows.
var errIncomplete = errors.New(`reply ended before the server sent "done"`)

// transient reports whether another attempt may succeed.
func transient(err error) bool {
	var se api.StatusError
	if errors.As(err, &se) {
		return se.StatusCode >= 500 || se.StatusCode == http.StatusTooManyRequests || se.StatusCode == http.StatusRequestTimeout
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsTimeout || dns.IsTemporary
	}
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, errIncomplete),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	case errors.As(err, &ne) && ne.Timeout():
		return true
	case errors.As(err, &oe):
		return true
	}
	return false
}

// question is one LLM request with what identifies it.
type question struct {
	kind, version string
	caseText      string
	system, user  string
	schema        *replySchema
}

func (c *Client) request(q question) *api.ChatRequest {
	stream := c.cfg.Stream
	opts := map[string]any{"temperature": 0, "seed": c.cfg.Seed}
	if c.cfg.NumCtx > 0 {
		opts["num_ctx"] = c.cfg.NumCtx
	}
	return &api.ChatRequest{
		Model: c.cfg.Model,
		Messages: []api.Message{
			{Role: "system", Content: q.system},
			{Role: "user", Content: q.user},
		},
		Stream:  &stream,
		Format:  q.schema.raw,
		Options: opts,
		Think:   &api.ThinkValue{Value: c.cfg.Think},
	}
}

// key hashes what decides the answer: model, messages, schema and options.
// Stream does not change the answer and is left out.
func (c *Client) key(q question, req *api.ChatRequest) cacheKey {
	h := sha256.New()
	b, _ := json.Marshal(struct {
		M []api.Message
		F json.RawMessage
		O map[string]any
		T bool
	}{req.Messages, req.Format, req.Options, c.cfg.Think})
	h.Write(b)
	return cacheKey{Kind: q.kind, Model: c.cfg.Model, PromptVersion: q.version, InputHash: hex.EncodeToString(h.Sum(nil))}
}

// ask answers q into out (a pointer to the reply type): from the cache
// when it holds a valid answer, else from the server. It returns the
// number of HTTP attempts made (0 from the cache). Errors are *CallError
// unless ctx itself ended.
func (c *Client) ask(ctx context.Context, q question, out any) (int, error) {
	req := c.request(q)
	k := c.key(q, req)
	for {
		if raw, ok := c.cache.get(k); ok {
			// A cached answer is re-validated: the schema may have changed.
			if q.schema.decode(raw, out) == nil {
				c.hits.Add(1)
				return 0, nil
			}
		}
		c.flightMu.Lock()
		if f, ok := c.flight[k]; ok {
			c.flightMu.Unlock()
			select {
			case <-f.done:
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			// The leader's own context ending says nothing about ours: ask again.
			if f.err != nil && isCtxErr(f.err) && ctx.Err() == nil {
				continue
			}
			if f.err != nil {
				return f.n, f.err
			}
			return f.n, q.schema.decode(f.reply, out)
		}
		f := &flightCall{done: make(chan struct{})}
		c.flight[k] = f
		c.flightMu.Unlock()

		f.reply, f.n, f.err = c.answer(ctx, q, req, k)
		c.flightMu.Lock()
		delete(c.flight, k)
		c.flightMu.Unlock()
		close(f.done)
		if f.err != nil {
			return f.n, f.err
		}
		return f.n, q.schema.decode(f.reply, out)
	}
}

func isCtxErr(err error) bool {
	var ce *CallError
	if errors.As(err, &ce) {
		return false
	}
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// answer calls the server with retries, validates the reply and caches it.
func (c *Client) answer(ctx context.Context, q question, req *api.ChatRequest, k cacheKey) (json.RawMessage, int, error) {
	fail := func(n int, err error) (json.RawMessage, int, error) {
		c.failures.Add(1)
		return nil, n, &CallError{Kind: q.kind, Host: c.host, Model: c.cfg.Model, CaseHash: caseHash(q.caseText),
			Case: shorten(q.caseText, 60), Attempts: n, Err: err}
	}
	var content string
	n := 0
	for {
		n++
		var err error
		content, err = c.chatOnce(ctx, req)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil, n, ctx.Err() // the caller stopped: not a model failure
		}
		if !transient(err) || n > c.cfg.Retries {
			return fail(n, err)
		}
		wait := c.cfg.Backoff << (n - 1)
		if wait > maxBackoff || wait < 0 {
			wait = maxBackoff
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, n, ctx.Err()
		}
	}
	// The reply is stored as sent (stripThinking trims it; the cache line
	// encoder compacts it onto one line).
	raw := json.RawMessage(stripThinking(content))
	// Validate before caching: only usable answers are kept.
	var probe any
	if err := q.schema.decode(raw, &probe); err != nil {
		return fail(n, err)
	}
	err := c.cache.put(cacheEntry{Kind: k.Kind, Model: k.Model, PromptVersion: k.PromptVersion, InputHash: k.InputHash,
		CaseHash: caseHash(q.caseText), Time: time.Now().UTC(), Reply: raw})
	if err != nil {
		// The answer is good; only resuming is affected. Fail loudly
		// anyway: a cache that silently stops writing defeats its purpose.
		return fail(n, err)
	}
	return raw, n, nil
}

// chatOnce is one HTTP attempt under the per-attempt timeout. It gathers
// the content of a streamed or a single reply.
func (c *Client) chatOnce(ctx context.Context, req *api.ChatRequest) (string, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	c.calls.Add(1)
	var b strings.Builder
	done := false
	err := c.api.Chat(actx, req, func(r api.ChatResponse) error {
		b.WriteString(r.Message.Content)
		if r.Done {
			done = true
		}
		return nil
	})
	if actx.Err() != nil {
		// A deadline hit while reading the body is not reported by the
		// Ollama client (it stops scanning); report it here.
		return "", actx.Err()
	}
	if err != nil {
		return "", err
	}
	if !done {
		return "", errIncomplete
	}
	return b.String(), nil
}

// stripThinking drops a leading <think>…</think> block, which a reasoning
// model writes into the content when the server does not separate it.
func stripThinking(s string) string {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "<think>") {
		if i := strings.Index(t, "</think>"); i >= 0 {
			return strings.TrimSpace(t[i+len("</think>"):])
		}
	}
	return t
}

// caseHash names a case in logs and errors: the first 16 hex digits of
// the SHA-256 of its text.
func caseHash(text string) string {
	h := sha256.Sum256([]byte(text))
	return hex.EncodeToString(h[:8])
}

// logFailure appends to the failure log, if any. A log that cannot be
// written is reported on the returned error but never hides the failure.
func (c *Client) logFailure(kind, version, caseText, finding string, err error, fallback string) error {
	if c.fails == nil {
		return nil
	}
	e := failEntry{Time: time.Now().UTC(), Kind: kind, Model: c.cfg.Model, Host: c.host, PromptVersion: version,
		CaseHash: caseHash(caseText), Finding: finding, Error: err.Error(), Fallback: fallback}
	var ce *CallError
	if errors.As(err, &ce) {
		e.Attempts = ce.Attempts
	}
	if werr := c.fails.appendJSON(e); werr != nil {
		return fmt.Errorf("llm fail log: %w", werr)
	}
	return nil
}
