package preflight

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

var update = flag.Bool("update", false, "rewrite testdata/bad/*/want.txt from the current output")

// Every folder under testdata/good must pass with no diagnostic.
func TestGoodPacks(t *testing.T) {
	dirs, err := filepath.Glob("testdata/good/*")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			rep, err := Check(os.DirFS(dir), ".")
			require.NoError(t, err)
			assert.Empty(t, rep.Diagnostics, "%v", rep.Diagnostics)
			require.NotNil(t, rep.Pack)
		})
	}
}

// Every folder under testdata/bad holds a broken pack and want.txt with the
// exact diagnostics (file, pointer, row, rule, code, message, fix) expected.
func TestBadPacks(t *testing.T) {
	dirs, err := filepath.Glob("testdata/bad/*")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			rep, err := Check(os.DirFS(dir), ".")
			require.NoError(t, err)
			require.False(t, rep.OK(), "a bad pack must fail")
			var lines []string
			for _, d := range rep.Diagnostics {
				lines = append(lines, d.Error())
			}
			got := strings.Join(lines, "\n") + "\n"
			wantPath := filepath.Join(dir, "want.txt")
			if *update {
				require.NoError(t, os.WriteFile(wantPath, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(wantPath)
			require.NoError(t, err, "missing %s (run go test ./rules/preflight -update and review it)", wantPath)
			assert.Equal(t, string(want), got)
		})
	}
}

// The reference system's layout B (flat condition list, row-level actions,
// "Class a" keys, ≤ and numeric thresholds) loads to the same model.
func TestReferenceLayoutNormalises(t *testing.T) {
	rep, err := Check(os.DirFS("testdata/good/reference-layout"), ".")
	require.NoError(t, err)
	require.True(t, rep.OK(), "%v", rep.Diagnostics)
	row := rep.Pack.Tables[0].Rows[0]
	assert.Equal(t, "III", row.Class)
	assert.Equal(t, "C", row.Level)
	require.Len(t, row.Rules, 1)
	assert.Len(t, row.Rules[0].Conditions, 3)
	assert.Equal(t, rules.OpLE, row.Rules[0].Conditions[2].LogicStructured.Operator)
	assert.Equal(t, rules.Threshold("30"), row.Rules[0].Conditions[2].LogicStructured.Threshold)
	assert.Len(t, row.RuleActions(0), 1)
}

// The built-in pack passes the preflight with zero diagnostics.
func TestBuiltinPackIsValid(t *testing.T) {
	rep, err := Check(packs.FS(), packs.DefaultDir)
	require.NoError(t, err)
	for _, d := range rep.Diagnostics {
		t.Error(d.Error())
	}
}

func TestMissingDirectory(t *testing.T) {
	_, err := Check(os.DirFS("testdata"), "nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"nope"`)
}
