// Package rules holds the rule-table model: one JSON file per guideline
// recommendation table, one row per printed table row, each row encoded as
// one or more executable rules (conditions → actions).
//
// Field names of entity objects follow the reference system
// (entity_original, entity_standardized_list, logic_structured, …) so its
// files load unchanged; see Table.UnmarshalJSON for the accepted layouts.
package rules

import "strconv"

// Roles an entity may take; the graph label follows the role.
const (
	RoleClinicalCondition = "ClinicalCondition"
	RoleClinicalParameter = "ClinicalParameter"
	RoleMedication        = "Medication"
	RoleProcedure         = "Procedure"
	RoleQualifierValue    = "Qualifier Value"
)

// Roles lists every valid role, in schema order.
var Roles = []string{RoleClinicalCondition, RoleClinicalParameter, RoleMedication, RoleProcedure, RoleQualifierValue}

// Operators. Numeric operators need a threshold and a unit.
const (
	OpPresent = "PRESENT"
	OpAbsent  = "ABSENT"
	OpLT      = "<"
	OpLE      = "<="
	OpGT      = ">"
	OpGE      = ">="
	OpEQ      = "="
	OpNE      = "!="
	// OpUnless is the exception operator, "unless X is known": true
	// unless the case states (or a definition derives) X present; a
	// stated absence and an unmentioned X both leave it true, so unknown
	// never blocks. It is not ABSENT, which needs a stated absence.
	OpUnless = "UNLESS"
)

// Operators lists every operator in canonical (normalised) spelling.
var Operators = []string{OpPresent, OpAbsent, OpLT, OpLE, OpGT, OpGE, OpEQ, OpNE, OpUnless}

// Unitless is the explicit marker for a numeric threshold without a unit
// (FFR 0.8, a score, a count of segments).
const Unitless = "unitless"

// Logic types of a condition's group.
const (
	LogicAND = "AND"
	LogicOR  = "OR"
)

// Directions of an action.
const (
	DirectionPositive = "POSITIVE"
	DirectionNegative = "NEGATIVE"
	// DirectionInsufficient is a statement that takes no side (a USPSTF
	// I statement): the evidence cannot weigh benefits against harms, so
	// it is neither a recommendation for nor one against.
	DirectionInsufficient = "INSUFFICIENT"
)

// Directions lists every direction, in schema order.
var Directions = []string{DirectionPositive, DirectionNegative, DirectionInsufficient}

// Intents of an action: what the row says to do with the action's concept.
// Direction (POSITIVE/NEGATIVE) stays as the class gives it; the intent
// says whether a POSITIVE row starts, continues, stops or reduces a
// therapy, and a NEGATIVE one is always IntentAvoid.
const (
	IntentStart    = "start"    // begin (or add) a therapy
	IntentContinue = "continue" // keep a therapy the patient is on
	IntentStop     = "stop"     // discontinue a therapy
	IntentAvoid    = "avoid"    // do not start / do not perform / do not combine
	IntentSwitch   = "switch"   // replace a therapy by the action's concept
	IntentReduce   = "reduce"   // lower the dose or the intensity
	IntentPerform  = "perform"  // carry out a test or procedure
	IntentRefer    = "refer"    // refer to a team, programme or service
	IntentDiscuss  = "discuss"  // discuss (Heart Team, shared decision)
	IntentAssess   = "assess"   // assess, measure, screen, follow up
)

// Intents lists every intent, in schema order.
var Intents = []string{IntentStart, IntentContinue, IntentStop, IntentAvoid, IntentSwitch, IntentReduce, IntentPerform, IntentRefer, IntentDiscuss, IntentAssess}

// Workflow kinds: conditions that depend on the care setting rather than the
// patient. Rows holding one are kept and evaluated, but evaluation harnesses
// may exclude them with the kind as the reason.
var WorkflowKinds = []string{"availability", "expertise", "shared-decision", "clinical-judgement", "setting"}

// Table is one rule-table file: one guideline recommendation table.
type Table struct {
	// Guideline identifies the guideline pack the table belongs to.
	Guideline Guideline `json:"guideline"`
	// Table is the table number as printed ("Recommendation Table 8" → 8).
	Table int `json:"table" jsonschema:"minimum=1"`
	// Topic is a short paraphrase of the table's subject.
	Topic string `json:"topic"`
	// Population is the population the whole table addresses.
	Population string `json:"population,omitempty"`
	// Source points to the printed table.
	Source Source `json:"source"`
	// Footnotes keeps footnote definitions (paraphrased) that rows refer to.
	Footnotes []Footnote `json:"footnotes,omitempty"`
	// Rows in the guideline's printed order; Row.Row numbers them from 0.
	Rows []Row `json:"rows"`

	// File is the file name the table was loaded from (not serialised).
	File string `json:"-"`
}

