package baseline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/ollama/ollama/api"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Ollama is the LLM generator: one chat call per vignette with the reply
// constrained by a JSON Schema whose enum holds exactly the retrieved row
// ids, at temperature 0 with a fixed seed. The reply is validated against
// the same schema before use, since not every server or model honours
// "format"; a reply that is not JSON or breaks the schema fails the case.
type Ollama struct {
	Client *api.Client
	Model  string
	Seed   int
}

// DefaultSeed is the generator's fixed sampling seed.
const DefaultSeed = 42

// NewOllama connects to host (OLLAMA_HOST form, e.g.
// http://127.0.0.1:11434) for model.
func NewOllama(host, model string) (*Ollama, error) {
	if strings.TrimSpace(model) == "" {
		return nil, errors.New("baseline: --baseline-model is empty; name an Ollama chat model such as qwen3:32b")
	}
	if host == "" {
		return nil, errors.New("baseline: OLLAMA_HOST is not set; set it to the Ollama server, e.g. http://127.0.0.1:11434")
	}
	if !strings.Contains(host, "://") {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil, fmt.Errorf("baseline: OLLAMA_HOST %q: %w", host, err)
	}
	return &Ollama{Client: api.NewClient(u, http.DefaultClient), Model: model, Seed: DefaultSeed}, nil
}

// Name identifies generator and model.
func (o *Ollama) Name() string { return "ollama:" + o.Model }

// selection is the reply shape.
type selection struct {
	RowIDs []string `json:"row_ids"`
}

// ReplySchema is the JSON Schema a reply must meet: an object with a
// row_ids array of distinct retrieved ids (possibly empty).
func ReplySchema(ids []string) json.RawMessage {
	enum, _ := json.Marshal(ids)
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"row_ids":{"type":"array","items":{"type":"string","enum":%s},"uniqueItems":true}},"required":["row_ids"],"additionalProperties":false}`, enum))
}

const systemPrompt = `You support a cardiologist. You get a patient description and guideline recommendations retrieved for it, each with an id. Select the recommendations that apply to this patient as described; select none when none applies. Answer only with JSON: {"row_ids": [ids]}, using ids from the list.`

// Select asks the model.
func (o *Ollama) Select(ctx context.Context, question string, cands []Candidate) ([]string, error) {
	ids := make([]string, len(cands))
	var b strings.Builder
	fmt.Fprintf(&b, "Patient: %s\n\nRetrieved recommendations:\n", question)
	for i, c := range cands {
		ids[i] = c.RowID
		fmt.Fprintf(&b, "[%s] %s\n", c.RowID, c.Text)
	}
	schema := ReplySchema(ids)
	compiled, err := compile(schema)
	if err != nil {
		return nil, err
	}
	stream := false
	req := &api.ChatRequest{
		Model:    o.Model,
		Messages: []api.Message{{Role: "system", Content: systemPrompt}, {Role: "user", Content: b.String()}},
		Stream:   &stream,
		Format:   schema,
		Options:  map[string]any{"temperature": 0, "seed": o.Seed},
		Think:    &api.ThinkValue{Value: false},
	}
	var content strings.Builder
	err = o.Client.Chat(ctx, req, func(r api.ChatResponse) error {
		content.WriteString(r.Message.Content)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("chat with %s: %w", o.Model, err)
	}
	return parseReply(compiled, content.String())
}

// parseReply decodes and validates a reply. A leading <think> block, which
// reasoning models may emit despite think=false, is dropped.
func parseReply(compiled *jsonschema.Schema, content string) ([]string, error) {
	s := strings.TrimSpace(content)
	if strings.HasPrefix(s, "<think>") {
		if i := strings.Index(s, "</think>"); i >= 0 {
			s = strings.TrimSpace(s[i+len("</think>"):])
		}
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
	if err != nil {
		return nil, fmt.Errorf("reply is not valid JSON: %v (reply: %.200s)", err, s)
	}
	if err := compiled.Validate(inst); err != nil {
		return nil, fmt.Errorf("reply violates the schema: %v (reply: %.200s)", err, s)
	}
	var sel selection
	if err := json.Unmarshal([]byte(s), &sel); err != nil {
		return nil, fmt.Errorf("reply: %v", err)
	}
	return sel.RowIDs, nil
}

func compile(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("baseline: reply schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	const loc = "mem://baseline-reply.schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("baseline: reply schema: %w", err)
	}
	return c.Compile(loc)
}
