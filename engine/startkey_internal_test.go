package engine

import "testing"

// TestStartKeyDistinct: the verbatim index's integer key tells every
// (first byte, second byte, exact) triple apart, as the struct key did.
func TestStartKeyDistinct(t *testing.T) {
	seen := make(map[uint32]bool, 1<<17)
	for a := 0; a < 256; a++ {
		for b := 0; b < 256; b++ {
			for _, exact := range []bool{false, true} {
				k := startKey(byte(a), byte(b), exact)
				if seen[k] {
					t.Fatalf("startKey(%d, %d, %v) = %d repeats", a, b, exact, k)
				}
				seen[k] = true
			}
		}
	}
}
