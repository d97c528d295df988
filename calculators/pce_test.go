package calculators_test

import (
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/calculators"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

type example struct {
	Name      string             `json:"name"`
	Inputs    map[string]float64 `json:"inputs"`
	Expected  float64            `json:"expected"`
	Tolerance float64            `json:"tolerance"`
	Source    string             `json:"source"`
}

func check(t *testing.T, c calculators.Calculator, ex example) {
	t.Helper()
	got, err := c.Compute(ex.Inputs)
	require.NoError(t, err, ex.Name)
	require.LessOrEqual(t, math.Abs(got-ex.Expected), ex.Tolerance+1e-9,
		"%s: got %.3f %s, published %.1f (± %.1f; %s)", ex.Name, got, c.Unit, ex.Expected, ex.Tolerance, ex.Source)
}

// Every published example a built-in pack declares for a calculated
// concept holds for the implementation it names (the USPSTF pack: the four
// Goff et al. 2013 Table A patients, 2.1, 3.0, 5.3 and 6.1 %).
func TestPackExamples(t *testing.T) {
	entries, err := fs.ReadDir(packs.FS(), ".")
	require.NoError(t, err)
	n := 0
	for _, e := range entries {
		h, err := rules.LoadHierarchyFS(packs.FS(), e.Name())
		require.NoError(t, err)
		if h == nil {
			continue
		}
		for _, d := range h.Calculated {
			c, ok := calculators.Lookup(d.Implementation)
			require.True(t, ok, "%s: %s names implementation %q; known: %v", e.Name(), d.Concept, d.Implementation, calculators.Names())
			require.Equal(t, c.Unit, d.Unit, "%s: %s", e.Name(), d.Concept)
			for _, in := range d.Inputs {
				ci, ok := c.Input(in.Name)
				require.True(t, ok, "%s: input %q is not one of %s's", e.Name(), in.Name, c.Name)
				require.Equal(t, ci.Kind == calculators.Number, in.Numeric(), "%s: input %q kind", e.Name(), in.Name)
				if in.Numeric() {
					require.Equal(t, ci.Unit, in.Unit, "%s: input %q unit", e.Name(), in.Name)
				}
			}
			require.Len(t, d.Inputs, len(c.Inputs), "%s: every input of %s is declared", e.Name(), c.Name)
			for _, ex := range d.Examples {
				check(t, c, example{ex.Name, ex.Inputs, ex.Expected, ex.Tolerance, ex.Source})
				n++
			}
		}
	}
	require.GreaterOrEqual(t, n, 4, "the four published Pooled Cohort examples")
}

// Further cases, each with its source, in testdata/.
func TestPooledCohortCases(t *testing.T) {
	b, err := os.ReadFile("testdata/pooled_cohort_2013.json")
	require.NoError(t, err)
	var f struct {
		Calculator string    `json:"calculator"`
		Cases      []example `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	c, ok := calculators.Lookup(f.Calculator)
	require.True(t, ok)
	require.NotEmpty(t, f.Cases)
	for _, ex := range f.Cases {
		check(t, c, ex)
	}
}

// A missing input or a flag that is not 0/1 is an error, never a guess.
func TestComputeRefusesIncompleteInput(t *testing.T) {
	c, _ := calculators.Lookup(calculators.PooledCohort2013)
	in := map[string]float64{"age": 55, "female": 1, "african_american": 0, "total_cholesterol": 213, "hdl_cholesterol": 50, "systolic_bp": 120, "bp_treated": 0, "smoker": 0}
	_, err := c.Compute(in)
	require.ErrorContains(t, err, `input "diabetes" is missing`)
	in["diabetes"] = 0.5
	_, err = c.Compute(in)
	require.ErrorContains(t, err, "yes/no flag")
}
