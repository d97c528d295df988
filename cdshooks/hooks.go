package cdshooks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// The hooks served, and what each checks.
const (
	hookPatientView = "patient-view"
	hookOrderSelect = "order-select"
	hookOrderSign   = "order-sign"
)

// prefetchResources are the FHIR searches the service asks for, with the
// prefetch key of each; the Patient is read by id. A search narrowed by a
// parameter gets the value sets' codes for it (Codes.SearchCodes).
var prefetchResources = []struct{ key, resourceType, param, include string }{
	{"conditions", "Condition", "", ""},
	{"observations", "Observation", "code", ""},
	// Findings recorded as an observation's coded value ("ECG
	// interpretation" = left bundle branch block).
	{"observationValues", "Observation", "value-concept", ""},
	// A drug named by reference comes with its Medication resource.
	{"medications", "MedicationRequest", "", "MedicationRequest:medication"},
	{"medicationStatements", "MedicationStatement", "", "MedicationStatement:medication"},
	{"procedures", "Procedure", "", ""},
	// Orders: a procedure requested is a procedure planned.
	{"serviceRequests", "ServiceRequest", "", ""},
	{"allergies", "AllergyIntolerance", "", ""},
	{"familyHistory", "FamilyMemberHistory", "", ""},
	// Visits' reasons and reports' conclusions are findings too (engine/fhir
	// reads Encounter.reasonCode and DiagnosticReport.conclusionCode).
	{"encounters", "Encounter", "", ""},
	{"diagnosticReports", "DiagnosticReport", "", ""},
}

// prefetchTemplates are the pack's templates: the patient by id and a
// search per resource type, narrowed where the value sets give codes.
func prefetchTemplates(p *packInfo) map[string]string {
	t := map[string]string{"patient": "Patient/{{context.patientId}}"}
	for _, pr := range prefetchResources {
		q := pr.resourceType + "?patient={{context.patientId}}"
		if pr.param != "" {
			var codes []string
			if p.codes != nil {
				for _, c := range p.codes.SearchCodes(pr.resourceType, pr.param) {
					tok := c.Code
					if c.System != "" {
						tok = c.System + "|" + c.Code
					}
					codes = append(codes, url.QueryEscape(tok))
				}
			}
			switch {
			case len(codes) > 0:
				sort.Strings(codes)
				q += "&" + pr.param + "=" + strings.Join(codes, ",")
			case pr.param != "code":
				continue // nothing to narrow by: the search would repeat the unnarrowed one
			}
		}
		if pr.include != "" {
			q += "&_include=" + pr.include
		}
		t[pr.key] = q
	}
	return t
}

func servicesFor(p *packInfo) []*serviceDef {
	g := p.Program.Pack().Guideline
	name := g.Title
	if name == "" {
		name = p.label
	}
	pre := prefetchTemplates(p)
	ext := map[string]any{"org.executablekg.pack": map[string]any{"id": g.ID, "version": g.Version, "doi": g.DOI}}
	return []*serviceDef{
		{pack: p, Service: Service{Hook: hookPatientView, ID: p.id + "-patient-view", Title: p.label + ": recommendations for this patient",
			Description: "Evaluates every recommendation row of the " + name + " against the patient's record and returns a card per row that applies, citing the data that fired it.",
			Prefetch:    pre, Extension: ext}},
		{pack: p, Service: Service{Hook: hookOrderSelect, ID: p.id + "-order-select", Title: p.label + ": check selected orders",
			Description: "Checks the selected draft MedicationRequest and ServiceRequest orders against the rows of the " + name + " that say to avoid or stop them and against class III rows.",
			Prefetch:    pre, Extension: ext}},
		{pack: p, Service: Service{Hook: hookOrderSign, ID: p.id + "-order-sign", Title: p.label + ": check orders before signing",
			Description: "Checks the draft MedicationRequest and ServiceRequest orders being signed against the rows of the " + name + " that say to avoid or stop them and against class III rows.",
			Prefetch:    pre, Extension: ext}},
	}
}

