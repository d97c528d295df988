package rules

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Hierarchy holds is-a relations between a pack's concepts: a stated
// narrower finding implies the broader one ("type 2 diabetes" is
// diabetes), and a stated absence of the broader one implies absence of
// every narrower one. The reference system used SNOMED CT for identity
// only, so "HFrEF" never satisfied a "heart failure" condition.
type Hierarchy struct {
	Version   int    `json:"version"`
	Note      string `json:"note,omitempty"`
	Relations []IsA  `json:"relations"`
	// Definitions give concepts a numeric definition over a measured
	// concept of the pack (preserved LVEF is LVEF >= 50 %).
	Definitions []Definition `json:"definitions,omitempty"`
	// Composites define concepts from other concepts and values (any-of,
	// all-of, at-least-N-of, with exclusions); kept in evaluation order
	// (a composite after those it uses) once parsed.
	Composites []Composite `json:"composites,omitempty"`
	// Values say what a stated concept implies about a measured one: a
	// stated CKD stage G3b means an eGFR of at least 30 and below 45.
	Values []Implied `json:"values,omitempty"`
	// Anatomy is the vocabulary of per-vessel stenosis reports and the
	// populations they give (see Anatomy), or nil.
	Anatomy *Anatomy `json:"anatomy,omitempty"`
	// Calculated declares concepts computed by a published equation from
	// other facts (see Calculated).
	Calculated []Calculated `json:"calculated,omitempty"`
	// Distinct names concepts whose names or synonyms hold another
	// concept's name or synonym but which are not that concept
	// ("gestational diabetes mellitus" is no diabetes mellitus for
	// cardiovascular risk; "CT coronary angiography" is no invasive
	// coronary angiography): a phrase of From stated inside a phrase of
	// Concept is not read as From.
	Distinct []Distinct `json:"distinct,omitempty"`
	// CurrentOnly lists the concepts that hold only while current (see
	// CurrentOnly); nil when every concept counts stated of the past.
	CurrentOnly *CurrentOnly `json:"current_only,omitempty"`
	// Components, Bars and Agents say what a recorded intolerance bars
	// (see barring.go).
	Components []Component `json:"components,omitempty"`
	Bars       []Bar       `json:"bars,omitempty"`
	AgentsNote string      `json:"agents_note,omitempty"` // why a class has no agents list
	Agents     []AgentList `json:"agents,omitempty"`
	Classes    []Declared  `json:"classes,omitempty"`
	Partial    []Declared  `json:"partial,omitempty"`

	up, down map[string][]string // normalised name → transitive closure
}

// Distinct is one pair of Hierarchy.Distinct, with the reason.
type Distinct struct {
	Concept string `json:"concept"`
	From    string `json:"from"`
	Source  string `json:"source"`
}

// IsA is one relation by concept name.
type IsA struct {
	Narrower string `json:"narrower"`
	Broader  string `json:"broader"`
}

// Definition says that Concept holds exactly when the value of Measure
// lies within [Min, Max] (inclusive; a missing bound is open), in Unit:
// "intermediate coronary artery stenosis" is a coronary artery diameter
// stenosis of 40–90 %. A stated value inside the band affirms Concept, one
// wholly outside it denies Concept. Source names where the definition
// comes from (a footnote of the pack, a universally used definition);
// only definitions with such a source belong here.
type Definition struct {
	Concept string   `json:"concept"`
	Measure string   `json:"measure"`
	Min     *float64 `json:"min,omitempty"`
	Max     *float64 `json:"max,omitempty"`
	Unit    string   `json:"unit"`
	Source  string   `json:"source"`
}

