package packs_test

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// These tests are generated from the pack, over every rule of every row:
// facts stating exactly a rule's conditions make it fire; dropping any one
// AND condition leaves it unfired; each OR member alone suffices; a value
// just outside a threshold makes it not fire, a value on an inclusive edge
// fires. They exercise the encoding and the step (vi) evaluator together.

// scenario is a set of conditions the facts must satisfy.
type scenario []eval.Cond

// facts builds evidence that satisfies every condition of s, one item per
// concept (ranges on one concept get one value inside all bounds). edge,
// when set, names a decision id whose inclusive threshold the value sits
// on exactly; outside names one whose threshold the value just misses.
func facts(t *testing.T, s scenario, edge, outside string) []eval.Evidence {
	t.Helper()
	type band struct {
		lo, hi         float64
		loOpen, hiOpen bool
		unit           string
		ne             []float64
		eq             *float64
	}
	byKey := map[string]*band{}
	var order []string
	var out []eval.Evidence
	for _, c := range s {
		op := c.Operator
		switch op {
		case rules.OpPresent:
			e := eval.Evidence{ConceptKey: c.ConceptKey, Concept: c.Concept, Present: true, Text: c.Wording}
			if c.Window != nil && c.Window.Bounded() {
				// A course window without bounds needs no date.
				e.When = dated(windowInside(*c.Window))
			}
			out = append(out, e)
			continue
		case rules.OpAbsent:
			out = append(out, eval.Evidence{ConceptKey: c.ConceptKey, Concept: c.Concept, Present: false, Text: "no " + c.Wording})
			continue
		case rules.OpUnless:
			// An exception holds when the case says nothing of it.
			continue
		}
		th, err := rules.Threshold(c.Threshold).Float()
		require.NoError(t, err, c.DecisionID)
		b := byKey[c.ConceptKey]
		if b == nil {
			b = &band{lo: math.Inf(-1), hi: math.Inf(1), unit: c.Unit}
			byKey[c.ConceptKey] = b
			order = append(order, c.ConceptKey)
		}
		switch op {
		case rules.OpGT:
			if th >= b.lo {
				b.lo, b.loOpen = th, true
			}
		case rules.OpGE:
			if th > b.lo {
				b.lo, b.loOpen = th, false
			}
		case rules.OpLT:
			if th <= b.hi {
				b.hi, b.hiOpen = th, true
			}
		case rules.OpLE:
			if th < b.hi {
				b.hi, b.hiOpen = th, false
			}
		case rules.OpEQ:
			v := th
			b.eq = &v
		case rules.OpNE:
			b.ne = append(b.ne, th)
		}
	}
	for _, k := range order {
		b := byKey[k]
		var v float64
		step := 1.0
		switch {
		case b.eq != nil:
			v = *b.eq
		case !math.IsInf(b.lo, 0) && !math.IsInf(b.hi, 0):
			step = math.Min(1, (b.hi-b.lo)/4)
			v = (b.lo + b.hi) / 2
		case !math.IsInf(b.lo, 0):
			v = b.lo + 1
		case !math.IsInf(b.hi, 0):
			v = b.hi - 1
		default:
			v = 1
		}
		if !math.IsInf(b.lo, 0) && !math.IsInf(b.hi, 0) && b.hi-b.lo < 2 {
			step = (b.hi - b.lo) / 4
		}
		for _, c := range s {
			if c.ConceptKey != k {
				continue
			}
			th, _ := rules.Threshold(c.Threshold).Float()
			if c.DecisionID == edge {
				v = th
			}
			if c.DecisionID == outside {
				switch c.Operator {
				case rules.OpGT, rules.OpGE:
					v = th - step
					if c.Operator == rules.OpGT {
						v = th // on an exclusive edge: just outside
					}
				case rules.OpLT, rules.OpLE:
					v = th + step
					if c.Operator == rules.OpLT {
						v = th
					}
				case rules.OpEQ:
					v = th + step
				case rules.OpNE:
					v = th
				}
			}
		}
		for _, n := range b.ne {
			if v == n && outside == "" {
				v += step
			}
		}
		val := v
		out = append(out, eval.Evidence{ConceptKey: k, Present: true, Value: &val, Unit: b.unit, Text: fmt.Sprintf("%g %s", v, b.unit)})
	}
	return out
}

// caseDay is the case date of the generated tests (noon, as engine.AskOn).
var caseDay = time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)

