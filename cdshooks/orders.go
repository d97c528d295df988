package cdshooks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/rules"
)

// Codes is what the service needs from a pack's value sets: the concepts a
// code stands for (draft orders), the codes of a concept (orders to
// create), and the codes each resource type is searched for (prefetch).
type Codes interface {
	// Concepts returns the pack concept names the code stands for.
	Concepts(system, code string) []string
	// Codings returns the codes recorded for a concept.
	Codings(concept string) []Coding
	// SearchCodes returns the codes a search of the resource type gives
	// its token parameter ("Observation", "code" → the observation codes);
	// nil leaves the search out.
	SearchCodes(resourceType, param string) []Coding
}

// draftOrder is one order of context.draftOrders.
type draftOrder struct {
	Type, ID, Status string
	Codings          []Coding
	Text             string
	// Display is a name for the order (text, else a coding's display).
	Display string
	// concepts are the pack concept names the order stands for.
	concepts []string
	// signed is the order as if signed (active), with the Medication it
	// references, for the what-if evaluation; nil for a ServiceRequest.
	signed []json.RawMessage
}

// Ref is the order's relative reference ("MedicationRequest/abc").
func (o draftOrder) Ref() string { return o.Type + "/" + o.ID }

// Label names the order for a suggestion.
func (o draftOrder) Label() string {
	if o.Display != "" {
		return o.Display
	}
	return o.Ref()
}

// fhirResource holds the fields of MedicationRequest and ServiceRequest
// the order check reads.
type fhirResource struct {
	ResourceType              string           `json:"resourceType"`
	ID                        string           `json:"id"`
	Status                    string           `json:"status"`
	Code                      *codeableConcept `json:"code"`
	MedicationCodeableConcept *codeableConcept `json:"medicationCodeableConcept"`
	// R5 and some R4 clients send medication as a CodeableReference.
	Medication *struct {
		Concept *codeableConcept `json:"concept"`
	} `json:"medication"`
	// A Medication the order references, contained in it or in the
	// draft bundle.
	MedicationReference *struct {
		Reference string `json:"reference"`
		Display   string `json:"display"`
	} `json:"medicationReference"`
	Contained []json.RawMessage `json:"contained"`
}

// medicationResource is the part of a Medication the order check reads.
type medicationResource struct {
	ResourceType string           `json:"resourceType"`
	ID           string           `json:"id"`
	Code         *codeableConcept `json:"code"`
}

// referencedMedication resolves an order's medicationReference: "#id" in
// its contained resources, else "Medication/id" among the bundle's.
func referencedMedication(r fhirResource, inBundle map[string]medicationResource) *codeableConcept {
	ref := r.MedicationReference
	if ref == nil || ref.Reference == "" {
		return nil
	}
	if id, ok := strings.CutPrefix(ref.Reference, "#"); ok {
		for _, c := range r.Contained {
			var m medicationResource
			if json.Unmarshal(c, &m) == nil && m.ResourceType == "Medication" && m.ID == id && m.Code != nil {
				return m.Code
			}
		}
	} else if m, ok := inBundle[ref.Reference]; ok && m.Code != nil {
		return m.Code
	}
	if ref.Display != "" {
		return &codeableConcept{Text: ref.Display}
	}
	return nil
}

type codeableConcept struct {
	Coding []Coding `json:"coding"`
	Text   string   `json:"text"`
}

type bundle struct {
	ResourceType string `json:"resourceType"`
	Type         string `json:"type"`
	Entry        []struct {
		FullURL  string          `json:"fullUrl"`
		Resource json.RawMessage `json:"resource"`
	} `json:"entry"`
	Link []struct {
		Relation string `json:"relation"`
		URL      string `json:"url"`
	} `json:"link"`
}