// CurrentOnly names the concepts a fact stated of the past (a history, a
// resolved or inactive condition) does not make present now: a symptom, a
// rhythm. A concept narrower than a listed one is listed too (stable
// angina is a symptom). Every other concept counts when stated of the
// past: a prior myocardial infarction or PCI defines a chronic coronary
// syndrome. Source says why.
//
// InPastSections names the concepts whose fact under a heading the pack
// marks past (a past medical history: meta/sections.json status past)
// is no present fact either, whatever its own status: a work-up is the
// present episode's, so a referral for suspected disease listed in the
// past history ("2016: chest pain clinic") is a work-up that ended.
// Source says why for both lists.
type CurrentOnly struct {
	Concepts       []string `json:"concepts"`
	InPastSections []string `json:"in_past_sections,omitempty"`
	Source         string   `json:"source"`
}

// IsCurrentOnlyInPastSection reports whether a fact of the concept under
// a past heading states nothing about the patient now: the concept, or a
// broader one, is listed in CurrentOnly.InPastSections.
func (h *Hierarchy) IsCurrentOnlyInPastSection(concept string) bool {
	if h == nil || h.CurrentOnly == nil {
		return false
	}
	return h.listedOrBroader(concept, h.CurrentOnly.InPastSections)
}

// IsCurrentOnly reports whether a fact of the concept stated of the past
// states nothing about the patient now: the concept, or a broader one, is
// listed in CurrentOnly.
func (h *Hierarchy) IsCurrentOnly(concept string) bool {
	if h == nil || h.CurrentOnly == nil {
		return false
	}
	return h.listedOrBroader(concept, h.CurrentOnly.Concepts)
}

// listedOrBroader: the concept, or a concept broader than it, is in list.
func (h *Hierarchy) listedOrBroader(concept string, list []string) bool {
	n := NormalizeName(concept)
	for _, c := range list {
		cn := NormalizeName(c)
		if cn == n || slices.Contains(h.up[n], cn) {
			return true
		}
	}
	return false
}

// Implied is a value band a stated concept implies for a measured
// concept: Measure >= AtLeast (or > Above) and < Below (or <= AtMost), a
// missing bound open, in Unit. A stated value of the measure wins over
// the band.
type Implied struct {
	Concept string   `json:"concept"`
	Measure string   `json:"measure"`
	AtLeast *float64 `json:"at_least,omitempty"`
	Above   *float64 `json:"above,omitempty"`
	Below   *float64 `json:"below,omitempty"`
	AtMost  *float64 `json:"at_most,omitempty"`
	Unit    string   `json:"unit"`
	Source  string   `json:"source"`
}

// Bounds returns the band's lower and upper bound, nil when open, and
// whether each is strict (Above, Below) or inclusive (AtLeast, AtMost).
func (v Implied) Bounds() (lo *float64, loStrict bool, hi *float64, hiStrict bool) {
	lo, loStrict = v.AtLeast, false
	if v.Above != nil {
		lo, loStrict = v.Above, true
	}
	hi, hiStrict = v.AtMost, false
	if v.Below != nil {
		hi, hiStrict = v.Below, true
	}
	return lo, loStrict, hi, hiStrict
}

// ValuesOf returns the bands a stated concept implies.
func (h *Hierarchy) ValuesOf(concept string) []Implied {
	if h == nil {
		return nil
	}
	var out []Implied
	n := NormalizeName(concept)
	for _, v := range h.Values {
		if NormalizeName(v.Concept) == n {
			out = append(out, v)
		}
	}
	return out
}

// DefinitionsOf returns the definitions over a measured concept.
func (h *Hierarchy) DefinitionsOf(measure string) []Definition {
	if h == nil {
		return nil
	}
	var out []Definition
	m := NormalizeName(measure)
	for _, d := range h.Definitions {
		if NormalizeName(d.Measure) == m {
			out = append(out, d)
		}
	}
	return out
}

