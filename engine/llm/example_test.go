package llm_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/executablekg/execkg/engine"
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

// The reader the CLI's --llm uses: the model reads the document into the
// patient model, the engine grounds and checks every fact's words. The
// stand-in model invents a drug; it is dropped, never evaluated.
func ExampleClient_PatientReader() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fact := func(words, kind, status string, value string) string {
			return fmt.Sprintf(`{"words":%q,"kind":%q,"status":%q,"certainty":"confirmed","experiencer":"patient","value":%s,"unit":"","comparator":"=","date":"","section":""}`,
				words, kind, status, value)
		}
		content := `{"facts":[` + fact("an eGFR of 24 mL/min/1.73 m²", "measurement", "active", "24") + "," +
			fact("no diabetes", "problem", "absent", "null") + "," + fact("ticagrelor 90 mg", "medication", "taking", "null") + `]}`
		_ = json.NewEncoder(w).Encode(map[string]any{"message": map[string]string{"role": "assistant", "content": content}, "done": true})
	}))
	defer srv.Close()

	cfg := llm.DefaultConfig()
	cfg.Host = srv.URL
	client, err := llm.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	ctx := context.Background()
	prog, err := engine.NewDefault(ctx, engine.WithPatientReader(client.PatientReader()))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer prog.Close()
	res, err := prog.Ask(ctx, "ex", "Patient with an eGFR of 24 mL/min/1.73 m² and no diabetes.")
	if err != nil {
		fmt.Println(err)
		return
	}
	seen := map[string]bool{}
	for _, f := range res.Patient.Facts {
		if f.Reader == client.PatientReader().Name() && !seen[f.Text] {
			seen[f.Text] = true
			fmt.Printf("%q %s %s\n", f.Text, f.Kind, f.Status)
		}
	}
	for _, d := range res.Patient.Dropped {
		fmt.Printf("dropped %q\n", d.Text)
	}
	fmt.Println(strings.Contains(strings.Join(res.PredictedRowIDs, " "), "table_08.json::row_2"))
	// Output:
	// "eGFR of 24 mL/min/1.73 m²" measurement active
	// "no diabetes" problem absent
	// dropped "ticagrelor 90 mg"
	// true
}