// hookContext is the context fields the served hooks define.
type hookContext struct {
	UserID      string          `json:"userId"`
	PatientID   string          `json:"patientId"`
	EncounterID string          `json:"encounterId"`
	Selections  []string        `json:"selections"`
	DraftOrders json.RawMessage `json:"draftOrders"`
	// raw keeps every root field, for prefetch tokens.
	raw map[string]json.RawMessage
}

// fhirID is the FHIR id syntax: a token may only be substituted into a
// query when it is one, so a context value cannot rewrite the query.
var fhirID = regexp.MustCompile(`^[A-Za-z0-9\-.]{1,64}$`)

// parseRequest decodes and validates a hook call for the service.
func parseRequest(r *http.Request, sd *serviceDef) (*Request, *hookContext, error) {
	var req Request
	if err := decodeJSON(r, &req); err != nil {
		return nil, nil, err
	}
	switch {
	case req.Hook == "":
		return nil, nil, &fieldError{Field: "hook", Msg: "is missing; name the hook that triggered the call (" + sd.Hook + ")"}
	case req.Hook != sd.Hook:
		return nil, nil, &fieldError{Field: "hook", Msg: fmt.Sprintf("is %q but service %s answers %q", req.Hook, sd.ID, sd.Hook)}
	case req.HookInstance == "":
		return nil, nil, &fieldError{Field: "hookInstance", Msg: "is missing; send a UUID for this call"}
	case len(req.Context) == 0 || string(req.Context) == "null":
		return nil, nil, &fieldError{Field: "context", Msg: "is missing; the " + sd.Hook + " hook needs its context object"}
	}
	if req.FHIRServer != "" {
		u, err := url.Parse(req.FHIRServer)
		if err != nil || !u.IsAbs() || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, nil, &fieldError{Field: "fhirServer", Msg: fmt.Sprintf("%q is not an absolute http(s) URL", req.FHIRServer)}
		}
	}
	if a := req.FHIRAuthorization; a != nil {
		switch {
		case req.FHIRServer == "":
			return nil, nil, &fieldError{Field: "fhirServer", Msg: "is required when fhirAuthorization is given"}
		case a.AccessToken == "":
			return nil, nil, &fieldError{Field: "fhirAuthorization.access_token", Msg: "is missing"}
		case !strings.EqualFold(a.TokenType, "Bearer"):
			return nil, nil, &fieldError{Field: "fhirAuthorization.token_type", Msg: fmt.Sprintf("is %q; the only token type is Bearer", a.TokenType)}
		case a.Scope == "":
			return nil, nil, &fieldError{Field: "fhirAuthorization.scope", Msg: "is missing; send the scopes the token grants"}
		case a.Subject == "":
			return nil, nil, &fieldError{Field: "fhirAuthorization.subject", Msg: "is missing; send the service's OAuth 2.0 client id"}
		}
	}
	var hc hookContext
	if err := json.Unmarshal(req.Context, &hc.raw); err != nil {
		return nil, nil, &fieldError{Field: "context", Msg: "must be a JSON object"}
	}
	if err := json.Unmarshal(req.Context, &hc); err != nil {
		if te, ok := err.(*json.UnmarshalTypeError); ok {
			return nil, nil, &fieldError{Field: "context." + te.Field, Msg: fmt.Sprintf("has JSON type %s; want %s", te.Value, te.Type)}
		}
		return nil, nil, &fieldError{Field: "context", Msg: err.Error()}
	}
	switch {
	case hc.UserID == "":
		return nil, nil, &fieldError{Field: "context.userId", Msg: "is missing; the " + sd.Hook + " hook requires the user (\"Practitioner/123\")"}
	case hc.PatientID == "":
		return nil, nil, &fieldError{Field: "context.patientId", Msg: "is missing; the " + sd.Hook + " hook requires the patient's FHIR id"}
	case !fhirID.MatchString(hc.PatientID):
		return nil, nil, &fieldError{Field: "context.patientId", Msg: fmt.Sprintf("%q is not a FHIR id (letters, digits, '-' and '.', at most 64)", hc.PatientID)}
	}
	if sd.Hook == hookOrderSelect || sd.Hook == hookOrderSign {
		if len(hc.DraftOrders) == 0 || string(hc.DraftOrders) == "null" {
			return nil, nil, &fieldError{Field: "context.draftOrders", Msg: "is missing; the " + sd.Hook + " hook requires a Bundle of the draft orders"}
		}
	}
	if sd.Hook == hookOrderSelect && len(hc.Selections) == 0 {
		return nil, nil, &fieldError{Field: "context.selections", Msg: "is missing or empty; order-select requires the ids of the selected orders (\"MedicationRequest/103\")"}
	}
	for k, v := range req.Prefetch {
		if err := checkPrefetchValue(k, v); err != nil {
			return nil, nil, err
		}
	}
	return &req, &hc, nil
}

