package engine

import "regexp"

// CKD stages are pack data now: meta/hierarchy.json "values" say what eGFR
// band a stated stage implies (KDIGO G categories), and the lexicon names
// the stages ("CKD 3b", "on dialysis"); eval.Derive reads them.

// creatinineRE: a serum creatinine finding ("Cr 180 µmol/L", "creatinine
// 2.1 mg/dL") grounds to nothing: eGFR is never computed from it.
var creatinineRE = regexp.MustCompile(`(?i)^(?:serum\s+)?(?:s-?)?(?:Cr|creat|creatinine)\b[\s:=]*(?:of\s+)?\d`)
