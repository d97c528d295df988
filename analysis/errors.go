package analysis

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/reference"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
	"github.com/executablekg/execkg/vignettes"
)

// Error categories, each the first step that explains an error.
const (
	// CatCertainty: step (v) explains it: an FP that the consistency check
	// (certainty, negation, qualifier) would block, or an FN whose rule
	// fires once step (v)'s rejections are ignored.
	CatCertainty = "certainty-or-qualifier"
	// CatClosedWorld: an FP that fired only because an ABSENT condition
	// without any evidence counted as true (closed world), while the
	// reference leaves an unmentioned finding unknown.
	CatClosedWorld = "closed-world-absence"
	// CatStated: an FP whose every firing condition is stated in the
	// vignette (an intended node, or the condition's wording appears in
	// the question) though the row is not in the reference: the reference
	// is stricter about concepts than the words suggest.
	CatStated = "stated-not-in-reference"
	// CatGrounding: step (ii): a wrong (near-miss) anchor supported an FP,
	// or no anchor of a finding that states a needed concept had its key.
	CatGrounding = "near-miss-grounding"
	// CatExtraction: step (i): an FN whose needed clause no finding covers,
	// or an FP supported by a finding that is not in the question.
	CatExtraction = "extraction"
	// CatNormalisation: step (iv): the right concept was found but its
	// value or unit was read differently from what the vignette states.
	CatNormalisation = "normalisation"
	// CatEvaluation: everything upstream matched, yet the rule's outcome
	// differs (expansion or evaluation).
	CatEvaluation = "evaluation"
	// CatFailed: the case failed or has no prediction line.
	CatFailed = "case-failed"
	// CatNoTrace: the result carries no trace to read.
	CatNoTrace = "no-trace"
)

// ErrorCategories lists the categories in table order.
var ErrorCategories = []string{CatCertainty, CatClosedWorld, CatStated, CatGrounding, CatExtraction, CatNormalisation, CatEvaluation, CatFailed, CatNoTrace}

// ErrorRow is one line of the error CSV.
type ErrorRow struct {
	CaseID   string `json:"case_id"`
	RowID    string `json:"row_id"`
	Kind     string `json:"kind"` // FP or FN
	Category string `json:"category"`
	Detail   string `json:"detail"`
}

// Analyzer assigns errors to steps; build it once per pack.
type Analyzer struct {
	Index *PackIndex
	// Checks is the step (v) configuration used to decide whether a false
	// positive would have been blocked (default: consistency.DefaultChecks).
	Checks consistency.Checks
	// StepV is the engine's own step (v) for a stored result
	// (engine.Program.StepV), so the analysis judges as a run does.
	StepV StepVer
}

// StepVer gives step (v) as a run applies it to a stored result
// (engine.Program satisfies it).
type StepVer interface {
	StepV(res *engine.Result, checks consistency.Checks) func(eval.Cond, eval.Evidence) consistency.Verdict
}

// NewAnalyzer returns an analyzer with the default step (v) checks,
// judging with the engine's step (v).
func NewAnalyzer(ix *PackIndex, sv StepVer) *Analyzer {
	return &Analyzer{Index: ix, Checks: consistency.DefaultChecks, StepV: sv}
}

// Analyze lists every FP and FN pair of one arm with its category, in
// vignette order, then FPs before FNs, then row order. Results are matched
// to vignettes by case id; gold gives each vignette's reference rows.
func (a *Analyzer) Analyze(vs []vignettes.Vignette, gold []GoldCase, results []engine.Result) []ErrorRow {
	byCase := map[string]*engine.Result{}
	for i := range results {
		byCase[results[i].CaseID] = &results[i]
	}
	ref := map[string][]string{}
	for _, g := range gold {
		ref[g.CaseID] = g.RowIDs
	}
	var out []ErrorRow
	for i := range vs {
		v := &vs[i]
		out = append(out, a.analyzeCase(v, ref[v.CaseID], byCase[v.CaseID])...)
	}
	return out
}