// Guideline identifies a guideline pack and version.
type Guideline struct {
	ID      string `json:"id" jsonschema:"pattern=^[A-Za-z0-9_.-]+$"`
	Version string `json:"version"`
	Title   string `json:"title,omitempty"`
	Year    int    `json:"year,omitempty"`
	DOI     string `json:"doi,omitempty"`
}

// Source is the bibliographic pointer of a table.
type Source struct {
	DOI   string `json:"doi"`
	Table string `json:"table"`
	Pages string `json:"pages,omitempty"`
	// URL is the publisher's page of the statement, where it has one.
	URL string `json:"url,omitempty"`
	// Citation is the journal reference as checked (what could not be
	// confirmed is said inside it).
	Citation string `json:"citation,omitempty"`
}

// Footnote is one footnote definition of a table, in our words.
type Footnote struct {
	Mark    string `json:"mark"`
	Meaning string `json:"meaning"`
}

// Row is one printed table row.
type Row struct {
	// Row is the zero-based index in the guideline's order.
	Row int `json:"row" jsonschema:"minimum=0"`
	// Section is the sub-heading printed inside the table, if any.
	Section string `json:"section,omitempty"`
	// Text is the recommendation paraphrase (never the guideline's wording).
	Text string `json:"text"`
	// Class is the row's grade in the pack's grading scheme
	// (meta/grading.json): an ESC class I, IIa, IIb or III, a USPSTF
	// grade A, B, C, D or I. Validation checks it against the scheme.
	Class string `json:"class"`
	// Level of evidence in the pack's scheme (ESC A, B or C); empty where
	// the scheme has none (the USPSTF folds certainty into the grade).
	Level string `json:"level,omitempty"`
	// Direction is NEGATIVE for rows advising against something and
	// INSUFFICIENT for statements that take no side; the grade decides it.
	Direction string `json:"direction,omitempty" jsonschema:"enum=POSITIVE,enum=NEGATIVE,enum=INSUFFICIENT"`
	// Input summarises the row's conditions in free text.
	Input string `json:"input"`
	// Recommendation summarises the row's action in free text.
	Recommendation string `json:"recommendation"`
	// Workflow, when set, says why the row depends on the care setting
	// (availability, expertise, shared decision); the conditions carrying it
	// are marked with Entity.Workflow.
	Workflow string `json:"workflow,omitempty"`
	// Rules is the structured encoding. Layout A: each rule holds its own
	// actions. Layout B: rules hold conditions only and Actions holds the
	// row-level actions shared by every rule.
	Rules []Rule `json:"rules"`
	// Actions is the row-level action list of layout B.
	Actions []Entity `json:"actions,omitempty"`
}

// Rule is one executable rule: all condition groups must hold.
type Rule struct {
	Conditions []Entity `json:"conditions"`
	Actions    []Entity `json:"actions,omitempty"`
}

// Entity is a condition or an action.
type Entity struct {
	// EntityOriginal is the wording in the (paraphrased) guideline row.
	EntityOriginal string `json:"entity_original"`
	// EntityStandardizedList holds the concept(s) the wording stands for.
	// The first candidate names the concept; SnomedID is filled only where
	// the code and its preferred term are certain.
	EntityStandardizedList []Standardized `json:"entity_standardized_list"`
	// Context is the surrounding guideline phrase (or a footnote definition).
	Context string `json:"context,omitempty"`
	// Role decides the graph label.
	Role string `json:"role" jsonschema:"enum=ClinicalCondition,enum=ClinicalParameter,enum=Medication,enum=Procedure,enum=Qualifier Value"`
	// Workflow marks a condition that depends on the care setting.
	Workflow string `json:"workflow,omitempty" jsonschema:"enum=availability,enum=expertise,enum=shared-decision,enum=clinical-judgement,enum=setting"`
	// LogicStructured is the operator and grouping (conditions) or the
	// strength, level and direction (actions).
	LogicStructured Logic `json:"logic_structured"`
}

