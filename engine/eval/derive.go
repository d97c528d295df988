package eval

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
)

// Derive applies a pack's is-a relations to evidence: an affirmed finding
// also affirms every broader concept of the pack (without its value: "HFrEF
// with LVEF 30%" says nothing numeric about heart failure), and a stated
// absence also denies every narrower concept. Derived items keep the
// mention's id and text, so step (v) still judges the patient's own words;
// Via names the stated concept. nameOfKey and keyOfName come from
// rules.Pack.ConceptIndex.
func Derive(ev []Evidence, h *rules.Hierarchy, nameOfKey, keyOfName map[string]string) []Evidence {
	return DeriveWith(ev, h, nameOfKey, keyOfName, nil)
}

// DeriveWith is Derive with step (v): admit, when set, decides whether a
// stated item may count as a member of a composite definition (a doubted
// or negated mention does not).
func DeriveWith(ev []Evidence, h *rules.Hierarchy, nameOfKey, keyOfName map[string]string, admit func(Cond, Evidence) bool) []Evidence {
	return DeriveOpt(ev, h, nameOfKey, keyOfName, Options{Admit: admit})
}

// DeriveOpt is Derive with step (v) (opt.Admit) and the case date
// (opt.CaseDate) that dated members of composite definitions use.
func DeriveOpt(ev []Evidence, h *rules.Hierarchy, nameOfKey, keyOfName map[string]string, opt Options) []Evidence {
	if h == nil {
		return nil
	}
	keep := func(f func(Evidence) bool) []Evidence {
		if f == nil {
			return ev
		}
		var out []Evidence
		for _, e := range ev {
			if f(e) {
				out = append(out, e)
			}
		}
		return out
	}
	// Inferences start from the premises only: an is-a, a value band or
	// a definition read off any other item would be a fact no condition
	// may read from that item itself. A composite also reads the members
	// Member keeps, as stated.
	premise := opt.Premise
	if premise == nil {
		premise = opt.Member
	}
	src, members := keep(premise), keep(opt.Member)
	imp := implied(src, h, nameOfKey, keyOfName)
	src = append(src[:len(src):len(src)], imp...)
	defs := append(imp, defined(src, h, nameOfKey, keyOfName)...)
	seen := map[[3]string]bool{}
	out := isa(append(src[:len(src):len(src)], defs...), h, nameOfKey, keyOfName, seen)
	out = append(defs, out...)
	if len(h.Composites) > 0 {
		pool := append(append(members[:len(members):len(members)], imp...), out...)
		comp := composites(pool, h, nameOfKey, keyOfName, opt)
		out = append(out, comp...)
		out = append(out, isa(comp, h, nameOfKey, keyOfName, seen)...)
		out = withdrawExcepted(append(members[:len(members):len(members)], imp...), out, comp, h, keyOfName, opt)
	}
	return out
}

// withdrawExcepted: a composite derived present is withdrawn (left
// unknown, with the is-a facts read off it) when one of its own
// exceptions holds in the model as finally derived: a later composite or
// an is-a from one may state the exception after the composite was
// judged. opt.Withdrawn traces each. One pass: a composite built on a
// withdrawn one is judged again only by the next derivation.
func withdrawExcepted(stated, out, comp []Evidence, h *rules.Hierarchy, keyOfName map[string]string, opt Options) []Evidence {
	byKey := map[string]rules.Composite{}
	for _, c := range h.Composites {
		if len(c.Unless) > 0 {
			byKey[keyOf(c.Concept, keyOfName)] = c
		}
	}
	drop := map[[2]string]bool{} // (id, via) of withdrawn items
	for _, d := range comp {
		c, ok := byKey[d.Key()]
		if !ok || !d.Present {
			continue
		}
		isaVia := "is-a: " + c.Concept
		var pool []Evidence
		for _, e := range append(stated[:len(stated):len(stated)], out...) {
			if e.Key() == d.Key() || e.ID == d.ID && (e.Via == d.Via || strings.HasPrefix(e.Via, isaVia)) {
				continue
			}
			pool = append(pool, e)
		}
		for _, u := range c.Unless {
			if t, why := evalExpr(u, pool, keyOfName, opt); t == True && len(why) > 0 {
				drop[[2]string{d.ID, d.Via}] = true
				for _, e := range out {
					if e.ID == d.ID && e.Via == isaVia {
						drop[[2]string{e.ID, e.Via}] = true
					}
				}
				if opt.Withdrawn != nil {
					opt.Withdrawn(d, "its exception "+quote(why[0])+idOf(why[0])+" holds")
				}
				break
			}
		}
	}
	if len(drop) == 0 {
		return out
	}
	kept := out[:0:0]
	for _, e := range out {
		if !drop[[2]string{e.ID, e.Via}] {
			kept = append(kept, e)
		}
	}
	return kept
}

