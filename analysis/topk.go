package analysis

import (
	"fmt"
	"time"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/eval"
)

// RescoreStats summarises a re-scoring run.
type RescoreStats struct {
	K int `json:"k"`
	// Cases re-scored, and those whose trace could not be used.
	Cases    int `json:"cases"`
	Untraced int `json:"untraced"`
	// Unattributed counts evidence items whose (finding, concept) matches
	// no anchor of the trace, so their rank is unknown; they are kept.
	Unattributed int `json:"unattributed_evidence"`
	// SelfCheckMismatches counts cases where re-scoring at the trace's own
	// top-k did not reproduce predicted_row_ids (0 when the trace is
	// complete); filled by RescoreAll.
	SelfCheckMismatches int      `json:"self_check_mismatches"`
	MismatchCases       []string `json:"mismatch_cases,omitempty"`
}

// Rescore re-evaluates a stored, traced result as if only the k best
// anchors of every finding had been kept, without rerunning anything:
//
//   - evidence from an anchor ranked below k is dropped (an evidence item
//     belongs to the anchor of its finding with the same concept key);
//   - a retrieved rule stays retrieved only if it tests the concept of a
//     kept anchor (step iii expands anchors to every rule on their concept);
//   - the kept rules are evaluated again with the trace's world assumption,
//     and evidence step (v) rejected for a condition stays rejected.
//
// A failed case (Error set) is returned unchanged. k above the trace's own
// top-k is an error: the dropped anchors were never stored.
func Rescore(ix *PackIndex, res engine.Result, k int) (engine.Result, int, error) {
	if res.Error != "" {
		return res, 0, nil
	}
	tr := res.Trace
	if tr == nil {
		return res, 0, fmt.Errorf("case %s has no trace; rerun with the trace on (execkg batch --debug / engine.WithTrace)", res.CaseID)
	}
	if k < 1 {
		return res, 0, fmt.Errorf("top-k must be at least 1, got %d", k)
	}
	if tr.TopK > 0 && k > tr.TopK {
		return res, 0, fmt.Errorf("case %s: trace holds %d anchor(s) per finding, cannot re-score with %d", res.CaseID, tr.TopK, k)
	}
	// Rank of each (finding, concept key) anchor.
	rank := map[[2]string]int{}
	kept := map[string]bool{}
	out := res
	ntr := *tr
	ntr.TopK = k
	ntr.Anchors = nil
	for _, fa := range tr.Anchors {
		nfa := fa
		nfa.Anchors = nil
		for i, a := range fa.Anchors {
			r := a.Rank
			if r <= 0 {
				r = i + 1
			}
			rank[[2]string{fa.FindingID, a.ConceptKey}] = r
			if r <= k {
				kept[a.ConceptKey] = true
				nfa.Anchors = append(nfa.Anchors, a)
			}
		}
		ntr.Anchors = append(ntr.Anchors, nfa)
	}
	unattributed := 0
	var ev []eval.Evidence
	out.Evidence = nil
	for _, it := range res.Evidence {
		if it.Via != "" {
			continue // derived from a stated item: derived again below
		}
		r, ok := rank[[2]string{it.ID, it.ConceptKey}]
		if !ok {
			unattributed++
		} else if r > k {
			continue
		}
		out.Evidence = append(out.Evidence, it)
		ev = append(ev, EvalEvidence(it))
	}
	rejected := map[[2]string]bool{}
	for _, rj := range tr.Rejected {
		rejected[[2]string{rj.DecisionID, rj.FindingID}] = true
	}
	// Definitions read the same members as the run did: no alternative
	// reading, inferences from no co-reading either, minus what step (v)
	// refused (as engine.Ask).
	member := func(c eval.Cond, e eval.Evidence) bool { return !rejected[[2]string{c.DecisionID, e.ID}] }
	best := func(e eval.Evidence) bool { return !e.Secondary }
	premise := func(e eval.Evidence) bool { return !e.Secondary && !e.CoReading }
	var date time.Time
	if d, err := time.Parse("2006-01-02", res.CaseDate); err == nil {
		// Windows count from the date the run used (noon, as engine.AskOn).
		date = d.Add(12 * time.Hour)
	}
	for _, d := range eval.DeriveOpt(ev, ix.Pack.Hierarchy, ix.NameOfKey, ix.KeyOfName, eval.Options{Admit: member, Member: best, Premise: premise, CaseDate: date}) {
		ev = append(ev, d)
		kept[d.ConceptKey] = true
		it := engine.EvidenceItem{ID: d.ID, Text: d.Text, Concept: d.Concept, ConceptKey: d.ConceptKey, Present: d.Present, Via: d.Via}
		out.Evidence = append(out.Evidence, it)
	}
	opt := eval.Options{ClosedWorld: tr.ClosedWorld, Admit: func(c eval.Cond, e eval.Evidence) bool {
		// As engine.Ask: an alternative reading is no fact for any condition.
		return best(e) && !rejected[[2]string{c.DecisionID, e.ID}]
	}}
	opt.CaseDate = date
	out.PredictedRowIDs = []string{}
	out.RetrievedRules = []string{}
	out.RetrievedRowIDs = []string{}
	out.Recommendations = nil
	out.NearMisses = nil
	ntr.Rules = nil
	rowSeen, fired := map[string]bool{}, map[string]bool{}
	for _, id := range res.RetrievedRules {
		rule := ix.RuleByID[id]
		if rule == nil {
			return res, 0, fmt.Errorf("case %s: retrieved rule %s is not in the pack; re-score against the pack the run used", res.CaseID, id)
		}
		reach := false
		for _, key := range ix.Keys(id) {
			reach = reach || kept[key]
		}
		if !reach {
			continue
		}
		out.RetrievedRules = append(out.RetrievedRules, id)
		if !rowSeen[rule.RowID] {
			rowSeen[rule.RowID] = true
			out.RetrievedRowIDs = append(out.RetrievedRowIDs, rule.RowID)
		}
		rr := eval.EvaluateRule(*rule, ev, opt)
		ntr.Rules = append(ntr.Rules, RuleTraceOf(rr))
		if rr.Fired() && !fired[rule.RowID] {
			fired[rule.RowID] = true
			out.PredictedRowIDs = append(out.PredictedRowIDs, rule.RowID)
		}
	}
	SortRowIDs(out.PredictedRowIDs)
	// Rejections of evidence that is gone no longer apply.
	ntr.Rejected = nil
	keptFinding := map[[2]string]bool{}
	for _, e := range ev {
		keptFinding[[2]string{e.ID, e.ConceptKey}] = true
	}
	for _, rj := range tr.Rejected {
		if c, ok := ix.Cond[rj.DecisionID]; ok && keptFinding[[2]string{rj.FindingID, c.ConceptKey}] {
			ntr.Rejected = append(ntr.Rejected, rj)
		}
	}
	out.Trace = &ntr
	return out, unattributed, nil
}

