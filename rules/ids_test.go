package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNormalizeNameFastPath: the no-copy path for names already normal
// answers as the full normalisation does, on names and on random strings
// of letters, spaces, control white space and non-ASCII runes.
func TestNormalizeNameFastPath(t *testing.T) {
	full := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	cases := []string{"", " ", "a", "chronic coronary syndrome", "Chronic coronary syndrome", "two  spaces",
		" lead", "trail ", "tab\there", "line\nbreak", "nbsp\u00a0inside", "ÉCG", "ldl-c < 1.4 mmol/l", "x\u0085y"}
	alphabet := []rune{'a', 'z', 'A', 'Z', '0', ' ', ' ', '\t', '\n', '\r', '\v', '\f', '-', 'é', 'É', '\u00a0', '\u2028', 'K', '\u212a'}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for j := rng.IntN(12); j > 0; j-- {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if got, want := NormalizeName(s), full(s); got != want {
			t.Fatalf("NormalizeName(%q) = %q, want %q", s, got, want)
		}
	}
}
