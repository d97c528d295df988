package engine

import (
	"regexp"
	"strings"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/rules"
)

// ViaRefractory starts the Via of an item read from symptoms stated to
// persist despite antianginal or medical therapy ("angina despite
// bisoprolol and amlodipine" → symptoms refractory to GDMT).
const ViaRefractory = "refractory: "

// A symptom stated to persist despite therapy. The therapy must be named:
// medical or antianginal therapy in general words, or an antianginal drug
// (class or agent). Antithrombotic or lipid-lowering drugs do not count:
// angina "despite aspirin" says nothing about antianginal therapy.
var (
	refractorySymptomRE = `\b(angina|anginal|chest (?:pain|tightness)|symptoms?|CCS (?:class )?(?:II|III|IV|[234]))\b`
	refractoryLinkRE    = `\b(?:despite|in spite of|refractory to|resistant to|(?:uncontrolled|not controlled|poorly controlled|persist(?:s|ing|ent)?) (?:on|by|with)|on (?:maximal(?:ly)?|maximum|max(?:imum)?[- ]tolerated|optimal|optimi[sz]ed|full|triple|dual|two|three|four|[234]))\b`
	refractoryTherapyRE = `\b(therapy|treatment|GDMT|OMT|medications?|medical|agents|antianginals?|anti-anginals?|drugs|bisoprolol|metoprolol|atenolol|carvedilol|nebivolol|propranolol|amlodipine|felodipine|nifedipine|lercanidipine|diltiazem|verapamil|ISMN|ISDN|isosorbide|nitrates?|ranolazine|ranexa|ivabradine|nicorandil|trimetazidine|beta[- ]?blockers?|β-blockers?|CCBs?|calcium (?:channel )?(?:blockers?|antagonists?))\b`
	refractoryRE        = regexp.MustCompile(`(?i)` + refractorySymptomRE + `[^.;]{0,80}?` + refractoryLinkRE + `[^.;]{0,60}?` + refractoryTherapyRE)
	// Words that make the therapy something other than antianginal or
	// medical therapy for the symptom ("despite PCI", "despite aspirin").
	refractoryNotRE = regexp.MustCompile(`(?i)\b(?:aspirin|clopidogrel|ticagrelor|prasugrel|DAPT|antiplatelet|statins?|anticoagula\w*|PCI|CABG|stent\w*|revasculari[sz]ation|surgery)\b`)
)

// refractoryEvidence reads "angina despite bisoprolol 10 mg, amlodipine
// 10 mg" or "CCS class III on three antianginals" as symptoms refractory
// to guideline-directed medical therapy, and an angina or chest-pain
// symptom so stated as inadequately controlled angina; the symptom itself
// is stated, so the patient is symptomatic. A negated, planned or
// relative's finding gives nothing.
func (p *Program) refractoryEvidence(text string, findings []extract.Finding) []eval.Evidence {
	var out []eval.Evidence
	done := map[string]bool{}
	for _, m := range refractoryRE.FindAllStringSubmatchIndex(text, -1) {
		span := text[m[0]:m[1]]
		link := strings.ToLower(text[m[3]:m[1]])
		if refractoryNotRE.MatchString(link) {
			continue
		}
		f := findingAt(findings, m[2])
		if f == nil || !asserted(text, *f) {
			continue
		}
		sym := strings.ToLower(text[m[2]:m[3]])
		concepts := []string{"symptoms refractory to guideline-directed medical therapy", "symptomatic"}
		if !strings.HasPrefix(sym, "symptom") {
			concepts = append(concepts, "inadequately controlled angina")
		}
		for _, c := range concepts {
			key, ok := p.keys[rules.NormalizeName(c)]
			if !ok || done[key] {
				continue
			}
			done[key] = true
			out = append(out, eval.Evidence{ID: f.ID, ConceptKey: key, Concept: p.names[key], Text: f.Text, Present: true,
				Via: ViaRefractory + "'" + span + "' states symptoms despite therapy"})
		}
	}
	return out
}