// Window is a range of time elapsed between an event (or the start of an
// ongoing therapy) and the case date, bounds inclusive; a missing bound is
// open.
type Window struct {
	Min  *float64 `json:"min,omitempty"`
	Max  *float64 `json:"max,omitempty"`
	Unit string   `json:"unit,omitempty" jsonschema:"enum=days,enum=weeks,enum=months,enum=years"`
	// Dated asks for the event's day: a date the text gives only to the
	// week or month ("PCI this week") leaves the condition unknown, even
	// when every day it allows lies inside. A window of several days that
	// stands for "the procedure of this episode" (a report of the day, or
	// the discharge document of its stay written days later) reads a
	// stated day, not a vague time.
	Dated bool `json:"dated,omitempty"`
	// Course: the condition is a course of a drug the patient has been
	// on, whose result the row judges ("not at target on ezetimibe",
	// "angina not controlled by a beta-blocker"): a drug the document
	// begins now (eval.Evidence.Begun: "ezetimibe added today", "NEW" on
	// a medication list, a drug the plan starts) has no result yet and
	// does not meet it. A course window may have no bounds (and then no
	// unit); with bounds it also dates the course's start.
	Course bool `json:"course,omitempty"`
}

// Bounded reports whether the window has a min or a max, dating its event.
func (w Window) Bounded() bool { return w.Min != nil || w.Max != nil }

// WindowUnits are the units a window may use, with their length in days.
var WindowUnits = map[string]float64{"days": 1, "weeks": 7, "months": 30.4375, "years": 365.25}

// Days returns the window's bounds in days (nil for an open bound).
func (w Window) Days() (lo, hi *float64) {
	d := WindowUnits[w.Unit]
	if w.Min != nil {
		v := *w.Min * d
		lo = &v
	}
	if w.Max != nil {
		v := *w.Max * d
		hi = &v
	}
	return lo, hi
}

// String says the window in words: "within 7 days", "at least 3 months
// ago", "1–3 months ago".
func (w Window) String() string {
	f := func(x *float64) string { return strconv.FormatFloat(*x, 'f', -1, 64) }
	switch {
	case w.Min != nil && w.Max != nil:
		return f(w.Min) + "–" + f(w.Max) + " " + w.Unit + " before the case date"
	case w.Min != nil:
		return "at least " + f(w.Min) + " " + w.Unit + " before the case date"
	case w.Max != nil && w.Dated:
		return "within " + f(w.Max) + " " + w.Unit + " before the case date, dated to the day"
	case w.Max != nil:
		return "within " + f(w.Max) + " " + w.Unit + " before the case date"
	case w.Course:
		return "a course begun before the document"
	}
	return "any time"
}

// Standardized is one concept candidate.
type Standardized struct {
	Candidate string `json:"entity_standardized_candidate"`
	SnomedID  string `json:"snomed_id,omitempty" jsonschema:"pattern=^[0-9]+$"`
}

// Logic is the logic_structured object.
type Logic struct {
	Operator   string    `json:"operator,omitempty" jsonschema:"enum=PRESENT,enum=ABSENT,enum=UNLESS,enum=UNLESS_KNOWN,enum=<,enum=<=,enum=>,enum=>=,enum==,enum=!=,enum=≤,enum=≥,enum=≠"`
	Threshold  Threshold `json:"threshold,omitempty"`
	Unit       string    `json:"unit,omitempty"`
	LogicType  string    `json:"logic_type,omitempty" jsonschema:"enum=AND,enum=OR"`
	LogicGroup string    `json:"logic_group,omitempty"`
	Strength   string    `json:"strength,omitempty"`
	Level      string    `json:"level,omitempty"`
	Direction  string    `json:"direction,omitempty" jsonschema:"enum=POSITIVE,enum=NEGATIVE,enum=INSUFFICIENT"`
	// Window (conditions only) restricts when the condition's event
	// happened, as time elapsed before the case date: "PCI within the
	// last 7 days" is max 7 days, "after >= 3 months of optimised
	// therapy" is min 3 months since the therapy began.
	Window *Window `json:"window,omitempty"`
	// Intent (actions only) says what to do with the concept: start,
	// continue, stop, avoid, switch, reduce, perform, refer, discuss, assess.
	Intent string `json:"intent,omitempty" jsonschema:"enum=start,enum=continue,enum=stop,enum=avoid,enum=switch,enum=reduce,enum=perform,enum=refer,enum=discuss,enum=assess"`
}

// Concept returns the entity's concept name: the first standardized
// candidate, else the wording.
func (e Entity) Concept() string {
	if len(e.EntityStandardizedList) > 0 && e.EntityStandardizedList[0].Candidate != "" {
		return e.EntityStandardizedList[0].Candidate
	}
	return e.EntityOriginal
}

// SnomedID returns the first candidate's SNOMED CT id, or "".
func (e Entity) SnomedID() string {
	for _, s := range e.EntityStandardizedList {
		if s.SnomedID != "" {
			return s.SnomedID
		}
	}
	return ""
}

// IsNumeric reports whether the operator is a numeric comparison.
func IsNumeric(op string) bool {
	switch op {
	case OpLT, OpLE, OpGT, OpGE, OpEQ, OpNE:
		return true
	}
	return false
}
