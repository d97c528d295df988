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

// Every built-in pack validates and has distinct guideline ids; the
// generated tests above run over each of them (TestEveryRuleFiresOnItsConditions,
// TestEveryDefinitionMemberSuffices).
func TestEveryPackValidates(t *testing.T) {
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

// A concept several packs name is one concept: the same name has the same
// concept key (code) in every pack's tables and lexicon, and a lexicon term
// names the same concept in every pack, so evidence for "diabetes" found
// by one pack is the evidence every pack reads.
func TestSharedConceptsAreOneConcept(t *testing.T) {
	type origin struct{ key, where, pack string }
	keyOf := map[string]origin{}  // normalised concept name → key
	termOf := map[string]origin{} // normalised lexicon term → concept name
	// Within one pack its own tests judge names and codes; here, across packs.
	note := func(pack, name, key, where string) {
		n := rules.NormalizeName(name)
		if o, ok := keyOf[n]; ok && o.key != key && o.pack != pack {
			t.Errorf("concept %q is %s in %s but %s in %s: give it the same code everywhere, or none", name, o.key, o.where, key, where)
			return
		}
		if _, ok := keyOf[n]; !ok {
			keyOf[n] = origin{key, where, pack}
		}
	}
	shared := map[string]map[string]bool{}
	for _, p := range packsUnderTest(t) {
		for _, r := range p.pack.Rules() {
			for _, c := range r.Rule.Conditions {
				note(p.id, c.Concept(), rules.ConceptKey(c), p.label+" "+r.RowID)
				n := rules.NormalizeName(c.Concept())
				if shared[n] == nil {
					shared[n] = map[string]bool{}
				}
				shared[n][p.id] = true
			}
		}
		if p.lex == nil {
			continue
		}
		ambiguous := map[string]bool{}
		for _, a := range p.lex.Ambiguous {
			ambiguous[lexicon.Key(a.Term)] = true
		}
		for _, c := range p.lex.Concepts {
			if c.SnomedID != "" {
				note(p.id, c.Concept, "sct:"+c.SnomedID, p.label+" meta/lexicon.json")
			}
			for _, term := range append([]string{c.Concept}, c.Synonyms...) {
				k := lexicon.Key(term)
				if ambiguous[k] {
					continue
				}
				if o, ok := termOf[k]; ok && o.pack != p.id && rules.NormalizeName(o.key) != rules.NormalizeName(c.Concept) {
					t.Errorf("lexicon term %q names %q in %s but %q in %s: one term, one concept across packs", term, o.key, o.where, c.Concept, p.label)
				}
				if _, ok := termOf[k]; !ok {
					termOf[k] = origin{c.Concept, p.label, p.id}
				}
			}
		}
	}
	n := 0
	for _, ps := range shared {
		if len(ps) > 1 {
			n++
		}
	}
	require.Positive(t, n, "no concept is shared by two packs: the check above would prove nothing")
}
