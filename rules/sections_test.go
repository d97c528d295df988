package rules_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// testdata/sections/cases.jsonl: a sections file and the located error
// ParseSections gives for it ("" when valid).
func TestParseSections(t *testing.T) {
	f, err := os.Open("testdata/sections/cases.jsonl")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		var c struct {
			Name  string          `json:"name"`
			Src   json.RawMessage `json:"src"`
			Error string          `json:"error"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "line %d", n)
		s, err := rules.ParseSections("meta/sections.json", c.Src)
		if c.Error == "" {
			require.NoError(t, err, c.Name)
			require.NotNil(t, s, c.Name)
			continue
		}
		require.Error(t, err, c.Name)
		require.Contains(t, err.Error(), "meta/sections.json: ", c.Name)
		require.Contains(t, err.Error(), c.Error, c.Name)
	}
	require.Greater(t, n, 5)
}

// The built-in pack reads documents: its sections file loads with the
// pack, and a pack without one loads with none.
func TestBuiltInSections(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	require.NotNil(t, p.Sections)
	require.NotNil(t, p.Sections.Kind("plan"))
	require.Equal(t, rules.SectionIntended, p.Sections.Kind("plan").Status)
	require.Equal(t, []string{"imp", "plan"}, rules.CueWords("Imp/Plan:"))
	s, err := rules.LoadSectionsFS(os.DirFS("testdata"), "anatomy")
	require.NoError(t, err)
	require.Nil(t, s)
}
