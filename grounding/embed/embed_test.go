package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestBuiltin(t *testing.T) {
	e := NewBuiltin(0)
	if e.Dim() != DefaultBuiltinDim || !strings.Contains(e.Name(), "d512") {
		t.Fatalf("dim %d name %s", e.Dim(), e.Name())
	}
	texts := []string{
		"fast irregular heart rate",
		"Fast irregular heart-rate",
		"irregular fast heart rates",
		"estimated glomerular filtration rate",
		"severe obesity",
		"",
	}
	v, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range v[:5] {
		if len(x) != 512 {
			t.Fatalf("len %d", len(x))
		}
		if n := cos(x, x); math.Abs(n-1) > 1e-5 {
			t.Errorf("text %d: norm² %v, want 1", i, n)
		}
	}
	if n := cos(v[5], v[5]); n != 0 {
		t.Errorf("empty text: norm² %v, want 0", n)
	}
	if c := cos(v[0], v[1]); c < 0.999 {
		t.Errorf("case and hyphen must not matter: cos %v", c)
	}
	same, reordered, rate, unrelated := cos(v[0], v[1]), cos(v[0], v[2]), cos(v[0], v[3]), cos(v[0], v[4])
	if !(same > reordered && reordered > rate && rate > unrelated) {
		t.Errorf("similarity order wrong: same %.3f reordered %.3f shared-word %.3f unrelated %.3f", same, reordered, rate, unrelated)
	}
	if rate > 0.3 {
		t.Errorf("one shared generic word (rate) gives cos %.3f; want it small", rate)
	}
	// deterministic across calls
	w, _ := e.Embed(context.Background(), texts[:1])
	for i := range w[0] {
		if w[0][i] != v[0][i] {
			t.Fatal("builtin embedder is not deterministic")
		}
	}
}

// ollamaServer speaks POST /api/embed like Ollama; reply decides the body.
func ollamaServer(t *testing.T, reply func(w http.ResponseWriter, model string, input []string)) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/embed" || r.Method != http.MethodPost {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		calls.Add(1)
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("request body %s: %v", body, err)
		}
		reply(w, req.Model, req.Input)
	}))
	t.Cleanup(srv.Close)
	t.Setenv("OLLAMA_HOST", srv.URL)
	return srv, &calls
}

// fakeVec is a deterministic 3-d vector per text.
func fakeVec(s string) []float32 { return []float32{float32(len(s)), 1, float32(s[0])} }

func okReply(w http.ResponseWriter, model string, input []string) {
	resp := map[string]any{"model": model, "embeddings": [][]float32{}}
	var vs [][]float32
	for _, s := range input {
		vs = append(vs, fakeVec(s))
	}
	resp["embeddings"] = vs
	json.NewEncoder(w).Encode(resp)
}

func TestOllamaEmbedBatches(t *testing.T) {
	_, calls := ollamaServer(t, okReply)
	t.Setenv(EnvModel, "test-embed")
	o, err := NewOllama("", 2)
	if err != nil {
		t.Fatal(err)
	}
	if o.Name() != "ollama:test-embed" || o.Dim() != 0 {
		t.Fatalf("name %s dim %d", o.Name(), o.Dim())
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	v, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d requests for 5 texts in batches of 2, want 3", calls.Load())
	}
	for i, s := range texts {
		if fmt.Sprint(v[i]) != fmt.Sprint(fakeVec(s)) {
			t.Errorf("text %d: %v, want %v (order lost?)", i, v[i], fakeVec(s))
		}
	}
	if o.Dim() != 3 {
		t.Errorf("dim %d after first call, want 3", o.Dim())
	}
}

