package baseline

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/executablekg/execkg/vignettes"
)

// fakeOllama speaks enough of POST /api/chat: it checks the request the
// generator sends and answers with content.
func fakeOllama(t *testing.T, content string) (*httptest.Server, *api.ChatRequest) {
	t.Helper()
	var got api.ChatRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" || r.Method != http.MethodPost {
			http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"model": got.Model, "created_at": "2024-01-01T00:00:00Z",
			"message": map[string]string{"role": "assistant", "content": content},
			"done":    true, "done_reason": "stop",
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

var cands = []Candidate{
	{RowID: "table_08.json::row_2", Text: "CCTA not recommended …", Score: 0.61},
	{RowID: "table_05.json::row_4", Text: "Exercise ECG not recommended …", Score: 0.55},
	{RowID: "table_11.json::row_0", Text: "ICA …", Score: 0.40},
}

func TestOllamaGoodReply(t *testing.T) {
	srv, req := fakeOllama(t, `{"row_ids":["table_08.json::row_2"]}`)
	g, err := NewOllama(srv.URL, "qwen3:32b")
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.Select(context.Background(), "Patient with severe renal failure.", cands)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"table_08.json::row_2"}) {
		t.Fatalf("selected %v", got)
	}
	// The request must carry the schema with exactly the retrieved ids,
	// temperature 0 and the fixed seed, without streaming.
	var schema struct {
		Properties struct {
			RowIDs struct {
				Items struct {
					Enum []string `json:"enum"`
				} `json:"items"`
			} `json:"row_ids"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(req.Format, &schema); err != nil {
		t.Fatalf("format is not a JSON schema: %s", req.Format)
	}
	if want := []string{"table_08.json::row_2", "table_05.json::row_4", "table_11.json::row_0"}; !reflect.DeepEqual(schema.Properties.RowIDs.Items.Enum, want) {
		t.Fatalf("schema enum %v, want %v", schema.Properties.RowIDs.Items.Enum, want)
	}
	if req.Options["temperature"] != float64(0) || req.Options["seed"] != float64(DefaultSeed) {
		t.Fatalf("options %v, want temperature 0 and seed %d", req.Options, DefaultSeed)
	}
	if req.Stream == nil || *req.Stream {
		t.Fatal("request must not stream")
	}
	if !strings.Contains(req.Messages[1].Content, "table_11.json::row_0") {
		t.Fatal("prompt does not list the candidates")
	}
}

func TestOllamaEmptySelection(t *testing.T) {
	srv, _ := fakeOllama(t, "<think>\n</think>\n{\"row_ids\":[]}")
	g, _ := NewOllama(srv.URL, "m")
	got, err := g.Select(context.Background(), "q", cands)
	if err != nil || len(got) != 0 {
		t.Fatalf("got %v, %v; want an empty selection", got, err)
	}
}

func TestOllamaBadReplies(t *testing.T) {
	for _, tc := range []struct{ name, reply, want string }{
		{"id not retrieved", `{"row_ids":["table_99.json::row_0"]}`, "violates the schema"},
		{"duplicate id", `{"row_ids":["table_08.json::row_2","table_08.json::row_2"]}`, "violates the schema"},
		{"extra field", `{"row_ids":[],"why":"x"}`, "violates the schema"},
		{"missing field", `{}`, "violates the schema"},
		{"malformed JSON", `{"row_ids":["table_08.json::row_2"`, "not valid JSON"},
		{"prose", `The answer is table_08.json::row_2.`, "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := fakeOllama(t, tc.reply)
			g, _ := NewOllama(srv.URL, "m")
			_, err := g.Select(context.Background(), "q", cands)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestOllamaServerError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"model \"m\" not found, try pulling it first"}`))
	}))
	defer srv.Close()
	g, _ := NewOllama(srv.URL, "m")
	_, err := g.Select(context.Background(), "q", cands)
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("err = %v", err)
	}
}

func TestNewOllamaNeedsHostAndModel(t *testing.T) {
	if _, err := NewOllama("", "m"); err == nil || !strings.Contains(err.Error(), "OLLAMA_HOST") {
		t.Fatalf("no host: %v", err)
	}
	if _, err := NewOllama("127.0.0.1:11434", " "); err == nil || !strings.Contains(err.Error(), "--baseline-model") {
		t.Fatalf("no model: %v", err)
	}
}

// A bad reply fails only its case: empty output with the error recorded.
func TestArmRecordsGeneratorErrors(t *testing.T) {
	srv, _ := fakeOllama(t, `not json`)
	g, _ := NewOllama(srv.URL, "m")
	arm := &Arm{ArmName: "rag", Generator: g,
		Snapshot: []Retrieved{{CaseID: "near_001", RowIDs: []string{"t.json::row_0"}, Scores: []float64{0.5}}},
		Chunks:   []Chunk{{RowID: "t.json::row_0", Text: "x"}}}
	res, err := arm.Predict(context.Background(), []vignettes.Vignette{{CaseID: "near_001", Question: "Patient with x."}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Error == "" || len(res[0].PredictedRowIDs) != 0 {
		t.Fatalf("result %+v: want the case failed with empty output", res)
	}
	if _, err := arm.Predict(context.Background(), []vignettes.Vignette{{CaseID: "near_002"}}); err == nil || !strings.Contains(err.Error(), "snapshot") {
		t.Fatalf("case outside the snapshot: err = %v", err)
	}
}