// ParseHierarchy decodes and indexes a hierarchy file; a cycle is an error.
func ParseHierarchy(name string, data []byte) (*Hierarchy, error) {
	var h Hierarchy
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	direct := map[string][]string{}
	for i, r := range h.Relations {
		n, b := NormalizeName(r.Narrower), NormalizeName(r.Broader)
		if n == "" || b == "" || n == b {
			return nil, fmt.Errorf("%s: relations[%d]: narrower and broader must be two different concept names", name, i)
		}
		direct[n] = append(direct[n], b)
	}
	for i, d := range h.Definitions {
		if NormalizeName(d.Concept) == "" || NormalizeName(d.Measure) == "" || NormalizeName(d.Concept) == NormalizeName(d.Measure) {
			return nil, fmt.Errorf("%s: definitions[%d]: concept and measure must be two different concept names", name, i)
		}
		if d.Min == nil && d.Max == nil || d.Min != nil && d.Max != nil && *d.Min > *d.Max {
			return nil, fmt.Errorf("%s: definitions[%d] (%s): give min and/or max, with min <= max", name, i, d.Concept)
		}
		if strings.TrimSpace(d.Unit) == "" || strings.TrimSpace(d.Source) == "" {
			return nil, fmt.Errorf("%s: definitions[%d] (%s): unit and source are required", name, i, d.Concept)
		}
	}
	for i, v := range h.Values {
		if NormalizeName(v.Concept) == "" || NormalizeName(v.Measure) == "" || strings.TrimSpace(v.Unit) == "" || strings.TrimSpace(v.Source) == "" {
			return nil, fmt.Errorf("%s: values[%d]: concept, measure, unit and source are required", name, i)
		}
		lo, _, hi, _ := v.Bounds()
		if v.AtLeast != nil && v.Above != nil || v.Below != nil && v.AtMost != nil || lo == nil && hi == nil || lo != nil && hi != nil && *lo >= *hi {
			return nil, fmt.Errorf("%s: values[%d] (%s): give one lower bound (at_least or above) and/or one upper bound (below or at_most), the lower under the upper", name, i, v.Concept)
		}
	}
	for i, d := range h.Distinct {
		c, f := NormalizeName(d.Concept), NormalizeName(d.From)
		if c == "" || f == "" || c == f || strings.TrimSpace(d.Source) == "" {
			return nil, fmt.Errorf("%s: distinct[%d]: concept and from must be two different concept names, with a source", name, i)
		}
		// Whether a phrase of one holds a phrase of the other is checked
		// where the lexicon's synonyms are known (engine.New): "CT
		// coronary angiography", a synonym of CCTA, holds "coronary
		// angiography", one of ICA's, though the names do not nest.
	}
	if c := h.CurrentOnly; c != nil {
		if len(c.Concepts) == 0 || strings.TrimSpace(c.Source) == "" {
			return nil, fmt.Errorf("%s: current_only: give concepts (at least one) and source", name)
		}
		for i, n := range c.Concepts {
			if NormalizeName(n) == "" {
				return nil, fmt.Errorf("%s: current_only.concepts[%d]: empty concept name", name, i)
			}
		}
		for i, n := range c.InPastSections {
			if NormalizeName(n) == "" {
				return nil, fmt.Errorf("%s: current_only.in_past_sections[%d]: empty concept name", name, i)
			}
		}
	}
	if h.Anatomy != nil {
		if err := h.Anatomy.check(name); err != nil {
			return nil, err
		}
	}
	ordered, err := checkComposites(name, h.Composites)
	if err != nil {
		return nil, err
	}
	if err := checkCalculated(name, h.Calculated); err != nil {
		return nil, err
	}
	if err := h.checkBarring(name); err != nil {
		return nil, err
	}
	h.Composites = ordered
	h.up, h.down = map[string][]string{}, map[string][]string{}
	for n := range direct {
		seen := map[string]bool{}
		var walk func(x string, depth int) error
		walk = func(x string, depth int) error {
			if depth > len(direct)+1 {
				return fmt.Errorf("%s: the relations of %q form a cycle", name, n)
			}
			for _, b := range direct[x] {
				if b == n {
					return fmt.Errorf("%s: the relations of %q form a cycle", name, n)
				}
				if !seen[b] {
					seen[b] = true
					if err := walk(b, depth+1); err != nil {
						return err
					}
				}
			}
			return nil
		}
		if err := walk(n, 0); err != nil {
			return nil, err
		}
		for b := range seen {
			h.up[n] = append(h.up[n], b)
			h.down[b] = append(h.down[b], n)
		}
	}
	for _, m := range []map[string][]string{h.up, h.down} {
		for k := range m {
			sort.Strings(m[k])
		}
	}
	for i, d := range h.Distinct {
		for _, b := range h.up[NormalizeName(d.Concept)] {
			if b == NormalizeName(d.From) {
				return nil, fmt.Errorf("%s: distinct[%d]: %q is distinct from %q, yet the relations make it narrower; drop one of the two", name, i, d.Concept, d.From)
			}
		}
	}
	return &h, nil
}

