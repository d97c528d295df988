package consistency

import (
	"reflect"
	"strings"
	"testing"
)

// TestTextReuse: one Text per case text and one Compiled per condition,
// shared by every verdict and read in both orders, give the verdicts and
// contexts of a fresh reading per verdict, so nothing a verdict computes
// leaks into the next. Long texts also go through the recent-text cache.
func TestTextReuse(t *testing.T) {
	cases := readJSONL[checkCase](t, "testdata/check_cases.jsonl")
	pad := strings.Repeat("Seen in clinic today. ", 14) // over recentMinBytes
	texts := map[string]*Text{}
	compiled := map[Condition]*Compiled{}
	for _, long := range []bool{false, true} {
		for pass := 0; pass < 2; pass++ {
			for k := range cases {
				c := cases[k]
				if pass == 1 {
					c = cases[len(cases)-1-k]
				}
				text := c.Text
				if long {
					text = pad + c.Text
				}
				checks, err := ParseChecks(c.Checks)
				if err != nil {
					t.Fatal(err)
				}
				if texts[text] == nil {
					texts[text] = NewText(text)
				}
				if compiled[c.Condition] == nil {
					compiled[c.Condition] = Compile(c.Condition)
				}
				fresh := NewText(text).CheckCompiled(c.Mention, Compile(c.Condition), checks)
				shared := texts[text].CheckCompiled(c.Mention, compiled[c.Condition], checks)
				if !reflect.DeepEqual(shared, fresh) {
					t.Errorf("%s (long %v, pass %d): shared Text gives %+v, a fresh one %+v", c.Name, long, pass, shared, fresh)
				}
				if got := Check(text, c.Mention, c.Condition, checks); !reflect.DeepEqual(got, fresh) {
					t.Errorf("%s (long %v, pass %d): Check gives %+v, a fresh Text %+v", c.Name, long, pass, got, fresh)
				}
				if got, want := texts[text].Analyze(c.Mention), NewText(text).Analyze(c.Mention); !reflect.DeepEqual(got, want) {
					t.Errorf("%s (long %v, pass %d): shared Analyze gives %+v, a fresh one %+v", c.Name, long, pass, got, want)
				}
			}
		}
	}
	if testing.Verbose() {
		t.Logf("%d texts, %d conditions", len(texts), len(compiled))
	}
}

// TestInitialsRun: walking a run token by token spells an acronym exactly
// when initials of the run equal it, and stops only when no longer run
// can.
func TestInitialsRun(t *testing.T) {
	ts := tokenize("ischaemia with non-obstructive coronary arteries, type 2 diabetes mellitus; coronary artery bypass graft r/o MI and ST-segment elevation myocardial infarction")
	acrs := []string{"inoca", "t2dm", "cabg", "cab", "stemi", "semi", "ca", "mi", "rm", "x"}
	spelled := 0
	for _, acr := range acrs {
		for x := range ts {
			run := initialsRun{acr: acr}
			stopped := false
			for y := x; y < len(ts); y++ {
				want := initials(ts[x:y+1]) == acr
				prefix := strings.HasPrefix(acr, initials(ts[x:y+1]))
				if stopped {
					if want {
						t.Fatalf("%q: run from %d stopped before %d, which spells it", acr, x, y)
					}
					continue
				}
				if !run.next(&ts[y]) {
					if prefix {
						t.Fatalf("%q: run %d..%d stopped though its initials %q are a prefix", acr, x, y, initials(ts[x:y+1]))
					}
					stopped = true
					continue
				}
				if run.spelled() != want {
					t.Fatalf("%q: run %d..%d spelled=%v, initials %q", acr, x, y, run.spelled(), initials(ts[x:y+1]))
				}
				if want {
					spelled++
				}
			}
		}
	}
	if spelled < 5 {
		t.Errorf("only %d runs spelled an acronym; the text should give inoca, t2dm, cabg, stemi, mi", spelled)
	}
}
