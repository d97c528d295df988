package eval

import (
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
)

const compositeHierarchy = `{"version": 1, "relations": [{"narrower": "type 2 diabetes mellitus", "broader": "diabetes mellitus"}],
 "composites": [
  {"concept": "high bleeding risk", "source": "test", "any_of": [
     {"at_least": 1, "of": [{"concept": "oral anticoagulant"}, {"measure": "estimated glomerular filtration rate", "op": "<", "value": 30, "unit": "mL/min/1.73 m2"}]},
     {"at_least": 2, "of": [{"measure": "age", "op": ">=", "value": 75, "unit": "years"}, {"concept": "previous ischaemic stroke"}, {"concept": "anaemia"}]}]},
  {"concept": "enhanced ischaemic risk", "source": "test", "any_of": [{"concept": "diabetes mellitus"}, {"concept": "chronic kidney disease"}],
   "unless": [{"concept": "palliative care"}]},
  {"concept": "both risks", "source": "test", "all_of": [{"concept": "high bleeding risk"}, {"concept": "enhanced ischaemic risk"}]}
 ]}`

func derived(t *testing.T, ev []Evidence, concept string) (Truth, string) {
	t.Helper()
	h, err := rules.ParseHierarchy("hierarchy.json", []byte(compositeHierarchy))
	if err != nil {
		t.Fatal(err)
	}
	for i := range ev {
		ev[i].ID = "f" + string(rune('1'+i))
	}
	names, keys := map[string]string{}, map[string]string{}
	for _, n := range []string{"type 2 diabetes mellitus", "diabetes mellitus", "high bleeding risk", "enhanced ischaemic risk", "both risks"} {
		k := "name:" + rules.NormalizeName(n)
		names[k], keys[rules.NormalizeName(n)] = n, k
	}
	for _, d := range Derive(ev, h, names, keys) {
		if d.Concept == concept && strings.HasPrefix(d.Via, ViaDefinition) {
			return Of(d.Present), d.Via
		}
	}
	return Unknown, ""
}

func TestCompositeAtLeastBoundaryAndTrace(t *testing.T) {
	// One minor criterion: could still become true, so unknown.
	if got, _ := derived(t, []Evidence{val("age", "age 80", 80, "years", "")}, "high bleeding risk"); got != Unknown {
		t.Errorf("one minor criterion: want unknown, got %v", got)
	}
	// Two minor criteria: the boundary holds, traced to both findings.
	got, via := derived(t, []Evidence{val("age", "age 80", 80, "years", ""), has("previous ischaemic stroke", "prior stroke")}, "high bleeding risk")
	if got != True || !strings.Contains(via, "'age 80' (f1)") || !strings.Contains(via, "'prior stroke' (f2)") {
		t.Errorf("two minor criteria: want true traced to f1 and f2, got %v %q", got, via)
	}
	// One major criterion alone suffices.
	if got, _ := derived(t, []Evidence{val(egfr, "eGFR 25", 25, "mL/min/1.73 m2", "")}, "high bleeding risk"); got != True {
		t.Errorf("one major criterion: want true, got %v", got)
	}
	// Every criterion denied: false.
	ev := []Evidence{absent("oral anticoagulant", "no OAC"), val(egfr, "eGFR 80", 80, "mL/min/1.73 m2", ""), val("age", "age 50", 50, "years", ""),
		absent("previous ischaemic stroke", "no stroke"), absent("anaemia", "no anaemia")}
	if got, _ := derived(t, ev, "high bleeding risk"); got != False {
		t.Errorf("all denied: want false, got %v", got)
	}
}

func TestCompositeIsaExclusionAndNesting(t *testing.T) {
	// A member reached through is-a counts.
	got, via := derived(t, []Evidence{has("type 2 diabetes mellitus", "T2DM")}, "enhanced ischaemic risk")
	if got != True || !strings.Contains(via, "'T2DM' (f1)") {
		t.Errorf("is-a member: want true traced to f1, got %v %q", got, via)
	}
	// A known exclusion blocks; an unmentioned one does not.
	if got, _ := derived(t, []Evidence{has("diabetes mellitus", "DM"), has("palliative care", "palliative")}, "enhanced ischaemic risk"); got != False {
		t.Errorf("known exclusion: want false, got %v", got)
	}
	// Definitions use definitions.
	if got, _ := derived(t, []Evidence{has("diabetes mellitus", "DM"), has("oral anticoagulant", "on apixaban")}, "both risks"); got != True {
		t.Errorf("nested: want true, got %v", got)
	}
}

