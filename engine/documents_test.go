package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// testdata/documents.jsonl: documents as clinicians write them (headings,
// lists, arrow chains, statements about drugs) and the concepts the
// patient must then have present, stated absent, or neither.
func TestDocumentReading(t *testing.T) {
	prog := program(t)
	f, err := os.Open("testdata/documents.jsonl")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		var c struct {
			Name       string   `json:"name"`
			Text       string   `json:"text"`
			Present    []string `json:"present"`
			Absent     []string `json:"absent"`
			NotPresent []string `json:"not_present"`
			// Status: concept → the status of its fact read from the
			// text (derived facts aside).
			Status map[string]string `json:"status"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "line %d", n)
		res, err := prog.Ask(context.Background(), c.Name, c.Text)
		require.NoError(t, err)
		present, absent := map[string]bool{}, map[string]bool{}
		for _, e := range res.Evidence {
			if e.Secondary {
				continue // an alternative reading: no fact
			}
			if e.Present {
				present[e.Concept] = true
			} else {
				absent[e.Concept] = true
			}
		}
		for _, k := range c.Present {
			require.Truef(t, present[k], "line %d (%s): %s should be present", n, c.Name, k)
		}
		for _, k := range c.Absent {
			require.Truef(t, absent[k] && !present[k], "line %d (%s): %s should be stated absent", n, c.Name, k)
		}
		for _, k := range c.NotPresent {
			require.Falsef(t, present[k], "line %d (%s): %s should not be present", n, c.Name, k)
		}
		for k, want := range c.Status {
			got := ""
			for _, f := range res.Patient.Facts {
				if f.Concept == k && f.Via == "" {
					got = string(f.Status)
				}
			}
			require.Equalf(t, want, got, "line %d (%s): status of %s", n, c.Name, k)
		}
	}
	require.Greater(t, n, 5)
}

// The patient model carries the document's sections and each fact the
// section it was read under.
func TestModelSections(t *testing.T) {
	res, err := program(t).Ask(context.Background(), "sections", "Suspected CCS.\nPMH: T2DM\nPlan:\n- ICA via radial")
	require.NoError(t, err)
	require.NotNil(t, res.Patient)
	var kinds []string
	for _, s := range res.Patient.Sections {
		kinds = append(kinds, s.Kind)
	}
	require.Equal(t, []string{"history", "plan"}, kinds)
	sec := map[string]string{}
	for _, f := range res.Patient.Facts {
		sec[f.Concept] = f.Section
	}
	require.Equal(t, "plan", sec["invasive coronary angiography"])
	require.Equal(t, "history", sec["type 2 diabetes mellitus"])
}