func (a *Analyzer) analyzeCase(v *vignettes.Vignette, refRows []string, res *engine.Result) []ErrorRow {
	refSet := set(refRows)
	var pred []string
	if res != nil && res.Error == "" {
		pred = uniqueSorted(res.PredictedRowIDs)
	}
	predSet := set(pred)
	var out []ErrorRow
	for _, r := range pred {
		if !refSet[r] {
			cat, why := a.falsePositive(v, res, r)
			out = append(out, ErrorRow{CaseID: v.CaseID, RowID: r, Kind: "FP", Category: cat, Detail: why})
		}
	}
	for _, r := range uniqueSorted(refRows) {
		if predSet[r] {
			continue
		}
		var cat, why string
		switch {
		case res == nil:
			cat, why = CatFailed, "no prediction for this case"
		case res.Error != "":
			cat, why = CatFailed, "case failed: "+res.Error
		default:
			cat, why = a.falseNegative(v, res, r)
		}
		out = append(out, ErrorRow{CaseID: v.CaseID, RowID: r, Kind: "FN", Category: cat, Detail: why})
	}
	return out
}

// caseView is what the analysis reads from one vignette and its result.
type caseView struct {
	v        *vignettes.Vignette
	res      *engine.Result
	intended map[string]vignettes.Node
	findings map[string]engine.Finding
	anchors  map[string][]engine.AnchorInfo
	rejected map[[2]string]engine.Rejection
}

func newView(v *vignettes.Vignette, res *engine.Result) *caseView {
	cv := &caseView{v: v, res: res, intended: map[string]vignettes.Node{}, findings: map[string]engine.Finding{},
		anchors: map[string][]engine.AnchorInfo{}, rejected: map[[2]string]engine.Rejection{}}
	for _, n := range v.Intended {
		cv.intended[n.ConceptKey] = n
	}
	for _, f := range res.Findings {
		cv.findings[f.ID] = f
	}
	if res.Trace != nil {
		for _, fa := range res.Trace.Anchors {
			cv.anchors[fa.FindingID] = fa.Anchors
		}
		for _, rj := range res.Trace.Rejected {
			cv.rejected[[2]string{rj.DecisionID, rj.FindingID}] = rj
		}
	}
	return cv
}

// firedRule returns the first traced rule of row that fired.
func firedRule(res *engine.Result, row string) *engine.RuleTrace {
	if res.Trace == nil {
		return nil
	}
	for i := range res.Trace.Rules {
		rt := &res.Trace.Rules[i]
		if rt.RowID == row && rt.Truth == eval.True.String() {
			return rt
		}
	}
	return nil
}

func (a *Analyzer) falsePositive(v *vignettes.Vignette, res *engine.Result, row string) (string, string) {
	if res.Trace == nil {
		return CatNoTrace, "result has no trace"
	}
	cv := newView(v, res)
	rt := firedRule(res, row)
	if rt == nil {
		return CatNoTrace, "predicted row has no fired rule in the trace"
	}
	var firing []engine.FiredCond
	for _, c := range rt.Conditions {
		if c.Truth == eval.True.String() {
			firing = append(firing, c)
		}
	}

	// Step (v): would the consistency check have blocked it?
	if why, blocked := a.wouldBlock(cv, rt); blocked {
		return CatCertainty, why
	}
	// Judge every firing condition on its own, then report the first
	// step in the order: closed world, stated, extraction, grounding,
	// normalisation.
	var closed, extr, ground, norm []verdict
	allStated, worded := true, ""
	for _, c := range firing {
		key := a.key(c)
		n, stated := cv.intended[key]
		if rules.NormalizeOperator(c.Operator) == rules.OpAbsent && len(c.Evidence) == 0 {
			if !stated {
				closed = append(closed, verdict{CatClosedWorld, fmt.Sprintf("%s absent only because the vignette does not mention it (closed world)", c.Concept)})
				allStated = false
			}
			continue
		}
		if !stated {
			if w := a.wordedIn(c.DecisionID, v.Question); w != "" {
				worded = w
			} else {
				allStated = false
			}
		}
		// The evidence that made it true, judged item by item: one good
		// item is enough for the condition.
		var bad *verdict
		good := false
		for _, e := range c.Evidence {
			f, known := cv.findings[e.ID]
			switch {
			case known && !inQuestion(v.Question, f):
				bad = pick(bad, verdict{CatExtraction, fmt.Sprintf("finding %q (supports %s) is not in the question", f.Text, c.Concept)})
			case !stated:
				bad = pick(bad, verdict{CatGrounding, fmt.Sprintf("finding %q grounded to %s (rank %d), which the vignette does not state",
					f.Text, c.Concept, cv.rank(e.ID, e.ConceptKey))})
			case !covers(v.Question, f, n.Text, strings.Index(v.Question, n.Text)):
				bad = pick(bad, verdict{CatGrounding, fmt.Sprintf("finding %q grounded to %s (rank %d), which the vignette states elsewhere (%q)",
					f.Text, c.Concept, cv.rank(e.ID, e.ConceptKey), n.Text)})
			case n.Value != nil && valueDiffers(n, e, c.Concept) != "":
				bad = pick(bad, verdict{CatNormalisation, valueDiffers(n, e, c.Concept)})
			case n.Value == nil && e.Present != n.Present:
				bad = pick(bad, verdict{CatNormalisation, fmt.Sprintf("%q read as %s, the vignette states it %s", f.Text, polarity(e.Present), polarity(n.Present))})
			default:
				good = true
			}
		}
		if good || bad == nil {
			continue
		}
		if stated {
			allStated = false
		}
		switch bad.cat {
		case CatExtraction:
			extr = append(extr, *bad)
		case CatGrounding:
			ground = append(ground, *bad)
		default:
			norm = append(norm, *bad)
		}
	}
	switch {
	case len(closed) > 0:
		return closed[0].cat, closed[0].why
	case allStated && worded != "":
		return CatStated, fmt.Sprintf("every firing condition is stated; %q appears in the question but is not an intended node", worded)
	case len(extr) > 0:
		return extr[0].cat, extr[0].why
	case len(ground) > 0:
		return ground[0].cat, ground[0].why
	case len(norm) > 0:
		return norm[0].cat, norm[0].why
	}
	return CatEvaluation, fmt.Sprintf("rule %s fired on the stated findings, but the reference does not hold it", rt.RuleID)
}

