// Package eval is step (vi) of the query pipeline: it decides, in
// three-valued (Kleene) logic, whether a rule's conditions hold for the
// evidence found in a patient case.
//
// The evaluator works on its own Rule/Cond types, not on the graph or the
// rule-table model, so the embedded store, Neo4j and generated pack tests
// can all feed it (FromRuleRef converts a pack rule).
//
// Differences from the reference system, on purpose:
//   - unknown is kept apart from false: a finding the case does not mention
//     leaves a PRESENT condition unknown, not false, and the result says what
//     would have to be stated (RuleResult.Missing);
//   - units are compared after canonicalisation and conversion (rules/units),
//     so "mL/min/1.73 m²" and "mL/min/1.73 m^2" are one unit, and units that
//     cannot be compared give unknown with a reason, never a silent false;
//   - values stated as bounds ("LVEF < 35%") are intervals.
//
// ABSENT under Options.ClosedWorld reproduces the reference system (an
// unmentioned finding counts as absent).
package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
)

// Cond is one condition of a rule, decoupled from storage.
type Cond struct {
	DecisionID string `json:"decision_id"`
	GroupKey   string `json:"group_key"`
	GroupType  string `json:"group_type"` // AND or OR
	ConceptKey string `json:"concept_key"`
	Concept    string `json:"concept"`
	Wording    string `json:"wording,omitempty"`
	Context    string `json:"context,omitempty"`
	Role       string `json:"role,omitempty"`
	Operator   string `json:"operator"`
	Threshold  string `json:"threshold,omitempty"`
	Unit       string `json:"unit,omitempty"`
	// Window restricts when the event happened (rules.Logic.Window).
	Window *rules.Window `json:"window,omitempty"`
	// Tag is the caller's, carried to its Options.Admit hook unread (the
	// engine keeps the condition's compiled step (v) form there).
	Tag any `json:"-"`
}

// Rule is one executable rule: all groups must hold.
type Rule struct {
	ID    string `json:"id"`
	RowID string `json:"row_id"`
	Conds []Cond `json:"conditions"`
	// needs, gidx and groups, set by Prepared, are each condition's Need,
	// its group's index, and the groups (truth unset).
	needs  []string
	gidx   []int
	groups []GroupResult
}

// Prepared returns r read in advance for Evaluate, for a rule evaluated
// in many cases: its groups and what each condition needs in words. A
// change to r.Conds afterwards asks for Prepared again.
func (r Rule) Prepared() Rule {
	r.needs = make([]string, len(r.Conds))
	for i, c := range r.Conds {
		r.needs[i] = Need(c)
	}
	r.gidx = make([]int, len(r.Conds))
	r.groups = groupsOf(r, r.gidx, nil)
	return r
}

// FromRuleRef converts a pack rule, keeping its decision ids and groups.
func FromRuleRef(r rules.RuleRef) Rule {
	out := Rule{ID: r.ID, RowID: r.RowID}
	if r.Rule == nil {
		return out
	}
	cs := r.Conditions()
	out.Conds = make([]Cond, 0, len(cs))
	for _, c := range cs {
		e := c.Entity
		out.Conds = append(out.Conds, Cond{
			DecisionID: c.DecisionID,
			GroupKey:   c.Group.Key,
			GroupType:  c.Group.Type,
			ConceptKey: rules.ConceptKey(e),
			Concept:    e.Concept(),
			Wording:    e.EntityOriginal,
			Context:    e.Context,
			Role:       e.Role,
			Operator:   rules.NormalizeOperator(e.LogicStructured.Operator),
			Threshold:  string(e.LogicStructured.Threshold),
			Unit:       e.LogicStructured.Unit,
			Window:     e.LogicStructured.Window,
		})
	}
	return out
}

