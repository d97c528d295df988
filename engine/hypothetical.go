package engine

import (
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/grounding"
)

// spokenOfAsRisk splits a finding's anchors by what the case says of the
// words that name them. A concept the finding names word for word is
// judged at those words (consistency.Text.AnalyzeAt), not at the
// finding's first word: in "Low risk for CAD" a hypothetical cue ("risk
// for") reaches "CAD", so the finding does not state coronary artery
// disease. A cue that is part of the concept's own name ("increased risk
// of GI bleeding", "high bleeding risk") is its wording, not a doubt.
// A finding one of whose readings holds the cue in its own name is left
// whole. all reports that the finding states nothing: its first anchor, or every
// concept it names, is spoken of as a risk or a possibility; otherwise
// kept is the anchors without the ones that are. cues are the cues read.
func (p *Program) spokenOfAsRisk(ctext *consistency.Text, finding string, anchors []grounding.Anchor) (kept []grounding.Anchor, all bool, cues []string) {
	if len(anchors) == 0 || !ctext.HypotheticalIn(finding) {
		return anchors, false, nil
	}
	return p.spokenOf(ctext, finding, anchors, func(cx consistency.Context) bool { return cx.Hypothetical })
}

// spokenOfOthers is spokenOfAsRisk for an experiencer cue among the
// finding's words: in "She is anxious as a colleague recently had a heart
// attack" the heart attack is the colleague's, although the finding opens
// with the patient ("She").
func (p *Program) spokenOfOthers(ctext *consistency.Text, finding string, anchors []grounding.Anchor) (kept []grounding.Anchor, all bool, cues []string) {
	if len(anchors) == 0 || !ctext.OtherIn(finding) {
		return anchors, false, nil
	}
	return p.spokenOf(ctext, finding, anchors, func(cx consistency.Context) bool { return cx.Other })
}

// spokenOf: the anchors whose concept's own words the cue kind is reads
// (is) reaches.
func (p *Program) spokenOf(ctext *consistency.Text, finding string, anchors []grounding.Anchor, is func(consistency.Context) bool) (kept []grounding.Anchor, all bool, cues []string) {
	in := map[string]bool{}
	for _, a := range anchors {
		in[a.ConceptKey] = true
	}
	lower := " " + strings.ToLower(finding) + " "
	hyp := map[string]bool{}
	named := 0
	for _, v := range p.verbatimNamed(finding) {
		if !in[v.ConceptKey] || p.medications[v.ConceptKey] {
			// A drug "PRN" or "if needed" is still prescribed; the drug
			// readers (meta/reading.json) judge what a drug sentence says.
			continue
		}
		var stated []string
		for _, n := range append([]string{v.Concept}, p.phrases[v.ConceptKey]...) {
			if statedIn(lower, finding, n) {
				stated = append(stated, n)
			}
		}
		if len(stated) == 0 {
			continue
		}
		named++
		cx := ctext.AnalyzeAt(finding, strings.Join(stated, " ; "))
		if !is(cx) || p.cueInConcept([]grounding.Anchor{v}, cx.Cues) {
			continue
		}
		// Only a cue among the finding's own words: the mention is
		// located at its first occurrence in the case, which may be
		// another one than this finding's.
		var own []string
		for _, c := range cx.Cues {
			if statedIn(lower, finding, strings.ToLower(c)) {
				own = append(own, c)
			}
		}
		if len(own) == 0 {
			continue
		}
		hyp[v.ConceptKey] = true
		cues = append(cues, own...)
	}
	if len(hyp) == 0 {
		return anchors, false, nil
	}
	for _, a := range anchors {
		if p.cueInConcept([]grounding.Anchor{a}, cues) {
			// A reading worded with the cue ("planned redo CABG" for
			// "planned redo coronary artery bypass graft") is what the
			// finding states; the intention readers judge it.
			return anchors, false, nil
		}
	}
	if hyp[anchors[0].ConceptKey] || len(hyp) == named {
		return nil, true, cues
	}
	for _, a := range anchors {
		if !hyp[a.ConceptKey] {
			kept = append(kept, a)
		}
	}
	return kept, false, cues
}

// statedIn: the finding holds the name as whole words (a short name, an
// acronym, as written).
func statedIn(lower, finding, name string) bool {
	if len(name) <= 3 {
		lower = " " + finding + " "
	} else {
		name = strings.ToLower(name)
	}
	for i := strings.Index(lower, name); i >= 0; {
		j := i + len(name)
		if i > 0 && !isWordByte(lower[i-1]) && j < len(lower) && !isWordByte(lower[j]) {
			return true
		}
		k := strings.Index(lower[i+1:], name)
		if k < 0 {
			break
		}
		i += 1 + k
	}
	return false
}
