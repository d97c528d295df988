package fhir

import "strings"

// A question/answer observation (an intake form's "Chest pain on
// exertion: Yes", an SDC or LOINC panel item) states its code's concept
// present or absent as a valueBoolean does. The answer words and codes are
// the generic ones of forms and of FHIR's own answer lists, no clinical
// vocabulary. "positive" and "negative" are left out: they grade a test
// ("Exercise ECG: positive"), whose code names the test, not a finding.
var answerWords = map[string]bool{
	"yes": true, "y": true, "true": true, "present": true,
	"no": false, "n": false, "false": false, "absent": false, "none": false,
}

// answerCodes are the coded answers: SNOMED CT's Yes/No qualifier values
// and HL7 v2 table 0136 (yes/no indicator), by system.
var answerCodes = map[string]map[string]bool{
	"http://snomed.info/sct":                        {"373066001": true, "373067005": false},
	"http://terminology.hl7.org/CodeSystem/v2-0136": {"Y": true, "N": false},
}

// answerWord reports whether a value's whole text is a yes/no answer, and
// which.
func answerWord(s string) (yes, ok bool) {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), ".!"))
	yes, ok = answerWords[s]
	return yes, ok
}

// answer reports whether a coded value is a yes/no answer: by a code of
// an answer list, else by its text or its codings' displays, all of which
// agree.
func answer(cc *CodeableConcept) (yes, ok bool) {
	for _, c := range cc.Coding {
		if v, found := answerCodes[c.System][c.Code]; found {
			return v, true
		}
	}
	texts := []string{cc.Text}
	for _, c := range cc.Coding {
		texts = append(texts, c.Display)
	}
	for _, t := range texts {
		if t == "" {
			continue
		}
		v, found := answerWord(t)
		if !found || ok && v != yes {
			return false, false
		}
		yes, ok = v, true
	}
	return yes, ok
}
