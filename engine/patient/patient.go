// Package patient is the patient model: what one clinical document or one
// FHIR record says about a patient, typed, with every fact pointing back to
// the words (byte spans) or the resource it was read from and the reader
// that made it. Every input becomes a Model; the later stages (derive,
// expand, check, evaluate) read the Model, never the raw input.
//
// The model knows no guideline: a fact names its concept by the pack's
// concept key, which grounding (text) or a value set (coded data) chose.
package patient

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/executablekg/execkg/engine/eval"
)

// Kind is what sort of fact a Fact is.
type Kind string

const (
	KindProblem     Kind = "problem"     // a diagnosis, symptom or risk factor
	KindMedication  Kind = "medication"  // a drug or drug class
	KindMeasurement Kind = "measurement" // a value with a unit (LVEF, eGFR, LDL-C)
	KindProcedure   Kind = "procedure"   // a procedure or event (PCI, CABG, MI)
	KindFinding     Kind = "finding"     // a test's result (stenosis, ischaemia, CAC)
	KindDemographic Kind = "demographic" // age, sex
	KindOther       Kind = "other"       // anything else the pack tests
)

// Status is where the fact stands in time or in care. Which statuses a kind
// uses: problems active, history, resolved; medications taking, stopped,
// planned, not-tolerated, contraindicated, refused; procedures done,
// planned, scheduled. StatusAbsent is a stated absence ("no diabetes").
type Status string

const (
	StatusActive          Status = "active"
	StatusHistory         Status = "history"
	StatusResolved        Status = "resolved"
	StatusTaking          Status = "taking"
	StatusStopped         Status = "stopped"
	StatusPlanned         Status = "planned"
	StatusNotTolerated    Status = "not-tolerated"
	StatusContraindicated Status = "contraindicated"
	StatusRefused         Status = "refused"
	StatusDone            Status = "done"
	StatusScheduled       Status = "scheduled"
	StatusAbsent          Status = "absent"
)

// Certainty is how sure the source is of the fact.
type Certainty string

const (
	Confirmed Certainty = "confirmed"
	Suspected Certainty = "suspected"
	Refuted   Certainty = "refuted"
)

// Experiencer is whose fact it is.
type Experiencer string

const (
	Self     Experiencer = "patient"
	Relative Experiencer = "relative"
)

// Span locates words in Model.Text: byte offsets [Start, End).
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Fact is one thing the source says about the patient. The evidence fields
// (concept, presence, value, time) are what evaluation reads; the typed
// fields say how the fact was read and where from.
type Fact struct {
	eval.Evidence
	Kind        Kind        `json:"kind,omitempty"`
	Status      Status      `json:"status,omitempty"`
	Certainty   Certainty   `json:"certainty,omitempty"`
	Experiencer Experiencer `json:"experiencer,omitempty"`
	// Medications: the dose as written ("75 mg od") and the pack's class.
	Dose  string `json:"dose,omitempty"`
	Class string `json:"class,omitempty"`
	// Procedures and report findings: where in the coronary tree, and
	// the stents placed.
	Vessel        string   `json:"vessel,omitempty"`
	Segment       string   `json:"segment,omitempty"`
	Stents        int      `json:"stents,omitempty"`
	StentLengthMM *float64 `json:"stent_length_mm,omitempty"`
	// Spans are the fact's words in Model.Text (for highlighting); empty
	// for coded data.
	Spans []Span `json:"spans,omitempty"`
	// Resource is the FHIR reference the fact was read from
	// ("Observation/abc"); empty for text.
	Resource string `json:"resource,omitempty"`
	// Code is the code the resource carried ("http://loinc.org|10230-1").
	Code string `json:"code,omitempty"`
	// Section is the document section the fact was read under
	// ("medications", "plan"), from the pack's section words.
	Section string `json:"section,omitempty"`
	// Reader names the reader that made the fact.
	Reader string `json:"reader"`
	// Intention: the concept is itself an intention ("planned PCI",
	// "candidate for revascularisation"), so a planned or scheduled
	// status is what the fact asserts, not a reason to assert nothing.
	Intention bool `json:"intention,omitempty"`
	// Started: a planned drug the document's plan starts now ("Plan: add
	// ISMN", "start bisoprolol 2.5 mg"): not yet taken, so it asserts
	// nothing of the patient's present, but a rule that starts nothing
	// reads it as taken ("when long-acting nitrates are used, consider a
	// nitrate-free interval" is about the drug the plan starts).
	Started bool `json:"started,omitempty"`
	// Prescribed: a started drug the plan writes with its regimen, a
	// dose, frequency or course ("Plan: aspirin + clopidogrel 6
	// months"): an order in force, so a rule that starts another drug
	// on top of it ("consider adding a second antithrombotic drug to
	// aspirin") reads it as taken too.
	Prescribed bool `json:"prescribed,omitempty"`
}

