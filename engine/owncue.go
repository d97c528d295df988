package engine

import (
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
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
// padded holds each synonym as spacedNorm writes it, read once per build
// (Program.synPadded).
func doubtInSynonym(clause string, synonyms, padded, cues []string) string {
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
	for i, syn := range synonyms {
		sn := padded[i]
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

// negationAt judges a negation cue among a finding's own words at each
// concept the finding names word for word, not at the finding's first
// word: a negation's scope ends at a termination cue
// (consistency/cues/termination.json) or a clause word, so in "No angina
// since CABG 2018" or "Angina resolved after PCI 2024" the 'no' and the
// 'resolved' deny the angina while the CABG and the PCI are stated, and
// in "at his last review he was not felt to be at high bleeding risk" the
// cue denies the risk, not the review. It returns, per anchor so named,
// whether it is negated; an anchor the finding does not name word for
// word keeps the finding's judgement, and so does every anchor of a
// finding whose negation comes from outside its words (a "Denies:"
// heading).
func (p *Program) negationAt(ctext *consistency.Text, finding string, anchors []grounding.Anchor) map[string]bool {
	if len(anchors) == 0 || !ctext.NegationIn(finding) {
		return nil
	}
	out := map[string]bool{}
	lower := " " + strings.ToLower(finding) + " "
	for _, a := range anchors {
		stated := p.statedNames(lower, finding, a)
		if len(stated) == 0 {
			continue
		}
		if cx := ctext.AnalyzeAt(finding, strings.Join(stated, " ; ")); cx.Found {
			out[a.ConceptKey] = cx.Negated
		}
	}
	return out
}

// statedNames: the anchor's concept name and pack phrases the finding
// states word for word (lower is the finding lower-cased between spaces).
func (p *Program) statedNames(lower, finding string, a grounding.Anchor) []string {
	var stated []string
	padded := " " + finding + " "
	p.eachName(a, func(n, nl string) {
		if statedAs(lower, padded, n, nl) {
			stated = append(stated, n)
		}
	})
	return stated
}

// eachName calls f with the anchor's concept name and then each pack
// phrase of its concept, each with its lower case (the phrases' read once
// by phraseForms).
func (p *Program) eachName(a grounding.Anchor, f func(name, lower string)) {
	f(a.Concept, strings.ToLower(a.Concept))
	lows := p.phrasesLower[a.ConceptKey]
	for i, n := range p.phrases[a.ConceptKey] {
		f(n, lows[i])
	}
}

// phraseForms is every concept's phrases lower-cased, in their order.
func phraseForms(phrases map[string][]string) map[string][]string {
	out := make(map[string][]string, len(phrases))
	for k, phs := range phrases {
		lows := make([]string, len(phs))
		for i, ph := range phs {
			lows[i] = strings.ToLower(ph)
		}
		out[k] = lows
	}
	return out
}

// undoubtedAt judges the doubt of a doubted finding at each concept it
// names word for word, as negationAt judges a negation: in "PCI vs CABG
// for 3VD" the 'vs' weighs the procedures while the 3VD is stated. It
// returns the keys of the anchors so named whose own words no doubt,
// probable negation or negation reaches; an anchor the finding does not
// name word for word, or whose name itself states a doubt ("suspected
// CCS"), keeps the finding's doubt.
func (p *Program) undoubtedAt(ctext *consistency.Text, finding string, anchors []grounding.Anchor) map[string]bool {
	return p.doubtAt(ctext, finding, anchors, false)
}

// doubtedAt is undoubtedAt the other way round, for a finding whose first
// word no doubt reaches: the keys of the concepts it names word for word
// that a doubt among its words does reach ("regional pattern suggests
// ischaemic aetiology": the 'suggests' doubts the aetiology, not the
// pattern).
func (p *Program) doubtedAt(ctext *consistency.Text, finding string, anchors []grounding.Anchor) map[string]bool {
	if !ctext.UncertaintyIn(finding) {
		return nil
	}
	return p.doubtAt(ctext, finding, anchors, true)
}

// doubtAt returns the keys of the anchors the finding names word for word
// (and whose name states no doubt of its own) whose words a doubt reaches
// (want true) or that no doubt, probable negation or negation reaches
// (want false).
func (p *Program) doubtAt(ctext *consistency.Text, finding string, anchors []grounding.Anchor, want bool) map[string]bool {
	var out map[string]bool
	lower := " " + strings.ToLower(finding) + " "
	for _, a := range anchors {
		if p.doubtfulName(a.Concept) {
			continue
		}
		stated := p.statedNames(lower, finding, a)
		if len(stated) == 0 {
			continue
		}
		cx := ctext.AnalyzeAt(finding, strings.Join(stated, " ; "))
		if !cx.Found {
			continue
		}
		if want && cx.Uncertain && !cx.Negated || !want && !cx.Uncertain && !cx.Unlikely && !cx.Negated {
			if out == nil {
				out = map[string]bool{}
			}
			out[a.ConceptKey] = true
		}
	}
	return out
}

// negatedOf is an anchor's negation: its own (negationAt) where judged,
// else the finding's.
func negatedOf(at map[string]bool, key string, finding bool) bool {
	if v, ok := at[key]; ok {
		return v
	}
	return finding
}

// statesPastNegation reports whether a finding whose negation cue lies
// among its words also names a concept word for word that no negation
// reaches ("No angina since CABG 2018" states the CABG). Step (v) judges
// a derived fact at the finding's first word, where the 'no' denies the
// angina; a present fact derived from such a finding (CAD, CCS from the
// CABG) comes from the stated concept, as a denied one yields absences
// only.
func (p *Program) statesPastNegation(ctext *consistency.Text, finding string) bool {
	for _, negated := range p.negationAt(ctext, finding, p.verbatimNamed(finding)) {
		if !negated {
			return true
		}
	}
	return false
}

// spacedNorm is each text normalised (textnorm.Normalize) between
// spaces, for whole-word containment tests.
func spacedNorm(texts []string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = " " + textnorm.Normalize(t) + " "
	}
	return out
}

// doubtingGloss returns the keys of the anchors a finding names only with
// the words of a parenthesis right after it that a doubt cue qualifies
// ("CMR after ICA for scar/viability & aetiology (? alcohol vs
// ischaemic)"): the '?' and the 'vs' weigh the causes, so the ischaemic
// aetiology the clause states is suspected, not established. An anchor
// the clause names without the parenthesis ("chest pain (?cardiac)")
// keeps the finding's own judgement. covering is the clause the cover
// check reads (labelled).
func (p *Program) doubtingGloss(text string, ctext *consistency.Text, f extract.Finding, covering string, anchors []grounding.Anchor) map[string]bool {
	lo, hi := parenthesisAfter(text, f.End)
	if lo < 0 || hi <= lo {
		return nil
	}
	gloss := text[lo-1 : hi+1]
	at := strings.Index(covering, gloss)
	if at < 0 || !ctext.At(lo).UncertaintyIn(text[lo:hi]) {
		return nil
	}
	bare := covering[:at] + covering[at+len(gloss):]
	var out map[string]bool
	for _, a := range anchors {
		cov := p.coveringFor(a)
		if cov == nil || p.doubtfulName(a.Concept) {
			continue
		}
		if ok, _ := cov.Covers(covering); !ok {
			continue
		}
		if ok, _ := cov.Covers(bare); ok {
			continue
		}
		if out == nil {
			out = map[string]bool{}
		}
		out[a.ConceptKey] = true
	}
	return out
}
