package engine

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/executablekg/execkg/engine/evidence"
)

// A rising arrow between two numbers ("40 -> 80mg", "20mg → 40"): the
// dose before and after a change; notation, not clinical words.
var doseArrow = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*[A-Za-z]{0,4}\s*(?:-->|->|=>|→)\s*(\d+(?:\.\d+)?)`)

// itemNumber: a number of a medication item or name, and the word before
// it ("from 40", "was 20": the dose left behind).
var itemNumber = regexp.MustCompile(`(?i)(?:\b(from|was)\s+)?\b(\d+(?:\.\d+)?)`)

// pastChange: a year or "ago" after the change words dates it to the
// past ("increased in 2022", "up-titrated 2 years ago").
var pastChange = regexp.MustCompile(`(?i)\b(?:19|20)\d\d\b|\bago\b`)

// upTitratedTo returns the words of a medication item that raise its dose
// now (the pack's up_titrated cues, or a rising arrow between two
// numbers) when a name of the concept holds the new dose's number
// ("atorvastatin 80" for "Atorvastatin 80 mg od - INCREASED from 40
// mg", "atorva 40 -> 80mg"): the concept is named by a dose the patient
// has not yet been on. "" otherwise; an increase the item dates to the
// past is an old change.
func (p *Program) upTitratedTo(item, conceptKey string) string {
	var words string
	newDose := map[string]bool{}
	if m := doseArrow.FindStringSubmatchIndex(item); m != nil {
		a, _ := strconv.ParseFloat(item[m[2]:m[3]], 64)
		b, _ := strconv.ParseFloat(item[m[4]:m[5]], 64)
		if b > a && !pastChange.MatchString(item[m[1]:]) {
			words = item[m[0]:m[1]]
			newDose[item[m[4]:m[5]]] = true
		}
	}
	if words == "" && p.reading.upTitrated != nil {
		if loc := p.reading.upTitrated.FindStringIndex(item); loc != nil && !pastChange.MatchString(item[loc[1]:]) {
			words = item[loc[0]:loc[1]]
			for _, m := range itemNumber.FindAllStringSubmatch(item, -1) {
				if m[1] == "" {
					newDose[m[2]] = true
				}
			}
		}
	}
	if words == "" {
		return ""
	}
	for _, ph := range p.phrases[conceptKey] {
		for _, m := range itemNumber.FindAllStringSubmatch(ph, -1) {
			if newDose[m[2]] {
				return words
			}
		}
	}
	return ""
}

// leftBehindOnly returns the words of a medication item that give the
// dose left behind ("was 80mg", "from 40") when the concept is named in
// the item only through that number: "atorvastatin 40mg (was 80mg,
// reduced herself)" states the 40 mg taken now, and what the pack names
// by the old dose ("atorvastatin 80", a maximum tolerated statin) is no
// longer taken. "" otherwise: no old dose, the concept not named by the
// item, or named by its other words too.
func (p *Program) leftBehindOnly(item, conceptKey string) string {
	var old [][]int
	for _, m := range itemNumber.FindAllStringSubmatchIndex(item, -1) {
		if m[2] >= 0 {
			old = append(old, m[:2])
		}
	}
	if len(old) == 0 {
		return ""
	}
	phrases := p.phrases[conceptKey]
	if ok, _ := evidence.CoversAmong(item, phrases, conceptKey, p.rivals); !ok {
		return ""
	}
	b := []byte(item)
	for _, m := range old {
		for i := m[0]; i < m[1]; i++ {
			b[i] = ' '
		}
	}
	if ok, _ := evidence.CoversAmong(string(b), phrases, conceptKey, p.rivals); ok {
		return ""
	}
	words := make([]string, len(old))
	for i, m := range old {
		words[i] = item[m[0]:m[1]]
	}
	return strings.Join(words, ", ")
}
