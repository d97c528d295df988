package fulltext

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/executablekg/execkg/grounding/textnorm"
)

// TestNativeMatchesBleve: the native scorer returns the texts Bleve's
// searchers and collector return, in the same order with bit-identical
// scores, for every finding of the corpus queried alone, with one and with
// two further variants, deep lists (K 400, ties included) and guarded
// ones; and most of those queries are scored natively, not handed back to
// Bleve.
func TestNativeMatchesBleve(t *testing.T) {
	fs := findings(t)
	step := 1
	if testing.Short() {
		step = 8
	}
	texts := fs[:len(fs)/2]
	ix, err := New(texts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ref, err := New(texts, Options{BleveOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if ix.native == nil || ref.native != nil {
		t.Fatal("the in-memory index has no native postings, or the Bleve-only one has")
	}
	var searches, native, ties int
	for i := 0; i < len(fs); i += step {
		q := QueryText(fs[i])
		for _, c := range []struct {
			variants []string
			o        SearchOptions
		}{
			{[]string{q}, SearchOptions{K: 400}},
			{[]string{q, QueryText(fs[(i+1)%len(fs)])}, SearchOptions{K: 400, VariantWeight: 0.6}},
			{[]string{q, QueryText(fs[(i+3)%len(fs)]), QueryText(fs[(i+5)%len(fs)])}, SearchOptions{VariantWeight: 0.6, Guard: true}},
			{[]string{q}, SearchOptions{Guard: true, PhraseBoost: 2.5}},
		} {
			got, err := ix.Search(c.variants, c.o)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.Search(c.variants, c.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("search %q %+v: %d hits, Bleve %d", c.variants, c.o, len(got), len(want))
			}
			for k := range want {
				g, w := got[k], want[k]
				if g.ID != w.ID || g.Score != w.Score || g.Phrase != w.Phrase || strings.Join(g.Matched, " ") != strings.Join(w.Matched, " ") {
					t.Fatalf("search %q %+v: hit %d is %+v, Bleve %+v", c.variants, c.o, k, g, w)
				}
				if k > 0 && w.Score == want[k-1].Score {
					ties++
				}
			}
			searches++
			if nativeShape(ix, c.variants) {
				native++
			}
		}
	}
	if native < searches*9/10 {
		t.Fatalf("only %d of %d searches had a shape the native scorer copies", native, searches)
	}
	if ties < 100 {
		t.Fatalf("only %d tied scores; the tie order is not exercised", ties)
	}
	t.Logf("%d searches (%d scored natively, %d tied scores), identical to Bleve's", searches, native, ties)
}

// nativeShape reports whether the native scorer takes the variants' query.
func nativeShape(ix *Index, variants []string) bool {
	var pos [][]int
	var terms [][]string
	var ids [][]int32
	var boosts [][2]float64
	for _, v := range variants {
		tt, ps := ix.analyzeTerms(textnorm.Normalize(v))
		if len(tt) == 0 {
			continue
		}
		id := make([]int32, len(tt))
		for j := range tt {
			id[j] = -1
			if x, ok := ix.termID[tt[j]]; ok {
				id[j] = x
			}
		}
		pos, terms, ids = append(pos, ps), append(terms, tt), append(ids, id)
		boosts = append(boosts, [2]float64{DefaultPhraseBoost, 1})
	}
	if len(pos) == 0 {
		return false
	}
	return ix.native.query(&nscratch{}, pos, terms, ids, boosts)
}

// TestQueryTermsMatchAnalyzer: the token memo gives the terms and
// positions of Bleve's analyser, for every finding of the corpus read
// twice (the second time from the memo) and in upper case.
func TestQueryTermsMatchAnalyzer(t *testing.T) {
	fs := findings(t)
	ix, err := New(fs[:50], Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	var words int
	for round := 0; round < 2; round++ {
		for _, f := range fs {
			for _, text := range []string{textnorm.Normalize(f), strings.ToUpper(f), f + " the of and -- x2"} {
				terms, pos, ok := ix.queryTerms(text)
				if !ok {
					t.Fatal("the index analyser is not a tokenizer and one-token filters")
				}
				toks := ix.analyzer.Analyze([]byte(text))
				if len(toks) != len(terms) {
					t.Fatalf("%q: %d terms, Analyze %d", text, len(terms), len(toks))
				}
				for j, tok := range toks {
					if string(tok.Term) != terms[j] || tok.Position != pos[j] {
						t.Fatalf("%q: term %d is %q at %d, Analyze %q at %d", text, j, terms[j], pos[j], tok.Term, tok.Position)
					}
				}
				words += len(terms)
			}
		}
	}
	if words < 10000 {
		t.Fatalf("only %d terms compared", words)
	}
}

// TestBestHitsSameAsSortAndCut: choosing the size best hits (bestHits)
// gives exactly the list a sort of every hit cut to size gives, with many
// tied scores, every size, and a NaN score.
func TestBestHitsSameAsSortAndCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 300; trial++ {
		n := rng.IntN(200)
		hits := make([]nhit, n)
		for i, o := range rng.Perm(n) {
			hits[i] = nhit{ord: int32(o), score: float64(rng.IntN(8)) / 4}
		}
		if trial%50 == 49 && n > 0 {
			hits[rng.IntN(n)].score = math.NaN()
		}
		for _, size := range []int{1, 2, 7, 50, 150, n, n + 1} {
			if size <= 0 {
				continue
			}
			want := slices.Clone(hits)
			slices.SortFunc(want, compareHits)
			if len(want) > size {
				want = want[:size]
			}
			got := bestHits(slices.Clone(hits), size)
			if len(got) != len(want) {
				t.Fatalf("trial %d size %d: %d hits, sort and cut gives %d", trial, size, len(got), len(want))
			}
			for i := range got {
				if got[i].ord != want[i].ord || math.Float64bits(got[i].score) != math.Float64bits(want[i].score) {
					t.Fatalf("trial %d size %d hit %d: %+v, sort and cut gives %+v", trial, size, i, got[i], want[i])
				}
			}
		}
	}
}

// TestPlainTermsMatchAnalyzer: for normalised ASCII texts (letters,
// digits, spaces) whose words the memo holds, plainTerms, which splits on
// spaces without the tokenizer, gives the terms and positions of Bleve's
// analyser, with digit-letter mixes, stop words and runs of spaces.
func TestPlainTermsMatchAnalyzer(t *testing.T) {
	ix, err := New(findings(t)[:50], Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(7, 8))
	words := []string{"a", "the", "of", "x2", "2x", "12", "1", "a1b2", "hba1c", "cha2ds2", "running", "stenoses", "lvef", "3vd", "00", "z"}
	fast := 0
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for j := rng.IntN(6); j >= 0; j-- {
			b.WriteString(strings.Repeat(" ", rng.IntN(3)))
			b.WriteString(words[rng.IntN(len(words))])
		}
		text := b.String()
		for round := 0; round < 2; round++ { // the first fills the memo
			if _, _, ok := ix.plainTerms(text); ok {
				fast++
			}
			terms, pos, ok := ix.queryTerms(text)
			if !ok {
				t.Fatal("the index analyser is not a tokenizer and one-token filters")
			}
			toks := ix.analyzer.Analyze([]byte(text))
			if len(toks) != len(terms) {
				t.Fatalf("%q: %d terms, Analyze %d", text, len(terms), len(toks))
			}
			for j, tok := range toks {
				if string(tok.Term) != terms[j] || tok.Position != pos[j] {
					t.Fatalf("%q: term %d is %q at %d, Analyze %q at %d", text, j, terms[j], pos[j], tok.Term, tok.Position)
				}
			}
		}
	}
	if fast < 3000 {
		t.Fatalf("only %d texts took the plain path", fast)
	}
	if _, _, ok := ix.plainTerms("LVEF 35%"); ok {
		t.Error("a text with upper case and punctuation took the plain path")
	}
}
