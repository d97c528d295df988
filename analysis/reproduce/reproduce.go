// Package reproduce runs the whole offline evaluation: it validates the
// vignettes, recomputes and checks the reference, runs the arms, scores
// them on identical units and gathers every number into one document
// (paper_numbers.json), the results table and the error analysis.
package reproduce

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/reference"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/vignettes"
)

// Config is what one reproduction reads.
type Config struct {
	Pack      *rules.Pack
	Vignettes []vignettes.Vignette
	// Excluded is the shipped exclusion list (nil: not compared).
	Excluded []vignettes.Exclusion
	// Reference and Merged are the stored references; Merged is nil when
	// no concepts are merged.
	Reference    []reference.Case
	Merged       []reference.Case
	Equivalences *reference.Equivalences
	Candidates   []reference.Candidate
	// Ours is the system under test; Others are compared with it (the
	// first of them is "the baseline" of the McNemar column).
	Ours   analysis.Arm
	Others []analysis.Arm
	// TopK lists the anchors-per-finding settings to re-score Ours at,
	// from its stored trace.
	TopK []int
	// SkipChecks scores against the given reference without validating
	// the vignettes or recomputing the reference (for a reference file
	// from elsewhere).
	SkipChecks bool
}

// Output is everything a reproduction produced.
type Output struct {
	Numbers  Numbers
	Scores   []*analysis.ArmScore
	Merged   []*analysis.ArmScore
	Results  map[string][]engine.Result
	Errors   []analysis.ErrorRow
	Coverage *analysis.Coverage
	Timings  map[string]time.Duration
}

// CheckError lists failed consistency checks (vignettes, reference).
type CheckError struct{ Problems []string }

func (e *CheckError) Error() string {
	const show = 12
	p := e.Problems
	more := ""
	if len(p) > show {
		more = fmt.Sprintf("\n  … and %d more", len(p)-show)
		p = p[:show]
	}
	return fmt.Sprintf("%d check(s) failed:\n  %s%s", len(e.Problems), strings.Join(p, "\n  "), more)
}

// Check validates the vignettes and recomputes both references; nil when
// everything agrees with the stored files.
func Check(cfg Config) (*vignettes.Report, error) {
	rep := vignettes.Validate(cfg.Pack, cfg.Vignettes, cfg.Excluded)
	var problems []string
	for _, p := range rep.Problems {
		problems = append(problems, "vignettes: "+p.Error())
	}
	fresh := reference.Compute(cfg.Pack, cfg.Vignettes, nil)
	for _, d := range reference.Diff(cfg.Reference, fresh) {
		problems = append(problems, "reference: "+d+" (run `execkg vignettes generate`)")
	}
	m, err := reference.MergeMap(cfg.Pack, cfg.Equivalences)
	if err != nil {
		problems = append(problems, "equivalences: "+err.Error())
	} else {
		switch {
		case len(m) == 0 && cfg.Merged != nil:
			problems = append(problems, "merged reference: shipped, but no concepts are merged now (run `execkg vignettes generate`)")
		case len(m) > 0 && cfg.Merged == nil:
			problems = append(problems, "merged reference: concepts are merged but no merged reference is shipped (run `execkg vignettes generate`)")
		case len(m) > 0:
			for _, d := range reference.Diff(cfg.Merged, reference.Compute(cfg.Pack, cfg.Vignettes, m)) {
				problems = append(problems, "merged reference: "+d+" (run `execkg vignettes generate`)")
			}
		}
	}
	if len(problems) > 0 {
		return rep, &CheckError{Problems: problems}
	}
	return rep, nil
}

// Gold pairs the stored reference with the vignettes' categories.
func Gold(vs []vignettes.Vignette, ref []reference.Case) ([]analysis.GoldCase, error) {
	rows := map[string][]string{}
	for _, c := range ref {
		rows[c.CaseID] = c.RowIDs
	}
	out := make([]analysis.GoldCase, 0, len(vs))
	for _, v := range vs {
		r, ok := rows[v.CaseID]
		if !ok {
			return nil, fmt.Errorf("reference has no line for %s (run `execkg vignettes generate`)", v.CaseID)
		}
		out = append(out, analysis.GoldCase{CaseID: v.CaseID, Category: v.Category, RowIDs: r})
	}
	return out, nil
}

