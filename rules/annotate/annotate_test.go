package annotate_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/annotate"
	"github.com/executablekg/execkg/rules/packs"
)

// The committed annotation index must be what re-indexing the pack gives,
// and applying it must change nothing: codes live in one place and every
// occurrence carries them.
func TestCommittedIndexIsFreshAndApplied(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	idx, err := annotate.Load(packs.FS(), packs.DefaultDir+"/meta")
	require.NoError(t, err)
	assert.Empty(t, annotate.Validate(idx))

	fresh := annotate.Build(p, idx)
	a, _ := json.Marshal(fresh)
	b, _ := json.Marshal(idx)
	assert.JSONEq(t, string(b), string(a), "index is stale: run execkg annotate index rules/packs/esc-ccs-2024 rules/packs/esc-ccs-2024/meta")

	n, err := annotate.Apply(p, idx)
	require.NoError(t, err)
	assert.Zero(t, n, "tables lack codes from the index: run execkg annotate apply rules/packs/esc-ccs-2024 rules/packs/esc-ccs-2024/meta")
}

func TestApplyWritesCodeToEveryOccurrence(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	idx := annotate.Build(p, nil)
	for i := range idx.Inputs {
		if idx.Inputs[i].EntityStandardizedList[0].Candidate == "suspected chronic coronary syndrome" {
			idx.Inputs[i].EntityStandardizedList[0].SnomedID = "999999991"
		}
	}
	_, err = annotate.Apply(p, idx)
	require.NoError(t, err)
	for _, r := range p.Rules() {
		for _, c := range r.Rule.Conditions {
			if c.Concept() == "suspected chronic coronary syndrome" {
				assert.Equal(t, "999999991", c.SnomedID(), r.RowID)
			}
		}
	}
	assert.Empty(t, rules.Validate(p))
}

func TestValidateFindsCodeConflicts(t *testing.T) {
	idx := &annotate.Index{Inputs: []annotate.Node{
		{EntityOriginal: "HF", Role: "ClinicalCondition", EntityStandardizedList: []rules.Standardized{{Candidate: "heart failure", SnomedID: "84114007"}}},
		{EntityOriginal: "heart failure", Role: "ClinicalCondition", EntityStandardizedList: []rules.Standardized{{Candidate: "heart failure", SnomedID: "48447003"}}},
		{EntityOriginal: "CHF", Role: "ClinicalCondition", EntityStandardizedList: []rules.Standardized{{Candidate: "chronic heart failure", SnomedID: "84114007"}}},
		{EntityOriginal: "x", Role: "ClinicalCondition", EntityStandardizedList: []rules.Standardized{{Candidate: "x", SnomedID: "12ab"}}},
	}}
	ps := annotate.Validate(idx)
	require.Len(t, ps, 3)
	assert.Contains(t, ps[0].Message, `coded "48447003" here and "84114007"`)
	assert.Contains(t, ps[1].Message, "SNOMED CT 84114007 names")
	assert.Contains(t, ps[2].Message, "not 6-18 digits")
}
