// Package analysis scores prediction files against the reference standard:
// micro precision/recall/F1 over vignette–row pairs, exact row-set matches
// (with the exact McNemar test between arms), unsupported output, correct
// abstention, the error analysis of a traced run, re-scoring a stored trace
// with fewer anchors per finding, and condition coverage.
package analysis

import (
	"fmt"
	"sort"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/rules"
)

// Categories of vignettes, in the order the results table prints them.
var Categories = []string{"near", "synonym", "paraphrase"}

// GoldCase is one vignette of the reference standard.
type GoldCase struct {
	CaseID   string
	Category string
	RowIDs   []string
}

// CaseScore is one arm's outcome on one vignette.
type CaseScore struct {
	CaseID    string   `json:"case_id"`
	Category  string   `json:"category"`
	Reference []string `json:"reference"`
	Predicted []string `json:"predicted"`
	TP        int      `json:"tp"`
	FP        int      `json:"fp"`
	FN        int      `json:"fn"`
	Exact     bool     `json:"exact"`
	// Unsupported: at least one predicted row is outside the reference.
	Unsupported bool `json:"unsupported"`
	// Failed: the arm set an error or gave no line for the case; the case
	// is scored as empty output.
	Failed  bool   `json:"failed,omitempty"`
	Missing bool   `json:"missing,omitempty"`
	Error   string `json:"error,omitempty"`
}

// TableScore is recall (and precision) restricted to one rule table.
type TableScore struct {
	Table     string  `json:"table"`
	Reference int     `json:"reference_pairs"`
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	Recall    float64 `json:"recall"`
	Precision float64 `json:"precision"`
}

// Totals are an arm's figures over all vignettes: the line of the results
// table, shared by the score and paper_numbers.json.
type Totals struct {
	TP        int     `json:"tp"`
	FP        int     `json:"fp"`
	FN        int     `json:"fn"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// Exact is the number of vignettes whose predicted row set equals the
	// reference; ExactBy splits it by category.
	Exact   int            `json:"exact"`
	ExactBy map[string]int `json:"exact_by_category"`
	// Cases per category, so the table can say "of N".
	CasesBy map[string]int `json:"cases_by_category"`
	// Unsupported counts vignettes with any predicted row outside the
	// reference.
	Unsupported int `json:"unsupported"`
	// Abstention counts vignettes with an empty reference and empty output,
	// of EmptyReference such vignettes.
	Abstention     int `json:"correct_abstention"`
	EmptyReference int `json:"empty_reference"`
	Failed         int `json:"failed"`
	Missing        int `json:"missing"`
}

// ArmScore is one arm scored against the reference.
type ArmScore struct {
	Arm string `json:"arm"`
	Totals
	Cases  []CaseScore  `json:"cases"`
	Tables []TableScore `json:"tables"`
}

// Score scores one arm. Every reference case is scored; a case without a
// prediction, or with Error set, counts as empty output. A prediction for a
// case the reference does not hold is an error: the files belong to
// different vignette sets.
func Score(arm string, gold []GoldCase, preds []engine.Result) (*ArmScore, error) {
	byCase := map[string]*engine.Result{}
	for i := range preds {
		byCase[preds[i].CaseID] = &preds[i]
	}
	inGold := map[string]bool{}
	for _, g := range gold {
		if inGold[g.CaseID] {
			return nil, fmt.Errorf("reference lists case %s twice", g.CaseID)
		}
		inGold[g.CaseID] = true
	}
	var extra []string
	for id := range byCase {
		if !inGold[id] {
			extra = append(extra, id)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return nil, fmt.Errorf("arm %s: %d predicted case(s) not in the reference (first: %s); score predictions for the same vignettes", arm, len(extra), extra[0])
	}

	s := &ArmScore{Arm: arm, Totals: Totals{ExactBy: map[string]int{}, CasesBy: map[string]int{}}}
	for _, c := range Categories {
		s.ExactBy[c] = 0
	}
	tables := map[string]*TableScore{}
	table := func(rowID string) *TableScore {
		file, _, err := rules.ParseRowID(rowID)
		if err != nil {
			file = rowID
		}
		t := tables[file]
		if t == nil {
			t = &TableScore{Table: file}
			tables[file] = t
		}
		return t
	}
	for _, g := range gold {
		cs := CaseScore{CaseID: g.CaseID, Category: g.Category, Reference: uniqueSorted(g.RowIDs)}
		p, ok := byCase[g.CaseID]
		switch {
		case !ok:
			cs.Failed, cs.Missing = true, true
		case p.Error != "":
			cs.Failed, cs.Error = true, p.Error
		default:
			cs.Predicted = uniqueSorted(p.PredictedRowIDs)
		}
		ref := set(cs.Reference)
		pred := set(cs.Predicted)
		for _, r := range cs.Predicted {
			if ref[r] {
				cs.TP++
				table(r).TP++
			} else {
				cs.FP++
				table(r).FP++
			}
		}
		for _, r := range cs.Reference {
			table(r).Reference++
			if !pred[r] {
				cs.FN++
				table(r).FN++
			}
		}
		cs.Exact = cs.FP == 0 && cs.FN == 0
		cs.Unsupported = cs.FP > 0
		s.TP += cs.TP
		s.FP += cs.FP
		s.FN += cs.FN
		s.CasesBy[g.Category]++
		if cs.Exact {
			s.Exact++
			s.ExactBy[g.Category]++
		}
		if cs.Unsupported {
			s.Unsupported++
		}
		if len(cs.Reference) == 0 {
			s.EmptyReference++
			if len(cs.Predicted) == 0 {
				s.Abstention++
			}
		}
		if cs.Failed {
			s.Failed++
		}
		if cs.Missing {
			s.Missing++
		}
		s.Cases = append(s.Cases, cs)
	}
	s.Precision, s.Recall, s.F1 = PRF(s.TP, s.FP, s.FN)
	for _, t := range tables {
		t.Precision, t.Recall, _ = PRF(t.TP, t.FP, t.FN)
		s.Tables = append(s.Tables, *t)
	}
	sort.Slice(s.Tables, func(i, j int) bool { return s.Tables[i].Table < s.Tables[j].Table })
	return s, nil
}

// PRF returns micro precision, recall and F1. An empty denominator gives 0
// (an arm that predicts nothing has no precision to speak of, and the
// table prints 0 rather than NaN).
func PRF(tp, fp, fn int) (p, r, f1 float64) {
	if tp+fp > 0 {
		p = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		r = float64(tp) / float64(tp+fn)
	}
	if p+r > 0 {
		f1 = 2 * p * r / (p + r)
	}
	return p, r, f1
}

func uniqueSorted(ids []string) []string {
	out := make([]string, 0, len(ids))
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, id)
	}
	SortRowIDs(out)
	return out
}

// SortRowIDs sorts row ids by table file, then row number (row_2 before
// row_10), falling back to plain string order for ids that do not parse.
func SortRowIDs(ids []string) {
	sort.SliceStable(ids, func(i, j int) bool { return RowLess(ids[i], ids[j]) })
}

// RowLess orders two row ids by file, then row number.
func RowLess(a, b string) bool {
	fa, ra, ea := rules.ParseRowID(a)
	fb, rb, eb := rules.ParseRowID(b)
	if ea != nil || eb != nil || fa != fb {
		if ea == nil && eb == nil {
			return fa < fb
		}
		return a < b
	}
	return ra < rb
}

func set(ids []string) map[string]bool {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}