// IsDistinct reports whether the pack says concept, whose name holds
// from's, is not from (Hierarchy.Distinct).
func (h *Hierarchy) IsDistinct(concept, from string) bool {
	if h == nil {
		return false
	}
	c, f := NormalizeName(concept), NormalizeName(from)
	for _, d := range h.Distinct {
		if NormalizeName(d.Concept) == c && NormalizeName(d.From) == f {
			return true
		}
	}
	return false
}

// Broader returns every concept name the given one is a kind of
// (transitively), normalised.
func (h *Hierarchy) Broader(concept string) []string {
	if h == nil {
		return nil
	}
	return h.up[NormalizeName(concept)]
}

// Narrower returns every concept name that is a kind of the given one.
func (h *Hierarchy) Narrower(concept string) []string {
	if h == nil {
		return nil
	}
	return h.down[NormalizeName(concept)]
}

// Check reports relation names that are not concepts of the pack.
func (h *Hierarchy) Check(p *Pack) []string {
	names := map[string]bool{}
	for _, r := range p.Rules() {
		for _, c := range r.Rule.Conditions {
			names[NormalizeName(c.Concept())] = true
		}
		// An action's concept is a concept of the pack too: "long-acting
		// nitrate" is a nitrate although no rule tests nitrates any more.
		for _, a := range r.Actions {
			names[NormalizeName(a.Concept())] = true
		}
	}
	// Members of composites are concepts of the pack too (the program
	// grounds them for the definition), so a relation may name one:
	// current smoking, a risk-factor member, is also ever smoking.
	members := map[string]bool{}
	for _, c := range h.Composites {
		for _, l := range c.Leaves() {
			if l.Concept != "" {
				members[NormalizeName(l.Concept)] = true
			}
		}
	}
	// A declared drug class is a concept of the pack for what an
	// intolerance bars (barring.go).
	for _, d := range h.Classes {
		members[NormalizeName(d.Concept)] = true
	}
	var bad []string
	for i, d := range h.Partial {
		if !names[NormalizeName(d.Concept)] && !members[NormalizeName(d.Concept)] {
			bad = append(bad, fmt.Sprintf("partial[%d]: %q is not a concept of the pack", i, d.Concept))
		}
	}
	for i, r := range h.Relations {
		for _, n := range []string{r.Narrower, r.Broader} {
			if !names[NormalizeName(n)] && !members[NormalizeName(n)] {
				bad = append(bad, fmt.Sprintf("relations[%d]: %q is not a concept of the pack", i, n))
			}
		}
	}
	for i, d := range h.Definitions {
		for _, n := range []string{d.Concept, d.Measure} {
			if !names[NormalizeName(n)] {
				bad = append(bad, fmt.Sprintf("definitions[%d]: %q is not a concept of the pack", i, n))
			}
		}
	}
	for i, v := range h.Values {
		if !names[NormalizeName(v.Measure)] {
			bad = append(bad, fmt.Sprintf("values[%d]: %q is not a concept of the pack", i, v.Measure))
		}
	}
	if h.CurrentOnly != nil {
		for i, n := range h.CurrentOnly.Concepts {
			if !names[NormalizeName(n)] && !members[NormalizeName(n)] {
				bad = append(bad, fmt.Sprintf("current_only.concepts[%d]: %q is not a concept of the pack", i, n))
			}
		}
		for i, n := range h.CurrentOnly.InPastSections {
			if !names[NormalizeName(n)] && !members[NormalizeName(n)] {
				bad = append(bad, fmt.Sprintf("current_only.in_past_sections[%d]: %q is not a concept of the pack", i, n))
			}
		}
	}
	if h.Anatomy != nil {
		for _, c := range h.Anatomy.concepts() {
			if !names[NormalizeName(c[1])] {
				bad = append(bad, fmt.Sprintf("%s: %q is not a concept of the pack, so the reader would never give it", c[0], c[1]))
			}
		}
	}
	// A composite must define a concept some rule or composite uses; its members may be
	// concepts no rule names (the program grounds them for the definition).
	used := map[string]bool{}
	for _, c := range h.Composites {
		for _, l := range c.Leaves() {
			used[NormalizeName(l.Concept)] = true
		}
	}
	for _, c := range h.Calculated {
		for _, in := range c.Inputs {
			used[NormalizeName(in.Concept)] = true
			if in.Otherwise != "" {
				used[NormalizeName(in.Otherwise)] = true
			}
		}
	}
	for _, c := range h.Composites {
		if !names[NormalizeName(c.Concept)] && !used[NormalizeName(c.Concept)] {
			bad = append(bad, fmt.Sprintf("composites (%s): %q is not a concept of the pack, so the definition would never be used", c.Concept, c.Concept))
		}
	}
	for i, c := range h.Components {
		for _, n := range append([]string{c.Concept}, c.Of...) {
			if !names[NormalizeName(n)] && !members[NormalizeName(n)] {
				bad = append(bad, fmt.Sprintf("components[%d] (%s): %q is not a concept of the pack", i, c.Concept, n))
			}
		}
	}
	for i, b := range h.Bars {
		for _, n := range []string{b.Concept, b.Drug} {
			if !names[NormalizeName(n)] && !members[NormalizeName(n)] {
				bad = append(bad, fmt.Sprintf("bars[%d] (%s): %q is not a concept of the pack", i, b.Concept, n))
			}
		}
	}
	for i, a := range h.Agents {
		if !names[NormalizeName(a.Class)] && !members[NormalizeName(a.Class)] {
			bad = append(bad, fmt.Sprintf("agents[%d]: %q is not a concept of the pack", i, a.Class))
		}
	}
	// A calculated concept must be one a rule or definition reads; its
	// inputs may be concepts nothing else names (the program grounds them).
	for i, c := range h.Calculated {
		if !names[NormalizeName(c.Concept)] && !used[NormalizeName(c.Concept)] {
			bad = append(bad, fmt.Sprintf("calculated[%d] (%s): %q is not a concept of the pack, so the calculation would never be used", i, c.Concept, c.Concept))
		}
	}
	return bad
}

