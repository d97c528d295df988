package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/grounding"
)

// Stage names one step of the pipeline over a case, in order: read (text or
// coded data → the patient model), ground (mentions → pack concepts),
// format (values, units, polarity), derive (the pack's definitions), expand
// (concepts → rule bundles), check (step v: negation, certainty,
// qualifiers) and evaluate (three-valued rule logic).
type Stage string

const (
	StageRead     Stage = "read"
	StageGround   Stage = "ground"
	StageFormat   Stage = "format"
	StageDerive   Stage = "derive"
	StageExpand   Stage = "expand"
	StageCheck    Stage = "check"
	StageEvaluate Stage = "evaluate"
)

// Stages lists the stages in pipeline order.
var Stages = []Stage{StageRead, StageGround, StageFormat, StageDerive, StageExpand, StageCheck, StageEvaluate}

// StageError is a case that failed at a stage; errors.As finds it under
// any wrapping. A *LimitError (size, deadline) is not a StageError.
type StageError struct {
	CaseID string
	Stage  Stage
	// Detail says what the stage was doing ("grounding \"chest pain\"").
	Detail string
	Err    error
}

func (e *StageError) Error() string {
	if e.Detail == "" {
		return fmt.Sprintf("case %s: %s stage: %v", e.CaseID, e.Stage, e.Err)
	}
	return fmt.Sprintf("case %s: %s stage, %s: %v", e.CaseID, e.Stage, e.Detail, e.Err)
}

func (e *StageError) Unwrap() error { return e.Err }

func stageErr(caseID string, st Stage, err error, format string, args ...any) error {
	return &StageError{CaseID: caseID, Stage: st, Detail: fmt.Sprintf(format, args...), Err: err}
}

// EventKind is what a traced event records.
type EventKind string

const (
	EventRead     EventKind = "read"      // a fact entered the patient model
	EventDropped  EventKind = "dropped"   // a reading did not become a fact
	EventRejected EventKind = "rejected"  // evidence kept from a condition or from the case
	EventDerived  EventKind = "derived"   // a definition made a new fact
	EventFired    EventKind = "fired"     // a rule held: its row is recommended
	EventNearMiss EventKind = "near-miss" // a rule is unknown only for missing facts
)

// Event is one decision a stage made, as a Tracer receives it.
type Event struct {
	Stage      Stage     `json:"stage"`
	Kind       EventKind `json:"kind"`
	CaseID     string    `json:"case_id"`
	FactID     string    `json:"fact_id,omitempty"`
	Concept    string    `json:"concept,omitempty"`
	RowID      string    `json:"row_id,omitempty"`
	RuleID     string    `json:"rule_id,omitempty"`
	DecisionID string    `json:"decision_id,omitempty"`
	Detail     string    `json:"detail,omitempty"`
}

// Tracer receives a case's events as the stages make them (OPA's query
// tracer in spirit). Events of one case arrive from one goroutine, in
// stage order; a Tracer shared by concurrent cases must be safe for it.
type Tracer interface{ Event(Event) }

// TracerFunc adapts a function to a Tracer.
type TracerFunc func(Event)

// Event calls f.
func (f TracerFunc) Event(e Event) { f(e) }

// Collector is a Tracer that keeps every event, safe for concurrent cases.
type Collector struct {
	mu     sync.Mutex
	events []Event
}

// Event records e.
func (c *Collector) Event(e Event) {
	c.mu.Lock()
	c.events = append(c.events, e)
	c.mu.Unlock()
}

// Events returns the events recorded so far.
func (c *Collector) Events() []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Event(nil), c.events...)
}

// EvalOption configures one call of Ask, AskPatient or Evaluate, over the
// Program's build-time options (as rego's EvalOption over its Rego).
type EvalOption func(*call)

// EvalTrace attaches the full JSON trace to the Result for this call.
func EvalTrace(on bool) EvalOption { return func(c *call) { c.trace = on } }

// EvalTracer sends this call's events to t (besides the JSON trace, when
// that is on).
func EvalTracer(t Tracer) EvalOption { return func(c *call) { c.tracer = t } }

// EvalClosedWorld reads unmentioned facts as absent for this call.
func EvalClosedWorld(on bool) EvalOption { return func(c *call) { c.closedWorld = on } }

// EvalChecks selects the step (v) checks for this call.
func EvalChecks(ch consistency.Checks) EvalOption { return func(c *call) { c.checks = ch } }

// EvalDate sets the case date for this call: time windows and relative
// dates count from it (zero: today, or the patient model's own date).
func EvalDate(d time.Time) EvalOption { return func(c *call) { c.date = d } }

// call is the settings of one call: the Program's, overridden per call.
type call struct {
	caseID      string
	trace       bool
	tracer      Tracer
	closedWorld bool
	checks      consistency.Checks
	date        time.Time
	// events collects this call's events for the JSON trace.
	events []Event
	// grounded remembers the grounder's anchors by finding text for this
	// call (Program.ground).
	grounded map[string][]grounding.Anchor
}

// ground is the grounder's anchors for a finding's text, asked once per
// case: a long document repeats findings (a diagnosis in the history and
// again in the problem list), and with the grounder's cache off or full
// each repeat would search both channels again for the same answer. Each
// caller gets its own copy of the list, as from the grounder, to renumber
// and reorder; an error is not remembered.
func (p *Program) ground(ctx context.Context, c *call, text string) ([]grounding.Anchor, error) {
	if as, ok := c.grounded[text]; ok {
		return cloneAnchors(as), nil
	}
	as, err := p.grounder.Ground(ctx, text)
	if err != nil {
		return nil, err
	}
	if c.grounded == nil {
		c.grounded = map[string][]grounding.Anchor{}
	}
	c.grounded[text] = cloneAnchors(as)
	return as, nil
}

// cloneAnchors copies the list, keeping nil nil; the anchors' inner
// slices are shared and read-only, as the grounder's cache shares them.
func cloneAnchors(as []grounding.Anchor) []grounding.Anchor {
	if as == nil {
		return nil
	}
	return append(make([]grounding.Anchor, 0, len(as)), as...)
}

func (p *Program) newCall(caseID string, opts []EvalOption) *call {
	c := &call{caseID: caseID, trace: p.cfg.trace, closedWorld: p.cfg.closedWorld, checks: p.cfg.checks}
	for _, o := range opts {
		o(c)
	}
	return c
}

// tracing reports whether anyone listens for events.
func (c *call) tracing() bool { return c.trace || c.tracer != nil }

// emit sends an event to the call's tracer and to the JSON trace.
func (c *call) emit(e Event) {
	if !c.tracing() {
		return
	}
	e.CaseID = c.caseID
	if c.tracer != nil {
		c.tracer.Event(e)
	}
	if c.trace {
		c.events = append(c.events, e)
	}
}

// noon is the case day at noon UTC: a window edge never depends on the hour.
func noon(d time.Time) time.Time {
	if d.IsZero() {
		d = time.Now().UTC()
	}
	return time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, time.UTC)
}
