package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// testPackDir holds the packs made for the tests (test data, not
// guidelines).
const testPackDir = "../rules/testdata/packs"

// multiCase is one line of testdata/multi/cases.jsonl: a patient answered
// by every pack at once, with rows (prefixed by their pack) that must and
// must not be among the answer.
type multiCase struct {
	CaseID   string   `json:"case_id"`
	Question string   `json:"question"`
	Date     string   `json:"date"`
	Must     []string `json:"must"`
	MustNot  []string `json:"must_not"`
}

func readMultiCases(t *testing.T) []multiCase {
	t.Helper()
	f, err := os.Open("testdata/multi/cases.jsonl")
	require.NoError(t, err)
	defer f.Close()
	var out []multiCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var c multiCase
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "testdata/multi/cases.jsonl line %d", n)
		out = append(out, c)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, out)
	return out
}

// countingExtractor counts step (i) calls.
type countingExtractor struct {
	n *atomic.Int32
}

func (c countingExtractor) Name() string { return extract.Clauses{}.Name() }
func (c countingExtractor) Extract(ctx context.Context, text string) ([]extract.Finding, error) {
	c.n.Add(1)
	return extract.Clauses{}.Extract(ctx, text)
}

// testMember loads a test pack with its own lexicon.
func testMember(t *testing.T, id string) engine.Member {
	t.Helper()
	fsys := os.DirFS(testPackDir)
	p, err := rules.LoadFS(fsys, id)
	require.NoError(t, err)
	lex, err := lexicon.LoadPackFS(fsys, id)
	require.NoError(t, err)
	require.NotNil(t, lex, "test pack %s has its own lexicon", id)
	return engine.Member{ID: id, Pack: p, Options: []engine.Option{engine.WithLexicon(lex)}}
}

func builtinMembers(t *testing.T) []engine.Member {
	t.Helper()
	var ms []engine.Member
	for _, id := range packs.IDs() {
		p, err := packs.Load(id)
		require.NoError(t, err)
		lex, err := lexicon.LoadBuiltin(id)
		require.NoError(t, err)
		ms = append(ms, engine.Member{ID: id, Pack: p, Options: []engine.Option{engine.WithLexicon(lex)}})
	}
	return ms
}

// One program over every built-in pack and the test pack answers each
// case with the rows each pack alone gives, prefixed with the pack id;
// step (i) runs once per case; evidence about a shared concept is listed
// once.
func TestMultiAnswersEveryPack(t *testing.T) {
	ctx := context.Background()
	members := append(builtinMembers(t), testMember(t, "test-prevention"))
	calls := new(atomic.Int32)
	m, err := engine.NewMulti(ctx, members, engine.WithExtractor(countingExtractor{calls}))
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, len(members), len(m.IDs()))

	testedBy := map[string]int{} // concept name → packs whose rules test it
	for _, mb := range members {
		names, _ := mb.Pack.ConditionIndex()
		seen := map[string]bool{}
		for _, n := range names {
			if n := rules.NormalizeName(n); !seen[n] {
				seen[n] = true
				testedBy[n]++
			}
		}
	}
	shared := map[string]bool{}
	for n, c := range testedBy {
		shared[n] = c > 1
	}
	require.True(t, shared["age"] && shared["hypertension"] && shared["diabetes mellitus"], "the packs share concepts")
	singles := map[string]*engine.Program{}
	for _, mb := range members {
		p, err := engine.New(ctx, mb.Pack, mb.Options...)
		require.NoError(t, err)
		defer p.Close()
		singles[mb.ID] = p
	}
	for _, c := range readMultiCases(t) {
		t.Run(c.CaseID, func(t *testing.T) {
			date, err := time.Parse("2006-01-02", c.Date)
			require.NoError(t, err)
			calls.Store(0)
			res, err := m.AskOn(ctx, c.CaseID, c.Question, date)
			require.NoError(t, err)
			require.Equal(t, int32(1), calls.Load(), "step (i) runs once for every pack")
			for _, row := range c.Must {
				require.Contains(t, res.PredictedRowIDs, row)
			}
			for _, row := range c.MustNot {
				require.NotContains(t, res.PredictedRowIDs, row)
			}
			for _, rec := range res.Recommendations {
				require.NotEmpty(t, rec.Pack)
				require.True(t, strings.HasPrefix(rec.RowID, rec.Pack+"/"), rec.RowID)
				require.NotEmpty(t, rec.Guideline)
			}
			merged := evidenceSet(res.Evidence)
			require.Len(t, merged, len(res.Evidence), "evidence is listed once")
			// A concept the rules of several packs test is one concept:
			// one key for a finding's reading of it, whichever pack read
			// it. (A concept only a definition names is keyed by name.)
			keys := map[[2]string]map[string]bool{}
			for _, e := range res.Evidence {
				if !shared[rules.NormalizeName(e.Concept)] {
					continue
				}
				k := [2]string{e.ID, rules.NormalizeName(e.Concept)}
				if keys[k] == nil {
					keys[k] = map[string]bool{}
				}
				keys[k][e.ConceptKey] = true
			}
			for k, ks := range keys {
				require.Len(t, ks, 1, "finding %s reads %q under several keys: %v", k[0], k[1], ks)
			}
			for _, mb := range members {
				single, err := singles[mb.ID].AskOn(ctx, c.CaseID, c.Question, date)
				require.NoError(t, err)
				require.Equal(t, single.Findings, res.Findings)
				var rows []string
				for _, r := range res.PredictedRowIDs {
					if rest, ok := strings.CutPrefix(r, mb.ID+"/"); ok {
						rows = append(rows, rest)
					}
				}
				require.ElementsMatch(t, single.PredictedRowIDs, rows, "pack %s answers as it does alone", mb.ID)
				var recs []engine.Recommendation
				for _, r := range res.Recommendations {
					if r.Pack == mb.ID {
						r.Pack, r.RowID = "", strings.TrimPrefix(r.RowID, mb.ID+"/")
						recs = append(recs, r)
					}
				}
				require.Equal(t, len(single.Recommendations), len(recs))
				if len(recs) > 0 {
					require.Equal(t, single.Recommendations, recs)
				}
				for k := range evidenceSet(single.Evidence) {
					require.True(t, merged[k], "pack %s's evidence %s is in the merged answer", mb.ID, k)
				}
			}
		})
	}
}

