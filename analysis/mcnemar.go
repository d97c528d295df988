package analysis

import (
	"math"
	"math/big"
)

// McNemar is the exact McNemar test on paired binary outcomes (here: exact
// row-set match per vignette). B counts vignettes only arm A got right, C
// those only arm B got right; concordant pairs carry no information.
type McNemar struct {
	A, B string
	// Both and Neither are the concordant counts, kept for the table.
	Both, Neither int
	// OnlyA (b) and OnlyB (c) are the discordant counts.
	OnlyA, OnlyB int
	// P is the two-sided exact p-value.
	P float64
}

// McNemarExact returns the two-sided exact McNemar p-value for b and c
// discordant pairs: under the null each discordant pair falls either way
// with probability 1/2, so p = min(1, 2·P(X ≤ min(b,c))), X ~ Bin(b+c, ½).
// The tail is summed in exact rational arithmetic, so tiny p-values such as
// 2·0.5^49 keep their full precision.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		return math.NaN()
	}
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	tail := new(big.Int)
	binom := big.NewInt(1) // C(n, 0)
	for i := 0; i <= k; i++ {
		if i > 0 {
			binom.Mul(binom, big.NewInt(int64(n-i+1)))
			binom.Quo(binom, big.NewInt(int64(i)))
		}
		tail.Add(tail, binom)
	}
	// p = 2·tail / 2^n = tail / 2^(n-1)
	den := new(big.Int).Lsh(big.NewInt(1), uint(n-1))
	p, _ := new(big.Rat).SetFrac(tail, den).Float64()
	return math.Min(1, p)
}

// PairMcNemar compares the exact matches of two scored arms on the cases
// both were scored on (the same reference, so the same case list).
func PairMcNemar(a, b *ArmScore) McNemar {
	m := McNemar{A: a.Arm, B: b.Arm}
	bx := map[string]bool{}
	for _, c := range b.Cases {
		bx[c.CaseID] = c.Exact
	}
	for _, c := range a.Cases {
		eb, ok := bx[c.CaseID]
		if !ok {
			continue
		}
		switch {
		case c.Exact && eb:
			m.Both++
		case c.Exact:
			m.OnlyA++
		case eb:
			m.OnlyB++
		default:
			m.Neither++
		}
	}
	m.P = McNemarExact(m.OnlyA, m.OnlyB)
	return m
}
