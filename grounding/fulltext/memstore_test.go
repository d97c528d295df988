package fulltext

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/blevesearch/bleve/v2/index/upsidedown/store/gtreap"
	store "github.com/blevesearch/upsidedown_store_api"
)

// concatMerge is a merge operator for the test: operands appended.
type concatMerge struct{}

func (concatMerge) FullMerge(_, existing []byte, ops [][]byte) ([]byte, bool) {
	out := bytes.Clone(existing)
	for _, op := range ops {
		out = append(out, op...)
	}
	return out, true
}
func (concatMerge) PartialMerge(_, l, r []byte) ([]byte, bool) {
	return append(bytes.Clone(l), r...), true
}
func (concatMerge) Name() string { return "concat" }

// TestMemStoreMatchesGtreap: after the same batches (sets, deletes,
// merges), the sorted store answers Get, prefix and range iteration and
// seeks exactly as Bleve's gtreap store does, over random keys that share
// long prefixes, end in 0xff bytes or are empty.
func TestMemStoreMatchesGtreap(t *testing.T) {
	ref, err := gtreap.New(concatMerge{}, map[string]any{"path": ""})
	if err != nil {
		t.Fatal(err)
	}
	got, err := newMemStore(concatMerge{}, map[string]any{"path": ""})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte{0, 1, 'a', 'b', 't', 0xfe, 0xff}
	key := func() []byte {
		k := make([]byte, r.IntN(11))
		for i := range k {
			k[i] = alphabet[r.IntN(len(alphabet))]
		}
		return k
	}
	var keys [][]byte
	for round := 0; round < 4; round++ {
		rs := rand.New(rand.NewPCG(uint64(round), 7))
		var ops [][3][]byte // kind, key, value
		for i := 0; i < 400; i++ {
			k := key()
			keys = append(keys, k)
			kind := []byte{byte(rs.IntN(3))}
			ops = append(ops, [3][]byte{kind, k, []byte{byte(i), byte(round)}})
		}
		for _, s := range []store.KVStore{ref, got} {
			w, _ := s.Writer()
			b := w.NewBatch()
			for _, op := range ops {
				switch op[0][0] {
				case 0:
					b.Set(op[1], op[2])
				case 1:
					b.Delete(op[1])
				default:
					b.Merge(op[1], op[2])
				}
			}
			if err := w.ExecuteBatch(b); err != nil {
				t.Fatal(err)
			}
			w.Close()
		}
		rr, _ := ref.Reader()
		gr, _ := got.Reader()
		for i := 0; i < 300; i++ {
			k := keys[r.IntN(len(keys))]
			if r.IntN(4) == 0 {
				k = key()
			}
			a, _ := rr.Get(k)
			b, _ := gr.Get(k)
			if !bytes.Equal(a, b) || (a == nil) != (b == nil) {
				t.Fatalf("Get(%q) = %q, gtreap %q", k, b, a)
			}
			var ai, bi store.KVIterator
			if r.IntN(2) == 0 {
				p := k[:r.IntN(len(k)+1)]
				ai, bi = rr.PrefixIterator(p), gr.PrefixIterator(p)
			} else {
				end := key()
				if r.IntN(3) == 0 {
					end = nil
				}
				ai, bi = rr.RangeIterator(k, end), gr.RangeIterator(k, end)
			}
			for step := 0; step < 40; step++ {
				ak, av, aok := ai.Current()
				bk, bv, bok := bi.Current()
				if aok != bok || !bytes.Equal(ak, bk) || !bytes.Equal(av, bv) || ai.Valid() != bi.Valid() || !bytes.Equal(ai.Key(), bi.Key()) {
					t.Fatalf("round %d, iterator step %d: (%q %q %v), gtreap (%q %q %v)", round, step, bk, bv, bok, ak, av, aok)
				}
				if r.IntN(6) == 0 {
					s := key()
					ai.Seek(s)
					bi.Seek(s)
				} else {
					ai.Next()
					bi.Next()
				}
			}
			ai.Close()
			bi.Close()
		}
		rr.Close()
		gr.Close()
	}
}
