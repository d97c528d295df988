package cdshooks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// maxPages bounds the search result pages followed per template.
const maxPages = 50

var prefetchToken = regexp.MustCompile(`\{\{\s*([A-Za-z0-9_.]+)\s*\}\}`)

// entry is one resource of the bundle handed to the FHIR reader.
type entry struct {
	FullURL  string          `json:"fullUrl,omitempty"`
	Resource json.RawMessage `json:"resource"`
}

// gather collects the resources of every prefetch template: from the
// request's prefetch where the client sent the key (null meaning no data),
// else from the client's FHIR server. Without a FHIR server a missing key
// is a 412, as the specification says.
func (s *Server) gather(ctx context.Context, sd *serviceDef, req *Request, hc *hookContext) ([]entry, error) {
	keys := make([]string, 0, len(sd.Prefetch))
	for k := range sd.Prefetch {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var missing []string
	for _, k := range keys {
		if _, ok := req.Prefetch[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 && req.FHIRServer == "" {
		return nil, &statusError{Status: http.StatusPreconditionFailed, Msg: fmt.Sprintf(
			"prefetch %s missing and no fhirServer to fetch it from; send the prefetch the discovery response lists (GET /cds-services) or a fhirServer with fhirAuthorization", strings.Join(quoteAll(missing), ", "))}
	}
	var base *url.URL
	if len(missing) > 0 {
		var err error
		if base, err = url.Parse(strings.TrimRight(req.FHIRServer, "/")); err != nil {
			return nil, &fieldError{Field: "fhirServer", Msg: err.Error()}
		}
		if s.cfg.AllowFHIRServer != nil {
			if err := s.cfg.AllowFHIRServer(base); err != nil {
				return nil, &fieldError{Field: "fhirServer", Msg: err.Error()}
			}
		}
	}
	seen := map[string]bool{}
	var out []entry
	add := func(key string, raw json.RawMessage) error {
		es, err := resourcesOf(key, raw)
		if err != nil {
			return err
		}
		for _, e := range es {
			if id := resourceRef(e.Resource); id != "" {
				if seen[id] {
					continue
				}
				seen[id] = true
			}
			out = append(out, e)
		}
		return nil
	}
	for _, k := range keys {
		raw, sent := req.Prefetch[k]
		if sent {
			if string(raw) == "null" {
				continue
			}
			if k == "patient" {
				if err := checkPatient(raw, hc.PatientID, "prefetch.patient"); err != nil {
					return nil, err
				}
			}
			if err := add(k, raw); err != nil {
				return nil, err
			}
			continue
		}
		query, err := fillTemplate(sd.Prefetch[k], hc)
		if err != nil {
			return nil, err
		}
		pages, err := s.fetch(ctx, base, query, req.FHIRAuthorization)
		if err != nil {
			return nil, err
		}
		for _, p := range pages {
			if k == "patient" {
				if err := checkPatient(p, hc.PatientID, "fhirServer "+query); err != nil {
					return nil, &statusError{Status: http.StatusPreconditionFailed, Msg: err.Error()}
				}
			}
			if err := add(k, p); err != nil {
				return nil, &statusError{Status: http.StatusPreconditionFailed, Msg: "fhirServer " + query + ": " + err.Error()}
			}
		}
	}
	if base != nil || req.FHIRServer != "" {
		if base == nil {
			base, _ = url.Parse(strings.TrimRight(req.FHIRServer, "/"))
		}
		more, err := s.referencedMedications(ctx, base, req.FHIRAuthorization, out)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	setPatientURL(out, base, hc.PatientID)
	return out, nil
}

// referencedMedications fetches the Medication resources the orders and
// statements name by reference that the data does not hold (a client that
// did not honour _include): without them the drug is unknown.
func (s *Server) referencedMedications(ctx context.Context, base *url.URL, auth *FHIRAuthorization, es []entry) ([]entry, error) {
	have := map[string]bool{}
	for _, e := range es {
		have[resourceRef(e.Resource)] = true
	}
	var out []entry
	for _, e := range es {
		var r fhirResource
		if json.Unmarshal(e.Resource, &r) != nil || r.MedicationReference == nil {
			continue
		}
		ref := r.MedicationReference.Reference
		id, ok := strings.CutPrefix(ref, "Medication/")
		if !ok || have[ref] || !fhirID.MatchString(id) {
			continue
		}
		have[ref] = true
		pages, err := s.fetch(ctx, base, "Medication/"+id, auth)
		if err != nil {
			return nil, err
		}
		for _, p := range pages {
			out = append(out, entry{Resource: p})
		}
	}
	return out, nil
}

// setPatientURL gives the patient's entry the absolute URL the record's
// references may use ("https://ehr.example/fhir/Patient/123"): the FHIR
// server's base, else the base the search entries were served from. A read
// returns a bare resource; without its URL an absolute subject reference
// would not be known as the patient's.
func setPatientURL(es []entry, base *url.URL, patientID string) {
	root := ""
	if base != nil {
		root = base.String()
	}
	for _, e := range es {
		if root != "" {
			break
		}
		if ref := resourceRef(e.Resource); ref != "" && strings.HasSuffix(e.FullURL, "/"+ref) {
			root = strings.TrimSuffix(e.FullURL, "/"+ref)
		}
	}
	if root == "" {
		return
	}
	for i := range es {
		if es[i].FullURL == "" && resourceRef(es[i].Resource) == "Patient/"+patientID {
			es[i].FullURL = root + "/Patient/" + patientID
		}
	}
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// checkPatient makes sure the patient resource is the patient in context,
// so one patient's record is never answered under another's id.
func checkPatient(raw json.RawMessage, patientID, where string) error {
	var p struct {
		ResourceType string `json:"resourceType"`
		ID           string `json:"id"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return &fieldError{Field: where, Msg: err.Error()}
	}
	if p.ResourceType != "Patient" {
		return &fieldError{Field: where + ".resourceType", Msg: fmt.Sprintf("is %q; want Patient", p.ResourceType)}
	}
	if p.ID != "" && p.ID != patientID {
		return &fieldError{Field: where + ".id", Msg: fmt.Sprintf("is %q but context.patientId is %q", p.ID, patientID)}
	}
	return nil
}

// resourcesOf returns the entries a prefetch value holds: a Bundle's
// (with their fullUrl, which references may use), or the resource itself.
func resourcesOf(key string, raw json.RawMessage) ([]entry, error) {
	var head struct {
		ResourceType string `json:"resourceType"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, &fieldError{Field: "prefetch." + key, Msg: "must be a FHIR resource or null: " + err.Error()}
	}
	switch head.ResourceType {
	case "Bundle":
		var b bundle
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, &fieldError{Field: "prefetch." + key, Msg: "is not a readable Bundle: " + err.Error()}
		}
		var out []entry
		for _, e := range b.Entry {
			if len(e.Resource) > 0 && string(e.Resource) != "null" {
				if resourceType(e.Resource) == "OperationOutcome" {
					continue // a search's warnings, not data
				}
				out = append(out, entry{FullURL: e.FullURL, Resource: e.Resource})
			}
		}
		return out, nil
	case "OperationOutcome":
		return nil, &fieldError{Field: "prefetch." + key, Msg: "is an OperationOutcome, not data; omit the key or send null"}
	}
	return []entry{{Resource: raw}}, nil
}

func resourceType(raw json.RawMessage) string {
	var r struct {
		ResourceType string `json:"resourceType"`
	}
	_ = json.Unmarshal(raw, &r)
	return r.ResourceType
}

// resourceRef is "Type/id" of a resource ("" without an id).
func resourceRef(raw json.RawMessage) string {
	var r struct {
		ResourceType string `json:"resourceType"`
		ID           string `json:"id"`
	}
	if json.Unmarshal(raw, &r) != nil || r.ID == "" {
		return ""
	}
	return r.ResourceType + "/" + r.ID
}

// fillTemplate replaces a template's prefetch tokens with context values.
// A value must be a FHIR id (a string of id characters), so that it cannot
// change the query's shape.
func fillTemplate(tmpl string, hc *hookContext) (string, error) {
	var ferr error
	out := prefetchToken.ReplaceAllStringFunc(tmpl, func(tok string) string {
		name := prefetchToken.FindStringSubmatch(tok)[1]
		field, ok := strings.CutPrefix(name, "context.")
		if !ok {
			ferr = &statusError{Status: http.StatusInternalServerError, Msg: "prefetch template token " + tok + " is not a context field"}
			return ""
		}
		var v string
		if err := json.Unmarshal(hc.raw[field], &v); err != nil || !fhirID.MatchString(v) {
			ferr = &fieldError{Field: "context." + field, Msg: "must be a FHIR id to fill the prefetch template " + tmpl}
			return ""
		}
		return url.QueryEscape(v)
	})
	return out, ferr
}

// fetch runs one query against the client's FHIR server and returns its
// pages (a search's next links are followed, on the same server only, so
// the token goes nowhere else).
func (s *Server) fetch(ctx context.Context, base *url.URL, query string, auth *FHIRAuthorization) ([]json.RawMessage, error) {
	next := base.String() + "/" + query
	var pages []json.RawMessage
	for i := 0; next != "" && i < maxPages; i++ {
		u, err := url.Parse(next)
		if err != nil || u.Scheme != base.Scheme || u.Host != base.Host {
			return nil, &statusError{Status: http.StatusPreconditionFailed, Msg: fmt.Sprintf("fhirServer's next page %q leaves %s; not followed", next, base.Host)}
		}
		body, err := s.get(ctx, u.String(), auth)
		if err != nil {
			return nil, err
		}
		pages = append(pages, body)
		next = ""
		var b bundle
		if json.Unmarshal(body, &b) == nil && b.ResourceType == "Bundle" {
			for _, l := range b.Link {
				if l.Relation == "next" {
					next = l.URL
				}
			}
		}
	}
	return pages, nil
}

func (s *Server) get(ctx context.Context, u string, auth *FHIRAuthorization) (json.RawMessage, error) {
	fail := func(format string, a ...any) error {
		return &statusError{Status: http.StatusPreconditionFailed, Msg: "could not fetch " + u + " from fhirServer: " + fmt.Sprintf(format, a...)}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fail("%v", err)
	}
	req.Header.Set("Accept", "application/fhir+json, application/json")
	if auth != nil {
		req.Header.Set("Authorization", "Bearer "+auth.AccessToken)
	}
	resp, err := s.cfg.FHIRClient.Do(req)
	if err != nil {
		return nil, fail("%v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, s.cfg.MaxBody+1))
	if err != nil {
		return nil, fail("%v", err)
	}
	if int64(len(body)) > s.cfg.MaxBody {
		return nil, fail("answer over %d bytes", s.cfg.MaxBody)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fail("status %d", resp.StatusCode)
	}
	if !json.Valid(body) {
		return nil, fail("the answer is not JSON")
	}
	return body, nil
}
