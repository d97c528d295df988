package eval

import (
	"strconv"
	"strings"
	"sync"

	"github.com/executablekg/execkg/rules"
)

// composites evaluates the pack's composite definitions over the pool of
// evidence, in the order the hierarchy keeps them (a composite after the
// composites it uses), in Kleene logic: any-of is true when one member is,
// false when all are; all-of the other way round; at-least-N-of is true
// with N true members and false once fewer than N can still be true;
// otherwise unknown, and an unknown composite derives nothing. An
// exclusion blocks the concept only when it is known to hold. A derived
// item names, in Via, every finding that made it ("definition: high
// bleeding risk ← 'eGFR 25' (f3), 'age 80' (f5)"), keeps the first one's
// id for step (v), and joins to the pool for the composites after it.
func composites(pool []Evidence, h *rules.Hierarchy, nameOfKey, keyOfName map[string]string, opt Options) []Evidence {
	var out []Evidence
	for _, c := range h.Composites {
		t, why := evalExpr(c.Expr, pool, keyOfName, opt)
		for _, u := range c.Unless {
			if ut, uwhy := evalExpr(u, pool, keyOfName, opt); ut == True {
				t, why = False, uwhy
				break
			}
		}
		if t == Unknown || len(why) == 0 || t == False && c.Sufficient {
			continue
		}
		key := opt.keyOf(c.Concept, keyOfName)
		if t == True && statedAbsent(pool, key) {
			// The case's own word wins over an inference from it: "no
			// known CAD" with a relative's stent misread as the patient's.
			continue
		}
		name := nameOfKey[key]
		if name == "" {
			name = c.Concept
		}
		var parts, texts []string
		for _, e := range why {
			parts = append(parts, quote(e)+idOf(e))
			texts = append(texts, e.Text)
		}
		arrow := " ← "
		if t == False {
			arrow = " excluded or unmet ← "
		}
		d := Evidence{ID: why[0].ID, ConceptKey: key, Concept: name, Text: strings.Join(dedupe(texts), "; "), Present: t == True,
			Via: ViaDefinition + c.Concept + arrow + strings.Join(dedupe(parts), ", "), DerivedBy: ReaderDefinition, From: statedKey(why[0])}
		out = append(out, d)
		pool = append(pool, d)
	}
	return out
}

// notDone is the pool without the items of key its words state done
// (Evidence.Done), for a leaf marked not_stated_done.
func notDone(pool []Evidence, key string) []Evidence {
	out := make([]Evidence, 0, len(pool))
	for _, e := range pool {
		if !(e.Done && e.Key() == key) {
			out = append(out, e)
		}
	}
	return out
}

// notStay is the pool without the items of key a discharge document
// dates to its stay (Evidence.Stay), for a leaf marked not_stay.
func notStay(pool []Evidence, key string) []Evidence {
	out := make([]Evidence, 0, len(pool))
	for _, e := range pool {
		if !(e.Stay && e.Key() == key) {
			out = append(out, e)
		}
	}
	return out
}

// notDefined is the pool without the items of key a definition derived
// (ReaderDefinition), for a leaf marked stated: what the case states of
// the concept, or an is-a relation draws from a stated item, stays.
func notDefined(pool []Evidence, key string) []Evidence {
	out := make([]Evidence, 0, len(pool))
	for _, e := range pool {
		if !(e.DerivedBy == ReaderDefinition && e.Key() == key) {
			out = append(out, e)
		}
	}
	return out
}

// onlyPast keeps of the concept's items those the case states of the
// past (Options.Past); the other concepts' items stay.
func onlyPast(pool []Evidence, key string, past func(Evidence) bool) []Evidence {
	out := make([]Evidence, 0, len(pool))
	for _, e := range pool {
		if e.Key() != key || past != nil && past(e) {
			out = append(out, e)
		}
	}
	return out
}

// notPast drops of the concept's items those the case states of the
// past (Options.Past); the other concepts' items stay.
func notPast(pool []Evidence, key string, past func(Evidence) bool) []Evidence {
	if past == nil {
		return pool
	}
	out := make([]Evidence, 0, len(pool))
	for _, e := range pool {
		if e.Key() != key || !past(e) {
			out = append(out, e)
		}
	}
	return out
}

