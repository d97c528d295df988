package extract

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// testdata/sections.jsonl: a document and the findings the extractor
// returns with the built-in pack's sections data: text, section kind and
// what the section or the finding's own words say (intended, relative).
func TestClausesSections(t *testing.T) {
	sec, err := rules.LoadSectionsFS(packs.FS(), packs.DefaultDir)
	require.NoError(t, err)
	require.NotNil(t, sec)
	f, err := os.Open("testdata/sections.jsonl")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		var c struct {
			Name string    `json:"name"`
			Text string    `json:"text"`
			Want []Finding `json:"want"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "line %d", n)
		got, err := Clauses{Sections: sec}.Extract(context.Background(), c.Text)
		require.NoError(t, err)
		var texts []Finding
		for i, g := range got {
			require.Equal(t, g.Text, c.Text[g.Start:g.End], "line %d (%s): finding %d not located", n, c.Name, i)
			texts = append(texts, Finding{Text: g.Text, Section: g.Section, Intended: g.Intended, Experiencer: g.Experiencer})
		}
		assert.Equal(t, c.Want, texts, "line %d: %s", n, c.Name)
	}
	require.Greater(t, n, 3)
	// Without sections data nothing is headed and headings stay findings.
	got, err := Clauses{}.Extract(context.Background(), "Plan: CTCA")
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "", got[1].Section)
}
