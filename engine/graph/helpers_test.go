package graph

import (
	"context"
	"hash/fnv"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// loadMini loads the hand-written fixture pack in testdata/mini.
func loadMini(t testing.TB) *rules.Pack {
	t.Helper()
	p, err := rules.LoadFS(os.DirFS("testdata"), "mini")
	require.NoError(t, err)
	return p
}

// loadDefault loads the embedded guideline pack, whatever it holds today.
func loadDefault(t testing.TB) *rules.Pack {
	t.Helper()
	p, err := packs.Default()
	require.NoError(t, err, "the embedded pack must load; run `execkg validate` for details")
	return p
}

// withVersion returns a copy of the pack under another version, so two
// "packs" can share one graph.
func withVersion(p *rules.Pack, version string) *rules.Pack {
	q := &rules.Pack{Guideline: p.Guideline}
	q.Guideline.Version = version
	for _, t := range p.Tables {
		c := *t
		c.Guideline.Version = version
		q.Tables = append(q.Tables, &c)
	}
	return q
}

// miniRule is the rule id of a fixture rule, e.g. miniRule("table_01.json", 1, 0).
func miniRule(file string, row, k int) string {
	return rules.RuleID("TEST_MINI", rules.RowID(file, row), k)
}

// short strips the rule prefix of a decision id: "g1::s2".
func short(ruleID, id string) string { return strings.TrimPrefix(id, ruleID+"::") }

// allKeys returns every concept key that a DecisionNode of the store tests.
func allKeys(t testing.TB, s Store) []string {
	t.Helper()
	recs, err := s.GroundingRecords(context.Background())
	require.NoError(t, err)
	seen := map[string]bool{}
	var keys []string
	for _, r := range recs {
		if !seen[r.ConceptKey] {
			seen[r.ConceptKey] = true
			keys = append(keys, r.ConceptKey)
		}
	}
	return keys
}

// trigramEmbedder is a real (if simple) embedder for tests: hashed
// character trigrams, L2-normalised, so similar texts get similar vectors.
// It counts the texts it was asked to embed.
type trigramEmbedder struct {
	name string
	dim  int
	mu   sync.Mutex
	seen []string
}

func newTrigramEmbedder() *trigramEmbedder { return &trigramEmbedder{name: "test-trigram-v1", dim: 64} }

func (e *trigramEmbedder) Name() string { return e.name }
func (e *trigramEmbedder) Dim() int     { return e.dim }

func (e *trigramEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.seen = append(e.seen, texts...)
	e.mu.Unlock()
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, e.dim)
		s := "  " + strings.ToLower(t) + "  "
		for j := 0; j+3 <= len(s); j++ {
			h := fnv.New32a()
			h.Write([]byte(s[j : j+3]))
			v[h.Sum32()%uint32(e.dim)]++
		}
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		for j := range v {
			v[j] = float32(float64(v[j]) / math.Sqrt(n))
		}
		out[i] = v
	}
	return out, nil
}

// calls returns and resets the texts embedded so far.
func (e *trigramEmbedder) calls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.seen
	e.seen = nil
	return s
}

// miniCounts are the counts of testdata/mini worked out by hand (see the
// comments in TestMiniCountsExact).
func miniCounts() Counts {
	c := NewCounts()
	c.Nodes[LabelGuidelineSource] = 2
	c.Nodes[LabelRecommendationNode] = 6
	c.Nodes[LabelDecisionNode] = 18
	c.Nodes[LabelClinicalCondition] = 4
	c.Nodes[LabelClinicalParameter] = 2
	c.Nodes[LabelMedication] = 3
	c.Nodes[LabelProcedure] = 2
	c.Nodes[LabelQualifierValue] = 1
	c.Nodes[LabelUnresolvedConcept] = 10
	c.Relationships[RelLeadsTo] = 11
	c.Relationships[RelResultsIn] = 10
	c.Relationships[RelChecksFor] = 11
	c.Relationships[RelEvaluates] = 7
	c.Relationships[RelRecommendsUsage] = 4
	c.Relationships[RelRecommendsProcedure] = 4
	c.Relationships[RelContraindicates] = 1
	c.Relationships[RelMentionedIn] = 6
	return c
}