// Evidence is one structured patient finding (output of step iv that
// passed step v).
type Evidence struct {
	// ID names the finding (or coded record) the evidence was read from.
	ID string `json:"finding_id"`
	// Text is the patient's words (or the record's display text).
	Text string `json:"original_text"`
	// Concept and ConceptKey name the pack concept it is evidence for.
	Concept    string `json:"standardized_concept"`
	ConceptKey string `json:"concept_key"`
	// Present is true when the finding is affirmed and false when the case
	// states it is absent. A stated Value counts as affirmed either way.
	Present bool     `json:"present"`
	Value   *float64 `json:"value,omitempty"`
	Unit    string   `json:"unit,omitempty"`
	// Comparator is "=" (default) or, for a value stated as a bound
	// ("LVEF < 35%"), one of "<", "<=", ">", ">=".
	Comparator string `json:"comparator,omitempty"`
	// AnchorRank is the rank (from 1) of the finding's grounding anchor the
	// item was read for; 0 for coded input.
	AnchorRank int `json:"anchor_rank,omitempty"`
	// Via says how a derived item follows from a stated one (see Derive):
	// trace text for people, never parsed.
	Via string `json:"via,omitempty"`
	// DerivedBy names the reader (engine/read) or derivation (Reader*
	// below) that made the item; empty for an item grounded from a
	// finding. Step (v) asks that reader which checks the item satisfies.
	DerivedBy string `json:"derived_by,omitempty"`
	// When dates the event, when the case says when it happened.
	When *When `json:"when,omitempty"`
	// Done marks a procedure the case's own words state done ("CABG
	// performed 20/11/2026"): no plan, whatever its date (a definition
	// leaf with NotStatedDone is not met by it).
	Done bool `json:"done,omitempty"`
	// Stay marks an acute event a discharge document dates to the stay it
	// reports ("Dx: Anterior STEMI - primary PCI" between its admission
	// and discharge days): the event the patient is discharged from (a
	// definition leaf with NotStay is not met by it).
	Stay bool `json:"stay,omitempty"`
	// Secondary marks an item of an alternative reading of its finding
	// (an anchor other than its best reading that the finding does not
	// name word for word): no fact for conditions, exceptions or
	// definitions alike, kept for the trace.
	Secondary bool `json:"secondary,omitempty"`
	// CoReading marks a second concept that its finding names word for
	// word ("stable CCS on maximally tolerated statin"): a fact wherever
	// its concept is tested, but no premise of an inference (is-a,
	// definitions), which start from each finding's best reading.
	CoReading bool `json:"co_reading,omitempty"`
	// Begun: a drug the document begins now ("ezetimibe added today",
	// "NEW" on a medication list, started by the plan): taken from now
	// on, but no course yet whose result a row can judge
	// (rules.Window.Course).
	Begun bool `json:"begun,omitempty"`
	// From is, on an is-a item, the concept key of the item it was read
	// from (not serialised): the patient model gives it that item's
	// status ("prior MI" is a past coronary event, not an active one). On
	// a composite's item it is the stated concept its first deciding
	// member comes from, whose words step (v) judges it at.
	From string `json:"-"`
}

// Names of Derive's derivations, for Evidence.DerivedBy.
const (
	ReaderIsA        = "is-a"
	ReaderDefinition = "definition"
	ReaderImplied    = "implied"
)

