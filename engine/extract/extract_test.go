package extract

import (
	"bufio"
	"context"
	"encoding/json"
	"github.com/executablekg/execkg/rules"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdata/clauses.jsonl: case text and the findings the deterministic
// extractor must return, in order, each located in the text.
func TestClauses(t *testing.T) {
	f, err := os.Open("testdata/clauses.jsonl")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		var c struct {
			Text string   `json:"text"`
			Want []string `json:"want"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "line %d", n)
		got, err := Clauses{Demographic: packDemographic(t)}.Extract(context.Background(), c.Text)
		require.NoError(t, err)
		texts := []string{}
		for i, g := range got {
			texts = append(texts, g.Text)
			assert.Equal(t, g.Text, c.Text[g.Start:g.End], "line %d: finding %d not located", n, i)
		}
		assert.Equal(t, c.Want, texts, "line %d", n)
	}
	require.Greater(t, n, 3)
}

// packDemographic are the built-in pack's demographic words (its
// meta/reading.json), which the extractor splits off after an age.
func packDemographic(t *testing.T) []string {
	t.Helper()
	r, err := rules.LoadReadingFS(os.DirFS("../../rules/packs/esc-ccs-2024"), ".")
	require.NoError(t, err)
	var out []string
	for _, d := range r.Demographics {
		out = append(out, d.Words...)
	}
	require.NotEmpty(t, out)
	return out
}
