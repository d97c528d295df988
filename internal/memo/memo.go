// Package memo is a bounded, concurrency-safe memo for pure functions
// whose inputs repeat (the grounding of a finding, the words of a clause).
package memo

import "sync"

// Map remembers up to about n values. It keeps two generations: entries
// go into the current one; when it holds half the bound it becomes the
// previous one and the old previous one is dropped; a hit in the previous
// generation moves to the current one. So at most n entries are held and
// those in use stay, an approximation of least-recently-used without
// bookkeeping per hit. A nil *Map (size 0) remembers nothing.
type Map[K comparable, V any] struct {
	mu        sync.RWMutex
	half      int
	cur, prev map[K]V
}

// New returns a Map bounded to n entries, or nil (off) when n <= 0.
func New[K comparable, V any](n int) *Map[K, V] {
	if n <= 0 {
		return nil
	}
	half := (n + 1) / 2
	return &Map[K, V]{half: half, cur: make(map[K]V, half)}
}

// Get returns the value remembered for k.
func (m *Map[K, V]) Get(k K) (V, bool) {
	var zero V
	if m == nil {
		return zero, false
	}
	m.mu.RLock()
	v, ok := m.cur[k]
	old := false
	if !ok {
		v, ok = m.prev[k]
		old = ok
	}
	m.mu.RUnlock()
	if old {
		m.Put(k, v)
	}
	return v, ok
}

// Put remembers v for k (a value already current is kept).
func (m *Map[K, V]) Put(k K, v V) {
	if m == nil {
		return
	}
	m.mu.Lock()
	if _, ok := m.cur[k]; !ok {
		if len(m.cur) >= m.half {
			m.prev, m.cur = m.cur, make(map[K]V, m.half)
		}
		m.cur[k] = v
	}
	m.mu.Unlock()
}

// Len is the number of entries held.
func (m *Map[K, V]) Len() int {
	if m == nil {
		return 0
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.cur) + len(m.prev)
}