// pick keeps the earlier-step verdict of two (extraction before
// grounding before normalisation).
func pick(cur *verdict, v verdict) *verdict {
	rank := map[string]int{CatExtraction: 0, CatGrounding: 1, CatNormalisation: 2}
	if cur == nil || rank[v.cat] < rank[cur.cat] {
		return &v
	}
	return cur
}

type verdict struct{ cat, why string }

func polarity(present bool) string {
	if present {
		return "present"
	}
	return "absent"
}

// wouldBlock re-evaluates a fired rule with step (v) applied to every
// evidence item (on top of the rejections already recorded); blocked when
// it no longer fires.
func (a *Analyzer) wouldBlock(cv *caseView, rt *engine.RuleTrace) (string, bool) {
	rule := a.Index.RuleByID[rt.RuleID]
	if rule == nil || cv.res.Trace == nil || a.StepV == nil {
		return "", false
	}
	mention := map[string]string{}
	for _, f := range cv.res.Findings {
		mention[f.ID] = f.Text
	}
	judge := a.StepV.StepV(cv.res, a.Checks)
	var ev []eval.Evidence
	for _, it := range cv.res.Evidence {
		ev = append(ev, EvalEvidence(it))
	}
	var first string
	opt := eval.Options{ClosedWorld: cv.res.Trace.ClosedWorld, Admit: func(c eval.Cond, e eval.Evidence) bool {
		if _, rej := cv.rejected[[2]string{c.DecisionID, e.ID}]; rej {
			return false
		}
		vd := judge(c, e)
		if !vd.Pass && first == "" {
			first = fmt.Sprintf("step (v) %s check blocks %q for %s: %s", vd.Check, mention[e.ID], c.Concept, vd.Reason)
		}
		return vd.Pass
	}}
	if eval.EvaluateRule(*rule, ev, opt).Fired() {
		return "", false
	}
	return first, first != ""
}