// Section is one headed part of a document.
type Section struct {
	Kind    string `json:"kind"`    // the pack's section kind ("plan", "family history")
	Heading string `json:"heading"` // as written
	Span    Span   `json:"span"`    // the section's body, heading excluded
}

// Model is the patient as one input states them.
type Model struct {
	CaseID string `json:"case_id"`
	// Date is the document's date (YYYY-MM-DD): time windows count from it.
	Date string `json:"date,omitempty"`
	// Source is "text" or "fhir".
	Source string `json:"source"`
	// Text is the document the spans point into ("" for coded data).
	Text     string    `json:"-"`
	Age      *float64  `json:"age,omitempty"`
	Sex      string    `json:"sex,omitempty"`
	Sections []Section `json:"sections,omitempty"`
	Facts    []Fact    `json:"facts"`
	// Dropped are things read but not kept as facts, with the reason
	// (a relative's finding, an LLM fact whose words are not in the text,
	// a resource entered in error).
	Dropped []Dropped `json:"dropped,omitempty"`
}

// Dropped is one reading that did not become a fact, and why.
type Dropped struct {
	Text     string `json:"text,omitempty"`
	Resource string `json:"resource,omitempty"`
	Reader   string `json:"reader"`
	Reason   string `json:"reason"`
}

// Of returns the facts of one kind.
func (m *Model) Of(k Kind) []Fact {
	var out []Fact
	for _, f := range m.Facts {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

// Problems, Medications, Measurements, Procedures and Findings are Of for
// each kind.
func (m *Model) Problems() []Fact     { return m.Of(KindProblem) }
func (m *Model) Medications() []Fact  { return m.Of(KindMedication) }
func (m *Model) Measurements() []Fact { return m.Of(KindMeasurement) }
func (m *Model) Procedures() []Fact   { return m.Of(KindProcedure) }
func (m *Model) Findings() []Fact     { return m.Of(KindFinding) }

// Asserts reports whether the fact states something about the patient now
// that evaluation may use, and whether it states it present or absent:
// a relative's fact, a planned or refused drug and a scheduled procedure
// state nothing about the patient's present (ok false), unless the
// concept is itself the intention (Intention); a refuted fact, a
// stated absence and a stopped drug state absence.
func (f Fact) Asserts() (present, ok bool) {
	if f.Experiencer == Relative {
		return false, false
	}
	switch f.Status {
	case StatusPlanned, StatusScheduled:
		if f.Intention {
			return f.Present, true
		}
		return false, false
	case StatusRefused, StatusNotTolerated, StatusContraindicated:
		return false, false
	case StatusStopped, StatusAbsent:
		return false, true
	}
	if f.Certainty == Refuted {
		return false, true
	}
	return f.Present, true
}

// Started is the evidence of the drugs the document's plan starts
// (Fact.Started), present: what a rule that starts nothing reads besides
// Evidence.
func (m *Model) Started() []eval.Evidence {
	var out []eval.Evidence
	for _, f := range m.Facts {
		if f.Started && f.Status == StatusPlanned && f.Kind == KindMedication && f.ConceptKey != "" && f.Experiencer != Relative {
			e := f.Evidence
			e.Present = true
			e.Begun = true // begun by the plan: no course yet (rules.Window.Course)
			out = append(out, e)
		}
	}
	return out
}

// Prescribed is the evidence of the started drugs the plan prescribes
// with their regimen (Fact.Prescribed), present: what every rule reads
// besides Evidence.
func (m *Model) Prescribed() []eval.Evidence {
	var out []eval.Evidence
	for _, e := range m.Started() {
		for _, f := range m.Facts {
			if f.Prescribed && f.Started && f.ID == e.ID && f.ConceptKey == e.ConceptKey {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// Evidence is what evaluation reads: one item per fact that asserts
// something of the patient, in fact order.
func (m *Model) Evidence() []eval.Evidence {
	out := make([]eval.Evidence, 0, len(m.Facts))
	for _, f := range m.Facts {
		present, ok := f.Asserts()
		if !ok || f.ConceptKey == "" {
			continue
		}
		e := f.Evidence
		e.Present = present
		out = append(out, e)
	}
	return out
}

// Validate reports the first fact that breaks the model's invariants: ids
// set (a finding that states several facts gives them its one id), spans
// inside the text, kinds, statuses, certainties and experiencers known.
func (m *Model) Validate() error {
	for i, f := range m.Facts {
		where := fmt.Sprintf("fact %d (%q)", i, f.Text)
		if f.ID == "" {
			return fmt.Errorf("patient model %s: %s has no id; give every fact the id of the finding or resource it was read from", m.CaseID, where)
		}
		if !knownKind[f.Kind] {
			return fmt.Errorf("patient model %s: %s has kind %q; use one of %v", m.CaseID, where, f.Kind, sortedKeys(knownKind))
		}
		if f.Status != "" && !knownStatus[f.Status] {
			return fmt.Errorf("patient model %s: %s has status %q; use one of %v", m.CaseID, where, f.Status, sortedKeys(knownStatus))
		}
		if f.Certainty != "" && f.Certainty != Confirmed && f.Certainty != Suspected && f.Certainty != Refuted {
			return fmt.Errorf("patient model %s: %s has certainty %q; use confirmed, suspected or refuted", m.CaseID, where, f.Certainty)
		}
		if f.Experiencer != "" && f.Experiencer != Self && f.Experiencer != Relative {
			return fmt.Errorf("patient model %s: %s has experiencer %q; use patient or relative", m.CaseID, where, f.Experiencer)
		}
		for _, s := range f.Spans {
			if s.Start < 0 || s.End < s.Start || s.End > len(m.Text) {
				return fmt.Errorf("patient model %s: %s has span [%d,%d) outside the %d-byte text", m.CaseID, where, s.Start, s.End, len(m.Text))
			}
		}
	}
	return nil
}

var knownKind = map[Kind]bool{KindProblem: true, KindMedication: true, KindMeasurement: true, KindProcedure: true,
	KindFinding: true, KindDemographic: true, KindOther: true}

var knownStatus = map[Status]bool{StatusActive: true, StatusHistory: true, StatusResolved: true, StatusTaking: true,
	StatusStopped: true, StatusPlanned: true, StatusNotTolerated: true, StatusContraindicated: true, StatusRefused: true,
	StatusDone: true, StatusScheduled: true, StatusAbsent: true}

func sortedKeys[K ~string](m map[K]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, string(k))
	}
	sort.Strings(out)
	return out
}

// UnmarshalJSON decodes the evidence fields with eval.Evidence's tolerant
// reader and the typed fields beside them (without it the embedded
// Evidence's UnmarshalJSON would decode the evidence alone).
func (f *Fact) UnmarshalJSON(b []byte) error {
	type typed struct {
		Kind          Kind        `json:"kind"`
		Status        Status      `json:"status"`
		Certainty     Certainty   `json:"certainty"`
		Experiencer   Experiencer `json:"experiencer"`
		Dose          string      `json:"dose"`
		Class         string      `json:"class"`
		Vessel        string      `json:"vessel"`
		Segment       string      `json:"segment"`
		Stents        int         `json:"stents"`
		StentLengthMM *float64    `json:"stent_length_mm"`
		Spans         []Span      `json:"spans"`
		Resource      string      `json:"resource"`
		Code          string      `json:"code"`
		Section       string      `json:"section"`
		Reader        string      `json:"reader"`
		Intention     bool        `json:"intention"`
	}
	var t typed
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	var e eval.Evidence
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	*f = Fact{Evidence: e, Kind: t.Kind, Status: t.Status, Certainty: t.Certainty, Experiencer: t.Experiencer,
		Dose: t.Dose, Class: t.Class, Vessel: t.Vessel, Segment: t.Segment, Stents: t.Stents, StentLengthMM: t.StentLengthMM,
		Spans: t.Spans, Resource: t.Resource, Code: t.Code, Section: t.Section, Reader: t.Reader, Intention: t.Intention}
	return nil
}
