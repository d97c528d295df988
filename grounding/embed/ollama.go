package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/envconfig"
)

// EnvModel names the environment variable holding the default embedding
// model.
const EnvModel = "OLLAMA_EMBED_MODEL"

// DefaultBatch is how many texts go into one /api/embed request.
const DefaultBatch = 64

// Ollama embeds texts with a model served by Ollama (POST /api/embed).
// The host comes from OLLAMA_HOST (api.ClientFromEnvironment).
type Ollama struct {
	client *api.Client
	host   string
	model  string
	batch  int
	dim    atomic.Int64
}

// NewOllama returns an Ollama embedder for model; an empty model falls back
// to $OLLAMA_EMBED_MODEL. batch ≤ 0 selects DefaultBatch.
func NewOllama(model string, batch int) (*Ollama, error) {
	if model == "" {
		model = strings.TrimSpace(os.Getenv(EnvModel))
	}
	if model == "" {
		return nil, fmt.Errorf("ollama embedder: no model given; pass --model or set %s (e.g. qwen3-embedding:4b, nomic-embed-text)", EnvModel)
	}
	client, err := api.ClientFromEnvironment()
	if err != nil {
		return nil, fmt.Errorf("ollama embedder: client from OLLAMA_HOST=%q: %w", os.Getenv("OLLAMA_HOST"), err)
	}
	if batch <= 0 {
		batch = DefaultBatch
	}
	return &Ollama{client: client, host: envconfig.Host().String(), model: model, batch: batch}, nil
}

// Name is "ollama:<model>".
func (o *Ollama) Name() string { return "ollama:" + o.model }

// Dim is the model's vector size once the first call returned, else 0.
func (o *Ollama) Dim() int { return int(o.dim.Load()) }

// Embed sends the texts in batches and checks that every batch returns one
// vector per text, all of one dimension.
func (o *Ollama) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += o.batch {
		end := min(start+o.batch, len(texts))
		resp, err := o.client.Embed(ctx, &api.EmbedRequest{Model: o.model, Input: texts[start:end]})
		if err != nil {
			return nil, o.wrap(start, end, len(texts), err)
		}
		if len(resp.Embeddings) != end-start {
			return nil, o.wrap(start, end, len(texts), fmt.Errorf("server returned %d vectors for %d texts", len(resp.Embeddings), end-start))
		}
		for i, v := range resp.Embeddings {
			if len(v) == 0 {
				return nil, o.wrap(start, end, len(texts), fmt.Errorf("empty vector for text %d", start+i))
			}
			d := int64(len(v))
			if !o.dim.CompareAndSwap(0, d) && o.dim.Load() != d {
				return nil, o.wrap(start, end, len(texts), fmt.Errorf("vector of dimension %d for text %d, earlier vectors had %d", d, start+i, o.dim.Load()))
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// wrap names host, model and batch, and adds how to fix the common cases.
func (o *Ollama) wrap(start, end, total int, err error) error {
	hint := ""
	var se api.StatusError
	switch {
	case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
		hint = fmt.Sprintf("; pull the model with `ollama pull %s` or pick another with --model/%s", o.model, EnvModel)
	case errors.As(err, &se):
		hint = "; see the Ollama server log"
	case strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "no such host"):
		hint = "; is Ollama running? set OLLAMA_HOST to its address"
	case strings.Contains(err.Error(), "invalid character") || strings.Contains(err.Error(), "cannot unmarshal") || strings.Contains(err.Error(), "unexpected end of JSON"):
		hint = "; the server's reply is not the JSON of /api/embed; check that OLLAMA_HOST points to an Ollama server"
	}
	return fmt.Errorf("ollama embed at %s with model %q (texts %d-%d of %d): %w%s", o.host, o.model, start+1, end, total, err, hint)
}
