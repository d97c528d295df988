package analysis

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/executablekg/execkg/engine"
)

func TestScoreHandComputed(t *testing.T) {
	gold := []GoldCase{
		{CaseID: "near_001", Category: "near", RowIDs: []string{"t1.json::row_0", "t1.json::row_2"}},
		{CaseID: "near_002", Category: "near", RowIDs: nil},
		{CaseID: "near_003", Category: "near", RowIDs: []string{"t2.json::row_1"}},
		{CaseID: "syn_001", Category: "synonym", RowIDs: []string{"t2.json::row_10", "t2.json::row_1"}},
		{CaseID: "para_001", Category: "paraphrase", RowIDs: nil},
		{CaseID: "para_002", Category: "paraphrase", RowIDs: []string{"t1.json::row_0"}},
	}
	preds := []engine.Result{
		// exact, with a duplicate row that must count once
		{CaseID: "near_001", PredictedRowIDs: []string{"t1.json::row_2", "t1.json::row_0", "t1.json::row_0"}},
		// correct abstention
		{CaseID: "near_002"},
		// one FP, one FN
		{CaseID: "near_003", PredictedRowIDs: []string{"t2.json::row_2"}},
		// failed: error set, rows ignored → 2 FN
		{CaseID: "syn_001", PredictedRowIDs: []string{"t2.json::row_1"}, Error: "formatter timed out"},
		// unsupported output on an empty reference
		{CaseID: "para_001", PredictedRowIDs: []string{"t1.json::row_0"}},
		// para_002 missing → empty output, 1 FN
	}
	s, err := Score("kg", gold, preds)
	if err != nil {
		t.Fatal(err)
	}
	// TP: 2 (near_001). FP: 1 (near_003) + 1 (para_001). FN: 1 + 2 + 1.
	if s.TP != 2 || s.FP != 2 || s.FN != 4 {
		t.Fatalf("TP/FP/FN = %d/%d/%d, want 2/2/4", s.TP, s.FP, s.FN)
	}
	if !approx(s.Precision, 0.5) || !approx(s.Recall, 2.0/6) || !approx(s.F1, 0.4) {
		t.Fatalf("P/R/F1 = %g/%g/%g, want 0.5/0.3333/0.4", s.Precision, s.Recall, s.F1)
	}
	if s.Exact != 2 || s.ExactBy["near"] != 2 || s.ExactBy["synonym"] != 0 || s.ExactBy["paraphrase"] != 0 {
		t.Fatalf("exact = %d %v, want 2 (near 2)", s.Exact, s.ExactBy)
	}
	if s.Unsupported != 2 || s.Abstention != 1 || s.EmptyReference != 2 || s.Failed != 2 || s.Missing != 1 {
		t.Fatalf("unsupported %d abstention %d/%d failed %d missing %d; want 2, 1/2, 2, 1",
			s.Unsupported, s.Abstention, s.EmptyReference, s.Failed, s.Missing)
	}
	if got := s.Cases[3].Reference; !reflect.DeepEqual(got, []string{"t2.json::row_1", "t2.json::row_10"}) {
		t.Fatalf("reference order %v: want row_1 before row_10", got)
	}
	wantTables := []TableScore{
		{Table: "t1.json", Reference: 3, TP: 2, FP: 1, FN: 1, Recall: 2.0 / 3, Precision: 2.0 / 3},
		{Table: "t2.json", Reference: 3, TP: 0, FP: 1, FN: 3},
	}
	if len(s.Tables) != 2 {
		t.Fatalf("tables %+v", s.Tables)
	}
	for i, w := range wantTables {
		g := s.Tables[i]
		if g.Table != w.Table || g.Reference != w.Reference || g.TP != w.TP || g.FP != w.FP || g.FN != w.FN ||
			!approx(g.Recall, w.Recall) || !approx(g.Precision, w.Precision) {
			t.Errorf("table %d = %+v, want %+v", i, g, w)
		}
	}
}

func TestScoreRejectsForeignCases(t *testing.T) {
	gold := []GoldCase{{CaseID: "near_001", Category: "near"}}
	_, err := Score("rag", gold, []engine.Result{{CaseID: "near_999"}})
	if err == nil || !strings.Contains(err.Error(), "near_999") {
		t.Fatalf("err = %v, want it to name near_999", err)
	}
}

func TestPRFEmpty(t *testing.T) {
	p, r, f := PRF(0, 0, 0)
	if p != 0 || r != 0 || f != 0 {
		t.Fatalf("PRF(0,0,0) = %g %g %g", p, r, f)
	}
}

func TestDecodePredictions(t *testing.T) {
	in := `{"case_id":"a","predicted_row_ids":["x::row_1"]}

{"case_id":"b","predicted_row_ids":[],"error":"boom"}
`
	got, err := DecodePredictions("p.jsonl", strings.NewReader(in))
	if err != nil || len(got) != 2 || got[1].Error != "boom" {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, bad := range []struct{ in, want string }{
		{`{"case_id":"a"}` + "\n" + `{"case_id":"a"}`, "p.jsonl:2: case a was already given on line 1"},
		{`{"predicted_row_ids":[]}`, "p.jsonl:1: case_id is missing"},
		{`{"case_id":`, "p.jsonl:1:"},
	} {
		_, err := DecodePredictions("p.jsonl", strings.NewReader(bad.in))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: err = %v, want %q", bad.in, err, bad.want)
		}
	}
}

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