// dated is an event on the day that lies days before the case date.
func dated(days float64) *eval.When {
	t := caseDay.Add(-time.Duration(days * float64(24*time.Hour)))
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return &eval.When{From: d, To: d.Add(24*time.Hour - time.Second), Text: fmt.Sprintf("%g days ago", days)}
}

// windowInside is a number of days well inside a window.
func windowInside(w rules.Window) float64 {
	lo, hi := w.Days()
	switch {
	case lo != nil && hi != nil:
		return math.Round((*lo + *hi) / 2)
	case lo != nil:
		return math.Ceil(*lo) + 30
	}
	return math.Floor(*hi / 2)
}

// groupsOf splits a rule's conditions by group key, in order.
func groupsOf(r eval.Rule) (keys []string, members map[string][]eval.Cond, types map[string]string) {
	members, types = map[string][]eval.Cond{}, map[string]string{}
	for _, c := range r.Conds {
		if _, ok := members[c.GroupKey]; !ok {
			keys = append(keys, c.GroupKey)
		}
		members[c.GroupKey] = append(members[c.GroupKey], c)
		types[c.GroupKey] = c.GroupType
	}
	return
}

// base satisfies every AND condition and the first member of each OR
// group; orPick overrides the member chosen for one OR group.
func base(r eval.Rule, orPick map[string]int, drop string) scenario {
	keys, members, types := groupsOf(r)
	var s scenario
	for _, k := range keys {
		if types[k] == rules.LogicOR {
			s = append(s, members[k][orPick[k]])
			continue
		}
		for _, c := range members[k] {
			if c.DecisionID != drop {
				s = append(s, c)
			}
		}
	}
	return s
}

func TestEveryRuleFiresOnItsConditions(t *testing.T) {
	checked := map[string]int{}
	for _, pp := range packsUnderTest(t) {
		t.Run(pp.id, func(t *testing.T) { rulesFire(t, pp.pack, checked) })
	}
	t.Logf("generated checks: %v", checked)
	require.Positive(t, checked["outside"])
	require.Positive(t, checked["or-member"])
	require.Positive(t, checked["exception"])
	require.Positive(t, checked["window"])
}

