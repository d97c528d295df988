package fulltext

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/blevesearch/bleve/v2/registry"
	store "github.com/blevesearch/upsidedown_store_api"
)

// memStoreName is the in-memory key-value store under the Bleve index.
//
// Why not Bleve's own in-memory store (gtreap): its iterators run a
// goroutine per seek and hand every row over a channel, so each term a
// query reads costs goroutine switches; that was most of a full-text
// search. The grounding index is written once and then only read, so a
// sorted snapshot of the rows, searched by binary search and walked by
// position, serves the same rows in the same byte order: the upsidedown
// index on top reads exactly what it read from gtreap and scores exactly as
// it did (TestMemStoreMatchesGtreap).
const memStoreName = "execkg_sorted_mem"

func init() {
	if err := registry.RegisterKVStore(memStoreName, newMemStore); err != nil {
		panic(err)
	}
}

// memStore holds the rows in a map while written; a reader sees an
// immutable snapshot sorted by key, rebuilt only after writes.
type memStore struct {
	mo   store.MergeOperator
	mu   sync.Mutex
	rows map[string][]byte
	snap *memSnapshot // nil after a write
}

type memSnapshot struct {
	keys, vals [][]byte // sorted by key (bytes.Compare)
	// pre holds each key's first 8 bytes as a big-endian number (zero
	// padded), in the same order: searches narrow by number first.
	pre []uint64
	at  map[string]int // key → position, for Get
}

func newMemStore(mo store.MergeOperator, config map[string]any) (store.KVStore, error) {
	if p, _ := config["path"].(string); p != "" {
		return nil, fmt.Errorf("full-text store %s is in memory only; got path %q", memStoreName, p)
	}
	return &memStore{mo: mo, rows: map[string][]byte{}}, nil
}

func (s *memStore) Close() error { return nil }

func (s *memStore) Writer() (store.KVWriter, error) { return &memWriter{s: s}, nil }

func (s *memStore) Reader() (store.KVReader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap == nil {
		keys := make([]string, 0, len(s.rows))
		for k := range s.rows {
			keys = append(keys, k)
		}
		sort.Strings(keys) // string order is byte order
		sn := &memSnapshot{keys: make([][]byte, len(keys)), vals: make([][]byte, len(keys)), pre: make([]uint64, len(keys)), at: make(map[string]int, len(keys))}
		for i, k := range keys {
			sn.keys[i], sn.vals[i] = []byte(k), s.rows[k]
			sn.pre[i] = prefix8(sn.keys[i])
			sn.at[k] = i
		}
		s.snap = sn
	}
	return &memReader{sn: s.snap}, nil
}

type memWriter struct{ s *memStore }

func (w *memWriter) NewBatch() store.KVBatch { return store.NewEmulatedBatch(w.s.mo) }

func (w *memWriter) NewBatchEx(o store.KVBatchOptions) ([]byte, store.KVBatch, error) {
	return make([]byte, o.TotalBytes), w.NewBatch(), nil
}

// ExecuteBatch applies merges, then sets and deletes in order, as gtreap
// does. Values are never changed in place, so snapshots taken before stay
// valid.
func (w *memWriter) ExecuteBatch(batch store.KVBatch) error {
	b, ok := batch.(*store.EmulatedBatch)
	if !ok {
		return errors.New("full-text store: batch of the wrong type")
	}
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, ops := range b.Merger.Merges {
		merged, ok := s.mo.FullMerge([]byte(k), s.rows[k], ops)
		if !ok {
			return errors.New("full-text store: merge operator failed")
		}
		s.rows[k] = merged
	}
	for _, op := range b.Ops {
		if op.V != nil {
			s.rows[string(op.K)] = op.V
		} else {
			delete(s.rows, string(op.K))
		}
	}
	s.snap = nil
	return nil
}

func (w *memWriter) Close() error { return nil }

type memReader struct{ sn *memSnapshot }

