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
	return NewBuiltin(ctx, packs.DefaultDir, opts...)
}

// NewBuiltin compiles the built-in pack id (packs.IDs) with its own
// concept lexicon. Options are applied after the defaults.
func NewBuiltin(ctx context.Context, id string, opts ...Option) (*Program, error) {
	m, err := builtinMember(id)
	if err != nil {
		return nil, err
	}
	return New(ctx, m.Pack, append(m.Options, opts...)...)
}

// NewBuiltinMulti compiles the built-in packs ids (every built-in pack
// when ids is empty) into one Multi, each pack with its own lexicon; opts
// apply to every pack.
func NewBuiltinMulti(ctx context.Context, ids []string, opts ...Option) (*Multi, error) {
	if len(ids) == 0 {
		ids = packs.IDs()
	}
	var ms []Member
	for _, id := range ids {
		m, err := builtinMember(id)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return NewMulti(ctx, ms, opts...)
}

func builtinMember(id string) (Member, error) {
	p, err := packs.Load(id)
	if err != nil {
		return Member{}, fmt.Errorf("engine: built-in pack: %w", err)
	}
	lex, err := lexicon.LoadBuiltin(id)
	if err != nil {
		return Member{}, fmt.Errorf("engine: built-in lexicon of %s: %w", id, err)
	}
	return Member{ID: id, Pack: p, Options: []Option{WithLexicon(lex)}}, nil
}
