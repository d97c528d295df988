package engine

import (
	"context"
	"regexp"
	"strings"

	"github.com/executablekg/execkg/grounding"
)

// sharedHeadOr matches a head and preposition shared by two alternatives
// joined by "or": "contraindication to beta-blocker or DHP CCB".
var sharedHeadOr = regexp.MustCompile(`(?i)^(.*?\b[a-z][a-z-]+\s+(?:to|of|for|against)\s+)((?:[\w./+-]+\s+){0,3}?[\w./+-]+)\s+or\s+((?:[\w./+-]+\s+){0,3}[\w./+-]+)$`)

// orAlternatives distributes a shared head over the alternatives of an
// "or" list: "no contraindication to beta-blocker or DHP CCB" gives
// "no contraindication to beta-blocker" and "no contraindication to DHP
// CCB". Each alternative has at most four words; anything else gives nil.
// The head word (the one before the preposition) comes back too.
func orAlternatives(finding string) (head string, alts []string) {
	m := sharedHeadOr.FindStringSubmatch(strings.TrimSpace(finding))
	if m == nil || strings.Contains(strings.ToLower(m[2]+" "+m[3]), " or ") {
		return "", nil
	}
	w := strings.Fields(m[1])
	return strings.ToLower(w[len(w)-2]), []string{m[1] + m[2], m[1] + m[3]}
}

// orAnchors adds, for a negated finding that denies a shared head of an
// "or" list, the best anchor of each alternative the grounder did not
// already return: denying "contraindication to A or B" denies both
// contraindications, not only the one the whole phrase grounds to first.
// A stated (not negated) "or" list stays one uncertain finding.
func (p *Program) orAnchors(ctx context.Context, c *call, finding string, anchors []grounding.Anchor) ([]grounding.Anchor, error) {
	head, alts := orAlternatives(finding)
	if alts == nil {
		return anchors, nil
	}
	have := map[string]bool{}
	for _, a := range anchors {
		have[a.ConceptKey] = true
	}
	out := append([]grounding.Anchor(nil), anchors...)
	for _, alt := range alts {
		as, err := p.ground(ctx, c, alt)
		if err != nil {
			return nil, err
		}
		// The alternative's concept must carry the shared head: the
		// distributed phrase is "contraindication to DHP CCB", not "DHP
		// CCB".
		for _, a := range p.withVerbatim(alt, "", as, p.cfg.topK) {
			if !strings.Contains(strings.ToLower(a.Concept), head) {
				continue
			}
			if !have[a.ConceptKey] {
				have[a.ConceptKey] = true
				a.Rank = len(out) + 1
				out = append(out, a)
			}
			break
		}
	}
	return out, nil
}