// rulesFire runs the generated checks over every rule of one pack.
func rulesFire(t *testing.T, p *rules.Pack, checked map[string]int) {
	refs := p.Rules()
	require.Len(t, refs, ruleCount(p))
	for _, ref := range refs {
		r := eval.FromRuleRef(ref)
		t.Run(ref.ID, func(t *testing.T) {
			res := eval.EvaluateRule(r, facts(t, base(r, nil, ""), "", ""), eval.Options{CaseDate: caseDay})
			require.Equal(t, eval.True, res.Truth, "facts stating the rule's conditions must fire it: %+v", res.Conditions)
			checked["fires"]++

			keys, members, types := groupsOf(r)
			for _, k := range keys {
				if types[k] == rules.LogicOR {
					// Each OR member alone suffices.
					for i := range members[k] {
						s := base(r, map[string]int{k: i}, "")
						res := eval.EvaluateRule(r, facts(t, s, "", ""), eval.Options{CaseDate: caseDay})
						require.Equal(t, eval.True, res.Truth, "OR member %s alone must suffice", members[k][i].DecisionID)
						checked["or-member"]++
					}
					continue
				}
				for _, c := range members[k] {
					if c.Operator == rules.OpUnless {
						// An exception blocks only when stated present (and,
						// when dated, inside its window); a stated absence
						// leaves the rule firing.
						f := facts(t, base(r, nil, ""), "", "")
						stated := eval.Evidence{ConceptKey: c.ConceptKey, Concept: c.Concept, Present: true, Text: c.Wording}
						if c.Window != nil {
							stated.When = dated(windowInside(*c.Window))
							undated := append(f[:len(f):len(f)], eval.Evidence{ConceptKey: c.ConceptKey, Concept: c.Concept, Present: true, Text: c.Wording})
							require.Equal(t, eval.True, eval.EvaluateRule(r, undated, eval.Options{CaseDate: caseDay}).Truth, "an undated exclusion %s must not block", c.DecisionID)
							_, hi := c.Window.Days()
							if hi != nil {
								late := stated
								late.When = dated(math.Floor(*hi) + 1)
								require.Equal(t, eval.True, eval.EvaluateRule(r, append(f[:len(f):len(f)], late), eval.Options{CaseDate: caseDay}).Truth, "an exclusion dated outside %s must not block", c.DecisionID)
							}
							checked["window"]++
						}
						known := append(f[:len(f):len(f)], stated)
						require.Equal(t, eval.False, eval.EvaluateRule(r, known, eval.Options{CaseDate: caseDay}).Truth, "exception %s stated present must block", c.DecisionID)
						denied := append(f[:len(f):len(f)], eval.Evidence{ConceptKey: c.ConceptKey, Concept: c.Concept, Present: false, Text: "no " + c.Wording})
						require.Equal(t, eval.True, eval.EvaluateRule(r, denied, eval.Options{CaseDate: caseDay}).Truth, "exception %s stated absent must not block", c.DecisionID)
						checked["exception"]++
						continue
					}
					// Dropping one AND condition: not fired (unknown). A bound
					// of a range shares its concept's fact with the other
					// bound; "just outside" below covers it.
					if sharesConcept(r, c) {
						continue
					}
					res := eval.EvaluateRule(r, facts(t, base(r, nil, c.DecisionID), "", ""), eval.Options{})
					require.NotEqual(t, eval.True, res.Truth, "rule fired without AND condition %s", c.DecisionID)
					checked["and-drop"]++
				}
			}
			// Windows: an event dated on each edge fires, one a day outside
			// does not, an undated one leaves the rule unknown.
			for _, k := range keys {
				for i, c := range members[k] {
					if c.Window == nil || c.Operator != rules.OpPresent {
						continue
					}
					if !c.Window.Bounded() {
						// A course (rules.Window.Course): the drug begun now
						// does not meet it; any other mention does.
						pick := map[string]int{}
						if types[k] == rules.LogicOR {
							pick[k] = i
						}
						f := facts(t, base(r, pick, ""), "", "")
						for j := range f {
							if f[j].ConceptKey == c.ConceptKey {
								f[j].Begun = true
							}
						}
						require.NotEqual(t, eval.True, eval.EvaluateRule(r, f, eval.Options{CaseDate: caseDay}).Truth, "a drug begun now must not meet the course %s", c.DecisionID)
						checked["course"]++
						continue
					}
					pick := map[string]int{}
					if types[k] == rules.LogicOR {
						pick[k] = i
					}
					withWhen := func(w *eval.When) eval.Truth {
						f := facts(t, base(r, pick, ""), "", "")
						for j := range f {
							if f[j].ConceptKey == c.ConceptKey && f[j].When != nil {
								f[j].When = w
							}
						}
						return eval.EvaluateRule(r, f, eval.Options{CaseDate: caseDay}).Truth
					}
					require.Equal(t, eval.True, withWhen(dated(windowInside(*c.Window))), "event inside %s of %s must fire", c.Window, c.DecisionID)
					require.NotEqual(t, eval.True, withWhen(nil), "an undated %s leaves %s unknown", c.Concept, c.DecisionID)
					lo, hi := c.Window.Days()
					if lo != nil {
						require.Equal(t, eval.True, withWhen(dated(math.Ceil(*lo))), "event on the lower edge of %s must fire", c.DecisionID)
						if *lo >= 1 {
							require.NotEqual(t, eval.True, withWhen(dated(math.Ceil(*lo)-1)), "event a day short of %s must not fire", c.DecisionID)
						}
					}
					if hi != nil {
						require.Equal(t, eval.True, withWhen(dated(math.Floor(*hi))), "event on the upper edge of %s must fire", c.DecisionID)
						require.NotEqual(t, eval.True, withWhen(dated(math.Floor(*hi)+1)), "event a day beyond %s must not fire", c.DecisionID)
					}
					checked["window"]++
				}
			}
			// Thresholds: just outside → not fired; on an inclusive edge → fired.
			for _, k := range keys {
				for i, c := range members[k] {
					if !rules.IsNumeric(c.Operator) {
						continue
					}
					pick := map[string]int{}
					if types[k] == rules.LogicOR {
						pick[k] = i
					}
					s := base(r, pick, "")
					res := eval.EvaluateRule(r, facts(t, s, "", c.DecisionID), eval.Options{})
					require.NotEqual(t, eval.True, res.Truth, "value just outside %s %s %s fired the rule", c.Concept, c.Operator, c.Threshold)
					checked["outside"]++
					if c.Operator == rules.OpLE || c.Operator == rules.OpGE || c.Operator == rules.OpEQ {
						res := eval.EvaluateRule(r, facts(t, s, c.DecisionID, ""), eval.Options{CaseDate: caseDay})
						require.Equal(t, eval.True, res.Truth, "value on the edge of %s %s %s must fire", c.Concept, c.Operator, c.Threshold)
						checked["edge"]++
					}
				}
			}
		})
	}
}

