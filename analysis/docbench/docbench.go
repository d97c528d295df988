// Package docbench scores the real-world document benchmark
// (vignettes/documents): must-include recall, must-not violations, clean
// and exact documents, per style and per table, and attributes every miss
// and every violation to the first pipeline stage that explains it.
//
// Documents carry no intended nodes (unlike the generated vignettes), so
// attribution reads the result's trace against the pack and the lexicon:
// which concepts the text states in words the pack knows, which findings
// mention them, which anchors and evidence they got, what step (v)
// rejected, and how each condition evaluated. It is a diagnosis for
// developers, not a second gold standard.
package docbench

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/vignettes/documents"
)

// Stages, in pipeline order: an error is attributed to the first that
// explains it.
const (
	// StageReading: the text states it but no finding or fact carries it
	// (extraction, sections, lists, or wording the reader does not know).
	StageReading = "reading"
	// StageGrounding: a finding states the concept but has no anchor or
	// no evidence for it, or a wrong anchor supported a violation.
	StageGrounding = "grounding"
	// StageDerivation: the condition's concept is one the pack derives
	// (is-a, numeric band, definition) and nothing derived it, or a
	// derived fact supported a violation.
	StageDerivation = "derivation"
	// StageConsistency: step (v) rejected the evidence a miss needed, or
	// admitted negated, uncertain or a relative's evidence for a violation.
	StageConsistency = "consistency"
	// StageEvaluation: the evidence is there but the condition evaluates
	// otherwise (values, units, time, closed world).
	StageEvaluation = "evaluation"
	// StageEncoding: the rule asks for what the label does not (a
	// workflow or manner-of-action condition, a required stated absence),
	// or fires on correctly read facts that the label holds insufficient.
	StageEncoding = "encoding"
	// StageFailed: the case failed or has no result.
	StageFailed = "case-failed"
)

// Stages lists the stages in table order.
var Stages = []string{StageReading, StageGrounding, StageDerivation, StageConsistency, StageEvaluation, StageEncoding, StageFailed}

var stageRank = func() map[string]int {
	m := map[string]int{}
	for i, s := range Stages {
		m[s] = i
	}
	return m
}()

// Knowledge is what attribution reads besides the trace.
type Knowledge struct {
	Index *analysis.PackIndex
	// Surface lists the words a text may use for a concept (its name and
	// the lexicon's synonyms).
	Surface func(concept string) []string
	// Derived reports whether the pack derives the concept from others.
	Derived func(concept string) bool

	workflow map[string]string // decision id → workflow kind
}

// NewKnowledge indexes the pack's workflow conditions once.
func NewKnowledge(ix *analysis.PackIndex, surface func(string) []string, derived func(string) bool) *Knowledge {
	k := &Knowledge{Index: ix, Surface: surface, Derived: derived, workflow: map[string]string{}}
	for _, r := range ix.Pack.Rules() {
		for _, c := range r.Conditions() {
			if c.Entity.Workflow != "" {
				k.workflow[c.DecisionID] = c.Entity.Workflow
			}
		}
	}
	return k
}

// Tally counts one group of documents.
type Tally struct {
	Docs     int `json:"docs"`
	MustHit  int `json:"must_hit"`
	Must     int `json:"must"`
	Violated int `json:"violated"`
	MustNot  int `json:"must_not"`
	// Clean documents return every must row and no must-not row; exact
	// ones return exactly the must rows.
	Clean int `json:"clean"`
	Exact int `json:"exact"`
	// MustRecall and MustNotRate repeat Recall and ViolationRate for
	// readers of the JSON (set by Run).
	MustRecall  float64 `json:"must_recall"`
	MustNotRate float64 `json:"violation_rate"`
}

func (t *Tally) fill() {
	t.MustRecall, t.MustNotRate = t.Recall(), t.ViolationRate()
}

// Recall is must-include recall (1 when nothing is required).
func (t Tally) Recall() float64 { return ratio(t.MustHit, t.Must, 1) }

// ViolationRate is the share of must-not rows returned.
func (t Tally) ViolationRate() float64 { return ratio(t.Violated, t.MustNot, 0) }

func ratio(a, b int, empty float64) float64 {
	if b == 0 {
		return empty
	}
	return float64(a) / float64(b)
}