func TestCompositeCycleIsAnError(t *testing.T) {
	_, err := rules.ParseHierarchy("hierarchy.json", []byte(`{"version":1,"relations":[],"composites":[
	 {"concept":"a","source":"s","any_of":[{"concept":"b"}]},{"concept":"b","source":"s","any_of":[{"concept":"a"},{"concept":"c"}]}]}`))
	if err == nil || !strings.Contains(err.Error(), "uses itself") {
		t.Fatalf("want a cycle error, got %v", err)
	}
	_, err = rules.ParseHierarchy("hierarchy.json", []byte(`{"version":1,"relations":[],"composites":[
	 {"concept":"a","source":"s","at_least":3,"of":[{"concept":"b"},{"concept":"c"}]}]}`))
	if err == nil || !strings.Contains(err.Error(), "at_least") {
		t.Fatalf("want an at_least error, got %v", err)
	}
}

// review2 2c: a composite is not present while its own exception holds in
// the model, even when a later composite (here through an is-a) states the
// exception only after the composite was judged: it is withdrawn, unknown,
// and the withdrawal is traced.
func TestCompositeWithdrawnWhenItsExceptionHoldsLater(t *testing.T) {
	const hj = `{"version": 1, "relations": [{"narrower": "combination", "broader": "two drugs"}],
	 "composites": [
	  {"concept": "single drug", "source": "test", "any_of": [{"concept": "drug a"}], "unless": [{"concept": "two drugs"}]},
	  {"concept": "combination", "source": "test", "at_least": 2, "of": [{"concept": "drug a"}, {"concept": "drug b"}]}
	 ]}`
	h, err := rules.ParseHierarchy("hierarchy.json", []byte(hj))
	if err != nil {
		t.Fatal(err)
	}
	names, keys := map[string]string{}, map[string]string{}
	for _, n := range []string{"drug a", "drug b", "single drug", "combination", "two drugs"} {
		k := "name:" + rules.NormalizeName(n)
		names[k], keys[rules.NormalizeName(n)] = n, k
	}
	run := func(ev []Evidence) (present bool, why []string) {
		for i := range ev {
			ev[i].ID = "f" + string(rune('1'+i))
		}
		opt := Options{Withdrawn: func(d Evidence, w string) { why = append(why, d.Concept+": "+w) }}
		for _, d := range DeriveOpt(ev, h, names, keys, opt) {
			if d.Concept == "single drug" && d.Present {
				present = true
			}
		}
		return present, why
	}
	if p, why := run([]Evidence{has("drug a", "drug a")}); !p || len(why) > 0 {
		t.Errorf("drug a alone: single drug should be present, nothing withdrawn; got %v %v", p, why)
	}
	p, why := run([]Evidence{has("drug a", "drug a"), has("drug b", "drug b")})
	if p || len(why) != 1 || !strings.Contains(why[0], "single drug") {
		t.Errorf("drug a and b: single drug should be withdrawn and traced; got %v %v", p, why)
	}
}