func (a *Analyzer) falseNegative(v *vignettes.Vignette, res *engine.Result, row string) (string, string) {
	cv := newView(v, res)
	// The reference's own evaluation says which conditions hold.
	var refRule *eval.RuleResult
	ev := intendedEvidence(v)
	for _, r := range a.Index.RulesByRow[row] {
		rr := eval.EvaluateRule(*r, ev, eval.Options{})
		if rr.Fired() {
			refRule = &rr
			break
		}
	}
	if refRule == nil {
		return CatEvaluation, "the reference holds this row but no rule of the current pack holds on the intended nodes; regenerate the reference"
	}
	if res.Trace == nil {
		return CatNoTrace, "result has no trace"
	}
	var rt *engine.RuleTrace
	for i := range res.Trace.Rules {
		if res.Trace.Rules[i].RuleID == refRule.RuleID {
			rt = &res.Trace.Rules[i]
		}
	}
	// Step (v): the rule would fire without the recorded rejections.
	if rt != nil && len(res.Trace.Rejected) > 0 {
		var evs []eval.Evidence
		for _, it := range res.Evidence {
			evs = append(evs, EvalEvidence(it))
		}
		if eval.EvaluateRule(*a.Index.RuleByID[refRule.RuleID], evs, eval.Options{ClosedWorld: res.Trace.ClosedWorld}).Fired() {
			for _, c := range rt.Conditions {
				for _, rj := range res.Trace.Rejected {
					if rj.DecisionID == c.DecisionID {
						return CatCertainty, fmt.Sprintf("step (v) %s check rejected finding %s for %s: %s", rj.Check, rj.FindingID, c.Concept, rj.Reason)
					}
				}
			}
			return CatCertainty, "the rule fires once step (v) rejections are ignored"
		}
	}
	// Per needed condition, the earliest step that fails it.
	pipeTruth := map[string]engine.FiredCond{}
	if rt != nil {
		for _, c := range rt.Conditions {
			pipeTruth[c.DecisionID] = c
		}
	}
	best, bestWhy := "", ""
	order := map[string]int{CatExtraction: 0, CatGrounding: 1, CatNormalisation: 2, CatEvaluation: 3}
	for _, c := range neededConditions(*refRule) {
		if pc, ok := pipeTruth[c.DecisionID]; ok && pc.Truth == eval.True.String() {
			continue
		}
		cat, why := a.conditionFailure(cv, c, pipeTruth[c.DecisionID], rt != nil)
		if best == "" || order[cat] < order[best] {
			best, bestWhy = cat, why
		}
	}
	if best == "" {
		return CatEvaluation, fmt.Sprintf("every needed condition of %s holds in the trace, yet the row was not predicted", refRule.RuleID)
	}
	return best, bestWhy
}

// neededConditions lists the conditions that made a reference rule true:
// every true condition (in an OR group, any true member would do).
func neededConditions(rr eval.RuleResult) []eval.ConditionResult {
	var out []eval.ConditionResult
	for _, c := range rr.Conditions {
		if c.Truth == eval.True {
			out = append(out, c)
		}
	}
	return out
}