// Run checks, runs every arm and scores it. A failed check stops the run
// before any arm is asked.
func Run(ctx context.Context, cfg Config) (*Output, error) {
	out := &Output{Results: map[string][]engine.Result{}, Timings: map[string]time.Duration{}}
	t0 := time.Now()
	var rep *vignettes.Report
	if cfg.SkipChecks {
		rep = vignettes.Validate(cfg.Pack, cfg.Vignettes, cfg.Excluded)
	} else {
		var err error
		if rep, err = Check(cfg); err != nil {
			return nil, err
		}
	}
	out.Timings["checks"] = time.Since(t0)
	gold, err := Gold(cfg.Vignettes, cfg.Reference)
	if err != nil {
		return nil, err
	}
	var mergedGold []analysis.GoldCase
	if cfg.Merged != nil {
		if mergedGold, err = Gold(cfg.Vignettes, cfg.Merged); err != nil {
			return nil, err
		}
	}
	arms := append([]analysis.Arm{}, cfg.Others...)
	if cfg.Ours != nil {
		arms = append([]analysis.Arm{cfg.Ours}, arms...)
	}
	if len(arms) == 0 {
		return nil, errors.New("no arm to run")
	}
	names := map[string]bool{}
	for _, a := range arms {
		if names[a.Name()] {
			return nil, fmt.Errorf("two arms are named %q; give each a distinct name", a.Name())
		}
		names[a.Name()] = true
		t := time.Now()
		res, err := a.Predict(ctx, cfg.Vignettes)
		if err != nil {
			return nil, fmt.Errorf("arm %s: %w", a.Name(), err)
		}
		out.Timings["arm "+a.Name()] = time.Since(t)
		out.Results[a.Name()] = res
		s, err := analysis.Score(a.Name(), gold, res)
		if err != nil {
			return nil, err
		}
		out.Scores = append(out.Scores, s)
		if mergedGold != nil {
			ms, err := analysis.Score(a.Name(), mergedGold, res)
			if err != nil {
				return nil, err
			}
			out.Merged = append(out.Merged, ms)
		}
	}
	ix := analysis.NewPackIndex(cfg.Pack)
	n := &out.Numbers
	n.fillInputs(cfg, rep, gold)
	for i, s := range out.Scores {
		an := armNumbers(s)
		if out.Merged != nil {
			f := out.Merged[i].F1
			an.F1Merged = &f
			an.MergedPairs = out.Merged[i].TP + out.Merged[i].FN
		}
		n.Arms = append(n.Arms, an)
	}
	if cfg.Ours != nil {
		for _, other := range out.Scores[1:] {
			n.McNemar = append(n.McNemar, analysis.PairMcNemar(out.Scores[0], other))
		}
		res := out.Results[cfg.Ours.Name()]
		traced := 0
		for _, r := range res {
			if r.Trace != nil {
				traced++
			}
		}
		n.Ours = &OursNumbers{Arm: cfg.Ours.Name(), TracedCases: traced}
		if traced > 0 {
			t := time.Now()
			// The error analysis judges with the arm's own step (v) when
			// the arm is an engine program.
			var step5 analysis.StepVer
			if aa, ok := cfg.Ours.(*analysis.AskerArm); ok {
				step5, _ = aa.Asker.(analysis.StepVer)
			}
			an := analysis.NewAnalyzer(ix, step5)
			out.Errors = an.Analyze(cfg.Vignettes, gold, res)
			n.Ours.Errors = errorNumbers(out.Errors)
			cov := analysis.ConditionCoverage(ix, res)
			out.Coverage = &cov
			n.Ours.Coverage = coverageSummary(cov)
			sv := analysis.StepV(ix, gold, res)
			n.Ours.StepV = &sv
			n.Ours.Retrieval = retrievalOf(cfg.Ours.Name(), res, gold)
			for _, k := range cfg.TopK {
				rescored, st, err := analysis.RescoreAll(ix, res, k)
				if err != nil {
					n.Ours.TopKNote = err.Error()
					break
				}
				s, err := analysis.Score(fmt.Sprintf("%s@top%d", cfg.Ours.Name(), k), gold, rescored)
				if err != nil {
					return nil, err
				}
				n.Ours.TopK = append(n.Ours.TopK, TopKNumbers{K: k, Score: armNumbers(s), Stats: st})
			}
			out.Timings["analysis"] = time.Since(t)
		}
	}
	for _, a := range cfg.Others {
		if r := retrievalOf(a.Name(), out.Results[a.Name()], gold); r != nil {
			n.Retrieval = append(n.Retrieval, *r)
		}
	}
	return out, nil
}

