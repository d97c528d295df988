package packs_test

import (
	"errors"
	"io/fs"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/rules/preflight"
)

// testPacks holds packs made for the tests (test data, not guidelines): a
// second pack exercises everything that must work with several packs.
const testPacks = "../testdata/packs"

type packUnderTest struct {
	id    string
	fsys  fs.FS
	dir   string
	pack  *rules.Pack
	lex   *lexicon.Lexicon
	label string
}

// packsUnderTest loads every built-in pack and every test pack, each
// preflighted (the full validation) and with its own lexicon.
func packsUnderTest(t *testing.T) []packUnderTest {
	t.Helper()
	var out []packUnderTest
	add := func(id string, fsys fs.FS, dir, label string) {
		rep, err := preflight.Check(fsys, dir)
		require.NoError(t, err, label)
		for _, d := range rep.Diagnostics {
			t.Errorf("%s: %v", label, d)
		}
		require.True(t, rep.OK(), "%s fails the preflight", label)
		lex, err := lexicon.LoadPackFS(fsys, dir)
		require.NoError(t, err, label)
		out = append(out, packUnderTest{id: id, fsys: fsys, dir: dir, pack: rep.Pack, lex: lex, label: label})
	}
	for _, id := range packs.IDs() {
		add(id, packs.FS(), id, "built-in pack "+id)
	}
	entries, err := os.ReadDir(testPacks)
	require.NoError(t, err)
	for _, e := range entries {
		if e.IsDir() {
			add(e.Name(), os.DirFS(testPacks), e.Name(), "test pack "+e.Name())
		}
	}
	require.Greater(t, len(out), 1, "the multi-pack checks need at least two packs")
	return out
}

// eachPack runs f as a subtest per built-in pack, in id order.
func eachPack(t *testing.T, f func(t *testing.T, p *rules.Pack)) {
	ids := packs.IDs()
	require.Contains(t, ids, packs.DefaultDir)
	for _, id := range ids {
		p, err := packs.Load(id)
		require.NoError(t, err, id)
		t.Run(id, func(t *testing.T) { f(t, p) })
	}
}

// The registry: every directory holding rule tables is a pack, loadable by
// its id, with its own lexicon; an unknown id names the known ones.
func TestRegistry(t *testing.T) {
	ids := packs.IDs()
	require.Contains(t, ids, packs.DefaultDir)
	require.True(t, sort.StringsAreSorted(ids))
	for _, id := range ids {
		p, err := packs.Load(id)
		require.NoError(t, err, id)
		require.NotEmpty(t, p.Tables, id)
		require.NotEmpty(t, p.Guideline.ID, id)
		require.NotEmpty(t, packs.LexiconPath(id), "%s has no meta/lexicon.json", id)
		require.True(t, strings.HasPrefix(packs.LexiconPath(id), id+"/"), "%s's lexicon is its own", id)
	}
	d, err := packs.Load(packs.DefaultDir)
	require.NoError(t, err)
	require.Equal(t, packs.DefaultID, d.Guideline.ID)

	_, err = packs.Load("no-such-pack")
	var ue *packs.UnknownError
	require.True(t, errors.As(err, &ue))
	require.Contains(t, err.Error(), packs.DefaultDir, "the error lists the built-in packs")
	require.False(t, packs.Has("meta"))
	require.False(t, packs.Has(""))
}

// Every pack, built in or test pack, validates and has its own guideline
// id; the generated tests run over each of them
// (TestEveryRuleFiresOnItsConditions, TestEveryDefinitionMemberSuffices).
func TestEveryPackUnderTestValidates(t *testing.T) {
	seen := map[string]string{}
	for _, p := range packsUnderTest(t) {
		g := p.pack.Guideline
		if prev, ok := seen[g.ID]; ok {
			t.Errorf("%s and %s both have guideline id %s: a graph holding both could not tell them apart", prev, p.label, g.ID)
		}
		seen[g.ID] = p.label
		for _, d := range rules.Validate(p.pack) {
			t.Errorf("%s: %v", p.label, d)
		}
		if p.pack.Hierarchy != nil {
			for _, e := range p.pack.Hierarchy.Check(p.pack) {
				t.Errorf("%s: meta/hierarchy.json: %s", p.label, e)
			}
		}
	}
}

// A concept several packs name is one concept: the same name has the
// same concept key (the same code, or none) in every pack's tables and
// lexicon, so evidence for "diabetes" or "age" read by one pack is the
// evidence every pack reads (engine.Multi lists it once). A pack's own
// tables and lexicon are judged by its own tests; this check is across
// packs.
func TestSharedConceptsAreOneConcept(t *testing.T) {
	type origin struct{ key, where, pack string }
	keyOf := map[string]origin{} // normalised concept name → first key seen
	packsOf := map[string]map[string]bool{}
	note := func(pack, name, key, where string) {
		n := rules.NormalizeName(name)
		if packsOf[n] == nil {
			packsOf[n] = map[string]bool{}
		}
		packsOf[n][pack] = true
		o, ok := keyOf[n]
		if !ok {
			keyOf[n] = origin{key, where, pack}
			return
		}
		if o.key != key && o.pack != pack {
			t.Errorf("concept %q is %s in %s but %s in %s: give it the same code in every pack, or none", name, o.key, o.where, key, where)
		}
	}
	for _, p := range packsUnderTest(t) {
		seen := map[string]bool{} // one complaint per concept and pack
		for _, r := range p.pack.Rules() {
			for _, c := range r.Rule.Conditions {
				if k := rules.NormalizeName(c.Concept()); !seen[k] {
					seen[k] = true
					note(p.id, c.Concept(), rules.ConceptKey(c), p.label+" "+r.RowID)
				}
			}
		}
	}
	n := 0
	for _, ps := range packsOf {
		if len(ps) > 1 {
			n++
		}
	}
	require.Positive(t, n, "no concept is shared by two packs: the check above would prove nothing")
}
