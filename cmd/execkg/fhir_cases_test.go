package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fhirTestdata = "../../engine/fhir/testdata"

// fixtureRows reads a fixture's expected rows from engine/fhir/testdata.
func fixtureRows(t *testing.T, name string) []any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fhirTestdata, "cases.json"))
	require.NoError(t, err)
	var f struct {
		Cases []struct {
			Name string `json:"name"`
			Rows []any  `json:"rows"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	for _, c := range f.Cases {
		if c.Name == name {
			return c.Rows
		}
	}
	t.Fatalf("no case %s", name)
	return nil
}

// execkg ask --fhir answers a bundle with the rows its fixture lists.
func TestAskFHIR(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	var so, se bytes.Buffer
	code := run([]string{"ask", "--fhir", filepath.Join(fhirTestdata, "af_doac_after_pci.json"), "--date", "2026-06-01", "--id", "af"}, &so, &se)
	require.Equal(t, 0, code, se.String())
	var res map[string]any
	require.NoError(t, json.Unmarshal(so.Bytes(), &res))
	assert.Equal(t, "af", res["case_id"])
	assert.ElementsMatch(t, fixtureRows(t, "af_doac_after_pci"), res["predicted_row_ids"])
	patient, _ := res["patient"].(map[string]any)
	assert.Equal(t, "fhir", patient["source"])

	so.Reset()
	se.Reset()
	assert.Equal(t, 2, run([]string{"ask", "--fhir", filepath.Join(fhirTestdata, "af_doac_after_pci.json"), "Patient with text too"}, &so, &se), "a text and a bundle at once is a usage error")
	assert.Equal(t, 2, run([]string{"ask", "--fhir", filepath.Join(t.TempDir(), "missing.json")}, &so, &se))
}

// execkg batch --fhir-dir answers every bundle of a folder, resumes, and
// refuses a file that is not JSON before any work.
func TestBatchFHIRDir(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	dir := t.TempDir()
	for _, n := range []string{"pci_high_bleeding_risk", "suspected_ccs"} {
		b, err := os.ReadFile(filepath.Join(fhirTestdata, n+".json"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, n+".json"), b, 0o644))
	}
	out := filepath.Join(t.TempDir(), "out.jsonl")
	var so, se bytes.Buffer
	require.Equal(t, 0, run([]string{"batch", "--fhir-dir", dir, "--date", "2026-06-01", "--out", out, "--progress", "off"}, &so, &se), se.String())
	recs := recordsByID(t, out)
	require.Len(t, recs, 2)
	for id, r := range recs {
		assert.ElementsMatch(t, fixtureRows(t, id), r["predicted_row_ids"], id)
		assert.Equal(t, "2026-06-01", r["case_date"], id)
	}
	se.Reset()
	require.Equal(t, 0, run([]string{"batch", "--fhir-dir", dir, "--date", "2026-06-01", "--out", out, "--progress", "off"}, &so, &se), se.String())
	assert.Contains(t, se.String(), "2 of 2 cases already answered")

	// Another date is another answer: both are redone.
	se.Reset()
	require.Equal(t, 0, run([]string{"batch", "--fhir-dir", dir, "--date", "2026-07-01", "--out", out, "--progress", "off"}, &so, &se), se.String())
	assert.Contains(t, se.String(), "redoing 2 case(s)")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{not json"), 0o644))
	se.Reset()
	assert.Equal(t, 2, run([]string{"batch", "--fhir-dir", dir, "--out", out}, &so, &se))
	assert.Contains(t, se.String(), "broken.json: not valid JSON")
	se.Reset()
	assert.Equal(t, 2, run([]string{"batch", "--cases", filepath.Join(dir, "x.jsonl"), "--date", "2026-06-01", "--out", out}, &so, &se))
	assert.Contains(t, se.String(), "--date applies to --fhir-dir")
}

// execkg ask --pack all --fhir: every pack reads the bundle with its own
// value sets; the CCS pack's rows come prefixed, and the USPSTF pack reads
// the same codes as its own concepts: the coded PCI is cardiovascular
// disease (no primary-prevention aspirin D, no nontraditional risk
// factors), the coded AF ends AF screening.
func TestAskFHIRAllPacks(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	var so, se bytes.Buffer
	code := run([]string{"ask", "--pack", "all", "--fhir", filepath.Join(fhirTestdata, "af_doac_after_pci.json"), "--date", "2026-06-01"}, &so, &se)
	require.Equal(t, 0, code, se.String())
	var res map[string]any
	require.NoError(t, json.Unmarshal(so.Bytes(), &res))
	const prefix = "esc-ccs-2024/"
	var rows []any
	for _, r := range fixtureRows(t, "af_doac_after_pci") {
		rows = append(rows, prefix+r.(string))
	}
	got, _ := res["predicted_row_ids"].([]any)
	var ccs []any
	for _, r := range got {
		if s, _ := r.(string); strings.HasPrefix(s, prefix) {
			ccs = append(ccs, r)
		}
	}
	assert.ElementsMatch(t, rows, ccs)
	for _, r := range []string{"table_02.json::row_1", "table_09.json::row_0", "table_10.json::row_0"} {
		assert.NotContains(t, got, "uspstf-cvd-prevention/"+r)
	}
	assert.Contains(t, got, "uspstf-cvd-prevention/table_06.json::row_0")
	assert.NotContains(t, so.String(), "the pack has no value sets")
}