// RescoreAll re-scores every result with k and checks, on the side, that
// re-scoring at each trace's own top-k reproduces its predicted rows.
func RescoreAll(ix *PackIndex, results []engine.Result, k int) ([]engine.Result, RescoreStats, error) {
	st := RescoreStats{K: k}
	out := make([]engine.Result, len(results))
	for i, r := range results {
		if r.Error == "" && r.Trace == nil {
			st.Untraced++
		}
		nr, un, err := Rescore(ix, r, k)
		if err != nil {
			return nil, st, err
		}
		out[i] = nr
		st.Cases++
		st.Unattributed += un
		if r.Trace != nil && r.Error == "" {
			self, _, err := Rescore(ix, r, max(r.Trace.TopK, 1))
			if err != nil {
				return nil, st, err
			}
			if !sameRows(self.PredictedRowIDs, r.PredictedRowIDs) {
				st.SelfCheckMismatches++
				st.MismatchCases = append(st.MismatchCases, r.CaseID)
			}
		}
	}
	return out, st, nil
}

func sameRows(a, b []string) bool {
	x, y := uniqueSorted(a), uniqueSorted(b)
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// EvalEvidence converts a stored evidence item back to evaluator evidence;
// its ID is the finding id, as in the pipeline, so step (v) rejections
// (decision id, finding id) apply.
func EvalEvidence(it engine.EvidenceItem) eval.Evidence {
	e := eval.Evidence{ID: it.ID, ConceptKey: it.ConceptKey, Concept: it.Concept, Text: it.Text,
		Present: it.Present, Unit: it.Unit, Comparator: it.Comparator, When: it.When, Secondary: it.Secondary, CoReading: it.CoReading}
	if it.Value != nil {
		v := *it.Value
		e.Value = &v
	}
	return e
}

// RuleTraceOf renders an evaluation the way the pipeline's trace does.
func RuleTraceOf(rr eval.RuleResult) engine.RuleTrace {
	t := engine.RuleTrace{RuleID: rr.RuleID, RowID: rr.RowID, Truth: rr.Truth.String(), Missing: rr.Missing}
	for _, c := range rr.Conditions {
		fc := engine.FiredCond{DecisionID: c.DecisionID, Concept: c.Concept, Operator: c.Operator, Threshold: c.Threshold,
			Unit: c.Unit, Truth: c.Truth.String(), Reason: c.Reason}
		for _, e := range c.Evidence {
			fc.Evidence = append(fc.Evidence, engine.EvidenceItem{ID: e.ID, Text: e.Text, Concept: e.Concept,
				ConceptKey: e.ConceptKey, Present: e.Present, Value: e.Value, Unit: e.Unit, Comparator: e.Comparator})
		}
		t.Conditions = append(t.Conditions, fc)
	}
	return t
}
