package textnorm

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode"
)

// TestFastPathsMatchReference: Fold and Normalize, with their ASCII fast
// paths, return exactly what the rune-by-rune versions as first written
// (referenceFold, referenceNormalize) return, for every corpus finding and
// for random mixes of ASCII, accented letters, symbols and invalid bytes.
func TestFastPathsMatchReference(t *testing.T) {
	f, err := os.Open("../testdata/findings.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var texts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		texts = append(texts, sc.Text())
	}
	alphabet := []string{"a", "Z", "e", "o", "s", "'", "`", " ", "-", "/", "1", "²", "é", "Æ", "’", "≥", "µ", "\xff", "one", "ae", "oe", "'s ", "\t", "İ", "K", "ten", "Two", "anaemia", "  ", "_", "aer"}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for j := r.IntN(12); j >= 0; j-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		if got, want := Fold(s), referenceFold(s); got != want {
			t.Fatalf("Fold(%q) = %q, reference %q", s, got, want)
		}
		if got, want := Normalize(s), referenceNormalize(s); got != want {
			t.Fatalf("Normalize(%q) = %q, reference %q", s, got, want)
		}
	}
}

// referenceFold and referenceNormalize are Fold and Normalize as first
// written.
func referenceFold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if f, ok := fold[unicode.ToLower(r)]; ok {
			b.WriteString(f)
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func referenceNormalize(s string) string {
	s = referenceFold(s)
	s = strings.ReplaceAll(s, "'s ", " ")
	if strings.HasSuffix(s, "'s") {
		s = s[:len(s)-2]
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	words := strings.Fields(b.String())
	for i, w := range words {
		if d, ok := numberWords[w]; ok {
			words[i] = d
			continue
		}
		words[i] = americanise(w)
	}
	return strings.Join(words, " ")
}

// TestNormalizeNormalAllocatesNothing: text already in Normalize's form
// (lower-case ASCII words, single spaces, nothing to map) comes back as it
// is, without an allocation.
func TestNormalizeNormalAllocatesNothing(t *testing.T) {
	for _, s := range []string{"", "heart failure", "type 2 diabetes", "egfr", "x y z"} {
		if got := Normalize(s); got != s {
			t.Fatalf("Normalize(%q) = %q", s, got)
		}
		if n := testing.AllocsPerRun(20, func() { Normalize(s) }); n != 0 {
			t.Errorf("Normalize(%q): %v allocations, want 0", s, n)
		}
	}
}
