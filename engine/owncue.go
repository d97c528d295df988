package engine

import (
	"strings"

	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/grounding/textnorm"
)

// cueInConcept reports whether one of a finding's context cues is part of
// the wording of the finding's first anchor: a pack concept whose own name
// or synonym holds the cue (a history-of-a-relative concept) is the
// patient's fact, so the cue does not make the finding someone else's.
func (p *Program) cueInConcept(anchors []grounding.Anchor, cues []string) bool {
	if len(anchors) == 0 {
		return false
	}
	names := append([]string{anchors[0].Concept}, p.phrases[anchors[0].ConceptKey]...)
	for _, c := range cues {
		cue := " " + textnorm.Normalize(c) + " "
		if strings.TrimSpace(cue) == "" {
			continue
		}
		for _, n := range names {
			if strings.Contains(" "+textnorm.Normalize(n)+" ", cue) {
				return true
			}
		}
	}
	return false
}
