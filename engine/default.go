package engine

import (
	"context"
	"fmt"

	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules/packs"
)

// NewDefault compiles the built-in pack (2024 ESC chronic coronary
// syndromes) with its concept lexicon: the embedded default, no files and
// no servers. Options are applied after the defaults.
func NewDefault(ctx context.Context, opts ...Option) (*Program, error) {
	p, err := packs.Default()
	if err != nil {
		return nil, fmt.Errorf("engine: built-in pack: %w", err)
	}
	lex, err := lexicon.Load("")
	if err != nil {
		return nil, fmt.Errorf("engine: built-in lexicon: %w", err)
	}
	return New(ctx, p, append([]Option{WithLexicon(lex)}, opts...)...)
}