// checkPrefetchValue accepts null (no data) or a FHIR resource.
func checkPrefetchValue(key string, v json.RawMessage) error {
	if string(v) == "null" {
		return nil
	}
	var head struct {
		ResourceType string `json:"resourceType"`
	}
	if err := json.Unmarshal(v, &head); err != nil {
		return &fieldError{Field: "prefetch." + key, Msg: "must be a FHIR resource (a JSON object) or null"}
	}
	if head.ResourceType == "" {
		return &fieldError{Field: "prefetch." + key + ".resourceType", Msg: "is missing; a prefetch value is a FHIR resource or null"}
	}
	return nil
}

func (s *Server) handleHook(w http.ResponseWriter, r *http.Request) {
	sd, ok := s.byID[r.PathValue("id")]
	if !ok {
		writeJSON(w, http.StatusNotFound, ErrorBody{Error: fmt.Sprintf("no CDS service %q; GET /cds-services lists them", r.PathValue("id"))})
		return
	}
	req, hc, err := parseRequest(r, sd)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.EvalTimeout)
	defer cancel()
	cards, err := s.answerHook(ctx, sd, req, hc)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.remember(sd, req.HookInstance, cards)
	writeJSON(w, http.StatusOK, Response{Cards: cards})
}

// answerHook gathers the patient's data, evaluates it and builds the cards.
func (s *Server) answerHook(ctx context.Context, sd *serviceDef, req *Request, hc *hookContext) ([]Card, error) {
	var orders []draftOrder
	if sd.Hook != hookPatientView {
		var err error
		if orders, err = parseDraftOrders(hc.DraftOrders); err != nil {
			return nil, err
		}
		if sd.Hook == hookOrderSelect {
			if orders, err = selected(orders, hc.Selections); err != nil {
				return nil, err
			}
		}
		sd.pack.resolve(orders)
	}
	resources, err := s.gather(ctx, sd, req, hc)
	if err != nil {
		return nil, err
	}
	// The order hooks ask what signing would do: the record is read with
	// the draft medication orders as if signed, in place of any draft copy
	// the prefetch holds.
	resources = withSigned(resources, orders)
	if sd.pack.ReadFHIR == nil || sd.pack.AskPatient == nil {
		return nil, &statusError{Status: http.StatusNotImplemented, Msg: "this server was built without a FHIR reader for pack " + sd.pack.id + "; only /api/ask with text works"}
	}
	b, err := json.Marshal(map[string]any{"resourceType": "Bundle", "type": "collection", "entry": resources})
	if err != nil {
		return nil, err
	}
	m, err := sd.pack.ReadFHIR(ctx, "Patient/"+hc.PatientID, b, s.cfg.Today())
	if err != nil {
		// The reader names the resource and field at fault.
		if len(req.Prefetch) > 0 {
			return nil, &fieldError{Field: "prefetch", Msg: "holds FHIR data the reader cannot read: " + err.Error()}
		}
		return nil, &statusError{Status: http.StatusPreconditionFailed, Msg: "the FHIR server's data cannot be read: " + err.Error()}
	}
	res, err := sd.pack.AskPatient(ctx, m)
	if err != nil {
		return nil, err
	}
	data := newCaseData(res)
	data.patientID = hc.PatientID
	return s.cardsFor(sd, res, data, orders), nil
}

