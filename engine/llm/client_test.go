package llm

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
)

// The server sleeps past the client's timeout every time: each attempt
// times out, is retried, and the call fails after Retries+1 attempts with
// an error that says to raise the timeout.
func TestTimeoutRetriesThenFails(t *testing.T) {
	for _, tc := range []struct {
		stream bool
		reply  fakeReply
	}{
		{false, fakeReply{sleep: 2 * time.Second, content: findingsJSON("angina")}},
		{true, fakeReply{sleep: 2 * time.Second, content: findingsJSON("angina")}},
		// Headers and a first chunk arrive, then the server stalls.
		{true, fakeReply{stall: 2 * time.Second, content: findingsJSON("angina")}},
	} {
		f := newFake(t, func(int64, seenRequest) fakeReply { return tc.reply })
		cfg := testConfig(f)
		cfg.Timeout = 100 * time.Millisecond
		cfg.Strict = true
		cfg.Stream = tc.stream
		c := newClient(t, cfg)
		start := time.Now()
		_, err := c.Extractor().Extract(context.Background(), "Patient with angina.")
		require.Error(t, err)
		assert.Less(t, time.Since(start), 1500*time.Millisecond, "attempts must not wait for the server")
		assert.Equal(t, int64(3), f.calls.Load())
		var ce *CallError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, 3, ce.Attempts)
		assert.True(t, errors.Is(err, context.DeadlineExceeded), err)
		assert.Contains(t, err.Error(), EnvTimeout)
		assert.Contains(t, err.Error(), "after 3 attempt(s)")
	}
}

// The first attempt fails (500, 503 with an Ollama error body, a bare 502,
// a stream cut before done); the retry succeeds.
func TestTransientThenSuccess(t *testing.T) {
	first := map[string]fakeReply{
		"500":        {status: 500, errMsg: "model runner crashed"},
		"503":        {status: 503, errMsg: "server busy"},
		"502 bare":   {status: 502},
		"429":        {status: 429, errMsg: "too many requests"},
		"cut stream": {content: findingsJSON("angina"), noDone: true},
	}
	for name, bad := range first {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(n int64, _ seenRequest) fakeReply {
				if n == 1 {
					return bad
				}
				return fakeReply{content: findingsJSON("angina")}
			})
			cfg := testConfig(f)
			cfg.Strict = true
			cfg.Stream = name == "cut stream"
			c := newClient(t, cfg)
			got, err := c.Extractor().Extract(context.Background(), "Patient with angina.")
			require.NoError(t, err)
			assert.Equal(t, []extract.Finding{{ID: "f0", Text: "angina", Start: 13, End: 19}}, got)
			assert.Equal(t, int64(2), f.calls.Load())
			assert.Equal(t, int64(2), c.Stats().Calls)
		})
	}
}

// 4xx answers are not transient: one attempt, and the error says what to do.
func TestClientErrorsNotRetried(t *testing.T) {
	f := newFake(t, func(int64, seenRequest) fakeReply {
		return fakeReply{status: http.StatusNotFound, errMsg: `model "qwen3:32b" not found, try pulling it first`}
	})
	cfg := testConfig(f)
	cfg.Strict = true
	c := newClient(t, cfg)
	_, err := c.Formatter().FormatCase(context.Background(), fmtCase, fmtPairs())
	require.Error(t, err)
	assert.Equal(t, int64(1), f.calls.Load())
	var se api.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 404, se.StatusCode)
	assert.Contains(t, err.Error(), "ollama pull qwen3:32b")
}

// No server listens: connection refused is transient, so it is retried,
// and the error names the host and says to start the server.
func TestConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	cfg := DefaultConfig()
	cfg.Host = addr // bare host:port means http
	cfg.Retries, cfg.Backoff, cfg.Strict = 1, time.Millisecond, true
	c := newClient(t, cfg)
	_, err = c.Extractor().Extract(context.Background(), "Patient with angina.")
	require.Error(t, err)
	var ce *CallError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, 2, ce.Attempts)
	assert.Contains(t, err.Error(), "http://"+addr)
	assert.Contains(t, err.Error(), "ollama serve")
}