// Composite defines a concept from other concepts and values, as a
// footnote or a published criteria set does ("high bleeding risk is >= 1
// major or >= 2 minor ARC-HBR criteria"). Its body is an Expr (any_of,
// all_of or at_least + of); Unless lists exclusions, each of which blocks
// the concept only when known to hold (like the UNLESS operator), so an
// unmentioned exclusion never leaves the concept unknown. Members may be
// composites themselves; a cycle is an error. The is-a relations and the
// numeric band definitions are the two simpler kinds of definition.
type Composite struct {
	Concept string `json:"concept"`
	Expr
	Unless []Expr `json:"unless,omitempty"`
	// Sufficient marks a definition that names one way the concept
	// holds, not every way ("a PCI that day was done through an ICA that
	// day"): it derives the concept when it holds and nothing when it
	// does not (an older PCI says nothing of an ICA now).
	Sufficient bool   `json:"sufficient,omitempty"`
	Source     string `json:"source"`
	Note       string `json:"note,omitempty"`
}

// Expr is one node of a composite definition: a concept leaf (Concept:
// stated or derived present), a numeric leaf (Measure Op Value Unit), or a
// group: AnyOf, AllOf, or AtLeast N Of.
type Expr struct {
	Concept string `json:"concept,omitempty"`
	Measure string `json:"measure,omitempty"`
	// Op is a numeric member's comparison, or ABSENT for a concept leaf
	// met by a stated absence ("acute coronary syndrome" ruled out).
	Op    string   `json:"op,omitempty"`
	Value *float64 `json:"value,omitempty"`
	Unit  string   `json:"unit,omitempty"`
	// Window dates a concept leaf's event relative to the case date
	// ("myocardial infarction" within 40 days).
	Window  *Window `json:"window,omitempty"`
	AnyOf   []Expr  `json:"any_of,omitempty"`
	AllOf   []Expr  `json:"all_of,omitempty"`
	AtLeast int     `json:"at_least,omitempty"`
	Of      []Expr  `json:"of,omitempty"`
	// Label names a group in traces ("ARC-HBR major criterion").
	Label string `json:"label,omitempty"`
	// Wording, on a concept leaf, is the words step (v) judges a mention
	// against when they are not the concept's name, as a rule condition's
	// wording is: "suspected angina pectoris" is met by a doubted angina
	// ("?angina"), not by a stated one.
	Wording string `json:"wording,omitempty"`
	// Except lists exceptions of this node: it is false when one of them
	// is known to hold ("decompensated heart failure" excepts the work-up
	// of suspected CCS, except where the failure's ischaemic cause is what
	// is suspected).
	Except []Expr `json:"except,omitempty"`
	// NotStatedDone, on a concept leaf, is not met by an item whose own
	// words state the procedure done ("CABG performed 20/11/2026";
	// meta/sections.json frame.done_words): a planned procedure read off
	// a procedure of the document's own episode is no plan once the text
	// says it was performed.
	NotStatedDone bool `json:"not_stated_done,omitempty"`
	// NotStay, on a concept leaf, is not met by an acute event a
	// discharge document dates to the stay it reports (meta/sections.json
	// frame.stay_events): the patient is discharged from it, so it no
	// longer marks the acute phase, while a row's own window still reads
	// its date ("Dx: Anterior STEMI - primary PCI", discharged day 6).
	NotStay bool `json:"not_stay,omitempty"`
	// Past, on a concept leaf, is met only by an item the case states of
	// the past ("history of NSTEMI", "previous ACS", a past-history
	// section): the record sets the event before the present episode,
	// dated or not, so an acute event so stated is past its acute phase.
	Past bool `json:"past,omitempty"`
	// Stated, on a concept leaf, is met only by an item the case states
	// (or one drawn from it by an is-a relation), not by one another
	// definition derives: a record that itself calls a diagnosis
	// suspected ("suspected ANOCA") holds it as a work-up, while the
	// suspicion a definition reads off the findings may stand beside the
	// documented diagnosis.
	Stated bool `json:"stated,omitempty"`
	// Current, on a concept leaf, is met only by an item the case does
	// not state of the past (the converse of Past): a regimen is what
	// the patient takes now, so a drug the text states taken before a
	// later stop ("on aspirin and prasugrel; prasugrel stopped 2020"), or
	// under a past-history heading, is no part of it.
	Current bool `json:"current,omitempty"`
}

