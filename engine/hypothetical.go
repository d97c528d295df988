package engine

import (
	"slices"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/grounding"
)

// spokenOfAsRisk splits a finding's anchors by what the case says of the
// words that name them. A concept the finding names word for word is
// judged at those words (consistency.Text.AnalyzeAt), not at the
// finding's first word: in "Low risk for CAD" a hypothetical cue ("risk
// for") reaches "CAD", so the finding does not state coronary artery
// disease. A cue that is part of the concept's own name ("increased risk
// of GI bleeding", "high bleeding risk") is its wording, not a doubt. A
// probable negation ("angina unlikely") is judged the same way: the
// mention is neither present nor stated absent, so it is set aside.
// all reports that the finding states nothing: its first anchor, or every
// concept it names, is spoken of as a risk or a possibility, and it names
// no other concept where the cue does not reach; otherwise kept is the
// anchors without the ones that are (with a first anchor spoken of so,
// only the named concepts the cue does not reach). cues are the cues
// read.
func (p *Program) spokenOfAsRisk(ctext *consistency.Text, finding string, anchors []grounding.Anchor) (kept []grounding.Anchor, all bool, cues []string) {
	if len(anchors) == 0 || !ctext.HypotheticalIn(finding) && !ctext.UnlikelyIn(finding) && !ctext.HypotheticalListed(finding) {
		return anchors, false, nil
	}
	return p.spokenOf(ctext, finding, anchors, func(cx consistency.Context) bool { return cx.Hypothetical || cx.Unlikely })
}

