// Package reference computes the reference standard: for every vignette,
// the rows whose logic holds on the input nodes the vignette was written to
// state. Concepts match by concept key; a fact the vignette does not state
// is unknown, not absent (open world), so only rows the vignette fully
// supports are in the reference. The pipeline's own evaluator (engine/eval)
// decides, so units convert the same way on both sides.
package reference

import (
	"fmt"
	"github.com/executablekg/execkg/internal/jsonl"
	"io"
	"sort"
	"time"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/vignettes"
)

// Case is one line of reference.jsonl.
type Case struct {
	CaseID string   `json:"case_id"`
	RowIDs []string `json:"row_ids"`
}

// Evidence turns a vignette's intended nodes into evaluator evidence, one
// item per node. merge maps a concept key to the key it is merged into
// (nil for none).
func Evidence(v vignettes.Vignette, merge map[string]string) []eval.Evidence {
	out := make([]eval.Evidence, 0, len(v.Intended))
	for i, n := range v.Intended {
		e := eval.Evidence{
			ID:         fmt.Sprintf("%s#%d", v.CaseID, i),
			ConceptKey: mapKey(n.ConceptKey, merge),
			Concept:    n.Concept,
			Text:       n.Text,
			Present:    n.Present,
			Unit:       n.Unit,
		}
		if n.Value != nil {
			val := *n.Value
			e.Value = &val
			e.Comparator = n.Operator
		}
		if n.DaysAgo != nil {
			// Dated relative to today, as the pipeline reads "3 months ago".
			now := time.Now().UTC()
			t := now.Add(-time.Duration(*n.DaysAgo * float64(24*time.Hour)))
			d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
			e.When = &eval.When{From: d, To: d.Add(24*time.Hour - time.Second), Text: n.Text}
		}
		out = append(out, e)
	}
	return out
}

func mapKey(k string, merge map[string]string) string {
	if m, ok := merge[k]; ok {
		return m
	}
	return k
}

// Rules converts every pack rule for evaluation, with concept keys mapped
// through merge.
func Rules(p *rules.Pack, merge map[string]string) []eval.Rule {
	refs := p.Rules()
	out := make([]eval.Rule, len(refs))
	for i, r := range refs {
		er := eval.FromRuleRef(r)
		if len(merge) > 0 {
			for j := range er.Conds {
				er.Conds[j].ConceptKey = mapKey(er.Conds[j].ConceptKey, merge)
			}
		}
		out[i] = er
	}
	return out
}

// Compute evaluates every rule on every vignette (open world) and lists,
// per vignette, the rows with at least one rule that holds, in pack order.
func Compute(p *rules.Pack, vs []vignettes.Vignette, merge map[string]string) []Case {
	rs := Rules(p, merge)
	names, keys := p.ConceptIndex()
	out := make([]Case, len(vs))
	for i, v := range vs {
		ev := Evidence(v, merge)
		// A stated finding implies its broader concepts (the pack's is-a
		// relations), exactly as in the pipeline.
		for _, d := range eval.DeriveOpt(ev, p.Hierarchy, names, keys, eval.Options{Admit: OwnName}) {
			d.ConceptKey = mapKey(d.ConceptKey, merge)
			ev = append(ev, d)
		}
		out[i] = Case{CaseID: v.CaseID, RowIDs: RowsFor(rs, ev)}
	}
	return out
}

// OwnName is the step (v) the reference derives with: a definition's
// member with a wording of its own ("angina pectoris" worded "suspected
// angina pectoris") is met by a mention step (v) judges in those words,
// and a vignette states each concept under its own name, so no intended
// node meets it; every other member is met as stated.
func OwnName(c eval.Cond, _ eval.Evidence) bool {
	return c.Wording == "" || rules.NormalizeName(c.Wording) == rules.NormalizeName(c.Concept)
}

// RowsFor lists the rows (pack order, once each) of the rules that hold.
func RowsFor(rs []eval.Rule, ev []eval.Evidence) []string {
	rows := []string{}
	seen := map[string]bool{}
	for _, r := range rs {
		if seen[r.RowID] {
			continue
		}
		if eval.EvaluateRule(r, ev, eval.Options{}).Truth == eval.True {
			seen[r.RowID] = true
			rows = append(rows, r.RowID)
		}
	}
	return rows
}

// Marshal writes the reference as JSON lines, in vignette order.
func Marshal(cs []Case) ([]byte, error) {
	out := make([]Case, len(cs))
	for i, c := range cs {
		if c.RowIDs == nil {
			c.RowIDs = []string{}
		}
		out[i] = c
	}
	return jsonl.Marshal(out)
}

// Decode reads reference JSON lines; name is used in errors.
func Decode(name string, r io.Reader) ([]Case, error) {
	seen := map[string]int{}
	return jsonl.Read(name, r, jsonl.Options{Strict: true, Want: `{"case_id","row_ids":[…]}`}, func(line int, c *Case) error {
		if prev, dup := seen[c.CaseID]; dup {
			return fmt.Errorf("case %s already on line %d", c.CaseID, prev)
		}
		seen[c.CaseID] = line
		return nil
	})
}

// Diff compares a stored reference with a fresh computation and describes
// every difference (case, rows only in one of them); empty when equal.
func Diff(stored, fresh []Case) []string {
	var out []string
	s := map[string][]string{}
	for _, c := range stored {
		s[c.CaseID] = c.RowIDs
	}
	f := map[string]bool{}
	for _, c := range fresh {
		f[c.CaseID] = true
		old, ok := s[c.CaseID]
		if !ok {
			out = append(out, fmt.Sprintf("%s: missing from the stored reference", c.CaseID))
			continue
		}
		add, del := setDiff(c.RowIDs, old), setDiff(old, c.RowIDs)
		if len(add) > 0 || len(del) > 0 {
			out = append(out, fmt.Sprintf("%s: recomputed adds %v, drops %v", c.CaseID, add, del))
		}
	}
	for _, c := range stored {
		if !f[c.CaseID] {
			out = append(out, fmt.Sprintf("%s: in the stored reference but not among the vignettes", c.CaseID))
		}
	}
	sort.Strings(out)
	return out
}

func setDiff(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}

// Pairs counts vignette–row pairs.
func Pairs(cs []Case) int {
	n := 0
	for _, c := range cs {
		n += len(c.RowIDs)
	}
	return n
}