// allPast reports whether every item of w is stated of the past.
func allPast(w []Evidence, past func(Evidence) bool) bool {
	for _, e := range w {
		if !past(e) {
			return false
		}
	}
	return len(w) > 0
}

// statedKey is the key of the stated concept an item was read from: its
// own for a stated item, its source's for a derived one (step (v) judges
// a derived item at the words of the concept it comes from).
func statedKey(e Evidence) string {
	if e.DerivedBy != "" && e.From != "" {
		return e.From
	}
	return e.Key()
}

// statedAbsent: the pool denies the concept (stated, or by is-a from a
// stated denial), not by a definition.
func statedAbsent(pool []Evidence, key string) bool {
	for _, e := range pool {
		if e.Key() == key && !e.Present && e.Value == nil && !strings.HasPrefix(e.Via, ViaDefinition) {
			return true
		}
	}
	return false
}

// DefinitionDecisionID is the decision id under which step (v) judges a
// member of a composite definition (it belongs to no rule).
func DefinitionDecisionID(member string) string {
	return "definition::" + rules.NormalizeName(member)
}

func idOf(e Evidence) string {
	if e.ID == "" {
		return ""
	}
	return " (" + e.ID + ")"
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// packNames memoises rules.NormalizeName for the names of the pack's
// definitions, read again for every composite of every case (a bounded
// set: only pack data comes here, never case text).
var packNames sync.Map // string → string

func normalizedPackName(name string) string {
	if n, ok := packNames.Load(name); ok {
		return n.(string)
	}
	n := rules.NormalizeName(name)
	packNames.Store(name, n)
	return n
}

// hasKey reports whether an item of pool has key as evaluate matches it
// (its ConceptKey, else its Key).
func hasKey(pool []Evidence, key string) bool {
	for i := range pool {
		k := pool[i].ConceptKey
		if k == "" {
			k = pool[i].Key()
		}
		if k == key {
			return true
		}
	}
	return false
}

// NameKeys returns the concept key of every name h's definitions read
// (a definition's concept, its leaves' concepts and measures), as keyOf
// gives it with keyOfName: pack data, the same in every case
// (Options.NameKeys).
func NameKeys(h *rules.Hierarchy, keyOfName map[string]string) map[string]string {
	out := map[string]string{}
	if h == nil {
		return out
	}
	add := func(n string) {
		if _, ok := out[n]; !ok {
			out[n] = keyOf(n, keyOfName)
		}
	}
	for _, c := range h.Composites {
		add(c.Concept)
		for _, l := range c.Leaves() {
			if l.Measure != "" {
				add(l.Measure)
			} else {
				add(l.Concept)
			}
		}
	}
	return out
}

// keyOf is keyOf(name, keyOfName), looked up in NameKeys when set.
func (o Options) keyOf(name string, keyOfName map[string]string) string {
	if k, ok := o.NameKeys[name]; ok {
		return k
	}
	return keyOf(name, keyOfName)
}

// keyOf is the concept key of a pack name: the pack's, else the name key.
func keyOf(name string, keyOfName map[string]string) string {
	n := normalizedPackName(name)
	if k, ok := keyOfName[n]; ok {
		return k
	}
	return "name:" + n
}

// evalExpr returns the truth of one node and the evidence that decided it
// (the true members of a true group, the false members of a false one):
// false, with the exception's evidence, when one of the node's own
// exceptions (Except) is known to hold.
func evalExpr(e rules.Expr, pool []Evidence, keyOfName map[string]string, opt Options) (Truth, []Evidence) {
	t, why := evalNode(e, pool, keyOfName, opt)
	if t == False {
		return t, why
	}
	for _, x := range e.Except {
		if xt, xwhy := evalExpr(x, pool, keyOfName, opt); xt == True && len(xwhy) > 0 {
			return False, xwhy
		}
	}
	return t, why
}

func evalNode(e rules.Expr, pool []Evidence, keyOfName map[string]string, opt Options) (Truth, []Evidence) {
	switch {
	case e.Concept != "" || e.Measure != "":
		c := Cond{Concept: e.Concept, Wording: e.Concept, Operator: rules.OpPresent, Window: e.Window}
		if rules.NormalizeOperator(e.Op) == rules.OpAbsent {
			c.Operator = rules.OpAbsent
		}
		if e.Measure != "" {
			c = Cond{Concept: e.Measure, Wording: e.Measure, Operator: rules.NormalizeOperator(e.Op),
				Threshold: strconv.FormatFloat(*e.Value, 'f', -1, 64), Unit: e.Unit}
		}
		c.ConceptKey = opt.keyOf(c.Concept, keyOfName)
		if c.Operator != rules.OpUnless && !hasKey(pool, c.ConceptKey) {
			// No item of the concept: EvaluateCond below would find it
			// not mentioned, unknown in its open world, asking no hook.
			return Unknown, nil
		}
		// Step (v) records its refusals under this id, so a re-score
		// from the trace refuses the same members; a leaf with a wording
		// of its own ("suspected angina pectoris") is judged apart.
		c.DecisionID = "definition::" + normalizedPackName(c.Concept) // DefinitionDecisionID
		if e.Wording != "" && e.Concept != "" {
			c.Wording = e.Wording
			c.DecisionID = "definition::" + normalizedPackName(e.Wording)
		}
		if c.Operator == rules.OpAbsent {
			c.DecisionID += "::absent"
		}
		if e.NotStatedDone {
			pool = notDone(pool, c.ConceptKey)
		}
		if e.NotStay {
			pool = notStay(pool, c.ConceptKey)
		}
		if e.Past {
			pool = onlyPast(pool, c.ConceptKey, opt.Past)
		}
		if e.Current {
			pool = notPast(pool, c.ConceptKey, opt.Past)
		}
		if e.Stated {
			pool = notDefined(pool, c.ConceptKey)
		}
		r := EvaluateCond(c, pool, Options{Admit: opt.Admit, CaseDate: opt.CaseDate})
		if r.Truth == Unknown {
			return Unknown, nil
		}
		// The item that decided it: the first one judged the same way,
		// one the case states now before one it states of the past, so
		// that a definition drawn from it is no past one.
		var pastItem []Evidence
		for _, ev := range r.Evidence {
			if t, _ := judge(c, c.Operator, ev, opt); t == r.Truth {
				if opt.Past != nil && opt.Past(ev) {
					if pastItem == nil {
						pastItem = []Evidence{ev}
					}
					continue
				}
				return r.Truth, []Evidence{ev}
			}
		}
		if pastItem != nil {
			return r.Truth, pastItem
		}
		return r.Truth, r.Evidence[:1]
	case len(e.Of) > 0:
		var yes, no []Evidence
		nTrue, nUnknown := 0, 0
		for _, m := range e.Of {
			t, w := evalExpr(m, pool, keyOfName, opt)
			switch t {
			case True:
				nTrue++
				yes = append(yes, w...)
			case False:
				no = append(no, w...)
			default:
				nUnknown++
			}
		}
		switch {
		case nTrue >= e.AtLeast:
			return True, yes
		case nTrue+nUnknown < e.AtLeast:
			return False, no
		}
		return Unknown, nil
	}
	any := len(e.AnyOf) > 0
	list := e.AllOf
	if any {
		list = e.AnyOf
	}
	var yes, no, firstYes []Evidence
	out := True
	if any {
		out = False
	}
	for _, m := range list {
		t, w := evalExpr(m, pool, keyOfName, opt)
		if t == True {
			// The first true member names the result; one stated now
			// before one stated of the past.
			if firstYes == nil || opt.Past != nil && allPast(firstYes, opt.Past) && !allPast(w, opt.Past) {
				firstYes = w
			}
			yes = append(yes, w...)
		} else if t == False {
			no = append(no, w...)
		}
		if any {
			out = Or(out, t)
		} else {
			out = And(out, t)
		}
	}
	switch {
	case out == True && any:
		// One true member is enough; name the first with its evidence.
		return True, firstYes
	case out == True:
		return True, yes
	case out == False && any:
		return False, no
	case out == False:
		return False, no[:1]
	}
	return Unknown, nil
}