func (t *Tally) add(o Tally) {
	t.Docs += o.Docs
	t.MustHit += o.MustHit
	t.Must += o.Must
	t.Violated += o.Violated
	t.MustNot += o.MustNot
	t.Clean += o.Clean
	t.Exact += o.Exact
}

// Group is a tally with its name (a style or a table).
type Group struct {
	Name string `json:"name"`
	Tally
}

// ErrorRow is one miss or violation with its stage.
type ErrorRow struct {
	DocID  string `json:"doc_id"`
	Style  string `json:"style"`
	RowID  string `json:"row_id"`
	Kind   string `json:"kind"` // miss | violation
	Stage  string `json:"stage"`
	Detail string `json:"detail"`
}

// Score is one split's scoring.
type Score struct {
	Split   string     `json:"split"`
	Total   Tally      `json:"total"`
	ByStyle []Group    `json:"by_style"`
	ByTable []Group    `json:"by_table"`
	Errors  []ErrorRow `json:"-"`
	// Stages counts errors per kind and stage.
	Stages map[string]map[string]int `json:"stages"`
}

// Run scores results (matched to documents by case id = doc id).
func (k *Knowledge) Run(split string, docs []documents.Document, results []engine.Result) *Score {
	byID := map[string]*engine.Result{}
	for i := range results {
		byID[results[i].CaseID] = &results[i]
	}
	s := &Score{Split: split, Stages: map[string]map[string]int{"miss": {}, "violation": {}}}
	styles := map[string]*Tally{}
	tables := map[string]*Tally{}
	tableOf := func(row string) *Tally {
		f, _, err := rules.ParseRowID(row)
		if err != nil {
			f = row
		}
		if tables[f] == nil {
			tables[f] = &Tally{}
		}
		return tables[f]
	}
	for _, d := range docs {
		res := byID[d.DocID]
		got := map[string]bool{}
		if res != nil && res.Error == "" {
			for _, r := range res.PredictedRowIDs {
				got[r] = true
			}
		}
		var t Tally
		t.Docs = 1
		must := map[string]bool{}
		for _, r := range d.Must {
			must[r] = true
			t.Must++
			tt := tableOf(r)
			tt.Must++
			if got[r] {
				t.MustHit++
				tt.MustHit++
				continue
			}
			st, why := k.miss(d, res, r)
			s.Errors = append(s.Errors, ErrorRow{d.DocID, d.Style, r, "miss", st, why})
		}
		for _, r := range d.MustNot {
			t.MustNot++
			tt := tableOf(r)
			tt.MustNot++
			if !got[r] {
				continue
			}
			t.Violated++
			tt.Violated++
			st, why := k.violation(d, res, r)
			s.Errors = append(s.Errors, ErrorRow{d.DocID, d.Style, r, "violation", st, why})
		}
		if t.MustHit == t.Must && t.Violated == 0 {
			t.Clean = 1
		}
		exact := len(got) == len(must)
		for r := range got {
			exact = exact && must[r]
		}
		if exact {
			t.Exact = 1
		}
		s.Total.add(t)
		if styles[d.Style] == nil {
			styles[d.Style] = &Tally{}
		}
		styles[d.Style].add(t)
	}
	s.Total.fill()
	for _, st := range documents.StylesOf(docs) {
		styles[st].fill()
		s.ByStyle = append(s.ByStyle, Group{st, *styles[st]})
	}
	var names []string
	for n := range tables {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tables[n].fill()
		s.ByTable = append(s.ByTable, Group{n, *tables[n]})
	}
	for _, e := range s.Errors {
		s.Stages[e.Kind][e.Stage]++
	}
	return s
}