func sharesConcept(r eval.Rule, c eval.Cond) bool {
	for _, o := range r.Conds {
		if o.DecisionID != c.DecisionID && o.ConceptKey == c.ConceptKey {
			return true
		}
	}
	return false
}

func ruleCount(p *rules.Pack) int {
	n := 0
	for _, t := range p.Tables {
		for _, r := range t.Rows {
			n += len(r.Rules)
		}
	}
	return n
}

// The pack itself: 31 tables, 196 rows in catalogue order, the published
// class split, one concept per wording and one name per code.
func TestPackShape(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	s := rules.ComputeStats(p)
	require.Equal(t, 31, s.Tables)
	require.Equal(t, 196, s.Rows)
	require.Equal(t, rules.PublishedClassSplit, s.ClassSplit)
	require.Equal(t, map[string]int{"A": 54, "B": 93, "C": 49}, s.LevelSplit)
	require.Equal(t, map[string]int{"POSITIVE": 186, "NEGATIVE": 10}, s.DirectionSplit)
	for i, tb := range p.Tables {
		require.Equal(t, i+1, tb.Table)
		require.Equal(t, fmt.Sprintf("table_%02d.json", i+1), tb.File)
	}
	// One concept per finding and one concept per code.
	for _, d := range rules.Validate(p) {
		t.Error(d.Error())
	}
}

// Every pack's definitions name its own concepts, and it validates clean.
func TestEveryPackValidates(t *testing.T) {
	eachPack(t, func(t *testing.T, p *rules.Pack) {
		require.NotNil(t, p.Hierarchy)
		require.Empty(t, p.Hierarchy.Check(p))
		require.Empty(t, p.Hierarchy.CheckCalculators())
		for _, d := range rules.Validate(p) {
			t.Error(d.Error())
		}
	})
}

func TestHierarchy(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	h, err := packs.DefaultHierarchy()
	require.NoError(t, err)
	require.Empty(t, h.Check(p))
	require.Contains(t, h.Broader("three-vessel coronary artery disease"), "coronary artery disease")
	require.Contains(t, h.Narrower("heart failure"), "heart failure with reduced ejection fraction")
	_, err = rules.ParseHierarchy("x", []byte(`{"relations":[{"narrower":"a","broader":"b"},{"narrower":"b","broader":"a"}]}`))
	require.ErrorContains(t, err, "cycle")
}

// TestAnatomyConceptsArePackConcepts: the preflight names an anatomy fact
// or count whose concept the pack lacks, by field.
func TestAnatomyConceptsArePackConcepts(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	h, err := packs.DefaultHierarchy()
	require.NoError(t, err)
	require.NotNil(t, h.Anatomy, "the pack's anatomy section")
	h.Anatomy.Facts[0].Concept = "no such stenosis"
	h.Anatomy.Counts[0].Concept = "no such count"
	bad := strings.Join(h.Check(p), "\n")
	require.Contains(t, bad, `anatomy.facts[0]: "no such stenosis" is not a concept of the pack`)
	require.Contains(t, bad, `anatomy.counts[0]: "no such count" is not a concept of the pack`)
}

// Generated from the pack's composite definitions: every member of an
// any-of suffices alone; an all-of needs every member; an at-least-N holds
// with N members and not with N-1; every exclusion, known, blocks.
func TestEveryDefinitionMemberSuffices(t *testing.T) {
	checked := map[string]int{}
	for _, pp := range packsUnderTest(t) {
		if pp.pack.Hierarchy == nil {
			continue // a pack without definitions has none to check
		}
		t.Run(pp.id, func(t *testing.T) { definitionsHold(t, pp.pack, checked) })
	}
	t.Logf("generated definition checks: %v", checked)
	require.Positive(t, checked["any-of member"])
	require.Positive(t, checked["exclusion"])
	require.Positive(t, checked["at-least boundary"])
}