func TestOllamaErrors(t *testing.T) {
	cases := map[string]struct {
		reply func(w http.ResponseWriter, model string, input []string)
		want  []string
	}{
		"model missing": {func(w http.ResponseWriter, model string, _ []string) {
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":"model %q not found, try pulling it first"}`, model)
		}, []string{"not found", "ollama pull m1"}},
		"server error": {func(w http.ResponseWriter, _ string, _ []string) {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":"out of memory"}`)
		}, []string{"out of memory", "server log"}},
		"malformed json": {func(w http.ResponseWriter, _ string, _ []string) {
			fmt.Fprint(w, `{"embeddings": [[0.1, 0.2`)
		}, []string{"not the JSON of /api/embed"}},
		"html page": {func(w http.ResponseWriter, _ string, _ []string) {
			fmt.Fprint(w, `<html>proxy login</html>`)
		}, []string{"not the JSON of /api/embed"}},
		"too few vectors": {func(w http.ResponseWriter, model string, input []string) {
			okReply(w, model, input[:1])
		}, []string{"returned 1 vectors for 2 texts"}},
		"empty vector": {func(w http.ResponseWriter, model string, input []string) {
			fmt.Fprint(w, `{"model":"m1","embeddings":[[],[]]}`)
		}, []string{"empty vector"}},
		"dimension changes": {func(w http.ResponseWriter, model string, input []string) {
			fmt.Fprint(w, `{"model":"m1","embeddings":[[1,2,3],[1,2]]}`)
		}, []string{"dimension 2", "had 3"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			srv, _ := ollamaServer(t, c.reply)
			o, err := NewOllama("m1", 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = o.Embed(context.Background(), []string{"x", "yy"})
			if err == nil {
				t.Fatal("want an error")
			}
			msg := err.Error()
			host := strings.TrimPrefix(srv.URL, "http://")
			for _, w := range append(c.want, host, `"m1"`) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

func TestOllamaUnreachableAndNoModel(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	t.Setenv("OLLAMA_HOST", url)
	o, err := NewOllama("m1", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "is Ollama running") {
		t.Errorf("unreachable host: %v", err)
	}
	t.Setenv(EnvModel, "")
	if _, err := NewOllama("", 0); err == nil || !strings.Contains(err.Error(), EnvModel) {
		t.Errorf("no model: %v", err)
	}
}

// counting wraps an embedder and counts the texts it embeds.
type counting struct {
	Embedder
	n atomic.Int64
}

func (c *counting) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.n.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

func TestCache(t *testing.T) {
	dir := t.TempDir()
	inner := &counting{Embedder: NewBuiltin(64)}
	c := NewCache(inner, dir)
	ctx := context.Background()
	a, err := c.Embed(ctx, []string{"angina", "heart failure", "angina"})
	if err != nil {
		t.Fatal(err)
	}
	if inner.n.Load() != 2 {
		t.Errorf("embedded %d texts, want 2 (duplicates once)", inner.n.Load())
	}
	if _, err := os.Stat(c.Path()); err != nil {
		t.Fatalf("cache file not written: %v", err)
	}
	// a new process (new Cache) reads the file and embeds nothing
	inner2 := &counting{Embedder: NewBuiltin(64)}
	c2 := NewCache(inner2, dir)
	b, err := c2.Embed(ctx, []string{"heart failure", "angina"})
	if err != nil {
		t.Fatal(err)
	}
	if inner2.n.Load() != 0 {
		t.Errorf("second run embedded %d texts, want 0", inner2.n.Load())
	}
	if fmt.Sprint(a[1]) != fmt.Sprint(b[0]) || fmt.Sprint(a[0]) != fmt.Sprint(b[1]) {
		t.Error("cached vectors differ from computed ones")
	}
	if h, m := c2.Stats(); h != 2 || m != 0 {
		t.Errorf("stats %d/%d", h, m)
	}
	// another embedder (other name) does not see these vectors
	c3 := NewCache(&counting{Embedder: NewBuiltin(32)}, dir)
	if c3.Path() == c.Path() {
		t.Error("two embedders share one cache file")
	}
	// no temporary files are left behind
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("left-over temporary file %s", e.Name())
		}
	}
	// a corrupt file is reported with how to fix it
	if err := os.WriteFile(c.Path(), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCache(NewBuiltin(64), dir).Embed(ctx, []string{"x"}); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("corrupt cache: %v", err)
	}
}

func TestCacheConcurrent(t *testing.T) {
	dir := t.TempDir()
	c := NewCache(NewBuiltin(64), dir)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := c.Embed(context.Background(), []string{fmt.Sprint("text ", i%3), "shared"}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	c2 := NewCache(NewBuiltin(64), dir)
	if _, err := c2.Embed(context.Background(), []string{"text 0", "text 1", "text 2", "shared"}); err != nil {
		t.Fatal(err)
	}
	if h, _ := c2.Stats(); h != 4 {
		t.Errorf("after concurrent writes the file holds %d of 4 texts", h)
	}
	if _, err := filepath.Glob(filepath.Join(dir, "*.gob")); err != nil {
		t.Fatal(err)
	}
}

// fnvString over parts is hash/fnv's FNV-1a over their concatenation.
func TestFNVStringIsFNV1a(t *testing.T) {
	for _, parts := range [][]string{{"w:", "angina"}, {"b:", "chest", " ", "pain"}, {"c:", "<an"}, {"", ""}, {"c:", "µmol"}} {
		h := fnv.New64a()
		x := fnvOffset
		for _, p := range parts {
			h.Write([]byte(p))
			x = fnvString(x, p)
		}
		if x != h.Sum64() {
			t.Errorf("%q: fnvString %x, hash/fnv %x", parts, x, h.Sum64())
		}
	}
}