// miss explains a must row that was not returned.
func (k *Knowledge) miss(d documents.Document, res *engine.Result, row string) (string, string) {
	switch {
	case res == nil:
		return StageFailed, "no result for this document"
	case res.Error != "":
		return StageFailed, "case failed: " + res.Error
	}
	rs := k.Index.RulesByRow[row]
	if len(rs) == 0 {
		return StageEncoding, "the pack has no rule for this row"
	}
	all := evidenceOf(res)
	rejected := rejections(res)
	closed := res.Trace != nil && res.Trace.ClosedWorld
	// Time windows count from the case's own date, as the pipeline's did.
	var date time.Time
	if res.CaseDate != "" {
		date, _ = time.Parse("2006-01-02", res.CaseDate)
	}
	// Step (v): a rule of the row fires once its rejections are ignored.
	for _, r := range rs {
		if eval.EvaluateRule(*r, all, eval.Options{ClosedWorld: closed, CaseDate: date}).Fired() {
			// Name the rejection that, let through alone, fires the rule;
			// the rule's first rejection may be a right one beside it.
			var first *engine.Rejection
			for _, c := range r.Conds {
				for i := range rejected[c.DecisionID] {
					rj := &rejected[c.DecisionID][i]
					if first == nil {
						first = rj
					}
					only := func(cd eval.Cond, e eval.Evidence) bool {
						for _, x := range rejected[cd.DecisionID] {
							if x.FindingID == e.ID && (x.DecisionID != rj.DecisionID || x.FindingID != rj.FindingID) {
								return false
							}
						}
						return true
					}
					if eval.EvaluateRule(*r, all, eval.Options{ClosedWorld: closed, Admit: only, CaseDate: date}).Fired() {
						return StageConsistency, fmt.Sprintf("step (v) %s check rejected %q for %s: %s", rj.Check, mention(res, rj.FindingID), c.Concept, rj.Reason)
					}
				}
			}
			if first != nil {
				return StageConsistency, fmt.Sprintf("step (v) rejections together stop the rule, none alone; the first: %s check rejected %q: %s", first.Check, mention(res, first.FindingID), first.Reason)
			}
			return StageConsistency, "the rule fires once step (v) rejections are ignored"
		}
	}
	// The rule closest to firing: fewest groups that are not true.
	admit := func(c eval.Cond, e eval.Evidence) bool {
		for _, rj := range rejected[c.DecisionID] {
			if rj.FindingID == e.ID {
				return false
			}
		}
		return true
	}
	var best *eval.RuleResult
	bestOpen := 0
	for _, r := range rs {
		rr := eval.EvaluateRule(*r, all, eval.Options{ClosedWorld: closed, Admit: admit, CaseDate: date})
		open := 0
		for _, g := range rr.Groups {
			if g.Truth != eval.True {
				open++
			}
		}
		if best == nil || open < bestOpen {
			best, bestOpen = &rr, open
		}
	}
	// The earliest stage among the conditions of the groups that fail.
	failing := map[string]bool{}
	for _, g := range best.Groups {
		if g.Truth != eval.True {
			failing[g.Key] = true
		}
	}
	stage, why := "", ""
	for _, c := range best.Conditions {
		if !failing[c.GroupKey] || c.Truth == eval.True {
			continue
		}
		st, w := k.condFailure(d, res, c)
		if stage == "" || stageRank[st] < stageRank[stage] {
			stage, why = st, w
		}
	}
	if stage == "" {
		return StageEvaluation, fmt.Sprintf("%s: every condition holds, yet the row was not returned", best.RuleID)
	}
	return stage, why
}

// condFailure explains why one needed condition is not true.
func (k *Knowledge) condFailure(d documents.Document, res *engine.Result, c eval.ConditionResult) (string, string) {
	if w := k.workflow[c.DecisionID]; w != "" {
		return StageEncoding, fmt.Sprintf("%s is a %s condition (manner of action, not a patient fact)", c.Concept, w)
	}
	var items []engine.EvidenceItem
	for _, it := range res.Evidence {
		if it.ConceptKey == c.ConceptKey {
			items = append(items, it)
		}
	}
	stated := k.statedIn(d.Text, c.Concept, c.Wording)
	if len(items) > 0 {
		rejected := 0
		var why string
		if res.Trace != nil {
			for _, rj := range res.Trace.Rejected {
				if rj.DecisionID == c.DecisionID {
					rejected++
					why = fmt.Sprintf("step (v) %s check rejected %q for %s: %s", rj.Check, mention(res, rj.FindingID), c.Concept, rj.Reason)
				}
			}
		}
		if rejected > 0 && rejected >= len(items) {
			return StageConsistency, why
		}
		return StageEvaluation, fmt.Sprintf("%s %s evaluated %s: %s", c.Concept, need(c), truthWord(c.Truth), c.Reason)
	}
	if rules.NormalizeOperator(c.Operator) == rules.OpAbsent && stated == "" {
		return StageEncoding, fmt.Sprintf("%s ABSENT needs a stated absence; the document does not mention it (an exception reading would not)", c.Concept)
	}
	if res.Trace != nil {
		for _, fa := range res.Trace.Anchors {
			for _, an := range fa.Anchors {
				if an.ConceptKey == c.ConceptKey {
					return StageGrounding, fmt.Sprintf("finding %q anchored to %s (rank %d) but step (iv) gave no evidence", mention(res, fa.FindingID), c.Concept, an.Rank)
				}
			}
		}
	}
	if stated != "" {
		for _, f := range res.Findings {
			if containsWords(textnorm.Normalize(f.Text), stated) {
				return StageGrounding, fmt.Sprintf("finding %q states %q but has no anchor for %s", f.Text, stated, c.Concept)
			}
		}
		return StageReading, fmt.Sprintf("the document states %q (%s) but no finding carries it", stated, c.Concept)
	}
	if k.Derived != nil && k.Derived(c.Concept) {
		return StageDerivation, fmt.Sprintf("%s is derived in the pack, and nothing in the document derived it", c.Concept)
	}
	return StageReading, fmt.Sprintf("no finding or fact for %s %s (the document words it in terms the pack does not know)", c.Concept, need(c))
}