// populationConcepts are the work-up and established-disease populations;
// the reference system reported how many pairs hang on vignettes stating
// them.
var populationConcepts = []string{"suspected chronic coronary syndrome", "chronic coronary syndrome"}

func (n *Numbers) fillInputs(cfg Config, rep *vignettes.Report, gold []analysis.GoldCase) {
	st := rules.ComputeStats(cfg.Pack)
	n.Pack = PackNumbers{Tables: st.Tables, Rows: st.Rows, Rules: st.Rules, ConditionOccurrences: st.ConditionOccurrences,
		UniqueInputNodes: st.UniqueInputNodes, UniqueConcepts: st.UniqueConcepts}
	n.Vignettes = VignetteNumbers{Total: len(cfg.Vignettes), ByCategory: rep.Counts, UsableConcepts: rep.Usable,
		CoveredConcepts: rep.Covered, ExcludedConcepts: rep.ExcludedConcepts, MeanFindings: rep.MeanFindings,
		MinWords: rep.MinWords, MaxWords: rep.MaxWords, Valid: rep.OK()}
	pop := map[string]bool{}
	for _, name := range populationConcepts {
		pop[rules.NormalizeName(name)] = true
	}
	statesPop := map[string]bool{}
	for _, v := range cfg.Vignettes {
		for _, nd := range v.Intended {
			if pop[rules.NormalizeName(nd.Concept)] && nd.Present {
				statesPop[v.CaseID] = true
			}
		}
	}
	r := ReferenceNumbers{Checked: !cfg.SkipChecks, Candidates: cfg.Candidates}
	for _, g := range gold {
		r.Pairs += len(g.RowIDs)
		if len(g.RowIDs) == 0 {
			r.EmptyVignettes++
		}
		if statesPop[g.CaseID] {
			r.PopulationVignettes++
			r.PopulationPairs += len(g.RowIDs)
		}
	}
	if cfg.Merged != nil {
		p := reference.Pairs(cfg.Merged)
		r.MergedPairs = &p
	} else if cfg.Equivalences != nil {
		r.MergedNote = "no merged variant: " + cfg.Equivalences.NoneReason
	}
	n.Reference = r
}

func armNumbers(s *analysis.ArmScore) ArmNumbers {
	return ArmNumbers{Arm: s.Arm, Totals: s.Totals}
}

func errorNumbers(rows []analysis.ErrorRow) *ErrorNumbers {
	e := &ErrorNumbers{ByKind: analysis.CountErrors(rows)}
	byCase := map[string]int{}
	for _, r := range rows {
		if r.Kind == "FP" {
			e.FP++
			byCase[r.CaseID]++
		} else {
			e.FN++
		}
	}
	counts := make([]int, 0, len(byCase))
	for _, c := range byCase {
		counts = append(counts, c)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(counts)))
	top := 0
	for i := 0; i < len(counts) && i < 10; i++ {
		top += counts[i]
	}
	e.FPTop10Vignettes = top
	return e
}

func coverageSummary(c analysis.Coverage) *CoverageNumbers {
	return &CoverageNumbers{Conditions: c.Conditions, EverEvaluated: c.EverEvaluated, EverTrue: c.EverTrue, EverFalse: c.EverFalse,
		BothWays: c.BothWays, RulesEvaluated: c.RulesEvaluated, RulesFired: c.RulesFired, Rules: len(c.Rules)}
}

// retrievalOf counts, for an arm that reports retrieved rows, how many
// reference pairs its retrieval contained; nil when it reports none.
func retrievalOf(arm string, res []engine.Result, gold []analysis.GoldCase) *RetrievalNumbers {
	by := map[string]engine.Result{}
	any := false
	for _, r := range res {
		by[r.CaseID] = r
		any = any || len(r.RetrievedRowIDs) > 0
	}
	if !any {
		return nil
	}
	out := &RetrievalNumbers{Arm: arm}
	for _, g := range gold {
		got := map[string]bool{}
		r := by[g.CaseID]
		for _, id := range r.RetrievedRowIDs {
			got[id] = true
		}
		out.RetrievedRows += len(r.RetrievedRowIDs)
		out.ReferencePairs += len(g.RowIDs)
		for _, id := range g.RowIDs {
			if got[id] {
				out.ReferencePairsRetrieved++
			}
		}
		out.Budget += min(len(g.RowIDs), len(r.RetrievedRowIDs))
	}
	return out
}
