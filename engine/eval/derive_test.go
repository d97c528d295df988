package eval

import (
	"testing"

	"github.com/executablekg/execkg/rules"
)

func TestDeriveDefinitions(t *testing.T) {
	h, err := rules.ParseHierarchy("h.json", []byte(`{"version":1,"relations":[
	  {"narrower":"intermediate left main stenosis","broader":"intermediate stenosis"}],
	 "definitions":[
	  {"concept":"preserved LVEF","measure":"LVEF","min":50,"unit":"%","source":"test"},
	  {"concept":"intermediate left main stenosis","measure":"left main stenosis","min":40,"max":70,"unit":"%","source":"test"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	keys := map[string]string{}
	for _, n := range []string{"LVEF", "preserved LVEF", "left main stenosis", "intermediate left main stenosis", "intermediate stenosis"} {
		names["name:"+rules.NormalizeName(n)] = n
		keys[rules.NormalizeName(n)] = "name:" + rules.NormalizeName(n)
	}
	f := func(x float64) *float64 { return &x }
	for _, tc := range []struct {
		name    string
		e       Evidence
		want    map[string]string // concept → "+" / "-"
		wantLen int
	}{
		{"inside lower bound", Evidence{Concept: "LVEF", Value: f(60), Unit: "%"}, map[string]string{"preserved LVEF": "+"}, 1},
		{"on the bound", Evidence{Concept: "LVEF", Value: f(50), Unit: "%"}, map[string]string{"preserved LVEF": "+"}, 1},
		{"outside", Evidence{Concept: "LVEF", Value: f(35), Unit: "%"}, map[string]string{"preserved LVEF": "-"}, 1},
		{"bound below", Evidence{Concept: "LVEF", Value: f(50), Unit: "%", Comparator: "<"}, map[string]string{"preserved LVEF": "-"}, 1},
		{"bound straddles", Evidence{Concept: "LVEF", Value: f(45), Unit: "%", Comparator: ">"}, nil, 0},
		{"no unit", Evidence{Concept: "LVEF", Value: f(60)}, nil, 0},
		{"no value", Evidence{Concept: "LVEF", Present: true}, nil, 0},
		{"band and is-a", Evidence{Concept: "left main stenosis", Value: f(60), Unit: "%"},
			map[string]string{"intermediate left main stenosis": "+", "intermediate stenosis": "+"}, 2},
		{"above band", Evidence{Concept: "left main stenosis", Value: f(80), Unit: "%"},
			map[string]string{"intermediate left main stenosis": "-"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.e.ID = "f0"
			tc.e.ConceptKey = keys[rules.NormalizeName(tc.e.Concept)]
			got := Derive([]Evidence{tc.e}, h, names, keys)
			if len(got) != tc.wantLen {
				t.Fatalf("got %d derived items %+v, want %d", len(got), got, tc.wantLen)
			}
			for _, d := range got {
				if tc.want[d.Concept] != boolKey(d.Present) {
					t.Errorf("%s: present=%v via %q, want %q", d.Concept, d.Present, d.Via, tc.want[d.Concept])
				}
			}
		})
	}
}

func TestParseHierarchyDefinitionErrors(t *testing.T) {
	for _, js := range []string{
		`{"relations":[],"definitions":[{"concept":"a","measure":"b","unit":"%","source":"s"}]}`,
		`{"relations":[],"definitions":[{"concept":"a","measure":"b","min":5,"max":1,"unit":"%","source":"s"}]}`,
		`{"relations":[],"definitions":[{"concept":"a","measure":"a","min":5,"unit":"%","source":"s"}]}`,
		`{"relations":[],"definitions":[{"concept":"a","measure":"b","min":5,"unit":"%"}]}`,
	} {
		if _, err := rules.ParseHierarchy("h.json", []byte(js)); err == nil {
			t.Errorf("%s: want an error", js)
		}
	}
}