// definitionsHold runs the generated checks over one pack's composites.
func definitionsHold(t *testing.T, p *rules.Pack, checked map[string]int) {
	h := p.Hierarchy
	names, keys := p.ConceptIndex()
	keyOf := func(n string) string {
		if k, ok := keys[rules.NormalizeName(n)]; ok {
			return k
		}
		return "name:" + rules.NormalizeName(n)
	}
	// A leaf marked past is met by an item the case states of the past:
	// this stand-in for the model's statuses reads it off the words.
	const pastWords = "history of "
	statedPast := func(e eval.Evidence) bool { return strings.HasPrefix(e.Text, pastWords) }
	// stating builds evidence that makes one node true.
	var stating func(e rules.Expr) []eval.Evidence
	stating = func(e rules.Expr) []eval.Evidence {
		switch {
		case e.Concept != "":
			text := e.Concept
			if e.Wording != "" {
				text = e.Wording // a mention in the leaf's own words
			}
			ev := eval.Evidence{ID: "f", ConceptKey: keyOf(e.Concept), Concept: e.Concept, Text: text, Present: rules.NormalizeOperator(e.Op) != rules.OpAbsent}
			if e.Window != nil {
				ev.When = dated(windowInside(*e.Window))
			}
			if e.Past {
				ev.Text = pastWords + text // a mention the case states of the past
			}
			return []eval.Evidence{ev}
		case e.Measure != "":
			v := *e.Value
			switch rules.NormalizeOperator(e.Op) {
			case rules.OpLT:
				v--
			case rules.OpGT:
				v++
			}
			return []eval.Evidence{{ID: "f", ConceptKey: keyOf(e.Measure), Concept: e.Measure, Text: e.Measure, Present: true, Value: &v, Unit: e.Unit}}
		case len(e.AnyOf) > 0:
			return stating(e.AnyOf[0])
		case len(e.AllOf) > 0:
			var out []eval.Evidence
			for _, m := range e.AllOf {
				out = append(out, stating(m)...)
			}
			return out
		}
		var out []eval.Evidence
		for _, m := range e.Of[:e.AtLeast] {
			out = append(out, stating(m)...)
		}
		return out
	}
	// A leaf with a wording of its own ("suspected angina pectoris") is
	// met by a mention in those words, and step (v)'s certainty check lets
	// such a mention meet no condition of other words, nor a mention in
	// other words meet it: this stand-in for step (v) does the same.
	worded := map[string]bool{}
	for _, c := range h.Composites {
		for _, l := range c.Leaves() {
			if l.Wording != "" {
				worded[l.Wording] = true
			}
		}
	}
	admit := func(c eval.Cond, e eval.Evidence) bool {
		if worded[e.Text] || worded[c.Wording] {
			return c.Wording == e.Text
		}
		return true
	}
	derives := func(concept string, ev []eval.Evidence) eval.Truth {
		for _, d := range eval.DeriveOpt(ev, h, names, keys, eval.Options{CaseDate: caseDay, Admit: admit, Past: statedPast}) {
			if d.ConceptKey == keyOf(concept) && d.Via != "" && d.Via[:len(eval.ViaDefinition)] == eval.ViaDefinition {
				return eval.Of(d.Present)
			}
		}
		return eval.Unknown
	}
	for _, c := range h.Composites {
		t.Run(c.Concept, func(t *testing.T) {
			switch {
			case len(c.AnyOf) > 0:
				for i, m := range c.AnyOf {
					require.Equal(t, eval.True, derives(c.Concept, stating(m)), "member %d of %s alone must suffice", i, c.Concept)
					checked["any-of member"]++
					if m.AtLeast > 1 {
						// Each member of the group, and the group at its boundary.
						for j := range m.Of {
							one := m
							one.Of = append([]rules.Expr{m.Of[j]}, m.Of[:j]...)
							one.Of = append(one.Of, m.Of[j+1:]...)
							require.Equal(t, eval.True, derives(c.Concept, stating(one)), "%s: member %d of group %d counts", c.Concept, j, i)
						}
						var short []eval.Evidence
						for _, x := range m.Of[:m.AtLeast-1] {
							short = append(short, stating(x)...)
						}
						require.NotEqual(t, eval.True, derives(c.Concept, short), "%s: group %d one short of %d", c.Concept, i, m.AtLeast)
						checked["at-least boundary"]++
					}
				}
			case len(c.AllOf) > 0:
				require.Equal(t, eval.True, derives(c.Concept, stating(c.Expr)), "all members of %s", c.Concept)
				for i := range c.AllOf {
					shared := false // a bound of a range shares its value with the other bound
					for j, m := range c.AllOf {
						shared = shared || j != i && m.Measure != "" && m.Measure == c.AllOf[i].Measure
					}
					if shared {
						continue
					}
					var ev []eval.Evidence
					for j, m := range c.AllOf {
						if j != i {
							ev = append(ev, stating(m)...)
						}
					}
					require.NotEqual(t, eval.True, derives(c.Concept, ev), "%s without member %d", c.Concept, i)
					checked["all-of drop"]++
				}
			default:
				require.Equal(t, eval.True, derives(c.Concept, stating(c.Expr)), "%s with %d members", c.Concept, c.AtLeast)
				var ev []eval.Evidence
				for _, m := range c.Of[:c.AtLeast-1] {
					ev = append(ev, stating(m)...)
				}
				require.NotEqual(t, eval.True, derives(c.Concept, ev), "%s with %d members (one short)", c.Concept, c.AtLeast-1)
				checked["at-least boundary"]++
			}
			for i, u := range c.Unless {
				// The definition met by a member none of the exclusion's
				// exceptions is: an exception that is itself a member
				// (a stated likelihood lifts the CCS exclusion of the
				// suspected-CCS work-up) would lift the exclusion it tests.
				met := c.Expr
				for _, m := range c.AnyOf {
					if !slices.ContainsFunc(u.Except, func(x rules.Expr) bool { return reflect.DeepEqual(x, m) }) {
						met = m
						break
					}
				}
				ev := append(stating(met), stating(u)...)
				require.NotEqual(t, eval.True, derives(c.Concept, ev), "exclusion %d of %s, known, must block", i, c.Concept)
				checked["exclusion"]++
				for j, x := range u.Except {
					require.Equal(t, eval.True, derives(c.Concept, append(ev, stating(x)...)), "exception %d of exclusion %d of %s, known, must lift it", j, i, c.Concept)
					checked["exception lifted"]++
				}
			}
		})
	}
}

