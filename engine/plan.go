package engine

import (
	"regexp"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// planLabel is a note's plan heading: "Plan:", "Plan -", "Imp/Plan:".
var planLabel = regexp.MustCompile(`(?i)\b(?:plan|management plan|imp/plan)\s*(?::|-)\s`)

// inPlan reports whether the text at start lies under a plan heading of
// its sentence: what follows "Plan:" is intended, not a present finding.
func inPlan(text string, start int) bool {
	if start <= 0 || start > len(text) {
		return false
	}
	s := start
	for s > 0 && text[s-1] != '\n' && !(text[s-1] == ' ' && s >= 2 && strings.ContainsRune(".!?", rune(text[s-2]))) {
		s--
	}
	return planLabel.MatchString(text[s:start])
}

// plannedConcept: a concept that is itself an intention ("planned PCI",
// "candidate for revascularization") may be read from a plan.
func plannedConcept(name string) bool {
	n := strings.ToLower(name)
	return strings.HasPrefix(n, "planned ") || strings.Contains(n, "candidate") || strings.HasPrefix(n, "referral to")
}

// asserted reports whether a finding states something the patient has now:
// not under a plan heading, not negated, not a relative's. The evidence
// readers (CKD stage, refractory symptoms, regimen) only read asserted
// findings.
func asserted(text string, f extract.Finding) bool {
	if intended(text, f) {
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

// plannedForm returns the anchor of the pack's "planned <concept>" for an
// anchor a plan heading governs ("Plan: PCI" → planned percutaneous
// coronary intervention), when the pack has that concept.
func (p *Program) plannedForm(a grounding.Anchor) (grounding.Anchor, bool) {
	key, ok := p.keys[rules.NormalizeName("planned "+a.Concept)]
	if !ok {
		return a, false
	}
	a.ConceptKey, a.Concept = key, p.names[key]
	return a, true
}

// intended reports whether a finding states an intention, not a present
// fact: it lies under a plan heading, or its own words schedule it ("For
// CABG next month", "booked for PCI", "scheduled next week").
func intended(text string, f extract.Finding) bool {
	return f.Start >= 0 && inPlan(text, f.Start) || intentionWords.MatchString(f.Text)
}

var intentionWords = regexp.MustCompile(`(?i)^(?:for|booked for|listed for|scheduled for|planned for)\s|\b(?:next|coming)\s+(?:week|month)\b|\bin\s+\d+\s+(?:days|weeks)\b|\btomorrow\b|\bscheduled\b`)
