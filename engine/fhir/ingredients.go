package fhir

import (
	"slices"
	"strings"
	"unicode"
)

// Ingredients reads a medicinal product's words by ingredient, in the
// shape RxNorm gives clinical and branded drugs and most records copy:
// ingredients with their strengths joined by " / ", a dose form after the
// last, a release duration before the first and a brand in brackets
// ("24 HR metformin hydrochloride 500 MG Extended Release Oral Tablet",
// "ezetimibe 10 MG / simvastatin 40 MG Oral Tablet [Vytorin]"). An
// ingredient's name is its words before its strength: the first word that
// starts with a digit ends it, and what follows (strength, unit, dose
// form) names no ingredient. Words with no strength ("sacubitril/
// valsartan") are split at a bare "/" between names. The result keeps
// the words' order and spelling; it is empty when no name is left.
func Ingredients(words string) []string {
	if i := strings.IndexByte(words, '['); i >= 0 {
		words = words[:i] // a brand names the product, not an ingredient
	}
	var out []string
	dosed := false // the part before had a strength
	for i, part := range strings.Split(words, " / ") {
		fs := strings.Fields(part)
		// A leading release duration ("24 HR", "12 hr"): a number and
		// its unit before the first name. A later part that opens with a
		// number, or has no strength after a dosed one, is the strength's
		// denominator ("81 mg / day", "0.25 MG/DOSE / 1.5 ML Pen
		// Injector"), no ingredient.
		if i > 0 && len(fs) > 0 && (startsWithDigit(fs[0]) || dosed && !slices.ContainsFunc(fs, startsWithDigit)) {
			continue
		}
		dosed = slices.ContainsFunc(fs, startsWithDigit)
		for len(fs) >= 2 && startsWithDigit(fs[0]) {
			fs = fs[2:]
		}
		var name []string
		for _, f := range fs {
			if startsWithDigit(f) {
				break
			}
			name = append(name, f)
		}
		for _, n := range strings.Split(strings.Join(name, " "), "/") {
			if n = strings.Trim(n, " ,;:-()"); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

func startsWithDigit(s string) bool {
	for _, r := range s {
		return unicode.IsDigit(r) || r == '.' && len(s) > 1 && unicode.IsDigit(rune(s[1]))
	}
	return false
}