func withSigned(es []entry, orders []draftOrder) []entry {
	replace := map[string]bool{}
	var add []entry
	for _, o := range orders {
		for _, raw := range o.signed {
			replace[resourceRef(raw)] = true
			add = append(add, entry{Resource: raw})
		}
	}
	if len(add) == 0 {
		return es
	}
	var out []entry
	for _, e := range es {
		if !replace[resourceRef(e.Resource)] {
			out = append(out, e)
		}
	}
	return append(out, add...)
}

// addModel indexes the patient model's facts: their resource references
// and spans, and the drugs taken.
func (cd *caseData) addModel(m *patient.Model) {
	if m == nil {
		return
	}
	for _, f := range m.Facts {
		src := cd.sources[f.ID]
		if f.Resource != "" {
			src.Resource = f.Resource
		}
		if len(f.Spans) > 0 {
			src.Spans = nil
			for _, sp := range f.Spans {
				src.Spans = append(src.Spans, Span{sp.Start, sp.End})
			}
		}
		cd.sources[f.ID] = src
		if present, ok := f.Asserts(); ok && present && f.Kind == patient.KindMedication && f.Status == patient.StatusTaking {
			cd.taking[rules.NormalizeName(f.Concept)] = true
			if f.Class != "" {
				cd.taking[rules.NormalizeName(f.Class)] = true
			}
		}
	}
}

// cardsFor builds the cards of a result: every fired row for patient-view;
// for the order hooks, the rows whose avoid, stop or class III advice
// matches a draft order.
func (s *Server) cardsFor(sd *serviceDef, res *engine.Result, data *caseData, orders []draftOrder) []Card {
	missing := missingOf(res)
	cards := []Card{}
	for _, rec := range byRow(res.Recommendations) {
		var matches []orderMatch
		for _, m := range matchOrders(rec, orders, data) {
			if orderConcern(rec, m) {
				matches = append(matches, m)
			}
		}
		if sd.Hook != hookPatientView && len(matches) == 0 {
			continue
		}
		cards = append(cards, buildCard(rec, cardOptions{pack: sd.pack, missing: missing[rec.RowID], matches: matches, data: data}))
	}
	sortCards(cards)
	return cards
}

// selected keeps the draft orders order-select's selections name.
func selected(orders []draftOrder, selections []string) ([]draftOrder, error) {
	byRef := map[string]draftOrder{}
	for _, o := range orders {
		byRef[o.Ref()] = o
	}
	var out []draftOrder
	for i, sel := range selections {
		o, ok := byRef[sel]
		if !ok {
			if strings.HasPrefix(sel, "MedicationRequest/") || strings.HasPrefix(sel, "ServiceRequest/") {
				return nil, &fieldError{Field: fmt.Sprintf("context.selections[%d]", i), Msg: fmt.Sprintf("%q is not an order of context.draftOrders", sel)}
			}
			continue // a selected order of a type this service does not check
		}
		out = append(out, o)
	}
	return out, nil
}

// byRow merges the recommendations of one row (a row whose several rules
// fired) into one, keeping the first rule's id and every firing
// condition: a card is one row.
func byRow(recs []engine.Recommendation) []engine.Recommendation {
	var out []engine.Recommendation
	at := map[string]int{}
	for _, r := range recs {
		i, ok := at[r.RowID]
		if !ok {
			at[r.RowID] = len(out)
			r.FiredBy = append([]engine.FiredCond(nil), r.FiredBy...)
			out = append(out, r)
			continue
		}
		for _, fc := range r.FiredBy {
			dup := false
			for _, have := range out[i].FiredBy {
				if have.DecisionID == fc.DecisionID || have.ConceptKey == fc.ConceptKey && have.Operator == fc.Operator && have.Threshold == fc.Threshold {
					dup = true
					break
				}
			}
			if !dup {
				out[i].FiredBy = append(out[i].FiredBy, fc)
			}
		}
	}
	return out
}