// prefix8 is a key's first 8 bytes as a big-endian number, zero padded:
// a < b (bytes.Compare) implies prefix8(a) ≤ prefix8(b).
func prefix8(k []byte) uint64 {
	var p uint64
	for i := 0; i < 8; i++ {
		p <<= 8
		if i < len(k) {
			p |= uint64(k[i])
		}
	}
	return p
}

// search is the position of the first key ≥ k. Keys whose prefix8 is
// below k's are below k, those above it above k; only keys sharing k's
// prefix8 are compared byte by byte.
func (sn *memSnapshot) search(k []byte) int {
	p := prefix8(k)
	lo, hi := 0, len(sn.pre)
	for lo < hi { // first position with pre ≥ p
		m := int(uint(lo+hi) >> 1)
		if sn.pre[m] < p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	end, top := lo, len(sn.pre)
	for end < top { // first position with pre > p
		m := int(uint(end+top) >> 1)
		if sn.pre[m] <= p {
			end = m + 1
		} else {
			top = m
		}
	}
	return lo + sort.Search(end-lo, func(i int) bool { return bytes.Compare(sn.keys[lo+i], k) >= 0 })
}

func (r *memReader) Get(k []byte) ([]byte, error) {
	if i, ok := r.sn.at[string(k)]; ok {
		return bytes.Clone(r.sn.vals[i]), nil // gtreap returns a copy too
	}
	return nil, nil
}

func (r *memReader) MultiGet(keys [][]byte) ([][]byte, error) { return store.MultiGet(r, keys) }

func (r *memReader) PrefixIterator(prefix []byte) store.KVIterator {
	it := &memIterator{sn: r.sn, prefix: prefix, lo: r.sn.search(prefix), hi: len(r.sn.keys)}
	if end := prefixEnd(prefix); end != nil {
		it.hi = r.sn.search(end)
	}
	it.pos = it.lo
	return it
}

func (r *memReader) RangeIterator(start, end []byte) store.KVIterator {
	it := &memIterator{sn: r.sn, start: start, lo: r.sn.search(start), hi: len(r.sn.keys)}
	if end != nil {
		it.hi = r.sn.search(end)
	}
	it.pos = it.lo
	return it
}

func (r *memReader) Close() error { return nil }

// prefixEnd is the first key after every key with the prefix (nil when
// there is none: the prefix is all 0xff).
func prefixEnd(prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] < 0xff {
			end := bytes.Clone(prefix[:i+1])
			end[i]++
			return end
		}
	}
	return nil
}

// memIterator walks the snapshot rows at positions [lo, hi): those with
// the prefix, or from start up to end.
type memIterator struct {
	sn            *memSnapshot
	prefix, start []byte
	lo, hi, pos   int
}

// Seek moves to the first row ≥ k within the iterator's rows (before them:
// the first; after them: past the end), as gtreap's iterator does.
func (it *memIterator) Seek(k []byte) {
	switch {
	case it.start != nil && bytes.Compare(k, it.start) < 0,
		it.prefix != nil && bytes.Compare(k, it.prefix) < 0:
		it.pos = it.lo
	case it.prefix != nil && !bytes.HasPrefix(k, it.prefix):
		it.pos = it.hi
	default:
		it.pos = max(it.sn.search(k), it.lo)
	}
}

func (it *memIterator) Next() {
	if it.pos < it.hi {
		it.pos++
	}
}

func (it *memIterator) Current() ([]byte, []byte, bool) {
	if it.pos >= it.hi {
		return nil, nil, false
	}
	return it.sn.keys[it.pos], it.sn.vals[it.pos], true
}

func (it *memIterator) Key() []byte {
	k, _, _ := it.Current()
	return k
}

func (it *memIterator) Value() []byte {
	_, v, _ := it.Current()
	return v
}

func (it *memIterator) Valid() bool {
	_, _, ok := it.Current()
	return ok
}

func (it *memIterator) Close() error { return nil }
