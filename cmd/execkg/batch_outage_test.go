package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/graph"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flakyStore fails Bundles with graph.ErrUnavailable while failing > 0.
type flakyStore struct {
	*graph.Memory
	failing atomic.Int32
}

func (s *flakyStore) Bundles(ctx context.Context, keys []string) ([]graph.Bundle, error) {
	if s.failing.Add(-1) >= 0 {
		return nil, fmt.Errorf("graph: neo4j bolt://test: query: %w: connection reset", graph.ErrUnavailable)
	}
	return s.Memory.Bundles(ctx, keys)
}

type fakePinger struct {
	err   error
	pings atomic.Int32
}

func (p *fakePinger) Ping(context.Context, time.Duration) error { p.pings.Add(1); return p.err }
func (p *fakePinger) URI() string                               { return "bolt://test:7687" }

func flakyProgram(t *testing.T) (*engine.Program, *flakyStore) {
	pack, err := packs.Default()
	require.NoError(t, err)
	lex, err := lexicon.Load("")
	require.NoError(t, err)
	st := &flakyStore{Memory: graph.NewMemory()}
	prog, err := engine.New(context.Background(), pack, engine.WithLexicon(lex), engine.WithStore(st))
	require.NoError(t, err)
	t.Cleanup(func() { prog.Close() })
	return prog, st
}

func runBatcher(t *testing.T, prog *engine.Program, pg pinger) (*batcher, []map[string]any, int, error) {
	dir := t.TempDir()
	cases, err := readBatchCases(writeCases(t, dir), false)
	require.NoError(t, err)
	out := filepath.Join(dir, "out.jsonl")
	f, err := os.Create(out)
	require.NoError(t, err)
	defer f.Close()
	var se bytes.Buffer
	b := &batcher{prog: prog, keys: map[string]*resumeKey{}, neo: pg, stderr: &se}
	_, written, err := b.run(context.Background(), cases, 1, f, newProgress(&se, "off", len(cases)))
	data, _ := os.ReadFile(out)
	var recs []map[string]any
	if len(bytes.TrimSpace(data)) > 0 {
		recs = outLines(t, out)
	}
	return b, recs, written, err
}

// A transient connectivity failure while the server still answers is
// retried, with a short backoff, and the case is answered.
func TestBatchRetriesTransient(t *testing.T) {
	prog, st := flakyProgram(t)
	st.failing.Store(2)
	pg := &fakePinger{}
	t0 := time.Now()
	_, recs, written, err := runBatcher(t, prog, pg)
	require.NoError(t, err)
	assert.Equal(t, 4, written)
	for _, r := range recs {
		assert.Nil(t, r["error"], "case %v", r["case_id"])
	}
	assert.Equal(t, int32(2), pg.pings.Load(), "one check of the server per failure")
	assert.Less(t, time.Since(t0), 5*time.Second, "backoff is short")
}

// A connectivity failure and a server that does not answer stop the batch
// at once: no error record, an error naming Neo4j and its address.
func TestBatchStopsOnDeadServer(t *testing.T) {
	prog, st := flakyProgram(t)
	st.failing.Store(1 << 20)
	pg := &fakePinger{err: errors.New("connection refused")}
	_, recs, written, err := runBatcher(t, prog, pg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Neo4j at bolt://test:7687 stopped answering")
	assert.Equal(t, 0, written)
	assert.Empty(t, recs)
	assert.Equal(t, int32(1), pg.pings.Load())
}
