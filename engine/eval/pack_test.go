package eval

import (
	"math"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/rules/units"
)

// These tests run the evaluator over every rule of the built-in pack, so
// an encoding the evaluator cannot read (unknown unit, unparseable
// threshold) or a rule shape it mishandles shows up here.

func packRules(t *testing.T) []Rule {
	t.Helper()
	p, err := packs.Default()
	if err != nil {
		t.Fatalf("load built-in pack: %v", err)
	}
	var out []Rule
	for _, r := range p.Rules() {
		out = append(out, FromRuleRef(r))
	}
	if len(out) == 0 {
		t.Fatal("built-in pack has no rules")
	}
	return out
}

func TestPackNumericConditionsReadable(t *testing.T) {
	for _, r := range packRules(t) {
		for _, c := range r.Conds {
			if !rules.IsNumeric(c.Operator) {
				continue
			}
			if !units.Known(c.Unit) {
				t.Errorf("%s: unit %q is unknown to rules/units; use a spelling from ENCODING.md or add it there", c.DecisionID, c.Unit)
			}
			if _, err := rules.Threshold(c.Threshold).Float(); err != nil {
				t.Errorf("%s: threshold %q: %v", c.DecisionID, c.Threshold, err)
			}
		}
	}
}

// With no evidence, open world leaves every rule unknown and says what is
// missing; closed world fires exactly the rules whose every group can be
// met by absences alone.
func TestPackEmptyCase(t *testing.T) {
	for _, r := range packRules(t) {
		open := EvaluateRule(r, nil, Options{})
		if open.Truth != Unknown || len(open.Missing) == 0 {
			t.Errorf("%s open world, no evidence: truth %v, missing %q; want unknown with missing findings", r.ID, open.Truth, open.Missing)
		}
		closed := EvaluateRule(r, nil, Options{ClosedWorld: true})
		want := absencesAlone(r)
		if closed.Fired() != want {
			t.Errorf("%s closed world, no evidence: fired %v, want %v", r.ID, closed.Fired(), want)
		}
	}
}

// absencesAlone: every AND group holds only ABSENT conditions and every OR
// group has one.
func absencesAlone(r Rule) bool {
	type g struct{ or, all, any bool }
	groups := map[string]*g{}
	for _, c := range r.Conds {
		k := groupKey(c)
		if groups[k] == nil {
			groups[k] = &g{all: true}
		}
		abs := c.Operator == rules.OpAbsent
		groups[k].all = groups[k].all && abs
		groups[k].any = groups[k].any || abs
		groups[k].or = groups[k].or || c.GroupType == rules.LogicOR
	}
	for _, gr := range groups {
		if (gr.or && !gr.any) || (!gr.or && !gr.all) {
			return false
		}
	}
	return true
}

// variant spells a unit differently, so satisfying evidence also tests
// canonicalisation.
var variant = map[string]string{
	"%": "percent", "mL/min/1.73 m2": "mL/min/1.73 m²", "mmol/L": "mmol/l", "kg/m2": "kg/m^2",
	"years": "yrs", "ms": "msec", "unitless": "",
}

// For every rule, build evidence that meets it (all AND members, the
// first member of each OR group) and check it fires; then state the
// absence of one required finding and check it no longer fires.
func TestPackSatisfiable(t *testing.T) {
	fired := 0
	for _, r := range packRules(t) {
		chosen := chooseConds(r)
		ev, ok := satisfy(chosen)
		if !ok {
			t.Logf("%s: chosen conditions contradict each other; not generated", r.ID)
			continue
		}
		res := EvaluateRule(r, ev, Options{})
		if !res.Fired() {
			t.Errorf("%s: satisfying evidence does not fire: %s", r.ID, trace(res))
			continue
		}
		fired++
		// Flip the first chosen PRESENT condition of an AND group.
		for _, c := range chosen {
			if c.Operator != rules.OpPresent || c.GroupType == rules.LogicOR {
				continue
			}
			flipped := make([]Evidence, 0, len(ev))
			for _, e := range ev {
				if e.ConceptKey == c.ConceptKey {
					e.Present = false
				}
				flipped = append(flipped, e)
			}
			if res := EvaluateRule(r, flipped, Options{}); res.Truth != False {
				t.Errorf("%s: stating %q absent gives %v, want false", r.ID, c.Concept, res.Truth)
			}
			break
		}
	}
	if fired == 0 {
		t.Fatal("no rule of the pack could be fired")
	}
	t.Logf("%d rules fired on generated evidence", fired)
}