func TestParseHost(t *testing.T) {
	for in, want := range map[string]string{
		"gpu-box":                  "http://gpu-box:11434",
		"10.0.0.2:8080":            "http://10.0.0.2:8080",
		"http://gpu-box":           "http://gpu-box",
		"https://llm.example/olla": "https://llm.example/olla",
	} {
		u, err := parseHost(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, u.String(), in)
	}
	_, err := parseHost("ftp://x")
	assert.ErrorContains(t, err, EnvHost)
}

// With no host configured, the client follows OLLAMA_HOST.
func TestHostFromOllamaEnv(t *testing.T) {
	f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: findingsJSON("angina")} })
	t.Setenv("OLLAMA_HOST", f.srv.URL)
	cfg := testConfig(f)
	cfg.Host = ""
	c := newClient(t, cfg)
	assert.Equal(t, f.srv.URL, c.Host())
	_, err := c.Extractor().Extract(context.Background(), "Patient with angina.")
	require.NoError(t, err)
	assert.Equal(t, int64(1), f.calls.Load())
}

// A rerun answers everything from the cache file: zero HTTP calls. A case
// whose call failed is not cached, so only it is asked again.
func TestCacheResume(t *testing.T) {
	dir := t.TempDir()
	cases := []string{"Patient with angina.", "Patient with syncope.", "Patient with dyspnoea."}
	serve := func(failSyncope bool) *fakeOllama {
		return newFake(t, func(_ int64, r seenRequest) fakeReply {
			u := r.user()
			switch {
			case strings.Contains(u, "Pairs:"):
				return fakeReply{content: evidenceJSON(ev{pair: 0, about: true, present: true})}
			case strings.Contains(u, "syncope") && failSyncope:
				return fakeReply{status: 500, errMsg: "boom"}
			}
			w := strings.TrimSuffix(strings.TrimPrefix(u[strings.Index(u, "Patient with "):], "Patient with "), ".")
			return fakeReply{content: findingsJSON(w)}
		})
	}
	run := func(f *fakeOllama) ([][]extract.Finding, [][]evidence.Item) {
		cfg := testConfig(f)
		cfg.CachePath = filepath.Join(dir, "llm_cache.jsonl")
		cfg.Retries = 0
		c := newClient(t, cfg)
		var fs [][]extract.Finding
		var is [][]evidence.Item
		for _, k := range cases {
			got, err := c.Extractor().Extract(context.Background(), k)
			require.NoError(t, err)
			fs = append(fs, got)
			items, err := c.Formatter().FormatCase(context.Background(), k,
				[]evidence.Pair{{FindingID: "f0", Text: got[0].Text, Anchor: hf}})
			require.NoError(t, err)
			is = append(is, items)
		}
		require.NoError(t, c.Close())
		return fs, is
	}

	// Run 1: the syncope extraction fails (lenient fallback), 5 answers cached.
	f1 := serve(true)
	fs1, _ := run(f1)
	assert.Equal(t, int64(6), f1.calls.Load())
	assert.Equal(t, "syncope", fs1[1][0].Text)
	assert.Len(t, readLines(t, filepath.Join(dir, "llm_cache.jsonl")), 5)

	// Run 2: only the failed call is repeated.
	f2 := serve(false)
	fs2, is2 := run(f2)
	assert.Equal(t, int64(1), f2.calls.Load())
	assert.Equal(t, fs1, fs2)

	// Run 3: nothing left to ask.
	f3 := serve(false)
	fs3, is3 := run(f3)
	assert.Equal(t, int64(0), f3.calls.Load())
	assert.Equal(t, fs2, fs3)
	assert.Equal(t, is2, is3)

	// Another model, seed or prompt is another question.
	f4 := serve(false)
	cfg := testConfig(f4)
	cfg.CachePath = filepath.Join(dir, "llm_cache.jsonl")
	cfg.Seed = 43
	c := newClient(t, cfg)
	_, err := c.Extractor().Extract(context.Background(), cases[0])
	require.NoError(t, err)
	assert.Equal(t, int64(1), f4.calls.Load())

	lines := readLines(t, filepath.Join(dir, "llm_cache.jsonl"))
	for _, l := range lines {
		assert.Contains(t, []string{"extract", "format"}, l["kind"])
		assert.Equal(t, "qwen3:32b", l["model"])
		assert.Contains(t, []string{ExtractPromptVersion, FormatPromptVersion}, l["prompt_version"])
		assert.Len(t, l["input_hash"], 64)
		assert.NotEmpty(t, l["reply"])
	}
}

