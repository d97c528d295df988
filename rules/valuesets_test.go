package rules_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// The built-in pack's value sets load, resolve every concept to a pack key
// and look codes up: an exact code wins over a class prefix, the longest
// prefix wins among prefixes, a code of an undeclared system is no match.
func TestBuiltinValueSets(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	vs := p.ValueSets
	require.NotNil(t, vs, "the built-in pack has %s", rules.ValueSetsFile)
	for _, set := range vs.Concepts {
		assert.NotEmpty(t, set.Key, "%q resolves to no pack concept", set.Concept)
	}
	cases := []struct {
		system, code, concept string
		prefix                bool
	}{
		{"http://loinc.org", "18262-6", "low-density lipoprotein cholesterol", false},
		{"http://www.whocc.no/atc", "B01AC06", "aspirin", false},
		{"http://www.whocc.no/atc", "B01AF02", "oral anticoagulant", true},
		{"http://www.whocc.no/atc", "C07AB07", "beta-blocker", true},
		{"http://hl7.org/fhir/sid/icd-10", "I25.2", "myocardial infarction", false},
		{"http://hl7.org/fhir/sid/icd-10-cm", "I25.10", "atherosclerotic coronary artery disease", true},
		{"http://hl7.org/fhir/sid/icd-10", "I21.4", "acute myocardial infarction", true},
		{"http://hl7.org/fhir/sid/icd-10-cm", "I22.0", "acute myocardial infarction", true},
		{"http://www.nlm.nih.gov/research/umls/rxnorm", "2059015", "low-dose rivaroxaban", false},
		{"http://www.whocc.no/atc", "B01AE07", "oral anticoagulant", false},
		{"http://www.whocc.no/atc", "G04BE09", "phosphodiesterase inhibitor", false},
		{"http://loinc.org", "22748-8", "low-density lipoprotein cholesterol", false},
		{"http://loinc.org", "8867-4", "heart rate", false},
		{"http://snomed.info/sct", "49436004", "atrial fibrillation", false},
		{"http://hl7.org/fhir/sid/icd-10", "I48.0", "atrial fibrillation", false},
		{"http://hl7.org/fhir/sid/icd-10-cm", "I48.21", "atrial fibrillation", true},
		{"http://hl7.org/fhir/sid/icd-10-cm", "I48.91", "atrial fibrillation", false},
	}
	for _, c := range cases {
		m, ok := vs.Lookup(c.system, c.code)
		if assert.True(t, ok, "%s|%s", c.system, c.code) {
			assert.Equal(t, c.concept, m.Set.Concept, "%s|%s", c.system, c.code)
			assert.Equal(t, c.prefix, m.Prefix, "%s|%s prefix", c.system, c.code)
		}
	}
	for _, miss := range [][2]string{{"http://loinc.org", "18262"}, {"http://example.org/local", "18262-6"}, {"http://www.whocc.no/atc", "B01A"}, {"http://www.whocc.no/atc", "B01AE02"}, {"http://www.whocc.no/atc", "G04BE01"}, {"http://hl7.org/fhir/sid/icd-10-cm", "I48.92"}, {"http://hl7.org/fhir/sid/icd-10", "I48.3"}} {
		_, ok := vs.Lookup(miss[0], miss[1])
		assert.False(t, ok, "%s|%s must not match", miss[0], miss[1])
	}
	s, ok := vs.Sex("male")
	require.True(t, ok)
	assert.Equal(t, "female sex", s.Concept)
	assert.False(t, s.Present)
}

// Coverage counts codes and concepts per system; every system the file
// declares for codes shows up.
func TestValueSetCoverage(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	cov, coded := p.ValueSets.Coverage(p)
	for _, sys := range []string{"loinc", "snomed", "icd10", "icd10cm", "rxnorm", "atc"} {
		assert.Positive(t, cov[sys].Codes, sys)
		assert.Positive(t, cov[sys].Concepts, sys)
	}
	assert.Equal(t, 14, cov["loinc"].Codes)
	assert.Positive(t, coded)
	_, condKeys := p.ConditionIndex()
	assert.LessOrEqual(t, coded, len(condKeys))
}