func chooseConds(r Rule) []Cond {
	var out []Cond
	orSeen := map[string]bool{}
	for _, c := range r.Conds {
		k := groupKey(c)
		if c.GroupType == rules.LogicOR {
			if orSeen[k] {
				continue
			}
			orSeen[k] = true
		}
		out = append(out, c)
	}
	return out
}

// satisfy builds one evidence item per concept; numeric conditions on one
// concept share a value inside all their bounds.
func satisfy(cs []Cond) ([]Evidence, bool) {
	type bounds struct {
		lo, hi         float64
		loOpen, hiOpen bool
		eq             *float64
		ne             []float64
		unit, concept  string
		present, value bool
		absent         bool
		window         *rules.Window
	}
	by := map[string]*bounds{}
	var order []string
	for _, c := range cs {
		b := by[c.ConceptKey]
		if b == nil {
			b = &bounds{lo: math.Inf(-1), hi: math.Inf(1), concept: c.Concept}
			by[c.ConceptKey] = b
			order = append(order, c.ConceptKey)
		}
		switch c.Operator {
		case rules.OpPresent:
			b.present = true
			if c.Window != nil {
				b.window = c.Window
			}
			continue
		case rules.OpAbsent:
			b.absent = true
			continue
		case rules.OpUnless:
			// An exception holds when the case does not state it.
			continue
		}
		th, err := rules.Threshold(c.Threshold).Float()
		if err != nil {
			return nil, false
		}
		b.value, b.unit = true, c.Unit
		switch c.Operator {
		case rules.OpLT, rules.OpLE:
			if th < b.hi || (th == b.hi && c.Operator == rules.OpLT) {
				b.hi, b.hiOpen = th, c.Operator == rules.OpLT
			}
		case rules.OpGT, rules.OpGE:
			if th > b.lo || (th == b.lo && c.Operator == rules.OpGT) {
				b.lo, b.loOpen = th, c.Operator == rules.OpGT
			}
		case rules.OpEQ:
			v := th
			b.eq = &v
		case rules.OpNE:
			b.ne = append(b.ne, th)
		}
	}
	var ev []Evidence
	for _, k := range order {
		b := by[k]
		if b.absent && (b.present || b.value) {
			return nil, false
		}
		if !b.present && !b.absent && !b.value {
			continue // only exceptions name it
		}
		e := Evidence{ConceptKey: k, Concept: b.concept, Text: b.concept, Present: !b.absent}
		if w := b.window; w != nil && w.Bounded() {
			// A course window without bounds (rules.Window.Course) needs no date.
			lo, hi := w.Days()
			d := 0.0
			switch {
			case lo != nil && hi != nil:
				d = (*lo + *hi) / 2
			case lo != nil:
				d = *lo + 30
			default:
				d = *hi / 2
			}
			at := time.Now().UTC().Add(-time.Duration(d * float64(24*time.Hour)))
			day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
			e.When = &When{From: day, To: day.Add(24*time.Hour - time.Second), Text: "dated inside the window"}
		}
		if b.value {
			var v float64
			switch {
			case b.eq != nil:
				v = *b.eq
			case !math.IsInf(b.lo, 0) && !math.IsInf(b.hi, 0):
				v = (b.lo + b.hi) / 2
			case !math.IsInf(b.lo, 0):
				v = b.lo + 1
			case !math.IsInf(b.hi, 0):
				v = b.hi - math.Max(1, math.Abs(b.hi)/10)
				if b.hi > 0 && v <= 0 {
					v = b.hi / 2
				}
			default:
				v = 1
				for _, n := range b.ne {
					if v == n {
						v++
					}
				}
			}
			iv := interval{lo: b.lo, hi: b.hi, loOpen: b.loOpen, hiOpen: b.hiOpen}
			if !iv.contains(v) {
				return nil, false
			}
			u := b.unit
			if alt, ok := variant[units.Canonical(u)]; ok {
				u = alt
			}
			e.Value, e.Unit = &v, u
		}
		ev = append(ev, e)
	}
	return ev, true
}

