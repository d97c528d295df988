package grounding

import "sync"

// DefaultCacheSize is the number of distinct findings whose anchors a
// Grounder keeps by default (WithCacheSize). Findings repeat across the
// cases of a batch ("hypertension", "type 2 diabetes") and within long
// documents; a cached finding skips both channels, which are most of a
// short case's cost. A few thousand entries hold a few megabytes.
const DefaultCacheSize = 4096

// WithCacheSize bounds the anchors cache to about n distinct findings
// (0 turns it off). The cache is keyed by the finding's exact text: Ground
// reads the text as written (abbreviation expansion looks at its case), so
// two spellings may ground differently and are kept apart.
func WithCacheSize(n int) Option { return func(c *config) { c.cacheSize = n } }

// anchorCache is a bounded, concurrency-safe map from finding text to the
// anchors Ground returned. It keeps two generations: entries go into the
// current one, and when it holds half the bound it becomes the previous one
// and the old previous one is dropped; a hit in the previous generation
// moves to the current one. So at most the bound is held, and findings in
// use stay (an approximation of least-recently-used without per-hit
// bookkeeping).
type anchorCache struct {
	mu        sync.RWMutex
	half      int
	cur, prev map[string][]Anchor
}

func newAnchorCache(n int) *anchorCache {
	if n <= 0 {
		return nil
	}
	half := (n + 1) / 2
	return &anchorCache{half: half, cur: make(map[string][]Anchor, half)}
}

// get returns a copy of the cached anchors (callers renumber and reorder
// their slice; the anchors' inner slices are shared and read-only).
func (c *anchorCache) get(finding string) ([]Anchor, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.RLock()
	as, ok := c.cur[finding]
	old := false
	if !ok {
		as, ok = c.prev[finding]
		old = ok
	}
	c.mu.RUnlock()
	if !ok {
		return nil, false
	}
	if old {
		c.put(finding, as)
	}
	return cloneAnchors(as), true
}

func (c *anchorCache) put(finding string, as []Anchor) {
	if c == nil {
		return
	}
	c.mu.Lock()
	if _, ok := c.cur[finding]; !ok {
		if len(c.cur) >= c.half {
			c.prev, c.cur = c.cur, make(map[string][]Anchor, c.half)
		}
		c.cur[finding] = as
	}
	c.mu.Unlock()
}

func cloneAnchors(as []Anchor) []Anchor {
	if as == nil {
		return nil
	}
	return append(make([]Anchor, 0, len(as)), as...)
}
