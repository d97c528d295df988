package packs_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/rules/packs"
)

// example is one line of testdata/examples.jsonl: a worked example of a
// pack, with rows (the pack's own row ids) that must and must not apply.
type example struct {
	Pack     string   `json:"pack"`
	CaseID   string   `json:"case_id"`
	Date     string   `json:"date"`
	Question string   `json:"question"`
	Must     []string `json:"must"`
	MustNot  []string `json:"must_not"`
}

func readExamples(t *testing.T) map[string][]example {
	t.Helper()
	f, err := os.Open("testdata/examples.jsonl")
	require.NoError(t, err)
	defer f.Close()
	out := map[string][]example{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var e example
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), "testdata/examples.jsonl line %d", n)
		out[e.Pack] = append(out[e.Pack], e)
	}
	require.NoError(t, sc.Err())
	return out
}

// The engine is general: it builds from every pack (built in, or a test
// pack from a directory) with that pack's own lexicon and meta, answers
// the pack's worked examples, and, with every built-in pack in one
// program, answers each example with the same rows under the pack's
// prefix.
func TestEngineAnswersEveryPack(t *testing.T) {
	ctx := context.Background()
	examples := readExamples(t)
	check := func(t *testing.T, res *engine.Result, e example, prefix string) {
		t.Helper()
		for _, r := range e.Must {
			require.Contains(t, res.PredictedRowIDs, prefix+r, "%s/%s", e.Pack, e.CaseID)
		}
		for _, r := range e.MustNot {
			require.NotContains(t, res.PredictedRowIDs, prefix+r, "%s/%s", e.Pack, e.CaseID)
		}
	}
	date := func(e example) time.Time {
		d, err := time.Parse("2006-01-02", e.Date)
		require.NoError(t, err)
		return d
	}
	for _, p := range packsUnderTest(t) {
		t.Run(p.id, func(t *testing.T) {
			require.NotEmpty(t, examples[p.id], "pack %s has no worked example in testdata/examples.jsonl: add one", p.id)
			prog, err := engine.New(ctx, p.pack, engine.WithLexicon(p.lex))
			require.NoError(t, err)
			defer prog.Close()
			for _, e := range examples[p.id] {
				res, err := prog.AskOn(ctx, e.CaseID, e.Question, date(e))
				require.NoError(t, err)
				check(t, res, e, "")
			}
		})
	}
	m, err := engine.NewBuiltinMulti(ctx, nil)
	require.NoError(t, err)
	defer m.Close()
	for _, id := range packs.IDs() {
		for _, e := range examples[id] {
			res, err := m.AskOn(ctx, e.CaseID, e.Question, date(e))
			require.NoError(t, err)
			check(t, res, e, id+"/")
		}
	}
}

// No pack-specific code outside rules/packs: the engine, grounding and
// rules packages name no built-in pack (directory, guideline id or title)
// in their Go code; a pack is data only.
func TestNoPackNamedOutsidePacks(t *testing.T) {
	var names []string
	for _, id := range packs.IDs() {
		p, err := packs.Load(id)
		require.NoError(t, err)
		names = append(names, id, p.Guideline.ID, p.Guideline.Title)
	}
	scanned := 0
	for _, root := range []string{"../../engine", "../../grounding", ".."} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || filepath.Clean(path) == filepath.Clean("../packs")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			scanned++
			for _, n := range names {
				if strings.Contains(string(b), n) {
					t.Errorf("%s names the pack %q: pack knowledge belongs in rules/packs/<pack>/, the engine reads any pack", path, n)
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	require.Greater(t, scanned, 50, "the scan read the engine's files")
}
