// Package embed defines the Embedder used by the vector channel of
// grounding, the graph build and the VectorRAG baseline.
package embed

import "context"

// Embedder turns texts into vectors. Implementations must return one vector
// per input text, in order, all of the same dimension.
type Embedder interface {
	// Embed returns one vector per text.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Name identifies embedder and model ("builtin-ngram-v1",
	// "ollama:nomic-embed-text"); caches key on it.
	Name() string
	// Dim is the vector dimension (0 if only known after the first call).
	Dim() int
}
