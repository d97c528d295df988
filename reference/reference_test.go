package reference

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/vignettes"
)

func testPack(t *testing.T) *rules.Pack {
	t.Helper()
	p, err := rules.LoadFS(os.DirFS("testdata"), "pack")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func node(concept, op string, present bool, value *float64, unit string) vignettes.Node {
	return vignettes.Node{ConceptKey: "name:" + rules.NormalizeName(concept), Concept: concept, Operator: op, Present: present, Value: value, Unit: unit, Text: concept}
}

func num(x float64) *float64 { return &x }

// Hand-worked cases on an invented pack: open world, OR groups, ABSENT,
// range edges, unit conversion, workflow conditions.
func TestComputeOpenWorld(t *testing.T) {
	p := testPack(t)
	row := func(n int) string { return rules.RowID("table_01.json", n) }
	cases := []struct {
		name  string
		nodes []vignettes.Node
		want  []string
	}{
		{"one of two AND conditions is unknown", []vignettes.Node{node("finding a", "PRESENT", true, nil, "")}, []string{}},
		{"both AND conditions stated", []vignettes.Node{node("finding a", "PRESENT", true, nil, ""), node("finding b", "PRESENT", true, nil, "")}, []string{row(0)}},
		{"unmentioned X is unknown, not absent", []vignettes.Node{node("finding c", "PRESENT", true, nil, "")}, []string{row(2)}},
		{"stated absence of X", []vignettes.Node{node("finding x", "ABSENT", false, nil, "")}, []string{row(1)}},
		{"X stated present", []vignettes.Node{node("finding x", "PRESENT", true, nil, "")}, []string{}},
		{"second OR member", []vignettes.Node{node("finding d", "PRESENT", true, nil, "")}, []string{row(2)}},
		{"OR member stated absent", []vignettes.Node{node("finding d", "ABSENT", false, nil, "")}, []string{}},
		{"LVEF at the edge", []vignettes.Node{node("left ventricular ejection fraction", "=", true, num(35), "%")}, []string{row(3)}},
		{"LVEF just above", []vignettes.Node{node("left ventricular ejection fraction", "=", true, num(36), "%")}, []string{}},
		{"LVEF stated as a bound", []vignettes.Node{node("left ventricular ejection fraction", "<", true, num(30), "%")}, []string{row(3)}},
		{"LVEF bound that straddles", []vignettes.Node{node("left ventricular ejection fraction", "<", true, num(40), "%")}, []string{}},
		{"LDL in mg/dL", []vignettes.Node{node("low-density lipoprotein cholesterol", "=", true, num(70), "mg/dL")}, []string{row(4)}},
		{"LDL in mg/dL below", []vignettes.Node{node("low-density lipoprotein cholesterol", "=", true, num(50), "mg/dL")}, []string{}},
		{"range: lower edge is open", []vignettes.Node{node("likelihood", "=", true, num(15), "%")}, []string{}},
		{"range: upper edge is closed", []vignettes.Node{node("likelihood", "=", true, num(85), "%")}, []string{row(6)}},
		{"workflow condition never stated", []vignettes.Node{node("finding a", "PRESENT", true, nil, ""), node("finding b", "PRESENT", true, nil, "")}, []string{row(0)}},
	}
	for _, tc := range cases {
		v := vignettes.Vignette{CaseID: "t", Intended: tc.nodes}
		got := Compute(p, []vignettes.Vignette{v}, nil)[0].RowIDs
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: rows %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMergeMap(t *testing.T) {
	p := testPack(t)
	eq := &Equivalences{Version: 1, Groups: []Group{
		{Concepts: []string{"finding c", "finding x"}, Reason: "test"},
		{Concepts: []string{"finding x", "finding a"}, Reason: "overlapping group joins"},
	}}
	m, err := MergeMap(p, eq)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"name:finding c": "name:finding a", "name:finding x": "name:finding a"}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("merge map %v, want %v", m, want)
	}
	// With X merged into A, stating A satisfies "without X"? No: A present
	// means X (now the same finding) present, so row 1 is false; and the
	// OR row 2 holds through C = A.
	v := vignettes.Vignette{CaseID: "t", Intended: []vignettes.Node{node("finding a", "PRESENT", true, nil, "")}}
	got := Compute(p, []vignettes.Vignette{v}, m)[0].RowIDs
	if want := []string{"table_01.json::row_2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("merged rows %v, want %v", got, want)
	}
	if _, err := MergeMap(p, &Equivalences{Version: 1, Groups: []Group{{Concepts: []string{"finding a", "nope"}, Reason: "x"}}}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown concept: err = %v", err)
	}
}

// A name carried by two keys (coded in one row, not in another) is merged
// automatically, and the scan reports it.
func TestNameUnderTwoKeys(t *testing.T) {
	p := testPack(t)
	p.Tables[0].Rows[2].Rules[0].Conditions[0].EntityStandardizedList[0].SnomedID = "123"
	p.Tables[0].Rows[0].Rules[0].Conditions[0].EntityStandardizedList = []rules.Standardized{{Candidate: "finding c"}}
	cands := Candidates(p, nil)
	if len(cands) != 1 || !reflect.DeepEqual(cands[0].Keys, []string{"name:finding c", "sct:123"}) {
		t.Fatalf("candidates %+v", cands)
	}
	m, err := MergeMap(p, nil)
	if err != nil || m["sct:123"] != "name:finding c" {
		t.Fatalf("merge map %v, %v", m, err)
	}
}

func TestShippedReferenceIsCurrent(t *testing.T) {
	p, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	vs, err := vignettes.Default()
	if err != nil {
		t.Fatal(err)
	}
	stored, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(stored, Compute(p, vs, nil)); len(d) > 0 {
		t.Fatalf("stored reference differs from a recomputation (run `execkg vignettes generate`):\n%s", strings.Join(d, "\n"))
	}
	eq, err := DefaultEquivalences()
	if err != nil {
		t.Fatal(err)
	}
	m, err := MergeMap(p, eq)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := DefaultMerged()
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(m) == 0 && merged != nil:
		t.Fatal("a merged reference is shipped but nothing is merged")
	case len(m) > 0 && merged == nil:
		t.Fatal("concepts are merged but no merged reference is shipped")
	case len(m) > 0:
		if d := Diff(merged, Compute(p, vs, m)); len(d) > 0 {
			t.Fatalf("merged reference is stale:\n%s", strings.Join(d, "\n"))
		}
	default:
		if eq.NoneReason == "" {
			t.Fatal("no merge groups and no reason given")
		}
	}
}

func TestDiffAndDecode(t *testing.T) {
	a := []Case{{CaseID: "x", RowIDs: []string{"r1", "r2"}}, {CaseID: "y", RowIDs: []string{}}}
	b := []Case{{CaseID: "x", RowIDs: []string{"r2", "r3"}}, {CaseID: "z"}}
	d := Diff(a, b)
	want := []string{"x: recomputed adds [r3], drops [r1]", "y: in the stored reference but not among the vignettes", "z: missing from the stored reference"}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("diff:\n%v\nwant\n%v", d, want)
	}
	data, err := Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode("r.jsonl", bytes.NewReader(data))
	if err != nil || !reflect.DeepEqual(back, a) {
		t.Fatalf("round trip %v, %v", back, err)
	}
	if _, err := Decode("r.jsonl", strings.NewReader(`{"case_id":"x","row_ids":[]}`+"\n"+`{"case_id":"x","row_ids":[]}`)); err == nil || !strings.Contains(err.Error(), "r.jsonl:2") {
		t.Fatalf("duplicate: %v", err)
	}
}
