package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

type clinCase struct {
	CaseID   string   `json:"case_id"`
	Question string   `json:"question"`
	Must     []string `json:"must"`
	MustNot  []string `json:"must_not"`
	Why      string   `json:"why"`
}

// clinScore answers a file of clinician-written cases and counts the rows
// that must be returned and those returned although they must not be.
func clinScore(t *testing.T, path string) (hit, must, violated, mustNot, right, n int) {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	p := program(t)
	for sc.Scan() {
		var c clinCase
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c))
		res, err := p.Ask(context.Background(), c.CaseID, c.Question)
		require.NoError(t, err, c.CaseID)
		got := map[string]bool{}
		for _, r := range res.PredictedRowIDs {
			got[r] = true
		}
		ok := true
		for _, r := range c.Must {
			must++
			if got[r] {
				hit++
			} else {
				ok = false
			}
		}
		for _, r := range c.MustNot {
			mustNot++
			if got[r] {
				violated++
				ok = false
			}
		}
		if ok {
			right++
		}
		n++
	}
	return
}

// Cases written blind by a clinician, in clinical shorthand (abbreviations,
// units spelled many ways, negations, suspected vs established, values on
// band edges). The dev file guided development; the test file was held out
// and is only measured. The floors guard against regressions; they sit just
// below what was measured when they were set (dev 114/142 with 1 violation,
// test 93/121 with 5 violations). clinician_dev2.jsonl is a second dev set
// in letter and note style (section labels, brand names, plans). The dev
// and dev2 floors were last raised at dev 125/142 with 1 violation and
// dev2 141/220 with 0 violations.
func TestClinicianCases(t *testing.T) {
	for _, c := range []struct {
		path          string
		minRecall     float64
		maxViolations int
	}{
		{"testdata/clinician_dev.jsonl", 0.88, 2},
		{"testdata/clinician_test.jsonl", 0.74, 6},
		// A second held-out set, written blind later in other styles (letters,
		// discharge summaries, report fragments); measured once: 152/177, 1.
		{"testdata/clinician_test2.jsonl", 0.84, 2},
		{"testdata/clinician_dev2.jsonl", 0.70, 1},
	} {
		hit, must, viol, mustNot, right, n := clinScore(t, c.path)
		recall := float64(hit) / float64(must)
		t.Logf("%s: must recall %d/%d = %.3f; must_not returned %d/%d; %d/%d cases fully right", c.path, hit, must, recall, viol, mustNot, right, n)
		require.GreaterOrEqual(t, recall, c.minRecall, c.path)
		require.LessOrEqual(t, viol, c.maxViolations, c.path)
	}
}
