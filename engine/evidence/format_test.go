package evidence

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFormat(t *testing.T) {
	egfr := Anchor{ConceptKey: "name:estimated glomerular filtration rate", Concept: "estimated glomerular filtration rate", Units: []string{"mL/min/1.73 m2"}}
	ldl := Anchor{ConceptKey: "name:low-density lipoprotein cholesterol", Concept: "low-density lipoprotein cholesterol", Units: []string{"mmol/L"}}
	dm := Anchor{ConceptKey: "name:diabetes mellitus", Concept: "diabetes mellitus"}

	it := Format("f1", "eGFR of 24 mL/min/1.73 m²", egfr, false)
	require.Len(t, it, 1)
	assert.True(t, it[0].Present)
	assert.Equal(t, 24.0, *it[0].Value)
	assert.Equal(t, "mL/min/1.73 m2", it[0].Unit)

	// A bare number takes the anchor's only unit, and says so.
	it = Format("f1", "eGFR 28", egfr, false)
	require.Len(t, it, 1)
	assert.Equal(t, "mL/min/1.73 m2", it[0].Unit)
	assert.Contains(t, it[0].Note, "assumed")

	// mg/dL converts to the anchor's mmol/L, so it is kept as written.
	it = Format("f1", "LDL-C 70 mg/dL", ldl, false)
	require.Len(t, it, 1)
	assert.Equal(t, "mg/dL", it[0].Unit)

	// Negated mention: absence, never a value.
	it = Format("f1", "no diabetes", dm, true)
	require.Len(t, it, 1)
	assert.False(t, it[0].Present)
	assert.Nil(t, it[0].Value)

	// Mention without a number on a numeric concept: presence only.
	it = Format("f1", "reduced eGFR", egfr, false)
	require.Len(t, it, 1)
	assert.Nil(t, it[0].Value)

	// Incomparable unit is kept so the evaluator can say why.
	it = Format("f1", "eGFR 40 mL/min", egfr, false)
	require.Len(t, it, 1)
	assert.Equal(t, "mL/min", it[0].Unit)
}

func TestTrendKeepsTheCurrentValue(t *testing.T) {
	a := Anchor{ConceptKey: "name:lvef", Concept: "left ventricular ejection fraction", Units: []string{"%"}}
	for _, text := range []string{"LVEF fell from 55% to 38% over 12 months", "Echo: LVEF down from 55% (2022) to 38%", "LVEF from 55% -> 38%"} {
		items := Format("f1", text, a, false)
		if len(items) != 1 || items[0].Value == nil || *items[0].Value != 38 {
			t.Errorf("%q: want only the current value 38, got %+v", text, items)
		}
	}
	// A range is not a trend.
	if items := Format("f1", "LVEF 30-35%", a, false); len(items) != 2 {
		t.Errorf("range: want two bounds, got %+v", items)
	}
}

// A written date's day, month or year is no value: "TTE 04/2025 LVEF 50%"
// gives 50 %, not 4 %; "BP 120/80" is no date.
func TestDatesAreNoValues(t *testing.T) {
	a := Anchor{ConceptKey: "name:lvef", Concept: "left ventricular ejection fraction", Units: []string{"%"}}
	for text, want := range map[string]float64{"TTE 04/2025 LVEF 50%": 50, "Echo 12/03/2024: LVEF 35%": 35, "LVEF 45 (2024-03-12)": 45} {
		items := Format("f1", text, a, false)
		if len(items) != 1 || items[0].Value == nil || *items[0].Value != want {
			t.Errorf("%q: want only %g, got %+v", text, want, items)
		}
	}
	// A month/year date with a two-digit year: a month written with its
	// leading zero, or one the mention or clause ends after; a count of a
	// total ("10/16 segments", "1/16") keeps its number.
	seg := Anchor{ConceptKey: "name:seg", Concept: "number of segments with perfusion defects", Units: []string{"unitless"}}
	for text, want := range map[string][]float64{
		"Stress perfusion CMR 03/25":                 nil,
		"Stress CMR 03/25: perfusion defect 1/16":    {1},
		"stress CMR 11/24: 2 of 16 segments":         {2},
		"perfusion defect 10/16 segments":            {10},
		"perfusion defects in 3/16 segments":         {3},
		"CMR (12/25): inferior defect 1/16 segments": {1},
		"CMR 03/25/2024 ischaemia":                   nil,
	} {
		var got []float64
		for _, it := range Format("f1", text, seg, false) {
			if it.Value != nil {
				got = append(got, *it.Value)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: want %v, got %v", text, want, got)
		}
	}
	bp := Anchor{ConceptKey: "name:sbp", Concept: "systolic blood pressure", Units: []string{"mmHg"}}
	if items := Format("f1", "BP 120/80", bp, false); len(items) == 0 || items[0].Value == nil || *items[0].Value != 120 {
		t.Errorf("BP 120/80: want 120 kept, got %+v", items)
	}
}

// A bare number after the value and another word is that word's number:
// "LDL 3.2 on atorvastatin 40" is LDL 3.2 (40 is the dose); a range or a
// pair with no word between keeps both.
func TestLaterBareNumberBelongsToItsWord(t *testing.T) {
	ldl := Anchor{ConceptKey: "name:ldl", Concept: "low-density lipoprotein cholesterol", Units: []string{"mmol/L"}}
	for text, want := range map[string][]float64{
		"LDL 3.2 on atorvastatin 40":          {3.2},
		"LDL-C 1.2 mmol/L on rosuvastatin 40": {1.2},
		"LDL 2.6, was 3.9 before treatment":   {2.6},
		"LDL 2.6 3.1":                         {2.6, 3.1},
	} {
		items := Format("f1", text, ldl, false)
		var got []float64
		for _, it := range items {
			if it.Value != nil {
				got = append(got, *it.Value)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%q: want %v, got %v", text, want, got)
			continue
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%q: want %v, got %v", text, want, got)
			}
		}
	}
}

// Numbers inside a parenthesis are the aside's when the anchor's value
// stands outside it: "PTL (male, 64, 3 risk factors) ~31%" is 31 %, not
// 64 %; with no value outside, a number in the parenthesis is still read.
func TestAsideNumbersGiveWayToTheValue(t *testing.T) {
	ptp := Anchor{ConceptKey: "name:ptp", Concept: "pre-test likelihood", Units: []string{"%"}}
	for text, want := range map[string][]float64{
		"PTL (male, 64, 3 risk factors) ~31%":            {31},
		"Clinical likelihood (RF-CL, age 70, 2 RF): 18%": {18},
		"DSE (PTP 45%)":        {45},
		"LVEF 45 (2024-03-12)": {45},
	} {
		var got []float64
		for _, it := range Format("f1", text, ptp, false) {
			if it.Value != nil {
				got = append(got, *it.Value)
			}
		}
		assert.Equal(t, want, got, text)
	}
}
