package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBenchReports(t *testing.T) {
	if testing.Short() {
		t.Skip("answers the vignettes twice")
	}
	t.Setenv("NEO4J_URI", "")
	var so, se bytes.Buffer
	require.Equal(t, 0, run([]string{"bench", "--rounds", "1", "--workers", "2", "--excerpts", "1"}, &so, &se), se.String())
	for _, want := range []string{"compile", "latency per case over 100 answers: median", "1 worker", "2 workers", "ratio",
		"1 lines (1 inputs", "200 lines (1 inputs", "ms/KB, ratio to 10 lines 1.00", "dev documents (618)", "documents/s"} {
		assert.Contains(t, so.String(), want)
	}
}
