package llm_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/llm"
)

// How the CLI wires the client: environment first, flags over it, one
// client per run. A stand-in Ollama server answers here; in a real run it
// is `ollama serve` with the model pulled.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string }
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		content := `{"findings":[{"text":"an LVEF of 37%"},{"text":"no diabetes"}]}`
		if strings.Contains(req.Messages[1].Content, "Pairs:") {
			content = `{"evidence":[{"pair":0,"about_concept":true,"present":true,"value":37,"unit":"%","comparator":"="}]}`
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"message": map[string]string{"role": "assistant", "content": content}, "done": true})
	}))
	defer srv.Close()

	// A CLI starts from llm.ConfigFromEnv() (KG_LLM_*, KG_STRICT_LLM); the
	// example starts from the defaults so the caller's environment cannot
	// point it at a real cache.
	cfg := llm.DefaultConfig()
	fs := flag.NewFlagSet("ask", flag.ContinueOnError)
	cfg.RegisterFlags(fs)
	_ = fs.Parse([]string{"-llm-host", srv.URL, "-llm-model", "qwen3:32b"})
	client, err := llm.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()

	ctx := context.Background()
	text := "Patient with an LVEF of 37% and no diabetes."
	findings, err := client.Extractor().Extract(ctx, text)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range findings {
		fmt.Printf("%s %q [%d,%d)\n", f.ID, f.Text, f.Start, f.End)
	}
	lvef := evidence.Anchor{ConceptKey: "sct:250908004", Concept: "Left ventricular ejection fraction", Units: []string{"%"}}
	items, err := client.Formatter().FormatCase(ctx, text, []evidence.Pair{{FindingID: "f0", Text: findings[0].Text, Anchor: lvef}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, it := range items {
		fmt.Printf("%s: %s present=%t %s %g %s\n", it.FindingID, it.Concept, it.Present, it.Comparator, *it.Value, it.Unit)
	}
	// Output:
	// f0 "an LVEF of 37%" [13,27)
	// f1 "no diabetes" [32,43)
	// f0: Left ventricular ejection fraction present=true = 37 %
}