// evidenceSet keys evidence items without their anchor rank.
func evidenceSet(ev []engine.EvidenceItem) map[string]bool {
	out := map[string]bool{}
	for _, e := range ev {
		e.AnchorRank = 0
		b, _ := json.Marshal(e)
		out[string(b)] = true
	}
	return out
}

// A concept two packs share (diabetes mellitus: one SNOMED CT code in
// both) is one concept: the finding is evidence for both packs' rules and
// appears once in the answer.
func TestMultiSharedConceptIsOneConcept(t *testing.T) {
	ctx := context.Background()
	ccs := builtinMembers(t)[0]
	require.Equal(t, packs.DefaultDir, ccs.ID)
	m, err := engine.NewMulti(ctx, []engine.Member{ccs, testMember(t, "test-prevention")}, engine.WithTrace(true))
	require.NoError(t, err)
	defer m.Close()
	res, err := m.AskOn(ctx, "shared", "81-year-old man with diabetes, stable angina.", time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	n := 0
	for _, e := range res.Evidence {
		if e.ConceptKey == "sct:73211009" && e.Text == "diabetes" && e.Via == "" {
			n++
		}
	}
	require.Equal(t, 1, n, "one evidence item for diabetes: %+v", res.Evidence)
	packsFor := map[string]bool{}
	for _, rt := range res.Trace.Rules {
		for _, c := range rt.Conditions {
			if c.ConceptKey == "sct:73211009" && c.Truth == eval.True.String() {
				packsFor[strings.SplitN(rt.RowID, "/", 2)[0]] = true
			}
		}
	}
	require.True(t, packsFor["test-prevention"], "the test pack read it")
	require.Contains(t, res.Trace.Pack, packs.DefaultID)
	require.Contains(t, res.Trace.Pack, "TEST_PREVENTION")
	for _, fa := range res.Trace.Anchors {
		require.NotEmpty(t, fa.Pack, "anchors name their pack")
	}
}

// Structured input reaches every pack, and the caller's slice is left as
// given.
func TestMultiEvaluate(t *testing.T) {
	ctx := context.Background()
	m, err := engine.NewMulti(ctx, []engine.Member{builtinMembers(t)[0], testMember(t, "test-prevention")})
	require.NoError(t, err)
	defer m.Close()
	v := 200.0
	ev := []eval.Evidence{
		{ID: "e1", ConceptKey: "sct:38341003", Concept: "hypertension", Present: true, Text: "hypertension"},
		{ID: "e2", ConceptKey: "name:low-density lipoprotein cholesterol", Concept: "low-density lipoprotein cholesterol", Present: true, Value: &v, Unit: "mg/dL", Text: "LDL-C 200 mg/dL"},
	}
	before := append([]eval.Evidence(nil), ev...)
	res, err := m.Evaluate(ctx, "structured", ev)
	require.NoError(t, err)
	require.Contains(t, res.PredictedRowIDs, "test-prevention/table_02.json::row_0")
	require.Equal(t, before, ev)
}

func TestMultiRefusesBadIDs(t *testing.T) {
	ctx := context.Background()
	mb := testMember(t, "test-prevention")
	for _, ms := range [][]engine.Member{nil, {mb, mb}, {{ID: "a/b", Pack: mb.Pack}}, {{ID: "", Pack: mb.Pack}}} {
		_, err := engine.NewMulti(ctx, ms)
		require.Error(t, err)
	}
}

// The built-in registry: NewBuiltin answers from any built-in pack with
// its own lexicon, NewBuiltinMulti from all of them at once.
func TestNewBuiltinEveryPack(t *testing.T) {
	ctx := context.Background()
	for _, id := range packs.IDs() {
		p, err := engine.NewBuiltin(ctx, id)
		require.NoError(t, err, id)
		require.NoError(t, p.Close())
	}
	_, err := engine.NewBuiltin(ctx, "no-such-pack")
	require.ErrorContains(t, err, packs.DefaultDir)
	m, err := engine.NewBuiltinMulti(ctx, nil)
	require.NoError(t, err)
	defer m.Close()
	require.Equal(t, packs.IDs(), m.IDs())
}
