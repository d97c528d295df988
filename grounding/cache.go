package grounding

import "github.com/executablekg/execkg/internal/memo"

// DefaultCacheSize is the number of distinct findings whose anchors a
// Grounder keeps by default (WithCacheSize). Findings repeat across the
// cases of a batch ("hypertension", "type 2 diabetes") and within long
// documents; a cached finding skips both channels, which are most of a
// short case's cost. A 200-line letter grounds some 450 distinct
// findings, so 4096 held fewer than ten such letters and a batch cycling
// through more of them missed about half its findings (the long inputs'
// cost per KB then grew with length); 16384 hold some 35 and, full, about
// 24 MiB more than 4096 did (about 1.5 KiB per finding, the answers by
// text and by query variants together).
const DefaultCacheSize = 16384

// WithCacheSize bounds the anchors cache to about n distinct findings
// (0 turns it off). The cache is keyed by the finding's exact text: Ground
// reads the text as written (abbreviation expansion looks at its case), so
// two spellings may ground differently and are kept apart.
func WithCacheSize(n int) Option { return func(c *config) { c.cacheSize = n } }

// anchorCache maps a finding's text to the anchors Ground returned
// (bounded, concurrency-safe; nil when off).
type anchorCache = memo.Map[string, []Anchor]

func newAnchorCache(n int) *anchorCache { return memo.New[string, []Anchor](n) }

// cloneAnchors copies the list: callers renumber and reorder theirs; the
// anchors' inner slices are shared and read-only.
func cloneAnchors(as []Anchor) []Anchor {
	if as == nil {
		return nil
	}
	return append(make([]Anchor, 0, len(as)), as...)
}
