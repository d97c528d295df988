package analysis

import (
	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/eval"
)

// CondCoverage counts, for one condition, the vignettes in which it was
// evaluated true, false or unknown (clause coverage, as CQL measure tools
// report it).
type CondCoverage struct {
	DecisionID string `json:"decision_id"`
	Concept    string `json:"concept"`
	Operator   string `json:"operator"`
	Threshold  string `json:"threshold,omitempty"`
	Unit       string `json:"unit,omitempty"`
	True       int    `json:"true"`
	False      int    `json:"false"`
	Unknown    int    `json:"unknown"`
}

// RuleCoverage is the coverage of one rule's conditions.
type RuleCoverage struct {
	RuleID     string         `json:"rule_id"`
	RowID      string         `json:"row_id"`
	Table      string         `json:"table"`
	Evaluated  int            `json:"evaluated"`
	Fired      int            `json:"fired"`
	Conditions []CondCoverage `json:"conditions"`
}

// Coverage summarises condition coverage over one arm's traced results.
type Coverage struct {
	Rules []RuleCoverage `json:"rules"`
	// Totals over the pack's conditions.
	Conditions    int `json:"conditions"`
	EverEvaluated int `json:"ever_evaluated"`
	EverTrue      int `json:"ever_true"`
	EverFalse     int `json:"ever_false"`
	BothWays      int `json:"true_and_false"`
	// Rules never retrieved, and those that fired at least once.
	RulesEvaluated int `json:"rules_evaluated"`
	RulesFired     int `json:"rules_fired"`
	// TracedCases counts results that carried a trace.
	TracedCases int `json:"traced_cases"`
}

// ConditionCoverage reads every traced rule evaluation and counts, per
// condition of the pack, how often it was true, false or unknown. Rules
// that were never retrieved keep zero counts, so the listing covers the
// whole pack in pack order.
func ConditionCoverage(ix *PackIndex, results []engine.Result) Coverage {
	cov := Coverage{}
	pos := map[string]int{}
	cpos := map[string][2]int{}
	for i, r := range ix.Rules {
		rc := RuleCoverage{RuleID: r.ID, RowID: r.RowID, Table: ix.Table[r.RowID]}
		for j, c := range r.Conds {
			rc.Conditions = append(rc.Conditions, CondCoverage{DecisionID: c.DecisionID, Concept: c.Concept, Operator: c.Operator, Threshold: c.Threshold, Unit: c.Unit})
			cpos[c.DecisionID] = [2]int{i, j}
		}
		pos[r.ID] = i
		cov.Rules = append(cov.Rules, rc)
	}
	for _, res := range results {
		if res.Trace == nil {
			continue
		}
		cov.TracedCases++
		for _, rt := range res.Trace.Rules {
			i, ok := pos[rt.RuleID]
			if !ok {
				continue
			}
			cov.Rules[i].Evaluated++
			if rt.Truth == eval.True.String() {
				cov.Rules[i].Fired++
			}
			for _, c := range rt.Conditions {
				p, ok := cpos[c.DecisionID]
				if !ok || p[0] != i {
					continue
				}
				cc := &cov.Rules[i].Conditions[p[1]]
				switch c.Truth {
				case eval.True.String():
					cc.True++
				case eval.False.String():
					cc.False++
				default:
					cc.Unknown++
				}
			}
		}
	}
	for _, r := range cov.Rules {
		if r.Evaluated > 0 {
			cov.RulesEvaluated++
		}
		if r.Fired > 0 {
			cov.RulesFired++
		}
		for _, c := range r.Conditions {
			cov.Conditions++
			if c.True+c.False+c.Unknown > 0 {
				cov.EverEvaluated++
			}
			if c.True > 0 {
				cov.EverTrue++
			}
			if c.False > 0 {
				cov.EverFalse++
			}
			if c.True > 0 && c.False > 0 {
				cov.BothWays++
			}
		}
	}
	return cov
}

// StepVStats counts what step (v) did in a traced run: (vignette, rule)
// pairs that fire without the recorded rejections but not with them, and
// how many of those belong to the reference (a blocked correct answer).
type StepVStats struct {
	BlockedPairs          int `json:"blocked_pairs"`
	BlockedReferencePairs int `json:"blocked_reference_pairs"`
}

// StepV re-evaluates, for every traced rule that did not fire, the rule
// without step (v)'s rejections.
func StepV(ix *PackIndex, gold []GoldCase, results []engine.Result) StepVStats {
	var st StepVStats
	ref := map[string]map[string]bool{}
	for _, g := range gold {
		ref[g.CaseID] = set(g.RowIDs)
	}
	for _, res := range results {
		if res.Trace == nil || res.Error != "" || len(res.Trace.Rejected) == 0 {
			continue
		}
		var ev []eval.Evidence
		for _, it := range res.Evidence {
			ev = append(ev, EvalEvidence(it))
		}
		rejDecision := map[string]bool{}
		for _, rj := range res.Trace.Rejected {
			rejDecision[rj.DecisionID] = true
		}
		for _, rt := range res.Trace.Rules {
			if rt.Truth == eval.True.String() {
				continue
			}
			touched := false
			for _, c := range rt.Conditions {
				touched = touched || rejDecision[c.DecisionID]
			}
			r := ix.RuleByID[rt.RuleID]
			if !touched || r == nil {
				continue
			}
			if eval.EvaluateRule(*r, ev, eval.Options{ClosedWorld: res.Trace.ClosedWorld}).Fired() {
				st.BlockedPairs++
				if ref[res.CaseID][rt.RowID] {
					st.BlockedReferencePairs++
				}
			}
		}
	}
	return st
}