// riskWhy says why spokenOfAsRisk set a finding aside, in the words of
// its cues' kind: a probable negation is neither present nor absent.
func riskWhy(cues []string) string {
	var risk, unlikely []string
	var box bool
	for _, c := range cues {
		if c == "[_]" {
			box = true // an unticked box opening a checklist item
			continue
		}
		if consistency.UnlikelyCue(c) {
			unlikely = append(unlikely, c)
		} else {
			risk = append(risk, c)
		}
	}
	var why []string
	if len(risk) > 0 {
		why = append(why, "'"+strings.Join(risk, ", ")+"' speaks of it as a risk or a possibility, not as present")
	}
	if len(unlikely) > 0 {
		why = append(why, "'"+strings.Join(unlikely, ", ")+"' speaks of it as probably absent, which is neither present nor stated absent")
	}
	if box {
		why = append(why, "its check box is not ticked: an option not chosen, neither present nor stated absent")
	}
	return strings.Join(why, "; ")
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
// (is) reaches. Every concept the finding names word for word is judged,
// an anchor or not: in "a high risk of MI due to diabetes" the cue
// reaches MI even where grounding ranked risk concepts above it.
//
// An anchor whose own name holds the cue ("planned redo coronary artery
// bypass graft", "high risk of MACE") claims the cue as its wording. The
// claim holds only where a name of it the finding states also names the
// concept the cue reaches ("redo CABG" names CABG): the finding then
// states that anchor and is left whole. A claimant that names none of
// them ("high-risk patient" in "high risk of MI") reads the cue of
// another concept as its own, so it is set aside with that concept.
func (p *Program) spokenOf(ctext *consistency.Text, finding string, anchors []grounding.Anchor, is func(consistency.Context) bool) (kept []grounding.Anchor, all bool, cues []string) {
	in := map[string]bool{}
	for _, a := range anchors {
		in[a.ConceptKey] = true
	}
	lower, padded := " "+strings.ToLower(finding)+" ", " "+finding+" "
	reached := map[string][]string{} // concept key → its names the finding states, for concepts the cue reaches
	free := map[string]bool{}        // anchors the finding names word for word where the cue does not reach
	named := 0                       // anchors the finding names word for word
	namedReached := 0                // ... of which the cue reaches
	judged := map[string]bool{}
	for _, nv := range p.namedIn(finding, anchors) {
		v := nv.Anchor
		judged[v.ConceptKey] = true
		if p.medications[v.ConceptKey] {
			// A drug "PRN" or "if needed" is still prescribed; the drug
			// readers (meta/reading.json) judge what a drug sentence says.
			// A drug the finding is first about ("Takes GTN spray if
			// chest pain") is named and not reached: the cue is the
			// occasion of taking it, and the finding still states it.
			if v.ConceptKey == anchors[0].ConceptKey {
				named++
			}
			continue
		}
		var stated []string
		p.eachName(v, func(n, nl string) {
			if statedAs(lower, padded, n, nl) || nv.inflected && len(n) > 3 && coversAllOf(finding, n) {
				stated = append(stated, n)
			}
		})
		if len(stated) == 0 {
			continue
		}
		if in[v.ConceptKey] {
			named++
		}
		cx := ctext.AnalyzeAt(finding, strings.Join(stated, " ; "))
		if !is(cx) {
			if in[v.ConceptKey] {
				free[v.ConceptKey] = true
			}
			continue
		}
		if p.cueInConcept([]grounding.Anchor{v}, cx.Cues) {
			continue
		}
		// Only a cue among the finding's own words: the mention is
		// located at its first occurrence in the case, which may be
		// another one than this finding's.
		// A list head before the finding governs it as an item of its
		// list ("Risks including stroke, MI and bleeding").
		listed := ctext.HypotheticalListed(finding)
		var own []string
		for _, c := range cx.Cues {
			// A cue is a word of any case ("If chest pain recurs"),
			// not an acronym that must match as written.
			if consistency.CueWritten(c, func(w string) bool { return statedAs(lower, lower, strings.ToLower(w), strings.ToLower(w)) }) || listed && consistency.HypotheticalListHead(c) {
				own = append(own, c)
			}
		}
		if len(own) == 0 {
			continue
		}
		reached[v.ConceptKey] = stated
		if in[v.ConceptKey] {
			namedReached++
		}
		for _, c := range own {
			if !slices.Contains(cues, c) {
				cues = append(cues, c)
			}
		}
	}
	for _, a := range anchors {
		// An anchor the finding names only in part ("Coronary
		// Microvascular & Vasomotor Clinic" for coronary microvascular
		// dysfunction, "freedom from MI/repeat revasc" for a repeat
		// CABG) is judged at the name its words cover: a cue reaching
		// those words speaks of it as the named ones are spoken of. It
		// counts as no named concept of the finding.
		if judged[a.ConceptKey] || p.medications[a.ConceptKey] || reached[a.ConceptKey] != nil {
			continue
		}
		ok, by := evidence.CoversAmong(finding, append([]string{a.Concept}, p.phrases[a.ConceptKey]...), a.ConceptKey, nil)
		if !ok || by == "" {
			continue
		}
		cx := ctext.AnalyzeAt(finding, by)
		if !cx.Found || !is(cx) || p.cueInConcept([]grounding.Anchor{a}, cx.Cues) {
			continue
		}
		var own []string
		for _, c := range cx.Cues {
			if consistency.CueWritten(c, func(w string) bool { return statedAs(lower, lower, strings.ToLower(w), strings.ToLower(w)) }) {
				own = append(own, c)
			}
		}
		if len(own) == 0 {
			continue
		}
		reached[a.ConceptKey] = []string{by}
		for _, c := range own {
			if !slices.Contains(cues, c) {
				cues = append(cues, c)
			}
		}
	}
	if len(reached) == 0 {
		return anchors, false, nil
	}
	out := map[string]bool{}
	for k := range reached {
		out[k] = true
	}
	claimed := false // a claimant states a risk of the reached concepts
	for _, a := range anchors {
		if reached[a.ConceptKey] != nil || !p.cueInConcept([]grounding.Anchor{a}, cues) {
			continue
		}
		if p.namesReached(finding, a, reached) {
			if p.intentionCues(cues) {
				// A reading worded with the cue ("planned redo CABG" for
				// "planned redo coronary artery bypass graft") is what the
				// finding states; the intention readers judge it.
				return anchors, false, nil
			}
			// A risk worded in the claimant's own name ("stent
			// thrombosis risk high" for a thrombotic risk feature): the
			// claimant is the risk the finding states, while the concept
			// the risk word reaches is only spoken of as a risk, not
			// claimed with it.
			claimed = true
			continue
		}
		out[a.ConceptKey] = true
	}
	for _, a := range anchors {
		if !out[a.ConceptKey] {
			kept = append(kept, a)
		}
	}
	if len(kept) == 0 || !claimed && named > 0 && namedReached == named {
		return nil, true, cues
	}
	if claimed {
		return kept, false, cues
	}
	if out[anchors[0].ConceptKey] && reached[anchors[0].ConceptKey] != nil {
		// The finding is about a risk ("Stent thrombosis risk high after
		// PCI last month"): of the rest only the concepts it names where
		// the cue does not reach are stated (the PCI), not the readings
		// of the risk's own words.
		var stated []grounding.Anchor
		for _, a := range kept {
			if free[a.ConceptKey] {
				stated = append(stated, a)
			}
		}
		if len(stated) == 0 {
			return nil, true, cues
		}
		return stated, false, cues
	}
	return kept, false, cues
}

// namedIn is verbatimNamed with the anchors the finding names in other
// inflections, every word of a name of theirs stated up to plural and
// stem ("consider non-cardiac causes of chest pain" names "non-cardiac
// cause of chest pain"): a cue reaching those words is judged for them
// too, where verbatim naming alone left the anchor unjudged and a plan to
// consider a cause read as a cause found.
func (p *Program) namedIn(finding string, anchors []grounding.Anchor) []namedAnchor {
	var out []namedAnchor
	seen := map[string]bool{}
	for _, v := range p.verbatimNamed(finding) {
		seen[v.ConceptKey] = true
		out = append(out, namedAnchor{Anchor: v})
	}
	for _, a := range anchors {
		if seen[a.ConceptKey] {
			continue
		}
		seen[a.ConceptKey] = true
		for _, n := range append([]string{a.Concept}, p.phrases[a.ConceptKey]...) {
			if len(n) > 3 && coversAllOf(finding, n) {
				out = append(out, namedAnchor{Anchor: a, inflected: true})
				break
			}
		}
	}
	return out
}

// namedAnchor is a concept a finding names; inflected: in other
// inflections than the name's own (namedIn).
type namedAnchor struct {
	grounding.Anchor
	inflected bool
}

// coversAllOf: the finding states every content word of name (evidence.CoversAll).
func coversAllOf(finding, name string) bool {
	ok, _ := evidence.CoversAll(finding, []string{name})
	return ok
}

// namesReached: a name of a that the finding states (every word of it)
// also states a name of a concept the cue reaches.
func (p *Program) namesReached(finding string, a grounding.Anchor, reached map[string][]string) bool {
	for _, n := range append([]string{a.Concept}, p.phrases[a.ConceptKey]...) {
		if ok, _ := evidence.CoversAll(finding, []string{n}); !ok {
			continue
		}
		for _, names := range reached {
			if ok, _ := evidence.CoversAll(n, names); ok {
				return true
			}
		}
	}
	return false
}

// statedIn: the finding holds the name as whole words (a short name, an
// acronym, as written).
func statedIn(lower, finding, name string) bool {
	if len(name) <= 3 {
		return wordsIn(" "+finding+" ", name)
	}
	return wordsIn(lower, strings.ToLower(name))
}

// statedAs is statedIn for a name whose lower case is given (nameLower,
// read once per program for the pack's phrases: phraseForms), with the
// finding between spaces as written (padded) as well as lower-cased
// (lower), both read once per finding.
func statedAs(lower, padded, name, nameLower string) bool {
	if len(name) <= 3 {
		return wordsIn(padded, name)
	}
	return wordsIn(lower, nameLower)
}

// wordsIn: hay (between spaces) holds name as whole words.
func wordsIn(lower, name string) bool {
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