// IsLeaf reports whether e is a concept or numeric leaf.
func (e Expr) IsLeaf() bool { return e.Concept != "" || e.Measure != "" }

// check validates one node; where is its JSON path for the message.
func (e Expr) check(where string) error {
	kinds := 0
	for _, b := range []bool{e.Concept != "", e.Measure != "", len(e.AnyOf) > 0, len(e.AllOf) > 0, len(e.Of) > 0} {
		if b {
			kinds++
		}
	}
	if kinds != 1 {
		return fmt.Errorf("%s: give exactly one of concept, measure, any_of, all_of or at_least+of", where)
	}
	if e.Measure != "" {
		if !IsNumeric(NormalizeOperator(e.Op)) || e.Value == nil || strings.TrimSpace(e.Unit) == "" {
			return fmt.Errorf("%s (%s): a numeric member needs op (<, <=, >, >=, =, !=), value and unit", where, e.Measure)
		}
	}
	if e.Wording != "" && e.Concept == "" {
		return fmt.Errorf("%s: a wording belongs on a concept leaf", where)
	}
	if e.Past && e.Concept == "" {
		return fmt.Errorf("%s: past belongs on a concept leaf", where)
	}
	if e.Stated && e.Concept == "" {
		return fmt.Errorf("%s: stated belongs on a concept leaf", where)
	}
	if e.Current && e.Concept == "" {
		return fmt.Errorf("%s: current belongs on a concept leaf", where)
	}
	if e.Current && e.Past {
		return fmt.Errorf("%s (%s): a leaf is past or current, not both", where, e.Concept)
	}
	if op := NormalizeOperator(e.Op); e.Concept != "" && op != "" && op != OpPresent && op != OpAbsent {
		return fmt.Errorf("%s (%s): a concept member's op is PRESENT (the default) or ABSENT, got %q", where, e.Concept, e.Op)
	}
	for i, x := range e.Except {
		if err := x.check(fmt.Sprintf("%s/except/%d", where, i)); err != nil {
			return err
		}
	}
	if w := e.Window; w != nil && (e.Concept == "" || WindowUnits[w.Unit] == 0 || w.Min == nil && w.Max == nil) {
		return fmt.Errorf("%s: a window belongs on a concept leaf and needs min and/or max and a unit (days, weeks, months, years)", where)
	}
	if len(e.Of) > 0 && (e.AtLeast < 1 || e.AtLeast > len(e.Of)) {
		return fmt.Errorf("%s: at_least must be between 1 and the number of members (%d), got %d", where, len(e.Of), e.AtLeast)
	}
	if e.AtLeast != 0 && len(e.Of) == 0 {
		return fmt.Errorf("%s: at_least needs its members in of", where)
	}
	for i, c := range e.AnyOf {
		if err := c.check(fmt.Sprintf("%s/any_of/%d", where, i)); err != nil {
			return err
		}
	}
	for i, c := range e.AllOf {
		if err := c.check(fmt.Sprintf("%s/all_of/%d", where, i)); err != nil {
			return err
		}
	}
	for i, c := range e.Of {
		if err := c.check(fmt.Sprintf("%s/of/%d", where, i)); err != nil {
			return err
		}
	}
	return nil
}

