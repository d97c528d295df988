package fhir

import (
	"encoding/json"
	"strings"
)

// Hand-written, tolerant FHIR R4 types: only the elements the reader uses.
// Unknown elements are ignored and codes are plain strings, so a record
// with an extension, a newer status code or a local code system still
// reads; what the reader cannot place it drops with a reason instead of
// failing the whole bundle.

// Coding is one code of a CodeableConcept.
type Coding struct {
	System  string `json:"system,omitempty"`
	Code    string `json:"code,omitempty"`
	Display string `json:"display,omitempty"`
}

// CodeableConcept is a set of codings and a text.
type CodeableConcept struct {
	Coding []Coding `json:"coding,omitempty"`
	Text   string   `json:"text,omitempty"`
}

// Quantity is a measured amount.
type Quantity struct {
	Value      *float64 `json:"value,omitempty"`
	Comparator string   `json:"comparator,omitempty"`
	Unit       string   `json:"unit,omitempty"`
	System     string   `json:"system,omitempty"`
	Code       string   `json:"code,omitempty"`
}

// Reference points to another resource.
type Reference struct {
	Reference string `json:"reference,omitempty"`
	Display   string `json:"display,omitempty"`
}

// Period is a time range.
type Period struct {
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`
}

// Bundle is a FHIR Bundle.
type Bundle struct {
	ResourceType string  `json:"resourceType"`
	ID           string  `json:"id,omitempty"`
	Type         string  `json:"type"`
	Entry        []Entry `json:"entry,omitempty"`
}

// Entry is one entry of a Bundle.
type Entry struct {
	FullURL  string          `json:"fullUrl,omitempty"`
	Resource json.RawMessage `json:"resource,omitempty"`
	Search   *struct {
		Mode string `json:"mode,omitempty"`
	} `json:"search,omitempty"`
	Request *struct {
		Method string `json:"method,omitempty"`
		URL    string `json:"url,omitempty"`
	} `json:"request,omitempty"`
}

// head is what every resource has.
type head struct {
	ResourceType string `json:"resourceType"`
	ID           string `json:"id,omitempty"`
}

// Patient is the subject of the record.
type Patient struct {
	head
	BirthDate string `json:"birthDate,omitempty"`
	Gender    string `json:"gender,omitempty"`
}

// Condition is a problem-list or encounter entry.
type Condition struct {
	head
	ClinicalStatus     *CodeableConcept `json:"clinicalStatus,omitempty"`
	VerificationStatus *CodeableConcept `json:"verificationStatus,omitempty"`
	Code               *CodeableConcept `json:"code,omitempty"`
	Subject            *Reference       `json:"subject,omitempty"`
	OnsetDateTime      string           `json:"onsetDateTime,omitempty"`
	OnsetPeriod        *Period          `json:"onsetPeriod,omitempty"`
	RecordedDate       string           `json:"recordedDate,omitempty"`
	// Abatement[x]: when the condition resolved or went into remission.
	AbatementDateTime string  `json:"abatementDateTime,omitempty"`
	AbatementPeriod   *Period `json:"abatementPeriod,omitempty"`
	AbatementString   string  `json:"abatementString,omitempty"`
	AbatementBoolean  *bool   `json:"abatementBoolean,omitempty"`
}

// Observation is a measurement or a coded result.
type Observation struct {
	head
	Status               string           `json:"status,omitempty"`
	Code                 CodeableConcept  `json:"code"`
	Subject              *Reference       `json:"subject,omitempty"`
	EffectiveDateTime    string           `json:"effectiveDateTime,omitempty"`
	EffectivePeriod      *Period          `json:"effectivePeriod,omitempty"`
	EffectiveInstant     string           `json:"effectiveInstant,omitempty"`
	Issued               string           `json:"issued,omitempty"`
	ValueQuantity        *Quantity        `json:"valueQuantity,omitempty"`
	ValueCodeableConcept *CodeableConcept `json:"valueCodeableConcept,omitempty"`
	ValueBoolean         *bool            `json:"valueBoolean,omitempty"`
	ValueString          string           `json:"valueString,omitempty"`
	DataAbsentReason     *CodeableConcept `json:"dataAbsentReason,omitempty"`
	Component            []Component      `json:"component,omitempty"`
}

// Component is one part of a panel observation.
type Component struct {
	Code                 CodeableConcept  `json:"code"`
	ValueQuantity        *Quantity        `json:"valueQuantity,omitempty"`
	ValueCodeableConcept *CodeableConcept `json:"valueCodeableConcept,omitempty"`
	ValueBoolean         *bool            `json:"valueBoolean,omitempty"`
	DataAbsentReason     *CodeableConcept `json:"dataAbsentReason,omitempty"`
}

// Dosage is how a product is taken; only its text is kept.
type Dosage struct {
	Text string `json:"text,omitempty"`
}

// MedicationStatement says a product is, was or will be taken.
type MedicationStatement struct {
	head
	Contained                 []json.RawMessage `json:"contained,omitempty"`
	Status                    string            `json:"status,omitempty"`
	MedicationCodeableConcept *CodeableConcept  `json:"medicationCodeableConcept,omitempty"`
	MedicationReference       *Reference        `json:"medicationReference,omitempty"`
	Subject                   *Reference        `json:"subject,omitempty"`
	EffectiveDateTime         string            `json:"effectiveDateTime,omitempty"`
	EffectivePeriod           *Period           `json:"effectivePeriod,omitempty"`
	Dosage                    []Dosage          `json:"dosage,omitempty"`
}

// MedicationRequest is an order or a proposal.
type MedicationRequest struct {
	head
	Contained                 []json.RawMessage `json:"contained,omitempty"`
	Status                    string            `json:"status,omitempty"`
	Intent                    string            `json:"intent,omitempty"`
	MedicationCodeableConcept *CodeableConcept  `json:"medicationCodeableConcept,omitempty"`
	MedicationReference       *Reference        `json:"medicationReference,omitempty"`
	Subject                   *Reference        `json:"subject,omitempty"`
	AuthoredOn                string            `json:"authoredOn,omitempty"`
	DosageInstruction         []Dosage          `json:"dosageInstruction,omitempty"`
}

// Medication is a product a MedicationStatement or MedicationRequest may
// reference.
type Medication struct {
	head
	Code *CodeableConcept `json:"code,omitempty"`
}

// Procedure is a procedure done, under way or planned.
type Procedure struct {
	head
	Status            string           `json:"status,omitempty"`
	Code              *CodeableConcept `json:"code,omitempty"`
	Subject           *Reference       `json:"subject,omitempty"`
	PerformedDateTime string           `json:"performedDateTime,omitempty"`
	PerformedPeriod   *Period          `json:"performedPeriod,omitempty"`
}

// ServiceRequest is an order or proposal for a procedure or test.
type ServiceRequest struct {
	head
	Status  string           `json:"status,omitempty"`
	Intent  string           `json:"intent,omitempty"`
	Code    *CodeableConcept `json:"code,omitempty"`
	Subject *Reference       `json:"subject,omitempty"`
}

// AllergyIntolerance is a substance the patient does not tolerate.
type AllergyIntolerance struct {
	head
	ClinicalStatus     *CodeableConcept `json:"clinicalStatus,omitempty"`
	VerificationStatus *CodeableConcept `json:"verificationStatus,omitempty"`
	Code               *CodeableConcept `json:"code,omitempty"`
	Patient            *Reference       `json:"patient,omitempty"`
	OnsetDateTime      string           `json:"onsetDateTime,omitempty"`
	RecordedDate       string           `json:"recordedDate,omitempty"`
}

// Encounter is a visit or a stay; its reasons are what it was for.
type Encounter struct {
	head
	Status          string            `json:"status,omitempty"`
	Subject         *Reference        `json:"subject,omitempty"`
	Period          *Period           `json:"period,omitempty"`
	ReasonCode      []CodeableConcept `json:"reasonCode,omitempty"`
	ReasonReference []Reference       `json:"reasonReference,omitempty"`
}

// DiagnosticReport is a test's report: its conclusion in words and its
// coded findings (its results are Observations of their own).
type DiagnosticReport struct {
	head
	Status            string            `json:"status,omitempty"`
	Code              CodeableConcept   `json:"code"`
	Subject           *Reference        `json:"subject,omitempty"`
	EffectiveDateTime string            `json:"effectiveDateTime,omitempty"`
	EffectivePeriod   *Period           `json:"effectivePeriod,omitempty"`
	Issued            string            `json:"issued,omitempty"`
	Conclusion        string            `json:"conclusion,omitempty"`
	ConclusionCode    []CodeableConcept `json:"conclusionCode,omitempty"`
}

// FamilyMemberHistory is what a relative had.
type FamilyMemberHistory struct {
	head
	Status       string           `json:"status,omitempty"`
	Patient      *Reference       `json:"patient,omitempty"`
	Relationship *CodeableConcept `json:"relationship,omitempty"`
	Condition    []struct {
		Code CodeableConcept `json:"code"`
	} `json:"condition,omitempty"`
}

// statusCode is the first code of a status CodeableConcept.
func statusCode(cc *CodeableConcept) string {
	if cc == nil {
		return ""
	}
	for _, c := range cc.Coding {
		if c.Code != "" {
			return c.Code
		}
	}
	return cc.Text
}

// label is the words a CodeableConcept gives for itself: its text, else
// the first display, else the first code.
// words are the texts that name what the concept codes: its text, then
// each coding's display, without repeats.
func (cc *CodeableConcept) words() []string {
	if cc == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range append([]string{cc.Text}, displays(cc.Coding)...) {
		w = strings.TrimSpace(w)
		if w != "" && !seen[strings.ToLower(w)] {
			seen[strings.ToLower(w)] = true
			out = append(out, w)
		}
	}
	return out
}

func displays(cs []Coding) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.Display)
	}
	return out
}

func (cc *CodeableConcept) label() string {
	if cc == nil {
		return ""
	}
	if cc.Text != "" {
		return cc.Text
	}
	for _, c := range cc.Coding {
		if c.Display != "" {
			return c.Display
		}
	}
	for _, c := range cc.Coding {
		if c.Code != "" {
			return c.Code
		}
	}
	return ""
}
