package memo

import (
	"fmt"
	"sync"
	"testing"
)

// A Map holds at most its bound, keeps an entry in use across
// generations, drops one not used again, and a zero size holds nothing.
func TestBounded(t *testing.T) {
	m := New[string, int](10)
	for i := 0; i < 100; i++ {
		m.Put(fmt.Sprint("k", i), i)
		if v, ok := m.Get("k0"); !ok || v != 0 {
			t.Fatalf("k0, read after every put, was dropped at put %d", i)
		}
		if n := m.Len(); n > 10 {
			t.Fatalf("after %d puts the map holds %d entries, bound 10", i+1, n)
		}
	}
	if _, ok := m.Get("k1"); ok {
		t.Error("k1, never read again, is still held after 100 puts into a map of 10")
	}
	off := New[string, int](0)
	off.Put("x", 1)
	if _, ok := off.Get("x"); ok || off.Len() != 0 {
		t.Error("a map of size 0 must hold nothing")
	}
}

// Concurrent readers and writers see only values that were put.
func TestConcurrent(t *testing.T) {
	m := New[int, int](8)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				k := (i + w) % 20
				if v, ok := m.Get(k); ok && v != k*k {
					t.Errorf("key %d holds %d", k, v)
					return
				}
				m.Put(k, k*k)
			}
		}(w)
	}
	wg.Wait()
}
