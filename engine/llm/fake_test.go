package llm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// fakeOllama is an httptest server speaking Ollama's POST /api/chat: a
// single JSON object when the request says "stream": false, NDJSON chunks
// otherwise (Ollama's default). The real ollama/api client talks to it, so
// the tests cover the wire format, not a mock of our own code.
type fakeOllama struct {
	t   *testing.T
	srv *httptest.Server

	calls atomic.Int64 // requests to /api/chat

	mu   sync.Mutex
	reqs []seenRequest
	// respond decides the reply to the n-th request (1-based).
	respond func(n int64, req seenRequest) fakeReply
}

// seenRequest is a request as received: decoded into the client's type and
// kept raw, to check the JSON the server actually saw.
type seenRequest struct {
	api.ChatRequest
	Raw map[string]any
}

// user is the user message, where the case and pairs are.
func (r seenRequest) user() string {
	for _, m := range r.Messages {
		if m.Role == "user" {
			return m.Content
		}
	}
	return ""
}

type fakeReply struct {
	status  int           // 0: 200
	errMsg  string        // body {"error": errMsg} with status ≥ 400
	content string        // message content
	sleep   time.Duration // before answering (past the client's timeout)
	noDone  bool          // stream ends without the final done message
	stall   time.Duration // streamed: pause after the first chunk
}

func newFake(t *testing.T, respond func(n int64, req seenRequest) fakeReply) *fakeOllama {
	t.Helper()
	f := &fakeOllama{t: t, respond: respond}
	f.srv = httptest.NewServer(http.HandlerFunc(f.handle))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeOllama) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL.Path)
		return
	}
	n := f.calls.Add(1)
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("read request: %v", err)
		return
	}
	var sr seenRequest
	if err := json.Unmarshal(body, &sr.ChatRequest); err != nil {
		f.t.Errorf("decode request: %v", err)
	}
	if err := json.Unmarshal(body, &sr.Raw); err != nil {
		f.t.Errorf("decode request: %v", err)
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, sr)
	f.mu.Unlock()

	rep := f.respond(n, sr)
	if rep.sleep > 0 {
		select {
		case <-time.After(rep.sleep):
		case <-r.Context().Done(): // the client gave up
			return
		}
	}
	if rep.status >= 400 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.status)
		if rep.errMsg != "" {
			_ = json.NewEncoder(w).Encode(map[string]string{"error": rep.errMsg})
		}
		return
	}
	model := sr.Model
	msg := func(content string, done bool) map[string]any {
		m := map[string]any{"model": model, "created_at": time.Now().UTC().Format(time.RFC3339Nano),
			"message": map[string]any{"role": "assistant", "content": content}, "done": done}
		if done {
			m["done_reason"] = "stop"
			m["eval_count"] = 12
		}
		return m
	}
	if sr.Stream != nil && !*sr.Stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg(rep.content, true))
		return
	}
	// Streamed: the content in three chunks, then an empty done message.
	w.Header().Set("Content-Type", "application/x-ndjson")
	enc := json.NewEncoder(w)
	fl, _ := w.(http.Flusher)
	c := rep.content
	cuts := []int{0, len(c) / 3, 2 * len(c) / 3, len(c)}
	for i := 0; i < 3; i++ {
		_ = enc.Encode(msg(c[cuts[i]:cuts[i+1]], false))
		if fl != nil {
			fl.Flush()
		}
		if i == 0 && rep.stall > 0 {
			select {
			case <-time.After(rep.stall):
			case <-r.Context().Done():
				return
			}
		}
	}
	if !rep.noDone {
		_ = enc.Encode(msg("", true))
	}
}

func (f *fakeOllama) requests() []seenRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenRequest(nil), f.reqs...)
}

// testConfig points at the fake with short timeouts and no backoff to
// speak of.
func testConfig(f *fakeOllama) Config {
	c := DefaultConfig()
	c.Host = f.srv.URL
	c.Model = "qwen3:32b"
	c.Timeout = 2 * time.Second
	c.Retries = 2
	c.Backoff = time.Millisecond
	return c
}

func newClient(t *testing.T, cfg Config) *Client {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// findingsJSON builds an extraction reply.
func findingsJSON(texts ...string) string {
	var fs []string
	for _, t := range texts {
		b, _ := json.Marshal(t)
		fs = append(fs, `{"text":`+string(b)+`}`)
	}
	return `{"findings":[` + strings.Join(fs, ",") + `]}`
}

// ev is one formatter reply item.
type ev struct {
	pair    int
	about   bool
	present bool
	value   *float64
	unit    string
	cmp     string
}

func evidenceJSON(items ...ev) string {
	var s []string
	for _, e := range items {
		v := "null"
		if e.value != nil {
			v = fmt.Sprint(*e.value)
		}
		cmp := e.cmp
		if cmp == "" {
			cmp = "="
		}
		s = append(s, fmt.Sprintf(`{"pair":%d,"about_concept":%t,"present":%t,"value":%s,"unit":%q,"comparator":%q}`,
			e.pair, e.about, e.present, v, e.unit, cmp))
	}
	return `{"evidence":[` + strings.Join(s, ",") + `]}`
}

func num(f float64) *float64 { return &f }
