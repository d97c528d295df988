package fulltext

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/internal/corpus"
)

// findings reads the grounding test corpus (internal/corpus).
func findings(t testing.TB) []string { return corpus.Findings(t, "../testdata/findings.txt") }

// equivalenceCases are searches over the corpus: each finding alone, with
// the next one as an abbreviation-style variant, and hiding a text.
type equivalenceCase struct {
	variants []string
	o        SearchOptions
}

func equivalenceCases(fs []string) []equivalenceCase {
	var cs []equivalenceCase
	for i, f := range fs {
		q := QueryText(f)
		cs = append(cs, equivalenceCase{[]string{q}, SearchOptions{}})
		switch i % 3 {
		case 0:
			cs = append(cs, equivalenceCase{[]string{q, QueryText(fs[(i+1)%len(fs)])}, SearchOptions{VariantWeight: 0.6, Guard: true}})
		case 1:
			cs = append(cs, equivalenceCase{[]string{q}, SearchOptions{Exclude: []int{i, (i * 7) % len(fs)}, Guard: true}})
		}
	}
	return cs
}

// referenceSearch is the query Search sent before it built its queries
// from its own analysis: Bleve's MatchPhraseQuery and MatchQuery per
// variant, every time.
func referenceSearch(t *testing.T, ix *Index, variants []string, o SearchOptions) []Hit {
	t.Helper()
	var disj []query.Query
	for i, v := range variants {
		n := textnorm.Normalize(v)
		if len(ix.analyze(n)) == 0 {
			continue
		}
		w := 1.0
		if i > 0 {
			w = o.VariantWeight
		}
		p := query.NewMatchPhraseQuery(n)
		p.SetField(field)
		p.SetBoost(DefaultPhraseBoost * w)
		m := query.NewMatchQuery(n)
		m.SetField(field)
		m.SetBoost(w)
		disj = append(disj, p, m)
	}
	if len(disj) == 0 {
		return nil
	}
	var q query.Query = query.NewDisjunctionQuery(disj)
	if len(o.Exclude) > 0 {
		ids := make([]string, len(o.Exclude))
		for i, id := range o.Exclude {
			ids[i] = strconv.Itoa(id)
		}
		q = query.NewBooleanQuery([]query.Query{q}, nil, []query.Query{query.NewDocIDQuery(ids)})
	}
	res, err := ix.bi.Search(bleve.NewSearchRequestOptions(q, DefaultK, 0, false))
	if err != nil {
		t.Fatal(err)
	}
	var out []Hit
	for _, h := range res.Hits {
		id, _ := strconv.Atoi(h.ID)
		out = append(out, Hit{ID: id, Score: h.Score})
	}
	return out
}

// TestSearchMatchesReference: the sorted in-memory store, the queries
// built from Search's own analysis and the skip of queries with no
// indexed term return exactly (same texts, same order, bit-identical
// scores) what Bleve's own in-memory store and match queries return, over
// every finding of the corpus indexed as texts and queried back.
func TestSearchMatchesReference(t *testing.T) {
	fs := findings(t)
	if testing.Short() {
		var some []string
		for i := 0; i < len(fs); i += 8 {
			some = append(some, fs[i])
		}
		fs = some
	}
	texts := fs[:len(fs)/2]
	ref, err := New(texts, Options{Store: GtreapStore})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	ix, err := New(texts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	cases := equivalenceCases(fs)
	var nonEmpty int
	for _, c := range cases {
		o := c.o
		o.K = DefaultK
		want := referenceSearch(t, ref, c.variants, o)
		raw, err := ix.Search(c.variants, SearchOptions{K: DefaultK, VariantWeight: o.VariantWeight, Exclude: o.Exclude})
		if err != nil {
			t.Fatal(err)
		}
		if len(raw) != len(want) {
			t.Fatalf("search %q %+v: %d hits, reference %d", c.variants, o, len(raw), len(want))
		}
		for i := range want {
			if raw[i].ID != want[i].ID || raw[i].Score != want[i].Score {
				t.Fatalf("search %q %+v: hit %d is text %d score %v, reference text %d score %v", c.variants, o, i, raw[i].ID, raw[i].Score, want[i].ID, want[i].Score)
			}
		}
		if len(want) > 0 {
			nonEmpty++
		}
		// The full search (guard, matched words) on both stores.
		got, err := ix.Search(c.variants, c.o)
		if err != nil {
			t.Fatal(err)
		}
		exp, err := ref.Search(c.variants, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(exp) {
			t.Fatalf("search %q %+v: %d hits on the sorted store, %d on gtreap", c.variants, c.o, len(got), len(exp))
		}
		for i := range exp {
			g, e := got[i], exp[i]
			if g.ID != e.ID || g.Score != e.Score || g.Phrase != e.Phrase || strings.Join(g.Matched, " ") != strings.Join(e.Matched, " ") {
				t.Fatalf("search %q %+v: hit %d is %+v on the sorted store, %+v on gtreap", c.variants, c.o, i, g, e)
			}
		}
	}
	// The corpus must exercise the comparison, not pass on empty lists.
	if nonEmpty < len(cases)/2 {
		t.Fatalf("only %d of %d searches found anything; the comparison is too weak", nonEmpty, len(cases))
	}
	t.Logf("%d searches, %d with hits, identical on both stores and to the reference queries", len(cases), nonEmpty)
}

// TestQueryTextPrechecksMatchReference: the checks that let QueryText skip
// its regexps (no digit, no word a negation cue starts with) never skip a
// match: over the corpus and random mixes of cue fragments, QueryText
// equals referenceQueryText (QueryText as first written, both regexps
// always run), and every text negationRe matches passes hasNegationWord.
func TestQueryTextPrechecksMatchReference(t *testing.T) {
	texts := findings(t)
	parts := []string{"no", "not", "w/o", "w", "/", "o", " ", "-", "_", "history", "of", "ruled", "out", "none", "nor", "x", "2", ".", "é", "No", "neither", "denies"}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for j := r.IntN(8); j >= 0; j-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		texts = append(texts, b.String())
	}
	matched := 0
	for _, s := range texts {
		f := textnorm.Fold(s)
		if negationRe.MatchString(f) {
			matched++
			if !hasNegationWord(f) {
				t.Fatalf("negationRe matches %q but hasNegationWord says no cue", f)
			}
		}
		if got, want := QueryText(s), referenceQueryText(s); got != want {
			t.Fatalf("QueryText(%q) = %q, reference %q", s, got, want)
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d texts hold a negation; the check is too weak", matched)
	}
}

// referenceQueryText is QueryText as first written.
func referenceQueryText(finding string) string {
	s := textnorm.Fold(finding)

	// Remove numbers right to left, so earlier offsets stay valid.
	locs := numberRe.FindAllStringIndex(s, -1)
	s = dropNumbers(s, locs)
	s = negationRe.ReplaceAllString(s, " ")

	// Stray comparator symbols and punctuation at word edges.
	words := strings.Fields(s)
	out := words[:0]
	for _, w := range words {
		w = strings.Trim(w, "<>=!~:;,.?()[]{}\"'/+*")
		if w == "" || w == "-" {
			continue
		}
		out = append(out, w)
	}
	for len(out) > 0 && edgeWords[out[0]] {
		out = out[1:]
	}
	for len(out) > 0 && edgeWords[out[len(out)-1]] {
		out = out[:len(out)-1]
	}
	return strings.Join(out, " ")
}