// A run killed mid-write leaves a torn last line: it is skipped on load,
// the entries before it are served, and the next entry starts on its own
// line, so a later load reads it.
func TestCacheTruncatedLastLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache.jsonl")
	f := newFake(t, func(_ int64, r seenRequest) fakeReply {
		if strings.Contains(r.user(), "angina") {
			return fakeReply{content: findingsJSON("angina")}
		}
		return fakeReply{content: findingsJSON("syncope")}
	})
	cfg := testConfig(f)
	cfg.CachePath = path
	c := newClient(t, cfg)
	_, err := c.Extractor().Extract(context.Background(), "Patient with angina.")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	good, err := os.ReadFile(path)
	require.NoError(t, err)
	// Append half of a copy of the line: the torn write.
	torn := append(append([]byte{}, good...), good[:len(good)/2]...)
	require.NoError(t, os.WriteFile(path, torn, 0o644))

	c2 := newClient(t, cfg)
	assert.Equal(t, 1, c2.Stats().CacheSkipped)
	_, err = c2.Extractor().Extract(context.Background(), "Patient with angina.")
	require.NoError(t, err)
	assert.Equal(t, int64(1), f.calls.Load(), "served from the cache")
	_, err = c2.Extractor().Extract(context.Background(), "Patient with syncope.")
	require.NoError(t, err)
	assert.Equal(t, int64(2), f.calls.Load())
	require.NoError(t, c2.Close())

	c3 := newClient(t, cfg)
	assert.Equal(t, 2, c3.Stats().CacheEntries)
	assert.Equal(t, 1, c3.Stats().CacheSkipped)
	got, err := c3.Extractor().Extract(context.Background(), "Patient with syncope.")
	require.NoError(t, err)
	assert.Equal(t, "syncope", got[0].Text)
	assert.Equal(t, int64(2), f.calls.Load())
}

// A cached reply that no longer fits the schema is asked again.
func TestCacheRevalidates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache.jsonl")
	f := newFake(t, func(int64, seenRequest) fakeReply { return fakeReply{content: findingsJSON("angina")} })
	cfg := testConfig(f)
	cfg.CachePath = path
	c := newClient(t, cfg)
	_, err := c.Extractor().Extract(context.Background(), "Patient with angina.")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(b), `"text":"angina"`, `"text":""`, 1)), 0o644))

	c2 := newClient(t, cfg)
	got, err := c2.Extractor().Extract(context.Background(), "Patient with angina.")
	require.NoError(t, err)
	assert.Equal(t, "angina", got[0].Text)
	assert.Equal(t, int64(2), f.calls.Load())
}

