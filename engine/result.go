package engine

import (
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/patient"
)

// Result is one answered case: the JSON record written per case by
// `execkg ask` and `execkg batch`. PredictedRowIDs is the system's answer;
// everything else is its justification.
type Result struct {
	CaseID   string `json:"case_id"`
	Question string `json:"question,omitempty"`
	// CaseDate is the date time windows counted from (YYYY-MM-DD).
	CaseDate        string           `json:"case_date,omitempty"`
	PredictedRowIDs []string         `json:"predicted_row_ids"`
	Recommendations []Recommendation `json:"recommendations"`
	Findings        []Finding        `json:"extracted_findings"`
	Evidence        []EvidenceItem   `json:"evidence"`
	RetrievedRowIDs []string         `json:"retrieved_row_ids"`
	RetrievedRules  []string         `json:"retrieved_rule_ids"`
	NearMisses      []NearMiss       `json:"near_misses,omitempty"`
	// Withheld are rows that fired but recommend giving what the record
	// states the patient does not tolerate or must not have.
	Withheld []Withheld `json:"withheld,omitempty"`
	// Patient is the patient model the case was read into: every fact
	// with its kind, status, certainty, section, spans or resource, and
	// the reader that made it, derived facts included.
	Patient *patient.Model `json:"patient,omitempty"`
	// Error is set when the case failed (strict LLM mode); a failed case
	// counts as empty output in evaluation.
	Error string `json:"error,omitempty"`
	// Trace is the full trace, present with --debug / WithTrace.
	Trace *Trace `json:"trace,omitempty"`
}

// Recommendation is one fired rule with its provenance.
type Recommendation struct {
	RowID  string `json:"row_id"`
	RuleID string `json:"rule_id"`
	Text   string `json:"text"`
	Class  string `json:"class"`
	Level  string `json:"level"`
	// Grade is the pack's term for class and level (meta/grading.json)
	// where its grading scheme is not rules.DefaultGrading, the one the two
	// fields are named after.
	Grade string `json:"grade,omitempty"`
	// Direction is POSITIVE, NEGATIVE (advises against) or INSUFFICIENT
	// (a statement that takes no side).
	Direction  string      `json:"direction"`
	Section    string      `json:"section,omitempty"`
	Source     Source      `json:"source"`
	Actions    []Action    `json:"actions"`
	FiredBy    []FiredCond `json:"fired_by"`
	Workflow   string      `json:"workflow,omitempty"`
	Guideline  string      `json:"guideline"`
	TableTopic string      `json:"table_topic,omitempty"`
	// Pack is the pack id in a multi-pack answer (engine.Multi), where
	// RowID is prefixed with it; empty from a single pack.
	Pack string `json:"pack,omitempty"`
	// Cautions are what the record states against one of the row's
	// actions without withholding the row (see Withheld).
	Cautions []Caution `json:"cautions,omitempty"`
}

// Source points back to the guideline row.
type Source struct {
	Guideline string `json:"guideline"`
	Version   string `json:"version"`
	DOI       string `json:"doi"`
	Table     string `json:"table"`
	Row       int    `json:"row"`
}

// Action is one recommended (or contraindicated) concept.
type Action struct {
	Relation string `json:"relation"` // RECOMMENDS_USAGE | RECOMMENDS_PROCEDURE | CONTRAINDICATES | INSUFFICIENT_EVIDENCE
	Concept  string `json:"concept"`
	Wording  string `json:"wording"`
	Role     string `json:"role"`
	Context  string `json:"context,omitempty"`
	// Intent says what to do with the concept: start, continue, stop,
	// avoid, switch, reduce, perform, refer, discuss or assess.
	Intent string `json:"intent"`
}

// FiredCond is a condition that held, with the evidence that matched it.
type FiredCond struct {
	DecisionID string         `json:"decision_id"`
	ConceptKey string         `json:"concept_key"`
	Concept    string         `json:"concept"`
	Operator   string         `json:"operator"`
	Threshold  string         `json:"threshold,omitempty"`
	Unit       string         `json:"unit,omitempty"`
	Truth      string         `json:"truth"`
	Reason     string         `json:"reason"`
	Evidence   []EvidenceItem `json:"evidence,omitempty"`
}

