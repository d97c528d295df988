package embed

import (
	"context"
	"fmt"
	"math"

	"github.com/executablekg/execkg/grounding/textnorm"
)

// DefaultBuiltinDim is the vector size of the built-in embedder.
const DefaultBuiltinDim = 512

// BuiltinThreshold is the cosine cut-off chosen for the built-in embedder
// with `execkg grounding-eval` (grounding/README.md). Its cosines measure
// lexical overlap and run far lower than a neural model's, for which the
// reference system's 0.80 is kept: at 0.80 the vector channel alone finds
// the right concept in the top 3 for 18% of held-out synonyms, at 0.45 for
// 65%, at 0.30 for 75%, and below 0.30 it gains little (77% at 0.20) while
// the wrong hits keep growing. Fused accuracy@1 is flat from 0.20 to 0.80.
const BuiltinThreshold = 0.30

// Builtin is a lexical embedder that needs nothing downloaded: it hashes
// word unigrams, word bigrams and character 3- to 5-grams of the normalised
// text (textnorm.Normalize, stop words dropped) into a fixed number of
// dimensions and L2-normalises the result. It is honest about what it is:
// cosine similarity between two vectors measures shared words and word
// pieces, so "rapid AF" and "fast irregular heart rate" are unrelated to
// it. Abbreviations and paraphrases reach it only through the lexicon
// synonyms in the grounding text. Vectors are deterministic and identical
// across runs and machines.
type Builtin struct {
	dim int
}

// NewBuiltin returns the built-in embedder; dim ≤ 0 selects
// DefaultBuiltinDim.
func NewBuiltin(dim int) *Builtin {
	if dim <= 0 {
		dim = DefaultBuiltinDim
	}
	return &Builtin{dim: dim}
}

// Name includes the feature-set version and dimension, so caches never mix
// vectors of different layouts.
func (b *Builtin) Name() string { return fmt.Sprintf("builtin-ngram-v1-d%d", b.dim) }

// Dim is the vector size.
func (b *Builtin) Dim() int { return b.dim }

// DefaultThreshold is the measured cosine cut-off for this embedder.
func (b *Builtin) DefaultThreshold() float64 { return BuiltinThreshold }

// Embed returns one unit vector per text; an empty text gives a zero vector.
func (b *Builtin) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = b.vector(t)
	}
	return out, nil
}

// Feature block weights. Each block is normalised on its own before
// weighting, so a long word's many character n-grams cannot drown the
// word-level evidence. Values chosen with grounding-eval.
const (
	weightUnigram = 1.0
	weightBigram  = 0.6
	weightChar    = 0.8
	// genericWeight scales words of textnorm.GenericWords, which name no
	// concept on their own.
	genericWeight = 0.35
)

func (b *Builtin) vector(text string) []float32 {
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
		b.add(block, fnvString(fnvString(fnvOffset, "w:"), w), wt(w))
	}
	flush(weightUnigram)
	for i := 0; i+1 < len(words); i++ {
		h := fnvString(fnvString(fnvString(fnvString(fnvOffset, "b:"), words[i]), " "), words[i+1])
		b.add(block, h, math.Min(wt(words[i]), wt(words[i+1])))
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
			b.add(block, fnvString(fnvString(fnvOffset, "c:"), gr), g)
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

// add puts a feature, by its 64-bit FNV-1a hash (fnvString), into the
// block with a hash-derived sign, so that collisions cancel on average
// instead of inflating similarity.
func (b *Builtin) add(block []float64, x uint64, w float64) {
	i := int(x % uint64(b.dim))
	if x>>63 == 1 {
		w = -w
	}
	block[i] += w
}

// FNV-1a, 64 bits (hash/fnv's New64a), over strings in turn: hashing the
// parts of a feature ("c:" then the n-gram) gives the hash of their
// concatenation without building it.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}