// Leaves returns every leaf of e, depth first, its exceptions' included.
func (e Expr) Leaves() []Expr {
	var out []Expr
	if e.IsLeaf() {
		out = []Expr{e}
	}
	for _, list := range [][]Expr{e.AnyOf, e.AllOf, e.Of, e.Except} {
		for _, c := range list {
			out = append(out, c.Leaves()...)
		}
	}
	return out
}

// Leaves returns every leaf of the composite, exclusions included.
func (c Composite) Leaves() []Expr {
	out := c.Expr.Leaves()
	for _, u := range c.Unless {
		out = append(out, u.Leaves()...)
	}
	return out
}

// checkComposites validates the composites and orders them so that a
// composite comes after every composite it uses; a cycle is an error
// naming its path.
func checkComposites(name string, cs []Composite) ([]Composite, error) {
	idx := map[string]int{}
	for i, c := range cs {
		n := NormalizeName(c.Concept)
		if n == "" || strings.TrimSpace(c.Source) == "" {
			return nil, fmt.Errorf("%s: composites[%d]: concept and source are required", name, i)
		}
		if _, dup := idx[n]; dup {
			return nil, fmt.Errorf("%s: composites[%d]: %q is defined twice; merge the two definitions", name, i, c.Concept)
		}
		idx[n] = i
		if c.Expr.IsLeaf() {
			return nil, fmt.Errorf("%s: composites[%d] (%s): the body must be any_of, all_of or at_least+of", name, i, c.Concept)
		}
		if err := c.Expr.check(fmt.Sprintf("%s: composites[%d] (%s)", name, i, c.Concept)); err != nil {
			return nil, err
		}
		for j, u := range c.Unless {
			if err := u.check(fmt.Sprintf("%s: composites[%d] (%s)/unless/%d", name, i, c.Concept, j)); err != nil {
				return nil, err
			}
		}
	}
	state := make([]int, len(cs)) // 0 new, 1 on the path, 2 done
	var order []Composite
	var path []string
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case 1:
			return fmt.Errorf("%s: composites: the definition of %q uses itself: %s → %s; break the cycle", name, cs[i].Concept, strings.Join(path, " → "), cs[i].Concept)
		case 2:
			return nil
		}
		state[i] = 1
		path = append(path, cs[i].Concept)
		for _, l := range cs[i].Leaves() {
			if j, ok := idx[NormalizeName(l.Concept)]; ok && l.Concept != "" {
				if err := visit(j); err != nil {
					return err
				}
			}
		}
		path = path[:len(path)-1]
		state[i] = 2
		order = append(order, cs[i])
		return nil
	}
	for i := range cs {
		if err := visit(i); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// MemberConcepts lists the leaf concept names of the composites (members
// and measures), and the concepts of the is-a relations and of what an
// intolerance bars (barring.go), that the given index does not know, so that a program can
// ground them although no rule names them; units holds the units of the
// numeric members per name.
func (h *Hierarchy) MemberConcepts(known map[string]string) (names []string, units map[string][]string) {
	units = map[string][]string{}
	if h == nil {
		return nil, units
	}
	seen := map[string]bool{}
	for _, v := range h.Values {
		k := NormalizeName(v.Concept)
		if _, ok := known[k]; !ok && !seen[k] {
			seen[k] = true
			names = append(names, v.Concept)
		}
	}
	for _, c := range h.Calculated {
		// A calculator's inputs are read like a definition's members.
		for _, in := range c.Inputs {
			for _, n := range []string{in.Concept, in.Otherwise} {
				k := NormalizeName(n)
				if n == "" || seen[k] {
					continue
				}
				if in.Numeric() {
					units[k] = appendNew(units[k], in.Unit)
				}
				if _, ok := known[k]; ok {
					continue
				}
				seen[k] = true
				names = append(names, n)
			}
		}
	}
	for _, d := range h.Distinct {
		// A distinct concept is one a case states, though no rule reads it.
		for _, n := range []string{d.Concept, d.From} {
			k := NormalizeName(n)
			if _, ok := known[k]; ok || seen[k] {
				continue
			}
			seen[k] = true
			names = append(names, n)
		}
	}
	for _, c := range h.Composites {
		for _, l := range c.Leaves() {
			n := l.Concept
			if n == "" {
				n = l.Measure
				units[NormalizeName(n)] = appendNew(units[NormalizeName(n)], l.Unit)
			}
			k := NormalizeName(n)
			if _, ok := known[k]; ok || seen[k] {
				continue
			}
			seen[k] = true
			names = append(names, n)
		}
	}
	// The drugs what a recorded intolerance bars names are read too: an
	// allergy to nitrates bars a short-acting nitrate no rule reads.
	var barring []string
	for _, r := range h.Relations {
		barring = append(barring, r.Narrower, r.Broader)
	}
	for _, c := range h.Components {
		barring = append(append(barring, c.Concept), c.Of...)
	}
	for _, b := range h.Bars {
		barring = append(barring, b.Concept, b.Drug)
	}
	for _, a := range h.Agents {
		barring = append(barring, a.Class)
	}
	for _, d := range h.Classes {
		barring = append(barring, d.Concept)
	}
	for _, n := range barring {
		k := NormalizeName(n)
		if _, ok := known[k]; ok || seen[k] || k == "" {
			continue
		}
		seen[k] = true
		names = append(names, n)
	}
	return names, units
}

func appendNew(xs []string, s string) []string {
	for _, x := range xs {
		if x == s {
			return xs
		}
	}
	return append(xs, s)
}
