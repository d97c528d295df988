package engine

import (
	"regexp"

	"github.com/executablekg/execkg/grounding"
)

// Demographic findings are written in a handful of fixed shapes ("67yo",
// "78-year-old", "F") that carry little text for full-text or vector search
// to work with. When a finding has one of these shapes and the pack tests
// the concept, the concept becomes the finding's first anchor.
var demographicAnchors = []struct {
	re      *regexp.Regexp
	concept string // concept name in the pack
}{
	{regexp.MustCompile(`(?i)^(?:aged?\s+)?\d{1,3}\s*(?:-?\s*(?:years?|yrs?)(?:[\s-]*old|\s+of\s+age)?|\s*-?\s*(?:yo|y/o|y\.o\.)|-year-old)$|^aged?\s+\d{1,3}$|^\d{1,3}$`), "age"},
	{regexp.MustCompile(`(?i)^(?:woman|female|lady|girl|f)$`), "female sex"},
}

// demographicAnchor returns the anchor a demographic finding must have
// first, if any.
func (p *Program) demographicAnchor(finding string) (grounding.Anchor, bool) {
	for _, d := range demographicAnchors {
		if key, ok := p.keys[d.concept]; ok && d.re.MatchString(finding) {
			return grounding.Anchor{Rank: 1, ConceptKey: key, Concept: d.concept, Score: 1, Channels: []string{"pattern"}}, true
		}
	}
	return grounding.Anchor{}, false
}

// withFirst puts a first in the anchor list, dropping its duplicate.
func withFirst(a grounding.Anchor, list []grounding.Anchor) []grounding.Anchor {
	out := []grounding.Anchor{a}
	for _, x := range list {
		if x.ConceptKey != a.ConceptKey {
			out = append(out, x)
		}
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}
