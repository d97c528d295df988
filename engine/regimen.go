package engine

import (
	"regexp"
	"sort"
	"strings"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/rules"
)

// ViaRegimen starts the Via of an item read from the antithrombotic drugs
// a case states the patient is taking ("aspirin 75 mg + Brilinta 90 mg bd"
// → ticagrelor-based DAPT, combination antithrombotic therapy).
const ViaRegimen = "regimen: "

// Antithrombotic drug classes, by generic and common brand names.
const (
	drugAspirin = "aspirin"
	drugP2Y12   = "P2Y12 inhibitor"
	drugOAC     = "oral anticoagulant"
)

var (
	regimenDrugRE = regexp.MustCompile(`(?i)\b(aspirin|ASA|acetylsalicylic acid|clopidogrel|plavix|ticagrelor|brilinta|brilique|prasugrel|efient|effient|apixaban|eliquis|rivaroxaban|xarelto|edoxaban|lixiana|savaysa|dabigatran|pradaxa|warfarin|coumadin|phenprocoumon|acenocoumarol)\b`)
	// A sentence that stops, ends, plans or refuses a drug does not state
	// that it is being taken.
	regimenNotRE = regexp.MustCompile(`(?i)\b(?:stop(?:ped|s)?|discontinu\w*|complet\w*|ceased|held|withheld|withdrawn|previously|formerly|prior|was on|until|to start|will|plan\w*|consider\w*|recommend\w*|should|would|candidate|intoleran\w*|allerg\w*|contraindicat\w*|declined|refused|not tolerated|avoid\w*|switch\w*|instead)\b`)
)

func regimenClass(drug string) string {
	switch strings.ToLower(drug) {
	case "aspirin", "asa", "acetylsalicylic acid":
		return drugAspirin
	case "clopidogrel", "plavix", "ticagrelor", "brilinta", "brilique", "prasugrel", "efient", "effient":
		return drugP2Y12
	}
	return drugOAC
}

// regimenEvidence reads the antithrombotic drugs a case states as taken
// and gives the regimens they make: aspirin with a P2Y12 inhibitor is dual
// antiplatelet therapy (ticagrelor-based when the P2Y12 inhibitor is
// ticagrelor), and any two of aspirin, a P2Y12 inhibitor and an oral
// anticoagulant are combination antithrombotic therapy. A mention in a
// negated, planned or relative's finding, or in a sentence that stops,
// plans or refuses a drug, does not count.
func (p *Program) regimenEvidence(text string, findings []extract.Finding) []eval.Evidence {
	type mention struct {
		f    *extract.Finding
		name string
	}
	taken := map[string]mention{}
	ticagrelor := false
	for _, m := range regimenDrugRE.FindAllStringIndex(text, -1) {
		name := text[m[0]:m[1]]
		if sentenceAround(text, m[0], regimenNotRE) {
			continue
		}
		f := findingAt(findings, m[0])
		if f == nil || !asserted(text, *f) {
			continue
		}
		cls := regimenClass(name)
		if _, ok := taken[cls]; !ok {
			taken[cls] = mention{f, name}
		}
		if l := strings.ToLower(name); l == "ticagrelor" || l == "brilinta" || l == "brilique" {
			ticagrelor = true
		}
	}
	if len(taken) < 2 {
		return nil
	}
	var classes []string
	for c := range taken {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	var names []string
	for _, c := range classes {
		names = append(names, "'"+taken[c].name+"'")
	}
	via := ViaRegimen + strings.Join(names, " + ") + " taken together"
	concepts := []string{"combination antithrombotic therapy"}
	_, asp := taken[drugAspirin]
	_, p2 := taken[drugP2Y12]
	if asp && p2 {
		concepts = append(concepts, "dual antiplatelet therapy")
		if ticagrelor {
			concepts = append(concepts, "ticagrelor-based dual antiplatelet therapy")
		}
	}
	first := taken[classes[0]].f
	var out []eval.Evidence
	for _, c := range concepts {
		key, ok := p.keys[rules.NormalizeName(c)]
		if !ok {
			continue
		}
		out = append(out, eval.Evidence{ID: first.ID, ConceptKey: key, Concept: p.names[key], Text: first.Text, Present: true, Via: via})
	}
	return out
}

// sentenceAround: the sentence (or semicolon clause) around offset i
// matches re.
func sentenceAround(text string, i int, re *regexp.Regexp) bool {
	lo := strings.LastIndexAny(text[:i], ".;") + 1
	hi := strings.IndexAny(text[i:], ".;")
	if hi < 0 {
		hi = len(text)
	} else {
		hi += i
	}
	return re.MatchString(text[lo:hi])
}
