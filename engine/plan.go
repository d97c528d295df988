package engine

import (
	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// Which findings are intended rather than present, and which are a
// relative's, is read by extract.Reading from the pack's sections data
// (meta/sections.json): a plan heading's kind has status "intended", a
// family history heading's experiencer is "relative", and the pack's
// intention words ("booked for", "next week") mark a finding that
// schedules itself. The engine reads the flags on the finding.

// asserted reports whether a finding states something the patient has now:
// not intended, not negated, not a relative's. The evidence readers (CKD
// stage, refractory symptoms, regimen) only read asserted findings.
func asserted(text string, f extract.Finding) bool {
	if f.Intended || f.Experiencer != "" {
		return false
	}
	fc := consistency.Analyze(text, f.Text)
	return !fc.Negated && !fc.Other
}

// findingAt returns the finding whose span holds byte offset pos, or nil.
func findingAt(findings []extract.Finding, pos int) *extract.Finding {
	for i := range findings {
		if findings[i].Start >= 0 && findings[i].Start <= pos && pos < findings[i].End {
			return &findings[i]
		}
	}
	return nil
}

// plannedForm returns the anchor of the pack's intended form of an anchor
// a plan governs ("Plan: PCI" → planned percutaneous coronary
// intervention, with the pack's form "planned {concept}"), when the pack
// has that concept.
func (p *Program) plannedForm(a grounding.Anchor) (grounding.Anchor, bool) {
	for _, n := range p.doc.PlannedForms(a.Concept) {
		if key, ok := p.keys[rules.NormalizeName(n)]; ok {
			a.ConceptKey, a.Concept = key, p.names[key]
			return a, true
		}
	}
	return a, false
}

// intended reports whether a finding another reader made (the LLM's,
// located in the text) is intended: under an intended section at its
// offset, or its own words schedule it.
func (p *Program) intended(text string, f extract.Finding) bool {
	if f.Intended {
		return true
	}
	fs := []extract.Finding{f}
	p.doc.Annotate(text, p.doc.Sections(text), fs)
	return fs[0].Intended
}

// intendedWhy says why a finding reads as intended, for the trace.
func (p *Program) intendedWhy(f extract.Finding) string {
	if k := p.doc.Kind(f); k != nil && k.Status == rules.SectionIntended {
		return "it is under a '" + k.Kind + "' heading, so it is intended, not present"
	}
	return "its words '" + p.doc.Cue(rules.CueIntention, f.Text) + "' schedule it, so it is intended, not present"
}

// keptInPlan: a concept of a role an intended section keeps (a test the
// patient is to undergo) is read as stated from an intended finding,
// unless a broader concept has an intended form ("recent PCI" is a PCI,
// which a plan states as planned PCI). A finding whose own words intend it
// ("referred for ICA") keeps what the pack's intended sections keep.
func (p *Program) keptInPlan(f extract.Finding, a grounding.Anchor) bool {
	var roles []string
	if k := p.doc.Kind(f); k != nil && k.Status == rules.SectionIntended {
		roles = k.KeepsRoles
	} else if p.pack.Sections != nil {
		for _, k := range p.pack.Sections.Kinds {
			if k.Status == rules.SectionIntended {
				roles = append(roles, k.KeepsRoles...)
			}
		}
	}
	if len(roles) == 0 {
		return false
	}
	for _, b := range p.hierarchy.Broader(a.Concept) {
		if _, ok := p.plannedForm(grounding.Anchor{Concept: b}); ok {
			return false
		}
	}
	for _, r := range roles {
		if p.roles[a.ConceptKey] == r {
			return true
		}
	}
	return false
}

// primaryAnchor is the concept key of a finding's best reading: the first
// anchor whose own name the finding's words state by step (v)'s
// certainty and qualifier checks (statesName: "?CCS" is suspected CCS,
// not established CCS), else the first anchor. The other anchors are
// alternative readings.
func (p *Program) primaryAnchor(ctext *consistency.Text, mention string, negated bool, anchors []grounding.Anchor, checks consistency.Checks) string {
	for _, a := range anchors {
		if p.statesName(ctext, mention, negated, a, checks) {
			return a.ConceptKey
		}
	}
	if len(anchors) == 0 {
		return ""
	}
	return anchors[0].ConceptKey
}

// statesName: the finding's words may state the anchor's concept under
// its own name, as step (v) would judge a condition that names it (a
// measured concept is stated by its value, not its words).
func (p *Program) statesName(ctext *consistency.Text, mention string, negated bool, a grounding.Anchor, checks consistency.Checks) bool {
	only := consistency.Checks{Certainty: checks.Certainty, Qualifier: checks.Qualifier}
	if only == (consistency.Checks{}) || len(p.units[a.ConceptKey]) > 0 {
		return true
	}
	op := rules.OpPresent
	if negated {
		op = rules.OpAbsent
	}
	return ctext.Check(mention, consistency.Condition{Concept: a.Concept, Wording: a.Concept, Operator: op}, only).Pass
}
