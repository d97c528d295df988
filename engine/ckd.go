package engine

import (
	"regexp"
	"strings"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/rules"
)

// ViaCKDStage starts the Via of an eGFR band read from a stated CKD stage
// ("CKD 3b" → eGFR 30–44).
const ViaCKDStage = "ckd stage: "

// eGFR bands of the KDIGO 2012 CKD stages (G categories), in
// mL/min/1.73 m2; lo < 0 and hi < 0 mean an open end. Dialysis or end-stage
// kidney disease is G5. The stage gives a band, never a value: creatinine
// is not read and eGFR is never computed from it.
var ckdBands = map[string][2]float64{
	"1":  {90, -1},
	"2":  {60, 90},
	"3a": {45, 60},
	"3b": {30, 45},
	"4":  {15, 30},
	"5":  {-1, 15},
}

const egfrUnit = "mL/min/1.73 m2"

var (
	ckdStageRE = regexp.MustCompile(`(?i)\b(?:CKD|chronic kidney disease)[\s,:-]*(?:stage\s*|st\.?\s*|G)?([1-5])\s*([ab])?\b`)
	ckdEndRE   = regexp.MustCompile(`(?i)\b(?:ESRD|ESKD|end[- ]stage (?:renal|kidney) (?:disease|failure)|(?:on|receiving|requiring|needs|started on) (?:maintenance |regular )?(?:haemo|hemo|peritoneal )?dialysis|(?:haemo|hemo)dialysis[- ]dependent|dialysis[- ]dependent)\b`)
)

// ckdStage returns the KDIGO G stage a finding states ("3b", "4", "5"),
// or "". Stage 3 without a or b gives the union band 30–59.
func ckdStage(s string) string {
	if ckdEndRE.MatchString(s) {
		return "5"
	}
	m := ckdStageRE.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return m[1] + strings.ToLower(m[2])
}

func ckdBand(stage string) ([2]float64, bool) {
	if stage == "3" {
		return [2]float64{30, 60}, true
	}
	b, ok := ckdBands[stage]
	return b, ok
}

// ckdEvidence reads a stated CKD stage as two bounds on the pack's
// "estimated glomerular filtration rate" (G4 → eGFR >= 15 and < 30), so
// "eGFR < 30" is true for G4 and G5, false for G3b and unknown for "CKD"
// without a stage. A stated eGFR value wins: no band is read then.
func (p *Program) ckdEvidence(text string, findings []extract.Finding, ev []eval.Evidence) []eval.Evidence {
	const concept = "estimated glomerular filtration rate"
	key, ok := p.keys[rules.NormalizeName(concept)]
	if !ok {
		return nil
	}
	for _, e := range ev {
		if e.ConceptKey == key && e.Value != nil {
			return nil
		}
	}
	var out []eval.Evidence
	for _, f := range findings {
		stage := ckdStage(f.Text)
		band, ok := ckdBand(stage)
		if !ok {
			continue
		}
		if !asserted(text, f) {
			continue
		}
		via := ViaCKDStage + "'" + f.Text + "' is KDIGO G" + stage
		if band[0] >= 0 {
			lo := band[0]
			out = append(out, eval.Evidence{ID: f.ID, ConceptKey: key, Concept: p.names[key], Text: f.Text, Present: true,
				Value: &lo, Unit: egfrUnit, Comparator: rules.OpGE, Via: via})
		}
		if band[1] >= 0 {
			hi := band[1]
			out = append(out, eval.Evidence{ID: f.ID, ConceptKey: key, Concept: p.names[key], Text: f.Text, Present: true,
				Value: &hi, Unit: egfrUnit, Comparator: rules.OpLT, Via: via})
		}
		break
	}
	return out
}

// creatinineRE: a serum creatinine finding ("Cr 180 µmol/L", "creatinine
// 2.1 mg/dL") grounds to nothing.
var creatinineRE = regexp.MustCompile(`(?i)^(?:serum\s+)?(?:s-?)?(?:Cr|creat|creatinine)\b[\s:=]*(?:of\s+)?\d`)