// An exception's own exception (except) lifts it only when known to hold,
// and a leaf with a wording of its own is judged by step (v) on that
// wording: here the hook admits a doubted mention only for a wording
// that asks for doubt.
func TestCompositeExceptAndLeafWording(t *testing.T) {
	const hj = `{"version": 1, "composites": [
	  {"concept": "work-up", "source": "test", "any_of": [{"concept": "symptom"}, {"concept": "finding x", "wording": "suspected finding x"}],
	   "unless": [{"concept": "acute state", "except": [{"concept": "finding x", "wording": "suspected finding x"}]}]}
	 ]}`
	h, err := rules.ParseHierarchy("hierarchy.json", []byte(hj))
	if err != nil {
		t.Fatal(err)
	}
	names, keys := map[string]string{}, map[string]string{}
	for _, n := range []string{"symptom", "finding x", "acute state", "work-up"} {
		k := "name:" + rules.NormalizeName(n)
		names[k], keys[rules.NormalizeName(n)] = n, k
	}
	// Doubted items carry "?" in their text; the hook admits them only
	// for a condition worded "suspected ...", and a certain one only for
	// a condition that is not.
	admit := func(c Cond, e Evidence) bool {
		return strings.HasPrefix(e.Text, "?") == strings.HasPrefix(c.Wording, "suspected ")
	}
	run := func(ev ...Evidence) Truth {
		for i := range ev {
			ev[i].ID = "f" + string(rune('1'+i))
		}
		for _, d := range DeriveOpt(ev, h, names, keys, Options{Admit: admit}) {
			if d.Concept == "work-up" && strings.HasPrefix(d.Via, ViaDefinition) {
				return Of(d.Present)
			}
		}
		return Unknown
	}
	cases := []struct {
		name string
		ev   []Evidence
		want Truth
	}{
		{"a doubted finding x meets the suspected wording", []Evidence{has("finding x", "?x")}, True},
		{"a stated finding x does not", []Evidence{has("finding x", "x")}, Unknown},
		{"the acute state excepts the symptom", []Evidence{has("symptom", "s"), has("acute state", "a")}, False},
		{"a doubted finding x lifts that exception", []Evidence{has("symptom", "s"), has("acute state", "a"), has("finding x", "?x")}, True},
		{"a stated finding x does not lift it", []Evidence{has("symptom", "s"), has("acute state", "a"), has("finding x", "x")}, False},
	}
	for _, tc := range cases {
		if got := run(tc.ev...); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := rules.ParseHierarchy("h.json", []byte(`{"version": 1, "composites": [{"concept": "c", "source": "t", "any_of": [{"any_of": [{"concept": "a"}], "wording": "w"}]}]}`)); err == nil || !strings.Contains(err.Error(), "wording belongs on a concept leaf") {
		t.Errorf("a wording on a group: want an error naming it, got %v", err)
	}
}

// TestCompositeStatedLeaf: a leaf marked stated is met by what the case
// states, not by what another definition derives: the suspicion a
// definition reads off the findings does not end the documented
// diagnosis, a record that itself calls it suspected does.
func TestCompositeStatedLeaf(t *testing.T) {
	h, err := rules.ParseHierarchy("h.json", []byte(`{"version": 1, "composites": [
	  {"concept": "suspected d", "source": "t", "all_of": [{"concept": "symptom"}, {"concept": "minor finding"}]},
	  {"concept": "d", "source": "t", "all_of": [{"concept": "symptom"}, {"concept": "normal test"}],
	   "unless": [{"concept": "suspected d", "stated": true}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	names, keys := map[string]string{}, map[string]string{}
	for _, n := range []string{"suspected d", "d", "symptom", "minor finding", "normal test"} {
		k := "name:" + rules.NormalizeName(n)
		names[k], keys[rules.NormalizeName(n)] = n, k
	}
	run := func(ev ...Evidence) (d, s Truth) {
		for i := range ev {
			ev[i].ID = "f" + string(rune('1'+i))
		}
		d, s = Unknown, Unknown
		for _, x := range Derive(ev, h, names, keys) {
			if !strings.HasPrefix(x.Via, ViaDefinition) {
				continue
			}
			switch x.Concept {
			case "d":
				d = Of(x.Present)
			case "suspected d":
				s = Of(x.Present)
			}
		}
		return d, s
	}
	if d, s := run(has("symptom", "s"), has("normal test", "n"), has("minor finding", "m")); d != True || s != True {
		t.Errorf("derived suspicion beside the documented diagnosis: got d %v, suspected d %v, want both true", d, s)
	}
	if d, _ := run(has("symptom", "s"), has("normal test", "n"), has("suspected d", "suspected d")); d != False {
		t.Errorf("a stated suspicion: got d %v, want false", d)
	}
	if _, err := rules.ParseHierarchy("h.json", []byte(`{"version": 1, "composites": [{"concept": "c", "source": "t", "any_of": [{"any_of": [{"concept": "a"}], "stated": true}]}]}`)); err == nil || !strings.Contains(err.Error(), "stated belongs on a concept leaf") {
		t.Errorf("stated on a group: want an error naming it, got %v", err)
	}
}
