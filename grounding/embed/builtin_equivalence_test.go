package embed

import (
	"context"
	"math"
	"testing"

	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/internal/corpus"
)

// TestBuiltinMatchesDense: the built-in embedder, which sums and scales
// only the dimensions a text sets, gives bit-identical vectors to the plain
// pass over every dimension (denseVector, the embedder as first written),
// for every finding of the grounding corpus.
func TestBuiltinMatchesDense(t *testing.T) {
	texts := corpus.Findings(t, "../testdata/findings.txt")
	texts = append(texts, "", "a the of", "x", "rate risk disease")
	for _, dim := range []int{0, 97} {
		b := NewBuiltin(dim)
		got, err := b.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		for i, text := range texts {
			want := denseVector(b, text)
			for d := range want {
				if math.Float32bits(got[i][d]) != math.Float32bits(want[d]) {
					t.Fatalf("dim %d, %q: dimension %d is %v, dense pass %v", b.dim, text, d, got[i][d], want[d])
				}
			}
		}
	}
}

// denseVector and denseAdd are the embedder as first written: every block
// summed and scaled over all dimensions.
func denseVector(b *Builtin, text string) []float32 {
	var words []string
	for _, w := range textnorm.Tokens(text) {
		if !textnorm.StopWords[w] {
			words = append(words, w)
		}
	}
	v := make([]float64, b.dim)
	if len(words) == 0 {
		return make([]float32, b.dim)
	}
	wt := func(w string) float64 {
		if textnorm.GenericWords[w] {
			return genericWeight
		}
		return 1
	}
	block := make([]float64, b.dim)
	flush := func(weight float64) {
		var n float64
		for _, x := range block {
			n += x * x
		}
		if n > 0 {
			s := weight / math.Sqrt(n)
			for i, x := range block {
				v[i] += x * s
				block[i] = 0
			}
		}
	}
	for _, w := range words {
		denseAdd(b, block, fnvString(fnvString(fnvOffset, "w:"), w), wt(w))
	}
	flush(weightUnigram)
	for i := 0; i+1 < len(words); i++ {
		h := fnvString(fnvString(fnvString(fnvString(fnvOffset, "b:"), words[i]), " "), words[i+1])
		denseAdd(b, block, h, math.Min(wt(words[i]), wt(words[i+1])))
	}
	flush(weightBigram)
	for _, w := range words {
		p := "<" + w + ">"
		var grams []string
		for n := 3; n <= 5; n++ {
			for i := 0; i+n <= len(p); i++ {
				grams = append(grams, p[i:i+n])
			}
		}
		// A word's n-grams share the word's weight, so long words count
		// as much as short ones.
		g := wt(w) / math.Sqrt(float64(len(grams)))
		for _, gr := range grams {
			denseAdd(b, block, fnvString(fnvString(fnvOffset, "c:"), gr), g)
		}
	}
	flush(weightChar)
	var n float64
	for _, x := range v {
		n += x * x
	}
	out := make([]float32, b.dim)
	if n == 0 {
		return out
	}
	s := 1 / math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(x * s)
	}
	return out
}
func denseAdd(b *Builtin, block []float64, x uint64, w float64) {
	i := int(x % uint64(b.dim))
	if x>>63 == 1 {
		w = -w
	}
	block[i] += w
}

// TestAppendSparseMatchesEmbed: the sparse form of every corpus finding's
// vector lists, in ascending order, dimensions whose values are
// bit-identical to Embed's, and every dimension it leaves out is zero in
// Embed's vector.
func TestAppendSparseMatchesEmbed(t *testing.T) {
	texts := corpus.Findings(t, "../testdata/findings.txt")
	texts = append(texts, "", "a the of", "x", "rate risk disease")
	for _, dim := range []int{0, 97} {
		b := NewBuiltin(dim)
		vecs, err := b.Embed(context.Background(), texts)
		if err != nil {
			t.Fatal(err)
		}
		var dims []int32
		var vals []float32
		for i, text := range texts {
			dims, vals = b.AppendSparse(dims[:0], vals[:0], text)
			got := make([]float32, b.dim)
			for j, d := range dims {
				if j > 0 && d <= dims[j-1] {
					t.Fatalf("dim %d, %q: dimensions %v not ascending", b.dim, text, dims)
				}
				got[d] = vals[j]
			}
			for d := range got {
				if math.Float32bits(got[d]) != math.Float32bits(vecs[i][d]) {
					t.Fatalf("dim %d, %q: dimension %d is %v, Embed %v", b.dim, text, d, got[d], vecs[i][d])
				}
			}
		}
	}
}
