package analysis

import (
	"math"
	"testing"
)

func TestMcNemarExact(t *testing.T) {
	// Each expected value is worked out by hand from
	// p = 2·Σ_{i≤min(b,c)} C(b+c, i) / 2^(b+c), capped at 1.
	cases := []struct {
		b, c int
		want float64
	}{
		{49, 0, 2 * math.Pow(0.5, 49)},
		{0, 49, 2 * math.Pow(0.5, 49)},
		// C(42,0..4) = 1, 42, 861, 11480, 111930 → 124314 / 2^41.
		{38, 4, 124314.0 / math.Pow(2, 41)},
		{4, 38, 124314.0 / math.Pow(2, 41)},
		{3, 1, 5.0 / 8},  // (1+4)/2^3
		{5, 0, 2.0 / 32}, // 2/2^5
		{1, 0, 1},        // 2·½ = 1
		{7, 7, 1},
		{0, 0, 1},
		{12, 12, 1},
		// C(20,0..5) = 1, 20, 190, 1140, 4845, 15504 → 21700 / 2^19.
		{15, 5, 21700.0 / math.Pow(2, 19)},
	}
	for _, tc := range cases {
		got := McNemarExact(tc.b, tc.c)
		if math.Abs(got-tc.want) > 1e-12*math.Max(tc.want, 1e-300) {
			t.Errorf("McNemarExact(%d,%d) = %.17g, want %.17g", tc.b, tc.c, got, tc.want)
		}
	}
	if !math.IsNaN(McNemarExact(-1, 3)) {
		t.Error("negative count: want NaN")
	}
}

func TestMcNemarLargeCounts(t *testing.T) {
	// 400 discordant pairs overflow float64 binomials; the exact sum must
	// still give a finite p in (0,1] and be symmetric.
	p := McNemarExact(230, 170)
	q := McNemarExact(170, 230)
	if p != q || !(p > 0 && p < 1) {
		t.Fatalf("McNemarExact(230,170) = %g, (170,230) = %g; want equal and in (0,1)", p, q)
	}
}

func TestPairMcNemar(t *testing.T) {
	a := &ArmScore{Arm: "a", Cases: []CaseScore{
		{CaseID: "1", Exact: true}, {CaseID: "2", Exact: true}, {CaseID: "3", Exact: false},
		{CaseID: "4", Exact: true}, {CaseID: "5", Exact: false},
	}}
	b := &ArmScore{Arm: "b", Cases: []CaseScore{
		{CaseID: "1", Exact: true}, {CaseID: "2", Exact: false}, {CaseID: "3", Exact: true},
		{CaseID: "4", Exact: false}, {CaseID: "5", Exact: false},
	}}
	m := PairMcNemar(a, b)
	if m.Both != 1 || m.OnlyA != 2 || m.OnlyB != 1 || m.Neither != 1 {
		t.Fatalf("counts = %+v, want both 1, onlyA 2, onlyB 1, neither 1", m)
	}
	if m.P != 1 { // b=2, c=1: 2·(1+3)/8 = 1
		t.Fatalf("p = %g, want 1", m.P)
	}
}