// conditionFailure explains why a needed condition is not true in the run.
func (a *Analyzer) conditionFailure(cv *caseView, c eval.ConditionResult, pc engine.FiredCond, retrieved bool) (string, string) {
	n := cv.intended[c.ConceptKey]
	start := strings.Index(cv.v.Question, n.Text)
	// Findings covering the node's clause.
	var cover []engine.Finding
	for _, f := range cv.res.Findings {
		if covers(cv.v.Question, f, n.Text, start) {
			cover = append(cover, f)
		}
	}
	if len(cover) == 0 {
		return CatExtraction, fmt.Sprintf("no finding covers %q (%s)", n.Text, c.Concept)
	}
	anchored := false
	var seen []string
	for _, f := range cover {
		for _, an := range cv.anchors[f.ID] {
			seen = append(seen, an.Concept)
			if an.ConceptKey == c.ConceptKey {
				anchored = true
			}
		}
	}
	if !anchored {
		return CatGrounding, fmt.Sprintf("finding %q has anchors [%s], none for %s", cover[0].Text, strings.Join(seen, "; "), c.Concept)
	}
	var matched []engine.EvidenceItem
	for _, it := range cv.res.Evidence {
		if it.ConceptKey == c.ConceptKey {
			matched = append(matched, it)
		}
	}
	if len(matched) == 0 {
		return CatNormalisation, fmt.Sprintf("anchor for %s found, but step (iv) gave no evidence for it", c.Concept)
	}
	if n.Value != nil {
		for _, it := range matched {
			if why := valueDiffers(n, it, c.Concept); why != "" {
				return CatNormalisation, why
			}
		}
		if pc.Reason != "" && strings.Contains(pc.Reason, "not comparable") {
			return CatNormalisation, fmt.Sprintf("%s: %s", c.Concept, pc.Reason)
		}
	}
	if !n.Present && rules.NormalizeOperator(c.Operator) == rules.OpAbsent {
		for _, it := range matched {
			if it.Present {
				return CatNormalisation, fmt.Sprintf("%q is negated in the vignette but its evidence says present", n.Text)
			}
		}
	}
	if !retrieved {
		return CatEvaluation, fmt.Sprintf("an anchor for %s was found but the rule was not retrieved (expansion)", c.Concept)
	}
	reason := pc.Reason
	if reason == "" {
		reason = "not evaluated"
	}
	return CatEvaluation, fmt.Sprintf("%s evaluated %s: %s", c.Concept, orUnknown(pc.Truth), reason)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// valueDiffers compares an evidence value with the intended one, both in
// the intended unit; "" when they agree.
func valueDiffers(n vignettes.Node, it engine.EvidenceItem, concept string) string {
	if it.Value == nil {
		return fmt.Sprintf("%q: evidence for %s has no value (vignette states %g %s)", it.Text, concept, *n.Value, n.Unit)
	}
	v, err := units.Convert(*it.Value, it.Unit, n.Unit, concept)
	if err != nil {
		return fmt.Sprintf("%q: unit %q of the evidence does not convert to the stated %q", it.Text, it.Unit, n.Unit)
	}
	if d := v - *n.Value; d > 1e-6*max(1, abs(*n.Value)) || -d > 1e-6*max(1, abs(*n.Value)) {
		return fmt.Sprintf("%q read as %g %s, vignette states %g %s", it.Text, *it.Value, it.Unit, *n.Value, n.Unit)
	}
	cmp := it.Comparator
	if cmp == "" {
		cmp = rules.OpEQ
	}
	if rules.NormalizeOperator(cmp) != rules.NormalizeOperator(n.Operator) {
		return fmt.Sprintf("%q read with comparator %s, vignette states %s", it.Text, cmp, n.Operator)
	}
	return ""
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func (cv *caseView) rank(findingID, key string) int {
	for i, an := range cv.anchors[findingID] {
		if an.ConceptKey == key {
			if an.Rank > 0 {
				return an.Rank
			}
			return i + 1
		}
	}
	return 0
}

// key returns the concept key of a traced condition, from the pack.
func (a *Analyzer) key(c engine.FiredCond) string {
	if pc, ok := a.Index.Cond[c.DecisionID]; ok {
		return pc.ConceptKey
	}
	return "name:" + rules.NormalizeName(c.Concept)
}

// wordedIn returns the condition's wording or concept name when it occurs
// in the question as whole words (case-insensitive), else "".
func (a *Analyzer) wordedIn(decisionID, question string) string {
	c, ok := a.Index.Cond[decisionID]
	if !ok {
		return ""
	}
	q := " " + normWords(question) + " "
	for _, w := range []string{c.Wording, c.Concept} {
		if nw := normWords(w); nw != "" && strings.Contains(q, " "+nw+" ") {
			return w
		}
	}
	return ""
}

// normWords lower-cases and keeps letters, digits and inner hyphens as
// words, so punctuation never decides a match.
func normWords(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '/' || r > 127)
	})
	return strings.Join(f, " ")
}

// inQuestion reports whether a finding was located in the question, or
// its text occurs in it.
func inQuestion(q string, f engine.Finding) bool {
	if f.Start >= 0 && f.End > f.Start && f.End <= len(q) {
		return true
	}
	return strings.Contains(strings.ToLower(q), strings.ToLower(f.Text))
}

// covers reports whether finding f covers the clause text (at start in
// the question): overlapping offsets, or one text contains the other.
func covers(q string, f engine.Finding, text string, start int) bool {
	if start >= 0 && f.Start >= 0 && f.End > f.Start {
		end := start + len(text)
		if f.Start < end && start < f.End {
			return true
		}
	}
	ft, nt := strings.ToLower(f.Text), strings.ToLower(text)
	return ft != "" && (strings.Contains(ft, nt) || strings.Contains(nt, ft))
}

// intendedEvidence builds evaluator evidence from a vignette's nodes, as
// the reference does.
func intendedEvidence(v *vignettes.Vignette) []eval.Evidence { return reference.Evidence(*v, nil) }

// CountErrors tallies error rows by kind and category.
func CountErrors(rows []ErrorRow) map[string]map[string]int {
	out := map[string]map[string]int{"FP": {}, "FN": {}}
	for _, r := range rows {
		out[r.Kind][r.Category]++
	}
	return out
}

// ErrorCSV renders the rows as CSV with a header line.
func ErrorCSV(rows []ErrorRow) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write([]string{"case_id", "row_id", "kind", "category", "detail"}); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if err := w.Write([]string{r.CaseID, r.RowID, r.Kind, r.Category, r.Detail}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}