// TestRuleBufferSameAsEvaluateRule: one buffer evaluating every rule of the
// pack in turn, each on evidence that fires it and on no evidence, gives
// what EvaluateRule gives, and a result read before the next Evaluate is
// not changed by an earlier rule's (larger or smaller) result.
func TestRuleBufferSameAsEvaluateRule(t *testing.T) {
	var b RuleBuffer
	n := 0
	for _, r := range packRules(t) {
		ev, _ := satisfy(chooseConds(r))
		for _, e := range [][]Evidence{ev, nil} {
			got, want := b.Evaluate(r, e, Options{}), EvaluateRule(r, e, Options{})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: buffered evaluation differs:\n got %s\nwant %s", r.ID, trace(got), trace(want))
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no rule evaluated")
	}
}

// TestUnmatchedLeafIsUnknown: evalNode answers a definition leaf whose
// concept no item of the pool carries unknown without evaluating it
// (hasKey). That is what EvaluateCond gives such a leaf, without asking
// step (v): every leaf of the built-in pack's definitions, against a pool
// of the other leaves' concepts (stated present, stated absent, with a
// value), is unknown, no item is judged, and evalNode says the same.
func TestUnmatchedLeafIsUnknown(t *testing.T) {
	p, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	if p.Hierarchy == nil || len(p.Hierarchy.Composites) == 0 {
		t.Fatal("the built-in pack has no definitions")
	}
	var leaves []rules.Expr
	for _, c := range p.Hierarchy.Composites {
		leaves = append(leaves, c.Leaves()...)
	}
	var pool []Evidence
	for i, l := range leaves {
		name := l.Concept
		if name == "" {
			name = l.Measure
		}
		e := Evidence{ID: "f" + strconv.Itoa(i), Concept: name, Text: name, Present: i%3 != 1}
		if i%2 == 0 {
			e.ConceptKey = keyOf(name, nil)
		}
		if i%3 == 2 {
			v := float64(i)
			e.Value, e.Unit = &v, l.Unit
		}
		pool = append(pool, e)
	}
	asked := 0
	opt := Options{Admit: func(Cond, Evidence) bool { asked++; return true }}
	for i, l := range leaves {
		name := l.Concept
		if name == "" {
			name = l.Measure
		}
		key := keyOf(name, nil)
		var others []Evidence
		for j, e := range pool {
			if j != i && e.Key() != key {
				others = append(others, e)
			}
		}
		c := Cond{Concept: name, Wording: name, ConceptKey: key, Operator: rules.OpPresent}
		if l.Measure != "" {
			c.Operator = rules.NormalizeOperator(l.Op)
		} else if rules.NormalizeOperator(l.Op) == rules.OpAbsent {
			c.Operator = rules.OpAbsent
		}
		if c.Operator == rules.OpUnless {
			continue
		}
		if hasKey(others, key) {
			t.Fatalf("leaf %q: the pool without its concept has it", name)
		}
		if r := EvaluateCond(c, others, opt); r.Truth != Unknown {
			t.Errorf("leaf %q with no item of its concept evaluates %v, not unknown", name, r.Truth)
		}
		if got, why := evalNode(l, others, nil, opt); got != Unknown || why != nil {
			t.Errorf("leaf %q with no item of its concept: evalNode gives %v %v", name, got, why)
		}
	}
	if asked != 0 {
		t.Errorf("step (v) was asked %d times about items of other concepts", asked)
	}
}

// TestNameKeysKeepDerivations: the definitions' names looked up in
// NameKeys have the keys keyOf works out, and DeriveOpt derives the same
// facts with them as without, over a pool stating every leaf of the
// built-in pack's definitions (present, absent, valued) and over each
// third of it.
func TestNameKeysKeepDerivations(t *testing.T) {
	p, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	names, keys := p.ConceptIndex()
	nk := NameKeys(p.Hierarchy, keys)
	if len(nk) == 0 {
		t.Fatal("NameKeys is empty for the built-in pack")
	}
	for n, k := range nk {
		if want := keyOf(n, keys); k != want {
			t.Errorf("NameKeys[%q] = %q, keyOf gives %q", n, k, want)
		}
	}
	var pool []Evidence
	for i, c := range p.Hierarchy.Composites {
		for j, l := range c.Leaves() {
			name := l.Concept
			if name == "" {
				name = l.Measure
			}
			e := Evidence{ID: "f" + strconv.Itoa(i) + "_" + strconv.Itoa(j), ConceptKey: keyOf(name, keys), Concept: name, Text: name, Present: (i+j)%4 != 1}
			if l.Value != nil {
				v := *l.Value + float64((i+j)%3-1)
				e.Value, e.Unit = &v, l.Unit
			}
			pool = append(pool, e)
		}
	}
	derived := 0
	for part := 0; part < 4; part++ {
		var ev []Evidence
		for i, e := range pool {
			if part == 3 || i%3 == part {
				ev = append(ev, e)
			}
		}
		without := DeriveOpt(ev, p.Hierarchy, names, keys, Options{})
		with := DeriveOpt(ev, p.Hierarchy, names, keys, Options{NameKeys: nk})
		if !reflect.DeepEqual(with, without) {
			t.Fatalf("part %d: DeriveOpt with NameKeys derives\n%+v\nwithout\n%+v", part, with, without)
		}
		derived += len(with)
	}
	if derived == 0 {
		t.Fatal("nothing derived: the pool reaches no definition")
	}
}