// violation explains a must-not row that was returned.
func (k *Knowledge) violation(d documents.Document, res *engine.Result, row string) (string, string) {
	var rec *engine.Recommendation
	for i := range res.Recommendations {
		if res.Recommendations[i].RowID == row {
			rec = &res.Recommendations[i]
			break
		}
	}
	if rec == nil {
		return StageEvaluation, "returned without a recommendation record"
	}
	stage, why := "", ""
	set := func(st, w string) {
		if stage == "" || stageRank[st] < stageRank[stage] {
			stage, why = st, w
		}
	}
	for _, fc := range rec.FiredBy {
		if rules.NormalizeOperator(fc.Operator) == rules.OpAbsent && len(fc.Evidence) == 0 {
			set(StageEvaluation, fmt.Sprintf("%s ABSENT held with no evidence (closed world)", fc.Concept))
			continue
		}
		for _, it := range fc.Evidence {
			f := mention(res, it.ID)
			op := rules.NormalizeOperator(fc.Operator)
			switch {
			case !it.Present && (op == rules.OpUnless || op == rules.OpAbsent) && it.Via == "":
				// "no OAC indication" holding an exception off, or a stated
				// absence meeting ABSENT, is the row's own reading of a
				// negated mention: not what made the row wrong, so another
				// condition explains the violation (or, failing all, the
				// encoding). Its words never state the concept present.
				continue
			case it.Via != "":
				set(StageDerivation, fmt.Sprintf("%s derived from %q (%s)", fc.Concept, f, it.Via))
			case k.statedIn(f, fc.Concept, "") == "" && k.statedIn(it.Text, fc.Concept, "") == "":
				set(StageGrounding, fmt.Sprintf("%q supported %s, which it does not state", f, fc.Concept))
			case fc.Operator != "" && rules.IsNumeric(rules.NormalizeOperator(fc.Operator)):
				set(StageEvaluation, fmt.Sprintf("%s %s %s %s held on %q", fc.Concept, fc.Operator, fc.Threshold, fc.Unit, f))
			default:
				set(StageConsistency, fmt.Sprintf("%q admitted for %s %s: the label reads it as not applying (negated, uncertain, a relative's, planned or stopped)", f, fc.Concept, fc.Operator))
			}
		}
	}
	if stage == "" {
		return StageEncoding, fmt.Sprintf("%s fired on its conditions as encoded; the label holds the row inapplicable", rec.RuleID)
	}
	return stage, why
}

// statedIn returns the first surface form of concept (or the wording)
// that the text contains as whole words, or "".
func (k *Knowledge) statedIn(text, concept, wording string) string {
	t := textnorm.Normalize(text)
	if t == "" {
		return ""
	}
	forms := []string{concept}
	if wording != "" {
		forms = append(forms, wording)
	}
	if k.Surface != nil {
		forms = append(forms, k.Surface(concept)...)
	}
	for _, f := range forms {
		n := textnorm.Normalize(f)
		if n != "" && containsWords(t, n) {
			return n
		}
	}
	return ""
}

func containsWords(text, phrase string) bool {
	return strings.Contains(" "+text+" ", " "+phrase+" ")
}