// Many goroutines share one client: each distinct question goes to the
// server once (concurrent askers of the same question wait for one call),
// the cache file gets one whole line per question, and results are
// identical. Run with -race.
func TestConcurrentUse(t *testing.T) {
	f := newFake(t, func(_ int64, r seenRequest) fakeReply {
		time.Sleep(5 * time.Millisecond) // let askers overlap
		u := r.user()
		if strings.Contains(u, "Pairs:") {
			n := strings.Count(u, "; concept: ")
			var items []ev
			for i := 0; i < n; i++ {
				items = append(items, ev{pair: i, about: true, present: true})
			}
			return fakeReply{content: evidenceJSON(items...)}
		}
		return fakeReply{content: findingsJSON("finding " + u[len(u)-2:len(u)-1])}
	})
	cfg := testConfig(f)
	cfg.CachePath = filepath.Join(t.TempDir(), "cache.jsonl")
	cfg.Stream = true
	c := newClient(t, cfg)
	const cases, workers = 6, 8
	var wg sync.WaitGroup
	results := make([][]string, workers)
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < cases; i++ {
				k := (i + w) % cases
				text := fmt.Sprintf("Patient with finding %d.", k)
				fs, err := c.Extractor().Extract(context.Background(), text)
				if err != nil {
					errs <- err
					return
				}
				pairs := []evidence.Pair{{FindingID: fs[0].ID, Text: fs[0].Text, Anchor: hf}}
				for j := 0; j < k%3; j++ {
					pairs = append(pairs, evidence.Pair{FindingID: fs[0].ID, Text: fs[0].Text, Anchor: lvef})
				}
				items, err := c.Formatter().FormatCase(context.Background(), text, pairs)
				if err != nil {
					errs <- err
					return
				}
				results[w] = append(results[w], fmt.Sprintf("%d:%s:%d", k, fs[0].Text, len(items)))
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	assert.Equal(t, int64(2*cases), f.calls.Load(), "one call per distinct question")
	assert.Len(t, readLines(t, cfg.CachePath), 2*cases)
	st := c.Stats()
	assert.Equal(t, 2*cases, st.CacheEntries)
	for w := range results {
		assert.Len(t, results[w], cases)
		for _, r := range results[w] {
			var k, n int
			var text string
			_, err := fmt.Sscanf(strings.Replace(r, ":", " ", -1), "%d finding %s %d", &k, &text, &n)
			require.NoError(t, err, r)
			assert.Equal(t, fmt.Sprint(k), text)
			assert.Equal(t, 1+k%3, n)
		}
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv(EnvHost, "gpu-box:11434")
	t.Setenv(EnvModel, "llama3.1:8b")
	t.Setenv(EnvTimeout, "90")
	t.Setenv(EnvRetries, "5")
	t.Setenv(EnvBackoff, "250ms")
	t.Setenv(EnvSeed, "7")
	t.Setenv(EnvNumCtx, "16384")
	t.Setenv(EnvThink, "0")
	t.Setenv(EnvStream, "true")
	t.Setenv(EnvCache, "/tmp/c.jsonl")
	t.Setenv(EnvFailLog, "/tmp/f.jsonl")
	t.Setenv(EnvStrict, "1")
	t.Setenv(EnvMode, "steps")
	t.Setenv(EnvChunk, "4096")
	cfg, err := ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, Config{Host: "gpu-box:11434", Model: "llama3.1:8b", Timeout: 90 * time.Second, Retries: 5,
		Backoff: 250 * time.Millisecond, Seed: 7, NumCtx: 16384, Stream: true, CachePath: "/tmp/c.jsonl",
		FailLogPath: "/tmp/f.jsonl", Strict: true, Mode: ModeSteps, ChunkBytes: 4096}, cfg)

	// Flags override the environment.
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	cfg.RegisterFlags(fs)
	require.NoError(t, fs.Parse([]string{"-llm-model", "qwen3:32b", "-llm-strict=false", "-llm-timeout", "2m"}))
	assert.Equal(t, "qwen3:32b", cfg.Model)
	assert.False(t, cfg.Strict)
	assert.Equal(t, 2*time.Minute, cfg.Timeout)
	assert.Equal(t, 5, cfg.Retries)
}

func TestConfigErrors(t *testing.T) {
	t.Setenv(EnvStrict, "maybe")
	t.Setenv(EnvTimeout, "soon")
	_, err := ConfigFromEnv()
	require.Error(t, err)
	assert.Contains(t, err.Error(), EnvStrict)
	assert.Contains(t, err.Error(), EnvTimeout)

	bad := DefaultConfig()
	bad.Model = " "
	_, err = New(bad)
	assert.ErrorContains(t, err, EnvModel)
	bad = DefaultConfig()
	bad.Timeout = 0
	_, err = New(bad)
	assert.ErrorContains(t, err, EnvTimeout)
	bad = DefaultConfig()
	bad.Mode = "chat"
	_, err = New(bad)
	assert.ErrorContains(t, err, EnvMode)
	bad = DefaultConfig()
	bad.ChunkBytes = -1
	_, err = New(bad)
	assert.ErrorContains(t, err, EnvChunk)
}

func TestDefaults(t *testing.T) {
	for _, k := range []string{EnvHost, EnvModel, EnvTimeout, EnvRetries, EnvBackoff, EnvSeed, EnvNumCtx, EnvThink, EnvStream, EnvCache, EnvFailLog, EnvStrict, EnvMode, EnvChunk} {
		t.Setenv(k, "")
	}
	cfg, err := ConfigFromEnv()
	require.NoError(t, err)
	assert.Equal(t, DefaultConfig(), cfg)
	assert.Equal(t, "qwen3:32b", cfg.Model)
	assert.False(t, cfg.Strict)
	assert.Equal(t, ModeRead, cfg.Mode)
	assert.Equal(t, DefaultChunkBytes, cfg.chunkBytes())
}
