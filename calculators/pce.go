package calculators

import (
	"fmt"
	"math"
)

// PooledCohort2013 is the name packs use for the 2013 ACC/AHA Pooled
// Cohort Equations (10-year risk of a first hard ASCVD event).
const PooledCohort2013 = "pooled_cohort_equations_2013"

// pceGroup holds the coefficients of one race-sex equation, as published in
// Goff et al. 2013 (Table A of the risk-assessment guideline; the same
// numbers in the JACC and Circulation versions). A zero is a term the
// group's equation does not have.
type pceGroup struct {
	lnAge, lnAge2, lnTC, lnAgeLnTC, lnHDL, lnAgeLnHDL float64
	lnTreatedSBP, lnAgeLnTreatedSBP                   float64
	lnUntreatedSBP, lnAgeLnUntreatedSBP               float64
	smoker, lnAgeSmoker, diabetes, mean, baselineS10  float64
}

var pceGroups = map[[2]bool]pceGroup{ // {female, african American}
	{true, false}: {lnAge: -29.799, lnAge2: 4.884, lnTC: 13.540, lnAgeLnTC: -3.114, lnHDL: -13.578, lnAgeLnHDL: 3.149,
		lnTreatedSBP: 2.019, lnUntreatedSBP: 1.957, smoker: 7.574, lnAgeSmoker: -1.665, diabetes: 0.661, mean: -29.18, baselineS10: 0.9665},
	{true, true}: {lnAge: 17.114, lnTC: 0.940, lnHDL: -18.920, lnAgeLnHDL: 4.475,
		lnTreatedSBP: 29.291, lnAgeLnTreatedSBP: -6.432, lnUntreatedSBP: 27.820, lnAgeLnUntreatedSBP: -6.087,
		smoker: 0.691, diabetes: 0.874, mean: 86.61, baselineS10: 0.9533},
	{false, false}: {lnAge: 12.344, lnTC: 11.853, lnAgeLnTC: -2.664, lnHDL: -7.990, lnAgeLnHDL: 1.769,
		lnTreatedSBP: 1.797, lnUntreatedSBP: 1.764, smoker: 7.837, lnAgeSmoker: -1.795, diabetes: 0.658, mean: 61.18, baselineS10: 0.9144},
	{false, true}: {lnAge: 2.469, lnTC: 0.302, lnHDL: -0.307,
		lnTreatedSBP: 1.916, lnUntreatedSBP: 1.809, smoker: 0.549, diabetes: 0.645, mean: 19.54, baselineS10: 0.8954},
}

func init() {
	register(Calculator{
		Name:   PooledCohort2013,
		Title:  "2013 ACC/AHA Pooled Cohort Equations: 10-year risk of a first hard ASCVD event",
		Source: "Goff DC Jr, Lloyd-Jones DM, Bennett G, et al. 2013 ACC/AHA guideline on the assessment of cardiovascular risk. Circulation 2014;129(25 Suppl 2):S49-S73 (J Am Coll Cardiol 2014;63(25 Pt B):2935-59), Table A",
		Inputs: []Input{
			{Name: "age", Kind: Number, Unit: "years"},
			{Name: "female", Kind: Flag},
			{Name: "african_american", Kind: Flag},
			{Name: "total_cholesterol", Kind: Number, Unit: "mg/dL"},
			{Name: "hdl_cholesterol", Kind: Number, Unit: "mg/dL"},
			{Name: "systolic_bp", Kind: Number, Unit: "mmHg"},
			{Name: "bp_treated", Kind: Flag},
			{Name: "smoker", Kind: Flag},
			{Name: "diabetes", Kind: Flag},
		},
		Unit: "%",
		Fn:   pooledCohort,
	})
}

// pooledCohort is 1 − S10^exp(Σβx − mean), in percent, with the group's
// coefficients; the systolic term is the treated or the untreated one.
func pooledCohort(in map[string]float64) (float64, error) {
	for _, n := range []string{"age", "total_cholesterol", "hdl_cholesterol", "systolic_bp"} {
		if !(in[n] > 0) {
			return 0, fmt.Errorf("%s: %s must be positive, got %g", PooledCohort2013, n, in[n])
		}
	}
	g := pceGroups[[2]bool{in["female"] == 1, in["african_american"] == 1}]
	a := math.Log(in["age"])
	tc, hdl, sbp := math.Log(in["total_cholesterol"]), math.Log(in["hdl_cholesterol"]), math.Log(in["systolic_bp"])
	s := g.lnAge*a + g.lnAge2*a*a + g.lnTC*tc + g.lnAgeLnTC*a*tc + g.lnHDL*hdl + g.lnAgeLnHDL*a*hdl
	if in["bp_treated"] == 1 {
		s += g.lnTreatedSBP*sbp + g.lnAgeLnTreatedSBP*a*sbp
	} else {
		s += g.lnUntreatedSBP*sbp + g.lnAgeLnUntreatedSBP*a*sbp
	}
	if in["smoker"] == 1 {
		s += g.smoker + g.lnAgeSmoker*a
	}
	if in["diabetes"] == 1 {
		s += g.diabetes
	}
	return 100 * (1 - math.Pow(g.baselineS10, math.Exp(s-g.mean))), nil
}
