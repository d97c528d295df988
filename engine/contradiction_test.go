package engine_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/internal/jsonl"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/stretchr/testify/require"
)

// conflictPairs derives from the pack's rules which rule pairs may never
// hold together: a rule that advises against an action (a NEGATIVE row or
// an avoid intent, class III) and a rule that advises for the same action
// (POSITIVE, intent neither avoid nor stop) whose exception names what the
// first rule's conditions test, itself or through the composite the
// exception names ("CCTA unless a contraindication to CCTA", whose members
// are T8 r2's conditions). Rows on one action for other purposes (exercise
// ECG for risk assessment beside exercise ECG not for diagnosis) are no
// pair: the pack encodes no exception between them.
func conflictPairs(t testing.TB, pack *rules.Pack) map[[2]string]string {
	members := map[string][]string{} // composite → the concepts of its definition
	var walk func(e rules.Expr, out *[]string)
	walk = func(e rules.Expr, out *[]string) {
		for _, n := range []string{e.Concept, e.Measure} {
			if n != "" {
				*out = append(*out, rules.NormalizeName(n))
			}
		}
		for _, l := range [][]rules.Expr{e.AnyOf, e.AllOf, e.Of} {
			for _, m := range l {
				walk(m, out)
			}
		}
	}
	if pack.Hierarchy != nil {
		for _, c := range pack.Hierarchy.Composites {
			var ms []string
			walk(c.Expr, &ms)
			members[rules.NormalizeName(c.Concept)] = ms
		}
	}
	covers := func(concept string, tested map[string]bool) bool {
		seen := map[string]bool{}
		var rec func(n string) bool
		rec = func(n string) bool {
			if tested[n] {
				return true
			}
			if seen[n] {
				return false
			}
			seen[n] = true
			for _, m := range members[n] {
				if rec(m) {
					return true
				}
			}
			return false
		}
		return rec(concept)
	}
	type ruleSide struct {
		id, row string
		tested  map[string]bool // concepts of PRESENT and value conditions
		unless  []string
	}
	against, pro := map[string][]ruleSide{}, map[string][]ruleSide{}
	for _, r := range pack.Rules() {
		rs := ruleSide{id: r.ID, row: r.RowID, tested: map[string]bool{}}
		for _, c := range r.Rule.Conditions {
			n := rules.NormalizeName(c.Concept())
			switch rules.NormalizeOperator(c.LogicStructured.Operator) {
			case rules.OpUnless, "UNLESS_KNOWN":
				rs.unless = append(rs.unless, n)
			case rules.OpAbsent:
			default:
				rs.tested[n] = true
			}
		}
		for _, a := range r.Actions {
			x := rules.NormalizeName(a.Concept())
			dir := a.LogicStructured.Direction
			if dir == "" {
				dir = r.Row.Direction
			}
			switch intent := a.LogicStructured.Intent; {
			case dir == "NEGATIVE" || intent == "avoid":
				against[x] = append(against[x], rs)
			case dir == "POSITIVE" && intent != "stop":
				pro[x] = append(pro[x], rs)
			}
		}
	}
	pairs := map[[2]string]string{}
	for x, as := range against {
		for _, a := range as {
			for _, b := range pro[x] {
				for _, u := range b.unless {
					if covers(u, a.tested) {
						pairs[[2]string{a.id, b.id}] = x
					}
				}
			}
		}
	}
	return pairs
}

// contradictions lists the conflicting pairs (conflictPairs) of which both
// rules fired in one answer.
func contradictions(recs []engine.Recommendation, pairs map[[2]string]string) []string {
	fired := map[string]bool{}
	for _, r := range recs {
		fired[r.RuleID] = true
	}
	var out []string
	for p, x := range pairs {
		if fired[p[0]] && fired[p[1]] {
			out = append(out, fmt.Sprintf("%s: %s advises against it, %s for it", x, p[0], p[1]))
		}
	}
	sort.Strings(out)
	return out
}

// No answer advises against an action and for the same action at once
// (review2 3b: CCTA class III beside the rows that perform CCTA), over the
// dev documents, the vignettes and the planted cases of
// testdata/contradictions.jsonl, which state a contraindication the way
// documents do.
func TestNoClassIIIBesidePositiveSameAction(t *testing.T) {
	prog := program(t)
	pack, err := packs.Default()
	require.NoError(t, err)
	pairs := conflictPairs(t, pack)
	require.NotEmpty(t, pairs, "the pack encodes no class III row beside a positive row that excepts it")
	type doc struct {
		ID   string `json:"doc_id"`
		Case string `json:"case_id"`
		Text string `json:"text"`
		Q    string `json:"question"`
	}
	var all []doc
	for _, file := range []string{"testdata/contradictions.jsonl", "../vignettes/documents/dev.jsonl", "../vignettes/data/vignettes.jsonl"} {
		f, err := os.Open(file)
		require.NoError(t, err)
		ds, err := jsonl.Read[doc](file, f, jsonl.Options{}, nil)
		f.Close()
		require.NoError(t, err)
		require.NotEmpty(t, ds, file)
		all = append(all, ds...)
	}
	planted := 0
	var bad []string
	for i, d := range all {
		id, text := d.ID, d.Text
		if id == "" {
			id, text = d.Case, d.Q
		}
		planted1 := strings.HasPrefix(id, "contradiction_")
		if testing.Short() && !planted1 && i%6 != 0 {
			continue // -short (the race step): the planted cases and a sixth of the rest
		}
		if planted1 {
			planted++
		}
		res, err := prog.Ask(context.Background(), id, text)
		require.NoError(t, err, id)
		for _, c := range contradictions(res.Recommendations, pairs) {
			bad = append(bad, id+": "+c)
		}
	}
	require.Greater(t, planted, 0, "testdata/contradictions.jsonl holds no planted case")
	require.Empty(t, bad, "answers that advise against an action and for it at once; the exception of the positive row must see what the class III row's condition sees")
}

// The pairs come from the pack's data: T8 r2 (no CCTA with a
// contraindication) pairs with T8 r0 (CCTA unless a contraindication),
// and exercise ECG not for diagnosis (T5 r4) with no exercise ECG row
// that excepts nothing.
func TestConflictPairsFromPack(t *testing.T) {
	pack, err := packs.Default()
	require.NoError(t, err)
	pairs := conflictPairs(t, pack)
	id := func(table string, row int) string {
		return rules.RuleID(pack.Guideline.ID, rules.RowID(table, row), 0)
	}
	require.Contains(t, pairs, [2]string{id("table_08.json", 2), id("table_08.json", 0)})
	require.NotContains(t, pairs, [2]string{id("table_05.json", 4), id("table_05.json", 2)})
	both := []engine.Recommendation{{RuleID: id("table_08.json", 2)}, {RuleID: id("table_08.json", 0)}}
	require.Len(t, contradictions(both, pairs), 1)
	require.Empty(t, contradictions(both[:1], pairs))
}