// stopWords: a row telling the reader to stop a therapy ("end DAPT at
// 1–3 months", "stopping DAPT", "stop aspirin early").
var stopWords = regexp.MustCompile(`(?i)\b(?:stop|stopping|discontinu\w*)\b|\bend\s+(?:DAPT|aspirin|dual)\b`)

// Stop and avoid rows say so in their intents: a row whose text stops a
// therapy has a "stop" action and never "start"s the stopped therapy; a
// class III row only avoids.
func TestStopAndAvoidRowsIntents(t *testing.T) {
	// Every pack: a row its scheme grades against only avoids; a row
	// that takes no side only discusses.
	eachPack(t, func(t *testing.T, p *rules.Pack) {
		for _, ref := range p.Rules() {
			for _, a := range ref.Actions {
				switch p.Scheme().Direction(ref.Row.Class) {
				case rules.DirectionNegative:
					require.Equal(t, rules.IntentAvoid, a.LogicStructured.Intent, "%s: %s action %s", ref.ID, p.Scheme().Term(ref.Row.Class), a.Concept())
				case rules.DirectionInsufficient:
					require.Equal(t, rules.IntentDiscuss, a.LogicStructured.Intent, "%s: %s action %s", ref.ID, p.Scheme().Term(ref.Row.Class), a.Concept())
				}
			}
		}
	})
	// The CCS pack's stop rows (its wording: "end DAPT", "stop aspirin").
	p, err := packs.Default()
	require.NoError(t, err)
	stops := 0
	for _, ref := range p.Rules() {
		row := ref.Row
		intents := map[string]string{}
		for _, a := range ref.Actions {
			intents[a.Concept()] = a.LogicStructured.Intent
		}
		if !stopWords.MatchString(row.Text) {
			continue
		}
		stops++
		found := false
		for c, in := range intents {
			found = found || in == rules.IntentStop
			require.NotEqual(t, rules.IntentStart, in, "%s: a stop row starts %s", ref.ID, c)
		}
		require.True(t, found, "%s says to stop a therapy but no action has intent stop: %v", ref.ID, intents)
	}
	require.GreaterOrEqual(t, stops, 3)
}