// Finding is one extracted patient finding (step i).
type Finding struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Start/End locate the finding in the case text (byte offsets; -1 when
	// the extractor reworded it).
	Start int `json:"start"`
	End   int `json:"end"`
	// Section is the kind of the document section it lies in ("plan",
	// "medications"), from the pack's headings; "" when unheaded.
	Section string `json:"section,omitempty"`
}

// EvidenceItem is one piece of evidence as a result reports it: the same
// type Evaluate takes and every stage reads (eval.Evidence).
type EvidenceItem = eval.Evidence

// NearMiss is a retrieved rule that is unknown only for lack of findings.
type NearMiss struct {
	RowID  string `json:"row_id"`
	RuleID string `json:"rule_id"`
	Text   string `json:"text"`
	Class  string `json:"class"`
	// Grade: as Recommendation.Grade.
	Grade   string   `json:"grade,omitempty"`
	Missing []string `json:"missing"`
	// Pack: as Recommendation.Pack.
	Pack string `json:"pack,omitempty"`
}

// Trace is the full justification of a result.
type Trace struct {
	Anchors     []FindingAnchors `json:"anchors"`
	Rules       []RuleTrace      `json:"rule_evaluations"`
	Rejected    []Rejection      `json:"rejected_evidence"`
	Checks      string           `json:"checks"`
	ClosedWorld bool             `json:"closed_world"`
	TopK        int              `json:"topk"`
	Fractions   bool             `json:"fractions"`
	// Pack and PackVersion name the rules the trace was made with.
	Pack        string `json:"pack"`
	PackVersion string `json:"pack_version"`
	Settings    string `json:"settings"`
	// Repairs are changes made to the input before step (i), such as
	// invalid UTF-8 replaced.
	Repairs []string `json:"input_repairs,omitempty"`
	// Calculations are the pack's calculated concepts: each value with its
	// inputs, or why there is none (engine/calculated.go).
	Calculations []Calculation `json:"calculations,omitempty"`
	// Events are the stages' decisions in order, as a Tracer received them.
	Events []Event `json:"events,omitempty"`
}

// FindingAnchors are the concept anchors of one finding (step ii).
type FindingAnchors struct {
	FindingID string       `json:"finding_id"`
	Query     string       `json:"query"`
	Anchors   []AnchorInfo `json:"anchors"`
	// Pack: the pack whose concepts these are, in a multi-pack answer.
	Pack string `json:"pack,omitempty"`
}

// AnchorInfo is one anchor as kept in the trace.
type AnchorInfo struct {
	Rank       int      `json:"rank"`
	ConceptKey string   `json:"concept_key"`
	Concept    string   `json:"concept"`
	Score      float64  `json:"score"`
	Channels   []string `json:"channels"`
	Hits       []Hit    `json:"hits"`
}

// Hit is one DecisionNode found by a channel.
type Hit struct {
	DecisionID string  `json:"decision_id"`
	Channel    string  `json:"channel"`
	Rank       int     `json:"rank"`
	Score      float64 `json:"score"`
	Phrase     string  `json:"phrase,omitempty"`
}

// RuleTrace is one evaluated rule (step vi).
type RuleTrace struct {
	RuleID     string      `json:"rule_id"`
	RowID      string      `json:"row_id"`
	Truth      string      `json:"truth"`
	Conditions []FiredCond `json:"conditions"`
	Missing    []string    `json:"missing,omitempty"`
}

// Rejection is evidence that step (v) kept from supporting a condition.
type Rejection struct {
	DecisionID string `json:"decision_id"`
	FindingID  string `json:"finding_id"`
	Check      string `json:"check"`
	Reason     string `json:"reason"`
	// ChangedOutcome: let through, this evidence changes the truth of a
	// rule evaluated for the case (set with the trace only). Evidence
	// blocked at a condition is re-evaluated without the block; evidence
	// the formatter refused is re-evaluated as if it had been kept.
	ChangedOutcome bool `json:"changed_outcome"`
	// BeforeMatching: the whole finding was set aside before any rule was
	// evaluated (a relative's finding, an intention under a plan heading),
	// so no what-if evaluation was made.
	BeforeMatching bool `json:"before_matching,omitempty"`
}
