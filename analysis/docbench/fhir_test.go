package docbench_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/analysis/docbench"
	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/vignettes/documents"
)

// FHIR records go through the benchmark as bundles: the engine's FHIR
// fixtures, each with the rows it fires, score every row and no text is
// read (a text-only asker fails them instead).
func TestFHIRRecordsAreAnsweredAsBundles(t *testing.T) {
	b, err := os.ReadFile("../../engine/fhir/testdata/cases.json")
	require.NoError(t, err)
	var f struct {
		Cases []struct {
			Name, Date string
			Rows       []string
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	var docs []documents.Document
	for _, c := range f.Cases {
		bundle, err := os.ReadFile(filepath.Join("../../engine/fhir/testdata", c.Name+".json"))
		require.NoError(t, err)
		docs = append(docs, documents.Document{DocID: c.Name, Style: documents.FHIRStyle, Date: c.Date, Bundle: bundle, Must: c.Rows})
	}
	ctx := context.Background()
	prog, err := engine.NewDefault(ctx, engine.WithTrace(true))
	require.NoError(t, err)
	defer prog.Close()
	assert.Empty(t, documents.Validate(docs, func(id string) bool { _, _, ok := prog.Pack().Row(id); return ok }))
	res, err := docbench.Ask(ctx, prog, docs, 2)
	require.NoError(t, err)
	lex, err := lexicon.Load("")
	require.NoError(t, err)
	h, err := packs.DefaultHierarchy()
	require.NoError(t, err)
	s := docbench.PackKnowledge(analysis.NewPackIndex(prog.Pack()), lex, h).Run(documents.FHIRDev, docs, res)
	assert.Equal(t, s.Total.Must, s.Total.MustHit, "every fixture row is returned from its bundle")
	assert.Positive(t, s.Total.Must)

	text, err := docbench.Ask(ctx, textOnly{prog}, docs[:1], 1)
	require.NoError(t, err)
	assert.Contains(t, text[0].Error, "reads text only")
}

type textOnly struct{ p *engine.Program }

func (a textOnly) Ask(ctx context.Context, id, text string, opts ...engine.EvalOption) (*engine.Result, error) {
	return a.p.Ask(ctx, id, text, opts...)
}