// parseDraftOrders reads context.draftOrders: a Bundle of
// MedicationRequest and ServiceRequest resources. Other resource types are
// skipped (the hooks allow them; this service checks only these two).
func parseDraftOrders(raw json.RawMessage) ([]draftOrder, error) {
	var b bundle
	if err := json.Unmarshal(raw, &b); err != nil {
		return nil, &fieldError{Field: "context.draftOrders", Msg: "must be a FHIR Bundle: " + err.Error()}
	}
	if b.ResourceType != "Bundle" {
		return nil, &fieldError{Field: "context.draftOrders.resourceType", Msg: fmt.Sprintf("is %q; draftOrders must be a Bundle", b.ResourceType)}
	}
	meds := map[string]medicationResource{}
	for _, e := range b.Entry {
		var m medicationResource
		if json.Unmarshal(e.Resource, &m) == nil && m.ResourceType == "Medication" && m.ID != "" {
			meds["Medication/"+m.ID] = m
		}
	}
	var out []draftOrder
	for i, e := range b.Entry {
		var r fhirResource
		if err := json.Unmarshal(e.Resource, &r); err != nil {
			return nil, &fieldError{Field: fmt.Sprintf("context.draftOrders.entry[%d].resource", i), Msg: err.Error()}
		}
		var cc *codeableConcept
		switch r.ResourceType {
		case "MedicationRequest":
			cc = r.MedicationCodeableConcept
			if cc == nil && r.Medication != nil {
				cc = r.Medication.Concept
			}
			if cc == nil {
				cc = referencedMedication(r, meds)
			}
		case "ServiceRequest":
			cc = r.Code
		default:
			continue
		}
		if r.ID == "" {
			return nil, &fieldError{Field: fmt.Sprintf("context.draftOrders.entry[%d].resource.id", i), Msg: "is missing; a draft order needs an id so a card can refer to it"}
		}
		o := draftOrder{Type: r.ResourceType, ID: r.ID, Status: r.Status}
		if r.ResourceType == "MedicationRequest" {
			o.signed = asSigned(e.Resource, r, meds)
		}
		if cc != nil {
			o.Codings, o.Text = cc.Coding, cc.Text
			o.Display = cc.Text
			for _, c := range cc.Coding {
				if o.Display == "" && c.Display != "" {
					o.Display = c.Display
				}
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// asSigned is a draft medication order as the record would hold it once
// signed: status active, intent order; a Medication it references in the
// draft bundle comes along.
func asSigned(raw json.RawMessage, r fhirResource, meds map[string]medicationResource) []json.RawMessage {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	m["status"], m["intent"] = "active", "order"
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	out := []json.RawMessage{b}
	if ref := r.MedicationReference; ref != nil {
		if med, ok := meds[ref.Reference]; ok {
			if mb, err := json.Marshal(med); err == nil {
				out = append(out, mb)
			}
		}
	}
	return out
}

// resolve finds the pack concepts of each order: by its codes through the
// value sets, else by a text or display that is a concept's name.
func (p *packInfo) resolve(orders []draftOrder) {
	for i := range orders {
		o := &orders[i]
		seen := map[string]bool{}
		add := func(name string) {
			n := rules.NormalizeName(name)
			if n != "" && !seen[n] {
				seen[n] = true
				o.concepts = append(o.concepts, n)
			}
		}
		if p.codes != nil {
			for _, c := range o.Codings {
				for _, n := range p.codes.Concepts(c.System, c.Code) {
					add(n)
				}
			}
		}
		if len(o.concepts) == 0 {
			names := []string{o.Text}
			for _, c := range o.Codings {
				names = append(names, c.Display)
			}
			for _, n := range names {
				if p.names[rules.NormalizeName(n)] {
					add(n)
				}
			}
		}
		// A drug is also each class it belongs to (atorvastatin is a
		// statin), so a row about the class matches it.
		for _, n := range append([]string(nil), o.concepts...) {
			for _, b := range p.hierarchy.Broader(n) {
				add(b)
			}
		}
	}
}

// matchOrders returns the draft orders a recommendation concerns: those
// its actions name, and those whose signed form is evidence the row fired
// on (signing the order makes the row apply: an anticoagulant added to
// aspirin and ticagrelor).
func matchOrders(rec engine.Recommendation, orders []draftOrder, data *caseData) []orderMatch {
	var out []orderMatch
	for _, o := range orders {
		matched := false
		for _, a := range rec.Actions {
			if containsStr(o.concepts, rules.NormalizeName(a.Concept)) {
				out = append(out, orderMatch{order: o, action: a})
				matched = true
				break
			}
		}
		if matched || len(rec.Actions) == 0 || data == nil {
			continue
		}
		for _, fc := range rec.FiredBy {
			for _, e := range fc.Evidence {
				if data.sources[e.ID].Resource == o.Ref() && !matched {
					out = append(out, orderMatch{order: o, action: rec.Actions[0], enables: true})
					matched = true
				}
			}
		}
	}
	return out
}

// orderConcern reports whether a matched order is one the order hooks warn
// about: the row says to avoid or stop it, or is class III.
func orderConcern(rec engine.Recommendation, m orderMatch) bool {
	return rec.Class == "III" || m.action.Intent == "avoid" || m.action.Intent == "stop" ||
		strings.EqualFold(m.action.Relation, "CONTRAINDICATES")
}