// evidenceOf is the evidence the pipeline judged rules with: an
// alternative reading of a finding (Secondary) is no fact for a condition
// or an exception there, so it is none here (with it, a rank-2 anchor
// "blocked" an exception the pipeline never saw, and a rule "fired once
// step (v) rejections are ignored" that no rejection had stopped).
func evidenceOf(res *engine.Result) []eval.Evidence {
	out := make([]eval.Evidence, 0, len(res.Evidence))
	for _, it := range res.Evidence {
		if it.Secondary {
			continue
		}
		out = append(out, analysis.EvalEvidence(it))
	}
	return out
}

func rejections(res *engine.Result) map[string][]engine.Rejection {
	out := map[string][]engine.Rejection{}
	if res.Trace == nil {
		return out
	}
	for _, rj := range res.Trace.Rejected {
		out[rj.DecisionID] = append(out[rj.DecisionID], rj)
	}
	return out
}

func mention(res *engine.Result, findingID string) string {
	for _, f := range res.Findings {
		if f.ID == findingID {
			return f.Text
		}
	}
	return findingID
}

func need(c eval.ConditionResult) string {
	op := rules.NormalizeOperator(c.Operator)
	if rules.IsNumeric(op) {
		return strings.TrimSpace(op + " " + c.Threshold + " " + c.Unit)
	}
	return op
}

func truthWord(t eval.Truth) string { return strings.ToLower(t.String()) }

// ErrorCSV writes the error rows as CSV with a header.
func ErrorCSV(rows []ErrorRow) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write([]string{"doc_id", "style", "row_id", "kind", "stage", "detail"}); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if err := w.Write([]string{r.DocID, r.Style, r.RowID, r.Kind, r.Stage, r.Detail}); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// WriteTable prints the documents table: totals, per style, and the
// errors per stage.
func (s *Score) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "Documents (%s split, %d documents)\n", s.Split, s.Total.Docs)
	fmt.Fprintf(w, "  %-18s %5s %9s %8s %11s %8s %6s %6s\n", "style", "docs", "must", "recall", "must-not", "viol.", "clean", "exact")
	line := func(name string, t Tally) {
		fmt.Fprintf(w, "  %-18s %5d %4d/%-4d %8.3f %5d/%-5d %8.3f %6d %6d\n", name, t.Docs, t.MustHit, t.Must, t.Recall(), t.Violated, t.MustNot, t.ViolationRate(), t.Clean, t.Exact)
	}
	for _, g := range s.ByStyle {
		line(g.Name, g.Tally)
	}
	line("all", s.Total)
	fmt.Fprintf(w, "  errors by first stage that explains them:\n")
	for _, kind := range []string{"miss", "violation"} {
		var parts []string
		for _, st := range Stages {
			if n := s.Stages[kind][st]; n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", st, n))
			}
		}
		if len(parts) == 0 {
			parts = []string{"none"}
		}
		fmt.Fprintf(w, "    %-11s %s\n", map[string]string{"miss": "misses:", "violation": "violations:"}[kind], strings.Join(parts, ", "))
	}
}

// Ask answers every document with a (the documents' ids are the case ids)
// on workers goroutines, results in document order; a failed document is
// kept as a failed result. When a answers as of a date, each document is
// answered as of its own date, so "PCI 6 weeks ago" counts from the letter.
func Ask(ctx context.Context, a analysis.Asker, docs []documents.Document, workers int) ([]engine.Result, error) {
	cases := make([]analysis.Case, len(docs))
	for i, d := range docs {
		cases[i] = analysis.Case{ID: d.DocID, Text: d.Text, Bundle: d.Bundle}
		if date, err := time.Parse("2006-01-02", d.Date); err == nil {
			cases[i].Date = date
		}
	}
	return analysis.AskAll(ctx, a, cases, workers)
}

// PackKnowledge builds attribution knowledge from a pack's lexicon (the
// surface forms) and hierarchy (the derived concepts: broader concepts of
// an is-a relation and numerically defined ones).
func PackKnowledge(ix *analysis.PackIndex, lex *lexicon.Lexicon, h *rules.Hierarchy) *Knowledge {
	defined := map[string]bool{}
	if h != nil {
		for _, d := range h.Definitions {
			defined[rules.NormalizeName(d.Concept)] = true
		}
	}
	surface := func(c string) []string { return lex.Synonyms(c, "") }
	derived := func(c string) bool { return defined[rules.NormalizeName(c)] || len(h.Narrower(c)) > 0 }
	return NewKnowledge(ix, surface, derived)
}