// SearchTokens lists exact codes as FHIR search tokens, by system, without
// class prefixes.
func TestValueSetSearchTokens(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	loinc := p.ValueSets.SearchTokens("loinc")
	assert.Contains(t, loinc, "http://loinc.org|10230-1")
	assert.Len(t, loinc, 14)
	for _, tok := range p.ValueSets.SearchTokens("atc") {
		assert.NotEqual(t, "http://www.whocc.no/atc|C07", tok, "a class prefix is no search token")
	}
	all := p.ValueSets.SearchTokens()
	assert.Greater(t, len(all), len(loinc))
	var nilSets *rules.ValueSets
	assert.Nil(t, nilSets.SearchTokens())
}

// A combination code states its further concepts (also) beside its value
// set's own, exact codes and class prefixes alike; a code without also
// states none. On-therapy entries resolve every concept they name.
func TestValueSetCombinationCodes(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	vs := p.ValueSets
	for _, c := range []struct {
		system, code, concept string
		also                  []string
	}{
		{"http://hl7.org/fhir/sid/icd-10-cm", "I25.119", "atherosclerotic coronary artery disease", []string{"angina pectoris"}},
		{"http://hl7.org/fhir/sid/icd-10-cm", "I25.111", "atherosclerotic coronary artery disease", []string{"angina pectoris", "vasospastic angina"}},
		{"http://hl7.org/fhir/sid/icd-10-cm", "I25.112", "atherosclerotic coronary artery disease", []string{"angina pectoris", "refractory angina pectoris"}},
		{"http://hl7.org/fhir/sid/icd-10-cm", "I25.709", "atherosclerotic coronary artery disease", []string{"angina pectoris"}},
		{"http://hl7.org/fhir/sid/icd-10-cm", "I25.10", "atherosclerotic coronary artery disease", nil},
		{"http://snomed.info/sct", "53741008", "coronary artery disease", nil},
	} {
		m, ok := vs.Lookup(c.system, c.code)
		require.True(t, ok, c.code)
		assert.Equal(t, c.concept, m.Set.Concept, c.code)
		var also []string
		for _, a := range m.Also {
			assert.NotEmpty(t, a.Key, "%s also %q has no pack key", c.code, a.Concept)
			also = append(also, a.Concept)
		}
		assert.Equal(t, c.also, also, c.code)
	}
	require.NotEmpty(t, vs.OnTherapy)
	for _, o := range vs.OnTherapy {
		assert.Len(t, o.SymptomKeys, len(o.Symptoms))
		assert.Len(t, o.TherapyKeys, len(o.Therapies))
		assert.Len(t, o.Keys, len(o.Concepts))
	}
}

// Check names an also or on-therapy concept the pack does not know, and
// an also that repeats its value set's own concept.
func TestValueSetCheckAlsoAndOnTherapy(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	b := []byte(`{"version": 1, "systems": {"icd10cm": {"uri": "http://hl7.org/fhir/sid/icd-10-cm", "prefix": true, "source": "test"}},
	  "concepts": [{"concept": "coronary artery disease", "codes": [
	    {"system": "icd10cm", "code": "I25.11", "prefix": true, "also": ["angina pectoris", "anginoid wobble"]},
	    {"system": "icd10cm", "code": "I25.1", "prefix": true, "also": ["coronary artery disease"]}]}],
	  "on_therapy": [{"symptoms": ["angina pectoris"], "therapies": ["beta-blocker", "wobble blocker"], "after_days": -1,
	    "concepts": ["symptoms refractory to guideline-directed medical therapy"], "source": "test"}]}`)
	vs, err := rules.ParseValueSets(rules.ValueSetsFile, b)
	require.NoError(t, err)
	var got []string
	for _, d := range vs.Check(p) {
		got = append(got, d.Pointer)
	}
	assert.ElementsMatch(t, []string{"/concepts/0/codes/0/also/1", "/concepts/0/codes/1/also/0", "/on_therapy/0/therapies/1", "/on_therapy/0/after_days"}, got)
}
