package engine

import (
	"strings"

	"github.com/executablekg/execkg/engine/evidence"
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

// doubtInSynonym returns a synonym of the concept whose every word the
// clause states (evidence.CoversAll: "PCI vs redo CABG" states "PCI vs
// CABG") and that holds every doubt cue of the mention itself: a concept
// worded as an open choice ("<one option> vs <another>") is the patient's
// fact, so the cue that makes the choice does not make the finding
// doubtful. "" when there is none.
func doubtInSynonym(clause string, synonyms, cues []string) string {
	if len(cues) == 0 {
		return ""
	}
	// The cues, normalised once; a synonym is tested against them before
	// the dearer check that the clause states it (same answer, either
	// order).
	norm := make([]string, len(cues))
	for i, c := range cues {
		cue := " " + textnorm.Normalize(c) + " "
		if strings.TrimSpace(cue) == "" {
			return "" // a cue with no words is in no synonym
		}
		norm[i] = cue
	}
	for _, syn := range synonyms {
		sn := " " + textnorm.Normalize(syn) + " "
		if strings.TrimSpace(sn) == "" {
			continue
		}
		all := true
		for _, cue := range norm {
			if !strings.Contains(sn, cue) {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		if ok, _ := evidence.CoversAll(clause, []string{syn}); ok {
			return syn
		}
	}
	return ""
}
