// Package cdshooks serves a compiled guideline pack as CDS Hooks 2.0
// services (https://cds-hooks.hl7.org/2.0/): discovery, patient-view,
// order-select and order-sign, and the feedback endpoint, plus a page at
// "/" to try a case by hand. A card is one fired recommendation row, and
// its detail and extension cite the data that fired it (values, dates,
// the patient's words or the FHIR resource), from the engine's trace.
//
// The package knows no guideline: concepts, codes and row texts come from
// the pack and its value sets.
package cdshooks

import "encoding/json"

// The JSON types below follow the CDS Hooks 2.0 specification. Optional
// fields carry omitempty: the specification forbids null and empty values
// ("", [], {}) for optional attributes.

// Coding is a FHIR Coding as CDS Hooks uses it.
type Coding struct {
	System  string `json:"system,omitempty"`
	Code    string `json:"code"`
	Display string `json:"display,omitempty"`
}

// Service is one entry of the discovery response.
type Service struct {
	Hook        string            `json:"hook"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description"`
	ID          string            `json:"id"`
	Prefetch    map[string]string `json:"prefetch,omitempty"`
	Extension   map[string]any    `json:"extension,omitempty"`
}

// Discovery is the body of GET /cds-services.
type Discovery struct {
	Services []Service `json:"services"`
}

// FHIRAuthorization is the request's bearer token for the FHIR server.
type FHIRAuthorization struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
	Scope       string `json:"scope"`
	Subject     string `json:"subject"`
}

// Request is the body of POST /cds-services/{id}. Context and Prefetch
// stay raw: their shape depends on the hook and on the templates.
type Request struct {
	Hook              string                     `json:"hook"`
	HookInstance      string                     `json:"hookInstance"`
	FHIRServer        string                     `json:"fhirServer,omitempty"`
	FHIRAuthorization *FHIRAuthorization         `json:"fhirAuthorization,omitempty"`
	Context           json.RawMessage            `json:"context"`
	Prefetch          map[string]json.RawMessage `json:"prefetch,omitempty"`
}

// Response is the body answering a hook call.
type Response struct {
	Cards []Card `json:"cards"`
}

// Card is one piece of decision support.
type Card struct {
	UUID              string       `json:"uuid,omitempty"`
	Summary           string       `json:"summary"`
	Detail            string       `json:"detail,omitempty"`
	Indicator         string       `json:"indicator"`
	Source            Source       `json:"source"`
	Suggestions       []Suggestion `json:"suggestions,omitempty"`
	SelectionBehavior string       `json:"selectionBehavior,omitempty"`
	OverrideReasons   []Coding     `json:"overrideReasons,omitempty"`
	Links             []Link       `json:"links,omitempty"`
	Extension         *Extension   `json:"extension,omitempty"`
}

// Source is the guidance a card comes from.
type Source struct {
	Label string  `json:"label"`
	URL   string  `json:"url,omitempty"`
	Topic *Coding `json:"topic,omitempty"`
}

// Suggestion is a set of actions the user may accept together.
type Suggestion struct {
	Label         string   `json:"label"`
	UUID          string   `json:"uuid,omitempty"`
	IsRecommended bool     `json:"isRecommended,omitempty"`
	Actions       []Action `json:"actions,omitempty"`
}

// Action is a change to the record: create or delete (update is not used).
type Action struct {
	Type        string         `json:"type"`
	Description string         `json:"description"`
	Resource    map[string]any `json:"resource,omitempty"`
	ResourceID  string         `json:"resourceId,omitempty"`
}

// Link is a URL the client may show.
type Link struct {
	Label string `json:"label"`
	URL   string `json:"url"`
	Type  string `json:"type"`
}

// ExtensionKey names this service's card extension.
const ExtensionKey = "org.executablekg.recommendation"

// Extension holds the machine-readable provenance of a card.
type Extension struct {
	Recommendation *RecommendationExt `json:"org.executablekg.recommendation"`
}

// RecommendationExt is the row behind a card and the data that fired it.
type RecommendationExt struct {
	RowID     string `json:"row_id"`
	RuleID    string `json:"rule_id"`
	Class     string `json:"class"`
	Level     string `json:"level,omitempty"`
	Direction string `json:"direction,omitempty"`
	// Intent is what the row says to do (start, stop, avoid, …); a row
	// with actions of several intents lists them joined by "/".
	Intent  string      `json:"intent,omitempty"`
	Actions []ActionExt `json:"actions,omitempty"`
	FiredBy []FiredBy   `json:"fired_by,omitempty"`
	// Missing is the data that would change the advice: the conditions
	// of the row still unknown for lack of data.
	Missing []string `json:"missing,omitempty"`
	// Orders are the draft orders (order-select, order-sign) the row's
	// actions match.
	Orders []string `json:"orders,omitempty"`
}

// ActionExt is one action of the row.
type ActionExt struct {
	Concept string `json:"concept"`
	Intent  string `json:"intent,omitempty"`
	Role    string `json:"role,omitempty"`
}

// FiredBy is one firing condition with one piece of evidence.
type FiredBy struct {
	Condition string `json:"condition"`
	// Evidence is the patient's words (text) or the resource's display.
	Evidence string   `json:"evidence,omitempty"`
	Value    *float64 `json:"value,omitempty"`
	Unit     string   `json:"unit,omitempty"`
	Date     string   `json:"date,omitempty"`
	Via      string   `json:"via,omitempty"`
	// Resource is the FHIR reference the evidence was read from.
	Resource string `json:"resource,omitempty"`
	// Spans locate the evidence in the case text (byte offsets).
	Spans []Span `json:"spans,omitempty"`
}

// Span is a byte range [Start, End) of the case text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Feedback is the body of POST /cds-services/{id}/feedback.
type Feedback struct {
	Feedback []FeedbackEntry `json:"feedback"`
}

// FeedbackEntry is the user's action on one card.
type FeedbackEntry struct {
	Card                string               `json:"card"`
	Outcome             string               `json:"outcome"`
	AcceptedSuggestions []AcceptedSuggestion `json:"acceptedSuggestions,omitempty"`
	OverrideReason      *OverrideReason      `json:"overrideReason,omitempty"`
	OutcomeTimestamp    string               `json:"outcomeTimestamp"`
}

// AcceptedSuggestion names an accepted suggestion by its uuid.
type AcceptedSuggestion struct {
	ID string `json:"id"`
}

// OverrideReason is why the user dismissed a card.
type OverrideReason struct {
	Reason      *Coding `json:"reason,omitempty"`
	UserComment string  `json:"userComment,omitempty"`
}

// ErrorBody is the JSON body of every 4xx/5xx answer.
type ErrorBody struct {
	Error string `json:"error"`
	// Field is the request field at fault ("context.patientId").
	Field string `json:"field,omitempty"`
}