// isa applies the is-a relations to items: an affirmed item affirms every
// broader concept, a denied one denies every narrower one.
func isa(items []Evidence, h *rules.Hierarchy, nameOfKey, keyOfName map[string]string, seen map[[3]string]bool) []Evidence {
	var out []Evidence
	for _, e := range items {
		name := nameOfKey[e.Key()]
		if name == "" {
			name = e.Concept
		}
		affirmed := e.Present || e.Value != nil
		related := h.Narrower(name)
		if affirmed {
			related = h.Broader(name)
		}
		for _, r := range related {
			key, ok := keyOfName[r]
			if !ok {
				continue
			}
			k := [3]string{e.ID, key, boolKey(affirmed)}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, Evidence{ID: e.ID, ConceptKey: key, Concept: nameOfKey[key], Text: e.Text, Present: affirmed, Via: "is-a: " + name, When: e.When, Done: e.Done, Stay: e.Stay, DerivedBy: ReaderIsA, From: e.Key()})
		}
	}
	return out
}

func boolKey(b bool) string {
	if b {
		return "+"
	}
	return "-"
}

// defined applies the numeric definitions of the hierarchy file: a stated
// value of a measured concept inside a definition's band affirms the
// defined concept ("LVEF 60%" → preserved LVEF), one wholly outside it
// denies it ("LVEF 35%" → no preserved LVEF); a bound that straddles the
// band ("LVEF > 45%") says nothing. Via names the definition.
func defined(ev []Evidence, h *rules.Hierarchy, nameOfKey, keyOfName map[string]string) []Evidence {
	var out []Evidence
	seen := map[[3]string]bool{}
	for _, e := range ev {
		if e.Value == nil {
			continue
		}
		name := nameOfKey[e.Key()]
		if name == "" {
			name = e.Concept
		}
		for _, d := range h.DefinitionsOf(name) {
			key, ok := keyOfName[rules.NormalizeName(d.Concept)]
			if !ok {
				continue
			}
			v, err := units.ConvertWith(*e.Value, e.Unit, d.Unit, d.Measure, units.Options{})
			if err != nil || e.Unit == "" && d.Unit != "" {
				continue
			}
			cmp := rules.NormalizeOperator(e.Comparator)
			if cmp == "" {
				cmp = rules.OpEQ
			}
			iv := intervalOf(cmp, v)
			var ts []Truth
			if d.Min != nil {
				ts = append(ts, relate(iv, rules.OpGE, *d.Min))
			}
			if d.Max != nil {
				ts = append(ts, relate(iv, rules.OpLE, *d.Max))
			}
			t := And(ts...)
			if t == Unknown {
				continue
			}
			k := [3]string{e.ID, key, boolKey(t == True)}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, Evidence{ID: e.ID, ConceptKey: key, Concept: nameOfKey[key], Text: e.Text, Present: t == True,
				Via: ViaDefinition + d.Concept + " is " + name + " " + band(d), DerivedBy: ReaderDefinition})
		}
	}
	return out
}

// ViaDefinition starts the Via of an item derived from a numeric
// definition; step (v) does not ask its mention to state the defined
// concept's qualifiers ("preserved"): the value states them.
const ViaDefinition = "definition: "

func band(d rules.Definition) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case d.Min != nil && d.Max != nil:
		return fmt.Sprintf("%s–%s %s", f(*d.Min), f(*d.Max), d.Unit)
	case d.Min != nil:
		return fmt.Sprintf(">= %s %s", f(*d.Min), d.Unit)
	}
	return fmt.Sprintf("<= %s %s", f(*d.Max), d.Unit)
}

// ViaImplied starts the Via of a value band implied by a stated concept
// ("CKD 3b" → eGFR >= 30 and < 45).
const ViaImplied = "implies: "

// implied reads the value bands stated concepts imply (Hierarchy.Values)
// as bounds on the measured concept, each traced; a measure the case
// states a value of gets none.
func implied(ev []Evidence, h *rules.Hierarchy, nameOfKey, keyOfName map[string]string) []Evidence {
	if len(h.Values) == 0 {
		return nil
	}
	valued := map[string]bool{}
	for _, e := range ev {
		if e.Value != nil && e.Via == "" {
			valued[e.Key()] = true
		}
	}
	var out []Evidence
	done := map[string]bool{}
	for _, e := range ev {
		if !e.Present || e.Value != nil {
			continue
		}
		name := nameOfKey[e.Key()]
		if name == "" {
			name = e.Concept
		}
		for _, v := range h.ValuesOf(name) {
			key := keyOf(v.Measure, keyOfName)
			if valued[key] || done[key] {
				continue
			}
			done[key] = true
			via := ViaImplied + "'" + e.Text + "' is " + v.Concept + " (" + v.Source + ")"
			lo, loStrict, hi, hiStrict := v.Bounds()
			if lo != nil {
				l, cmp := *lo, rules.OpGE
				if loStrict {
					cmp = rules.OpGT
				}
				out = append(out, Evidence{ID: e.ID, ConceptKey: key, Concept: nameOfKey[key], Text: e.Text, Present: true, Value: &l, Unit: v.Unit, Comparator: cmp, Via: via, DerivedBy: ReaderImplied})
			}
			if hi != nil {
				h, cmp := *hi, rules.OpLE
				if hiStrict {
					cmp = rules.OpLT
				}
				out = append(out, Evidence{ID: e.ID, ConceptKey: key, Concept: nameOfKey[key], Text: e.Text, Present: true, Value: &h, Unit: v.Unit, Comparator: cmp, Via: via, DerivedBy: ReaderImplied})
			}
		}
	}
	return out
}