// UnmarshalJSON also accepts the short field names (id, text, concept) of
// hand-written structured input and a value written as a string
// ("90", "0,8"), which is how LLMs tend to return it.
func (e *Evidence) UnmarshalJSON(b []byte) error {
	var raw struct {
		ID           string          `json:"id"`
		FindingID    string          `json:"finding_id"`
		ConceptKey   string          `json:"concept_key"`
		Concept      string          `json:"concept"`
		Standardized string          `json:"standardized_concept"`
		Text         string          `json:"text"`
		OriginalText string          `json:"original_text"`
		Present      bool            `json:"present"`
		Value        json.RawMessage `json:"value"`
		Unit         string          `json:"unit"`
		Comparator   string          `json:"comparator"`
		AnchorRank   int             `json:"anchor_rank"`
		Via          string          `json:"via"`
		DerivedBy    string          `json:"derived_by"`
		When         *When           `json:"when"`
		Secondary    bool            `json:"secondary"`
		CoReading    bool            `json:"co_reading"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*e = Evidence{ID: raw.FindingID, ConceptKey: raw.ConceptKey, Concept: raw.Standardized, Text: raw.OriginalText,
		Present: raw.Present, Unit: raw.Unit, Comparator: raw.Comparator, AnchorRank: raw.AnchorRank, Via: raw.Via,
		DerivedBy: raw.DerivedBy, When: raw.When, Secondary: raw.Secondary, CoReading: raw.CoReading}
	if e.ID == "" {
		e.ID = raw.ID
	}
	if e.Concept == "" {
		e.Concept = raw.Concept
	}
	if e.Text == "" {
		e.Text = raw.Text
	}
	v := bytes.TrimSpace(raw.Value)
	if len(v) == 0 || string(v) == "null" || string(v) == `""` {
		return nil
	}
	var th rules.Threshold
	if err := th.UnmarshalJSON(v); err != nil {
		return fmt.Errorf("evidence %q: value: %w", e.Text, err)
	}
	f, err := th.Float()
	if err != nil {
		return fmt.Errorf("evidence %q: value %s is not a number; give a number such as 30 or \"0.8\"", e.Text, v)
	}
	e.Value = &f
	return nil
}

// Key is the concept key evidence is matched on: ConceptKey, or when that
// is empty the normalised concept name ("name:<concept>").
func (e Evidence) Key() string {
	if e.ConceptKey != "" {
		return e.ConceptKey
	}
	if e.Concept != "" {
		return "name:" + rules.NormalizeName(e.Concept)
	}
	return ""
}

func (c Cond) key() string {
	if c.ConceptKey != "" {
		return c.ConceptKey
	}
	return "name:" + rules.NormalizeName(c.Concept)
}

// Options control open- versus closed-world reading.
type Options struct {
	// ClosedWorld reads a finding the case does not mention as absent:
	// PRESENT becomes false and ABSENT true, as in the reference system.
	// Open world (the default) leaves both unknown.
	ClosedWorld bool
	// AllowFraction lets a unitless value between 0 and 1 meet a percent
	// threshold (LVEF 0.35 → 35 %).
	AllowFraction bool
	// Admit, when set, decides whether a matching evidence item may
	// support the condition at all (step v, the consistency check, which
	// compares the mention with each condition's own wording and context).
	// A refused item is left out of the condition's evaluation; the caller
	// records why.
	Admit func(c Cond, e Evidence) bool
	// CaseDate is the date time windows count back from (zero: today).
	CaseDate time.Time
	// Member, when set, decides which stated items composite definitions
	// may read (DeriveOpt).
	Member func(e Evidence) bool
	// Premise, when set, decides which stated items inferences start
	// from (is-a, value bands, numeric and composite definitions); a
	// composite reads the others Member keeps as they are.
	Premise func(e Evidence) bool
	// Withdrawn, when set, hears of each composite DeriveOpt derived and
	// then withdrew because one of its own exceptions holds in the final
	// model, with why.
	Withdrawn func(d Evidence, why string)
	// Past, when set, says whether the case states an item of the past
	// (a history, a past-history section); a definition leaf marked past
	// reads only such items. Unset, no item is past.
	Past func(e Evidence) bool
	// NameKeys, when set, is NameKeys(h, keyOfName) for the hierarchy
	// and name index DeriveOpt is given: the definitions' names with
	// their concept keys, looked up instead of worked out per case.
	NameKeys map[string]string
}

// RuleResult is the evaluation of one rule with its full trace.
type RuleResult struct {
	RuleID     string            `json:"rule_id"`
	RowID      string            `json:"row_id"`
	Truth      Truth             `json:"truth"`
	Groups     []GroupResult     `json:"groups"`
	Conditions []ConditionResult `json:"conditions"`
	// Missing lists, for an unknown rule, what the case would have to
	// state for the rule to be decided; empty when the rule is decided.
	Missing []string `json:"missing,omitempty"`
}

// Fired reports whether the rule holds: only True fires.
func (r RuleResult) Fired() bool { return r.Truth == True }

// GroupResult is one logic group's value.
type GroupResult struct {
	Key   string `json:"key"`
	Type  string `json:"type"`
	Truth Truth  `json:"truth"`
}

// ConditionResult is one condition's value, why, and the evidence matched.
type ConditionResult struct {
	DecisionID string     `json:"decision_id"`
	GroupKey   string     `json:"group_key"`
	ConceptKey string     `json:"concept_key"`
	Concept    string     `json:"concept"`
	Wording    string     `json:"wording,omitempty"`
	Operator   string     `json:"operator"`
	Threshold  string     `json:"threshold,omitempty"`
	Unit       string     `json:"unit,omitempty"`
	Truth      Truth      `json:"truth"`
	Reason     string     `json:"reason"`
	Evidence   []Evidence `json:"evidence,omitempty"`
}

// EvaluateRule evaluates every condition, combines each group (AND group:
// Kleene AND of its members; OR group: Kleene OR) and the groups (Kleene
// AND). A rule without conditions is unknown: firing it would recommend
// something for every patient because of an encoding error.
func EvaluateRule(rule Rule, ev []Evidence, opt Options) RuleResult {
	var b RuleBuffer
	return b.Evaluate(rule, ev, opt)
}

// RuleBuffer evaluates rules one after another into the same memory: a
// case evaluates every rule its concepts retrieve and keeps few results,
// and a fresh condition slice per rule was a tenth of a short case's
// allocation. The zero value is ready for use.
type RuleBuffer struct {
	conds  []ConditionResult
	groups []GroupResult
	gidx   []int
	evs    []Evidence // the conditions' matched evidence, one after another
	// byKey holds the positions of ixEv's items by key (Index), so a
	// condition reads the few items of its concept, not all of a case's
	// evidence: a short case evaluates some 350 conditions against 15
	// items.
	ixEv  []Evidence
	keys  []string       // the distinct keys, in order of first item
	at    [][]int32      // at[i]: the positions of keys[i]'s items
	byKey map[string]int // key → its index in keys, for many keys
	ixSet bool
	last  []int // the last Evaluate's group of each condition
	// SkipMissing leaves RuleResult.Missing unset (Missing computes it
	// when wanted): most unknown rules of a case are never reported.
	SkipMissing bool
}

// Index has Evaluate find each condition's evidence among ev by key,
// while Evaluate is given this same ev (same first item and length). ev
// must then not be modified in place; Index it again after a change.
func (b *RuleBuffer) Index(ev []Evidence) {
	b.ixEv, b.ixSet = ev, true
	b.keys, b.at, b.byKey = b.keys[:0], b.at[:0], nil
	for i := range ev {
		k := ev[i].Key()
		j := b.find(k)
		if j < 0 {
			j = len(b.keys)
			b.keys = append(b.keys, k)
			b.at = append(b.at, nil)
			if b.byKey != nil {
				b.byKey[k] = j
			} else if len(b.keys) > manyKeys {
				b.byKey = make(map[string]int, 2*len(b.keys))
				for x, y := range b.keys {
					b.byKey[y] = x
				}
			}
		}
		b.at[j] = append(b.at[j], int32(i))
	}
}

// manyKeys: up to this many distinct keys, a condition's key is looked
// for by comparing it with each (most differ in length), which is cheaper
// than hashing it.
const manyKeys = 32

// find is the index of key k in b.keys, or -1.
func (b *RuleBuffer) find(k string) int {
	if b.byKey != nil {
		if j, ok := b.byKey[k]; ok {
			return j
		}
		return -1
	}
	for j, x := range b.keys {
		if len(x) == len(k) && x == k {
			return j
		}
	}
	return -1
}

// positions are the positions of the indexed items of key k (none: nil).
func (b *RuleBuffer) positions(k string) []int32 {
	if j := b.find(k); j >= 0 {
		return b.at[j]
	}
	return nil
}

// indexed reports whether ev is the evidence Index was given.
func (b *RuleBuffer) indexed(ev []Evidence) bool {
	return b.ixSet && len(ev) == len(b.ixEv) && (len(ev) == 0 || &ev[0] == &b.ixEv[0])
}

// Missing is what would decide rule, unknown in res, the result of the
// buffer's last Evaluate (with SkipMissing): RuleResult.Missing.
func (b *RuleBuffer) Missing(rule Rule, res RuleResult) []string {
	if res.Truth != Unknown || len(rule.Conds) == 0 {
		return nil
	}
	return missing(rule, res, b.last)
}

// Evaluate is EvaluateRule; the result's Conditions and Groups are the
// buffer's, valid until its next Evaluate (copy what is kept).
func (b *RuleBuffer) Evaluate(rule Rule, ev []Evidence, opt Options) RuleResult {
	res := RuleResult{RuleID: rule.ID, RowID: rule.RowID, Truth: Unknown}
	if len(rule.Conds) == 0 {
		return res
	}
	n := len(rule.Conds)
	if cap(b.conds) < n {
		b.conds = make([]ConditionResult, n)
		b.gidx = make([]int, n)
	}
	res.Conditions = b.conds[:n:n]
	b.evs = b.evs[:0]
	if b.indexed(ev) {
		for i, c := range rule.Conds {
			res.Conditions[i] = evaluateAt(c, ev, b.positions(c.key()), opt, &b.evs)
		}
	} else {
		keys := evidenceKeys(ev)
		for i, c := range rule.Conds {
			res.Conditions[i] = evaluate(c, ev, keys, opt, &b.evs)
		}
	}

	var gidx []int
	if len(rule.gidx) == n && len(rule.needs) == n {
		gidx = rule.gidx
		res.Groups = append(b.groups[:0], rule.groups...)
	} else {
		gidx = b.gidx[:n:n]
		res.Groups = groupsOf(rule, gidx, b.groups[:0])
	}
	b.last = gidx
	for g := range res.Groups {
		var t Truth
		if res.Groups[g].Type == rules.LogicOR {
			t = False
			for i := range rule.Conds {
				if gidx[i] == g {
					t = Or(t, res.Conditions[i].Truth)
				}
			}
		} else {
			t = True
			for i := range rule.Conds {
				if gidx[i] == g {
					t = And(t, res.Conditions[i].Truth)
				}
			}
		}
		res.Groups[g].Truth = t
	}
	b.groups = res.Groups[:0]
	res.Truth = True
	for _, g := range res.Groups {
		res.Truth = And(res.Truth, g.Truth)
	}
	if res.Truth == Unknown && !b.SkipMissing {
		res.Missing = missing(rule, res, gidx)
	}
	return res
}

// groupsOf appends rule's groups to groups, in order of first
// appearance, and sets gidx[i] to condition i's group; a handful per rule,
// so a linear search beats a map.
func groupsOf(rule Rule, gidx []int, groups []GroupResult) []GroupResult {
	for i, c := range rule.Conds {
		k := groupKey(c)
		g := -1
		for j := range groups {
			if groups[j].Key == k {
				g = j
				break
			}
		}
		if g < 0 {
			g = len(groups)
			groups = append(groups, GroupResult{Key: k, Type: rules.LogicAND})
		}
		// One OR member makes the group OR, as rules.Rule.Groups does.
		if strings.EqualFold(c.GroupType, rules.LogicOR) {
			groups[g].Type = rules.LogicOR
		}
		gidx[i] = g
	}
	return groups
}

// groupKey mirrors rules.GroupKey for conditions without an explicit group.
func groupKey(c Cond) string {
	if k := strings.TrimSpace(c.GroupKey); k != "" {
		return k
	}
	if strings.EqualFold(c.GroupType, rules.LogicOR) {
		return "or"
	}
	return "and"
}

// missing lists what would decide an unknown rule. Only unknown groups
// matter (a false group would have made the rule false), and within them
// only unknown members: in an AND group each is needed, in an OR group
// any one of them would do.
func missing(rule Rule, res RuleResult, gidx []int) []string {
	var out []string
	for g, gr := range res.Groups {
		if gr.Truth != Unknown {
			continue
		}
		var need []string
		for i, c := range rule.Conds {
			if gidx[i] == g && res.Conditions[i].Truth == Unknown {
				if len(rule.needs) == len(rule.Conds) {
					need = append(need, rule.needs[i])
				} else {
					need = append(need, Need(c))
				}
			}
		}
		if gr.Type == rules.LogicOR && len(need) > 1 {
			out = append(out, "one of: "+strings.Join(need, "; "))
			continue
		}
		out = append(out, need...)
	}
	return out
}

// Need says in words what the case must state for c to hold:
// "left ventricular ejection fraction <= 35 %", "diabetes mellitus present".
func Need(c Cond) string {
	name := c.Concept
	if name == "" {
		name = c.Wording
	}
	if name == "" {
		name = c.ConceptKey
	}
	switch op := rules.NormalizeOperator(c.Operator); op {
	case rules.OpPresent:
		if c.Window != nil && c.Window.Bounded() {
			return name + " present, dated " + c.Window.String()
		}
		if c.Window != nil {
			return name + " present, " + c.Window.String()
		}
		return name + " present"
	case rules.OpAbsent:
		return name + " absent"
	case rules.OpUnless:
		return name + " not known"
	default:
		return strings.TrimSpace(name + " " + op + " " + withUnit(c.Threshold, c.Unit))
	}
}

// EvaluateCond evaluates one condition against all evidence.
func EvaluateCond(c Cond, ev []Evidence, opt Options) ConditionResult {
	return evaluate(c, ev, evidenceKeys(ev), opt, nil)
}

// evaluate combines the verdicts of all matching evidence: any true wins,
// else any false, else unknown (for an exception, any false wins). Several items match when a case mentions
// a finding twice or when several of an entity's candidate concepts map to
// this one; all passed step (v), so one that satisfies the condition is a
// statement of the case that makes it hold, as "matching evidence exists"
// did in the reference system. Preferring false would let a wrong
// candidate veto a correct one.
// evidenceKeys returns the evidence's keys, or nil when every item carries
// its ConceptKey (the engine's always do), which is then its key: no slice
// per rule of every case.
func evidenceKeys(ev []Evidence) []string {
	all := true
	for i := range ev {
		if ev[i].ConceptKey == "" {
			all = false
			break
		}
	}
	if all {
		return nil
	}
	keys := make([]string, len(ev))
	for i := range ev {
		keys[i] = ev[i].Key()
	}
	return keys
}

// evaluate judges one condition; keys are the evidence's keys, nil when
// each is its ConceptKey (evidenceKeys). With arena, the matched evidence
// is appended there and the result's Evidence is its part of it (capacity
// capped, so a later append copies); nil: a slice of its own.
func evaluate(c Cond, ev []Evidence, keys []string, opt Options, arena *[]Evidence) ConditionResult {
	cv := newCondEval(c, opt, arena)
	ck := c.key()
	for i := range ev {
		if k := ev[i].ConceptKey; keys != nil {
			if keys[i] != ck {
				continue
			}
		} else if k != ck {
			continue
		}
		cv.add(ev[i])
	}
	return cv.result()
}

// evaluateAt is evaluate given the positions in ev of the items whose
// key is the condition's (RuleBuffer.Index), ascending.
func evaluateAt(c Cond, ev []Evidence, at []int32, opt Options, arena *[]Evidence) ConditionResult {
	cv := newCondEval(c, opt, arena)
	for _, i := range at {
		cv.add(ev[i])
	}
	return cv.result()
}

// condEval is one condition's evaluation, fed its matching evidence in
// order.
type condEval struct {
	c     Cond
	op    string
	opt   Options
	r     ConditionResult
	arena *[]Evidence
	start int
	// wins is the verdict one item settles the condition with: true for
	// a finding, false for an exception ("unless X is known"), which is
	// known as soon as one statement makes it hold — a dated event inside
	// the window blocks though an undated is-a copy of it cannot be
	// placed in time.
	wins, loses      Truth
	loseWhy          string
	unknowns         []string
	decided, hasLose bool
}

func newCondEval(c Cond, opt Options, arena *[]Evidence) condEval {
	op := rules.NormalizeOperator(c.Operator)
	cv := condEval{c: c, op: op, opt: opt, arena: arena, wins: True, loses: False,
		r: ConditionResult{DecisionID: c.DecisionID, GroupKey: c.GroupKey, ConceptKey: c.ConceptKey, Concept: c.Concept,
			Wording: c.Wording, Operator: op, Threshold: c.Threshold, Unit: c.Unit}}
	if op == rules.OpUnless {
		cv.wins, cv.loses = False, True
	}
	if arena != nil {
		cv.start = len(*arena)
	}
	return cv
}

// add judges one item of the condition's concept.
func (cv *condEval) add(e Evidence) {
	if cv.opt.Admit != nil && !cv.opt.Admit(cv.c, e) {
		return
	}
	if cv.arena != nil {
		*cv.arena = append(*cv.arena, e)
	} else {
		cv.r.Evidence = append(cv.r.Evidence, e)
	}
	if cv.decided {
		return // keep collecting matched evidence for the trace
	}
	t, why := judge(cv.c, cv.op, e, cv.opt)
	switch t {
	case cv.wins:
		cv.r.Truth, cv.r.Reason, cv.decided = cv.wins, why, true
	case cv.loses:
		if !cv.hasLose {
			cv.loseWhy, cv.hasLose = why, true
		}
	default:
		cv.unknowns = append(cv.unknowns, why)
	}
}

// result combines the verdicts added.
func (cv *condEval) result() ConditionResult {
	r := cv.r
	if !cv.decided {
		switch {
		case cv.hasLose:
			r.Truth, r.Reason = cv.loses, cv.loseWhy
		case len(cv.unknowns) > 0:
			r.Truth, r.Reason = Unknown, strings.Join(cv.unknowns, "; ")
		default:
			r.Truth, r.Reason = notMentioned(cv.op, cv.opt)
		}
	}
	return fromArena(r, cv.arena, cv.start)
}

// fromArena sets r's Evidence to what evaluate appended to the arena from
// start (none: nil), its capacity capped.
func fromArena(r ConditionResult, arena *[]Evidence, start int) ConditionResult {
	if arena != nil {
		if a := *arena; len(a) > start {
			r.Evidence = a[start:len(a):len(a)]
		}
	}
	return r
}

func notMentioned(op string, opt Options) (Truth, string) {
	if op == rules.OpUnless {
		// The exception blocks only when known: an unmentioned finding
		// leaves the rule free in either world.
		return True, "not stated, so the exception does not apply"
	}
	if !opt.ClosedWorld {
		return Unknown, "not mentioned"
	}
	switch op {
	case rules.OpPresent:
		return False, "not mentioned (closed world: counts as not present)"
	case rules.OpAbsent:
		return True, "not mentioned (closed world: counts as absent)"
	}
	// A closed world says nothing about a value nobody measured.
	return Unknown, "not mentioned (no value to compare)"
}

// judge evaluates one condition against one matching evidence item.
func judge(c Cond, op string, e Evidence, opt Options) (Truth, string) {
	affirmed := e.Present || e.Value != nil
	q := quote(e)
	switch op {
	case rules.OpPresent:
		if affirmed && c.Window != nil && c.Window.Course && e.Begun {
			return False, q + " is begun now: no course yet whose result the row can judge"
		}
		if affirmed && c.Window != nil && c.Window.Bounded() {
			return inWindow(*c.Window, e, opt)
		}
		if affirmed {
			if e.Value != nil {
				return True, fmt.Sprintf("matched %s: a stated value counts as present", q)
			}
			return True, "matched " + q
		}
		return False, "stated absent: " + q
	case rules.OpAbsent:
		if affirmed {
			return False, "stated present: " + q
		}
		return True, "stated absent: " + q
	case rules.OpUnless:
		if affirmed && c.Window != nil {
			// A dated exclusion blocks only when its date is known to
			// fall in the window; an undated one never blocks.
			if t, why := inWindow(*c.Window, e, opt); t == True {
				return False, "exception applies: " + why
			} else {
				return True, "exception does not apply: " + why
			}
		}
		if affirmed {
			return False, "exception applies: " + q + " is known"
		}
		return True, "stated absent: " + q + ", so the exception does not apply"
	case rules.OpLT, rules.OpLE, rules.OpGT, rules.OpGE, rules.OpEQ, rules.OpNE:
		return judgeNumeric(c, op, e, opt)
	}
	return Unknown, fmt.Sprintf("operator %q is not one of %s; fix the rule encoding", c.Operator, strings.Join(rules.Operators, ", "))
}

func judgeNumeric(c Cond, op string, e Evidence, opt Options) (Truth, string) {
	q := quote(e)
	if e.Value == nil {
		if !e.Present {
			return Unknown, "stated absent: " + q + ", no value to compare"
		}
		return Unknown, "matched " + q + ": value not stated"
	}
	v := *e.Value
	if math.IsNaN(v) {
		return Unknown, "matched " + q + ": value is not a number"
	}
	th, err := rules.Threshold(c.Threshold).Float()
	if err != nil {
		return Unknown, fmt.Sprintf("threshold %q is not a number; fix the rule encoding", c.Threshold)
	}
	cmp := rules.NormalizeOperator(e.Comparator)
	if cmp == "" {
		cmp = rules.OpEQ
	}
	switch cmp {
	case rules.OpEQ, rules.OpLT, rules.OpLE, rules.OpGT, rules.OpGE:
	default:
		return Unknown, fmt.Sprintf("matched %s: comparator %q does not bound the value (want =, <, <=, > or >=)", q, e.Comparator)
	}
	cu := units.Canonical(c.Unit)
	eu := units.Canonical(e.Unit)
	conv, err := units.ConvertWith(v, e.Unit, c.Unit, c.Concept+" "+c.Wording, units.Options{AllowFraction: opt.AllowFraction})
	if err != nil {
		return Unknown, fmt.Sprintf("matched %s: unit %s vs %s not comparable", q, unitName(eu), unitName(cu))
	}
	stated := bound(cmp, withUnit(num(v), eu))
	if !units.Same(e.Unit, c.Unit) {
		stated += " = " + bound(cmp, withUnit(num(conv), cu))
	}
	want := op + " " + withUnit(c.Threshold, cu)
	iv := intervalOf(cmp, conv)
	t := relate(iv, op, th)
	point := cmp == rules.OpEQ
	var why string
	switch {
	case t == True && point:
		why = fmt.Sprintf("%s %s", stated, want)
	case t == False && point:
		why = fmt.Sprintf("%s, not %s", stated, want)
	case t == True:
		why = fmt.Sprintf("%s lies within %s", stated, want)
	case t == False:
		why = fmt.Sprintf("%s lies outside %s", stated, want)
	default:
		why = fmt.Sprintf("%s may or may not be %s", stated, want)
	}
	return t, "matched " + q + ": " + why
}

// interval is the set of values evidence allows; infinities for open ends.
type interval struct {
	lo, hi         float64
	loOpen, hiOpen bool
}

func intervalOf(cmp string, v float64) interval {
	inf := math.Inf(1)
	switch cmp {
	case rules.OpLT:
		return interval{lo: -inf, hi: v, loOpen: true, hiOpen: true}
	case rules.OpLE:
		return interval{lo: -inf, hi: v, loOpen: true}
	case rules.OpGT:
		return interval{lo: v, hi: inf, loOpen: true, hiOpen: true}
	case rules.OpGE:
		return interval{lo: v, hi: inf, hiOpen: true}
	}
	return interval{lo: v, hi: v}
}

func (iv interval) contains(t float64) bool {
	aboveLo := iv.lo < t || (iv.lo == t && !iv.loOpen)
	belowHi := t < iv.hi || (t == iv.hi && !iv.hiOpen)
	return aboveLo && belowHi
}

func (iv interval) isPoint() bool { return iv.lo == iv.hi && !iv.loOpen && !iv.hiOpen }

// relate says whether every value of iv satisfies "x op t" (true), none
// does (false), or some do (unknown).
func relate(iv interval, op string, t float64) Truth {
	var all, none bool
	switch op {
	case rules.OpLT:
		all = iv.hi < t || (iv.hi == t && iv.hiOpen)
		none = iv.lo >= t
	case rules.OpLE:
		all = iv.hi <= t
		none = iv.lo > t || (iv.lo == t && iv.loOpen)
	case rules.OpGT:
		all = iv.lo > t || (iv.lo == t && iv.loOpen)
		none = iv.hi <= t
	case rules.OpGE:
		all = iv.lo >= t
		none = iv.hi < t || (iv.hi == t && iv.hiOpen)
	case rules.OpEQ:
		all = iv.isPoint() && iv.lo == t
		none = !iv.contains(t)
	case rules.OpNE:
		all = !iv.contains(t)
		none = iv.isPoint() && iv.lo == t
	default:
		return Unknown
	}
	switch {
	case all:
		return True
	case none:
		return False
	}
	return Unknown
}

func quote(e Evidence) string {
	s := e.Text
	if s == "" {
		s = e.Concept
	}
	if s == "" {
		s = e.ID
	}
	return "'" + s + "'"
}

// num prints a value without float noise and with at most 4 decimals.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
}

func bound(cmp, s string) string {
	if cmp == rules.OpEQ {
		return s
	}
	return cmp + " " + s
}

func unitName(u string) string {
	if u == "" {
		return units.Unitless
	}
	return u
}

// withUnit appends a unit to a number; unitless values stand alone.
func withUnit(n, unit string) string {
	u := units.Canonical(unit)
	if u == units.Unitless || u == "" {
		return n
	}
	return n + " " + u
}
