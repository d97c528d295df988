package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// auditCase is one finding of the clinical encoding audit
// (rules/packs/ENCODING.md, "Audit findings"): a case written to exercise
// it, the rows it must and must not return, and the intent each named
// action of a returned row must carry.
type auditCase struct {
	CaseID   string                       `json:"case_id"`
	Finding  string                       `json:"finding"`
	Date     string                       `json:"date"`
	Question string                       `json:"question"`
	Must     []string                     `json:"must"`
	MustNot  []string                     `json:"must_not"`
	Intents  map[string]map[string]string `json:"intents"`
}

func TestAuditFindings(t *testing.T) {
	f, err := os.Open("testdata/audit/cases.jsonl")
	require.NoError(t, err)
	defer f.Close()
	p := program(t)
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		var c auditCase
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c), "testdata/audit/cases.jsonl line %d", n+1)
		n++
		date, err := time.Parse("2006-01-02", c.Date)
		require.NoError(t, err, "%s: date", c.CaseID)
		require.True(t, len(c.Must)+len(c.MustNot) > 0, "%s: give must and/or must_not rows", c.CaseID)
		t.Run(c.CaseID, func(t *testing.T) {
			res, err := p.AskOn(context.Background(), c.CaseID, c.Question, date)
			require.NoError(t, err)
			got := map[string]bool{}
			for _, r := range res.PredictedRowIDs {
				got[r] = true
			}
			for _, r := range c.Must {
				assert.True(t, got[r], "%s (%s): missing %s", c.CaseID, c.Finding, r)
			}
			for _, r := range c.MustNot {
				assert.False(t, got[r], "%s (%s): must not return %s", c.CaseID, c.Finding, r)
			}
			for row, want := range c.Intents {
				seen := map[string]string{}
				for _, rec := range res.Recommendations {
					if rec.RowID == row {
						for _, a := range rec.Actions {
							seen[a.Concept] = a.Intent
						}
					}
				}
				for concept, intent := range want {
					assert.Equal(t, intent, seen[concept], "%s: intent of %s in %s", c.CaseID, concept, row)
				}
			}
		})
	}
	require.NoError(t, sc.Err())
	require.Positive(t, n)
}
