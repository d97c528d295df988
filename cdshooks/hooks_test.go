package cdshooks_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/executablekg/execkg/cdshooks"
)

// fhirStore is an in-test FHIR server over one patient's bundle: reads by
// id and searches by patient and code, paged when pageSize > 0, behind a
// bearer token when token is set. It also plays the CDS client filling the
// prefetch templates.
type fhirStore struct {
	resources []map[string]any
	// base is the server's base URL in the entries' fullUrl and in
	// absolute references.
	base string
	// noInclude ignores _include, as some servers do.
	noInclude bool
	token     string
	pageSize  int
	mu        sync.Mutex
	requests  []string
	auth      []string
}

func loadStore(t *testing.T, file string) *fhirStore {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "patients", file))
	if err != nil {
		t.Fatal(err)
	}
	return newStore(t, file, b)
}

func newStore(t *testing.T, name string, b []byte) *fhirStore {
	t.Helper()
	var bundle struct {
		Entry []struct {
			FullURL  string         `json:"fullUrl"`
			Resource map[string]any `json:"resource"`
		} `json:"entry"`
	}
	if err := json.Unmarshal(b, &bundle); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s := &fhirStore{base: "https://ehr.test/fhir"}
	// A server gives every resource an id (a transaction's entries may
	// have none) and resolves references to fullUrls into Type/id.
	local := map[string]string{}
	for _, e := range bundle.Entry {
		if e.Resource == nil {
			continue // a DELETE of a transaction
		}
		if e.Resource["id"] == nil && e.FullURL != "" {
			e.Resource["id"] = e.FullURL[strings.LastIndexAny(e.FullURL, ":/")+1:]
		}
		ref := fmt.Sprint(e.Resource["resourceType"], "/", e.Resource["id"])
		if strings.HasPrefix(e.FullURL, "urn:") {
			local[e.FullURL] = ref
		}
		if e.Resource["resourceType"] == "Patient" && strings.HasSuffix(e.FullURL, "/"+ref) {
			s.base = strings.TrimSuffix(e.FullURL, "/"+ref)
		}
		s.resources = append(s.resources, e.Resource)
	}
	for _, r := range s.resources {
		rewriteRefs(r, local)
	}
	return s
}

func rewriteRefs(v any, local map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if str, ok := e.(string); ok && k == "reference" && local[str] != "" {
				x[k] = local[str]
			} else {
				rewriteRefs(e, local)
			}
		}
	case []any:
		for _, e := range x {
			rewriteRefs(e, local)
		}
	}
}

// query answers a relative FHIR URL: a resource, a searchset, or nil (not
// found, or nothing found).
func (s *fhirStore) query(rel string) (any, int) {
	u, err := url.Parse(rel)
	if err != nil {
		return nil, http.StatusBadRequest
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) == 2 {
		for _, r := range s.resources {
			if r["resourceType"] == parts[0] && fmt.Sprint(r["id"]) == parts[1] {
				return r, http.StatusOK
			}
		}
		return nil, http.StatusNotFound
	}
	q := u.Query()
	var codes, values []string
	if c := q.Get("code"); c != "" {
		codes = strings.Split(c, ",")
	}
	if c := q.Get("value-concept"); c != "" {
		values = strings.Split(c, ",")
	}
	var hits []any
	for _, r := range s.resources {
		if r["resourceType"] != parts[0] || !s.subjectIs(r, q.Get("patient")) ||
			(codes != nil && !hasCode(r["code"], codes)) || (values != nil && !hasCode(r["valueCodeableConcept"], values)) {
			continue
		}
		hits = append(hits, map[string]any{"fullUrl": fmt.Sprint("BASE/", r["resourceType"], "/", r["id"]), "resource": r, "search": map[string]any{"mode": "match"}})
	}
	if inc := q.Get("_include"); strings.HasSuffix(inc, ":medication") && !s.noInclude {
		for _, h := range hits {
			mr, _ := h.(map[string]any)["resource"].(map[string]any)["medicationReference"].(map[string]any)
			ref, _ := mr["reference"].(string)
			if m, _ := s.query(ref); m != nil {
				hits = append(hits, map[string]any{"fullUrl": "BASE/" + ref, "resource": m, "search": map[string]any{"mode": "include"}})
			}
		}
	}
	b := map[string]any{"resourceType": "Bundle", "type": "searchset", "total": len(hits)}
	page, _ := strconv.Atoi(q.Get("_page"))
	if s.pageSize > 0 && len(hits) > s.pageSize {
		from := page * s.pageSize
		to := min(from+s.pageSize, len(hits))
		if to < len(hits) {
			q.Set("_page", strconv.Itoa(page+1))
			b["link"] = []any{map[string]any{"relation": "next", "url": "BASE/" + parts[0] + "?" + q.Encode()}}
		}
		hits = hits[from:to]
	}
	if len(hits) > 0 {
		b["entry"] = hits
	}
	return b, http.StatusOK
}

// subjectIs: the resource's subject (or patient) is the patient, by a
// relative or absolute reference.
func (s *fhirStore) subjectIs(r map[string]any, patientID string) bool {
	for _, k := range []string{"subject", "patient"} {
		m, _ := r[k].(map[string]any)
		ref, _ := m["reference"].(string)
		if ref != "" && (ref == "Patient/"+patientID || strings.HasSuffix(ref, "/Patient/"+patientID)) {
			return true
		}
	}
	return false
}

func hasCode(v any, codes []string) bool {
	cc, _ := v.(map[string]any)
	cs, _ := cc["coding"].([]any)
	for _, c := range cs {
		m, _ := c.(map[string]any)
		tok := fmt.Sprint(m["system"], "|", m["code"])
		for _, want := range codes {
			if want == tok || want == m["code"] {
				return true
			}
		}
	}
	return false
}

func (s *fhirStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.URL.RequestURI())
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	v, status := s.query(strings.TrimPrefix(r.URL.RequestURI(), "/fhir"))
	w.Header().Set("Content-Type", "application/fhir+json")
	w.WriteHeader(status)
	if v != nil {
		b, _ := json.Marshal(v)
		b = []byte(strings.ReplaceAll(string(b), `"BASE/`, `"http://`+r.Host+"/fhir/"))
		w.Write(b)
	}
}

// prefetch fills the service's templates from the store, as a CDS client
// would: no data is null.
func (s *fhirStore) prefetch(t *testing.T, templates map[string]string, patientID string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, tmpl := range templates {
		v, _ := s.query(strings.ReplaceAll(tmpl, "{{context.patientId}}", patientID))
		if b, ok := v.(map[string]any); ok && b["type"] == "searchset" && b["entry"] == nil {
			v = nil
		}
		j, _ := json.Marshal(v)
		out[k] = json.RawMessage(strings.ReplaceAll(string(j), `"BASE/`, `"`+s.base+"/"))
	}
	return out
}

type hookFixture struct {
	Name        string           `json:"name"`
	Patient     string           `json:"patient"`
	Today       string           `json:"today"`
	Hook        string           `json:"hook"`
	DraftOrders []map[string]any `json:"draftOrders"`
	Selections  []string         `json:"selections"`
	Cards       map[string]struct {
		Indicator   string   `json:"indicator"`
		Resources   []string `json:"resources"`
		Orders      []string `json:"orders"`
		Suggestions []string `json:"suggestions"`
		// Creates are the suggested new orders, "Type system|code"; an
		// empty list wants none.
		Creates *[]string `json:"creates"`
		// Missing are words the card's missing data must mention.
		Missing []string `json:"missing"`
	} `json:"cards"`
	OnlyListed bool     `json:"only_listed"`
	NotRows    []string `json:"not_rows"`
}

func loadFixtures(t *testing.T) map[string]hookFixture {
	t.Helper()
	files, _ := filepath.Glob("testdata/hooks/*.json")
	if len(files) == 0 {
		t.Fatal("no testdata/hooks/*.json")
	}
	out := map[string]hookFixture{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var fx hookFixture
		if err := json.Unmarshal(b, &fx); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = fx
	}
	return out
}

func fixtureDate(t *testing.T, fx hookFixture) func() time.Time {
	d, err := time.Parse(time.DateOnly, fx.Today)
	if err != nil {
		t.Fatalf("%s: today %q: %v", fx.Name, fx.Today, err)
	}
	return func() time.Time { return d }
}

func discover(t *testing.T, base string) map[string]cdshooks.Service {
	t.Helper()
	_, b := get(t, base+"/cds-services")
	var d cdshooks.Discovery
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	out := map[string]cdshooks.Service{}
	for _, s := range d.Services {
		out[s.Hook] = s
	}
	return out
}

// hookRequest builds the fixture's call; with prefetch nil the service
// has to fetch.
func hookRequest(fx hookFixture, patientID string, prefetch map[string]any, extra map[string]any) []byte {
	ctx := map[string]any{"userId": "Practitioner/dr-1", "patientId": patientID}
	if fx.DraftOrders != nil {
		var entries []any
		for _, o := range fx.DraftOrders {
			entries = append(entries, map[string]any{"resource": o})
		}
		ctx["draftOrders"] = map[string]any{"resourceType": "Bundle", "type": "collection", "entry": entries}
	}
	if fx.Selections != nil {
		ctx["selections"] = fx.Selections
	}
	req := map[string]any{"hook": fx.Hook, "hookInstance": "3b3c3c0e-2f3e-4d7a-9a39-" + fmt.Sprintf("%012d", len(fx.Name)), "context": ctx}
	if prefetch != nil {
		req["prefetch"] = prefetch
	}
	for k, v := range extra {
		req[k] = v
	}
	b, _ := json.Marshal(req)
	return b
}

func patientIDOf(s *fhirStore) string {
	for _, r := range s.resources {
		if r["resourceType"] == "Patient" {
			return fmt.Sprint(r["id"])
		}
	}
	return ""
}

// checkFixture compares the cards with the fixture's expectations.
func checkFixture(t *testing.T, fx hookFixture, cards []cdshooks.Card) {
	t.Helper()
	byRow := map[string]cdshooks.Card{}
	for _, c := range cards {
		byRow[c.Extension.Recommendation.RowID] = c
	}
	for row, want := range fx.Cards {
		c, ok := byRow[row]
		if !ok {
			t.Errorf("%s: no card for %s; cards for %v", fx.Name, row, sortedRows(byRow))
			continue
		}
		if c.Indicator != want.Indicator {
			t.Errorf("%s: %s indicator %s, want %s", fx.Name, row, c.Indicator, want.Indicator)
		}
		cited := map[string]bool{}
		for _, f := range c.Extension.Recommendation.FiredBy {
			cited[f.Resource] = true
		}
		for _, r := range want.Resources {
			if !cited[r] {
				t.Errorf("%s: %s does not cite %s (cites %v)", fx.Name, row, r, cited)
			}
			if !strings.Contains(c.Detail, "`"+r+"`") {
				t.Errorf("%s: %s detail does not name %s:\n%s", fx.Name, row, r, c.Detail)
			}
		}
		if got := c.Extension.Recommendation.Orders; strings.Join(got, ",") != strings.Join(want.Orders, ",") {
			t.Errorf("%s: %s orders %v, want %v", fx.Name, row, got, want.Orders)
		}
		var sugg, creates []string
		for _, s := range c.Suggestions {
			for _, a := range s.Actions {
				switch a.Type {
				case "delete":
					sugg = append(sugg, "delete "+a.ResourceID)
				case "create":
					b, _ := json.Marshal(a.Resource)
					var r struct {
						ResourceType string `json:"resourceType"`
						Subject      struct {
							Reference string `json:"reference"`
						} `json:"subject"`
						Med struct {
							Coding []cdshooks.Coding `json:"coding"`
						} `json:"medicationCodeableConcept"`
						Code struct {
							Coding []cdshooks.Coding `json:"coding"`
						} `json:"code"`
					}
					json.Unmarshal(b, &r)
					if r.Subject.Reference == "" {
						t.Errorf("%s: %s suggests an order without the patient: %s", fx.Name, row, b)
					}
					for _, cd := range append(r.Med.Coding, r.Code.Coding...) {
						creates = append(creates, r.ResourceType+" "+cd.System+"|"+cd.Code)
					}
				}
			}
		}
		for _, w := range want.Missing {
			if !containsSub(c.Extension.Recommendation.Missing, w) {
				t.Errorf("%s: %s missing %v does not mention %q", fx.Name, row, c.Extension.Recommendation.Missing, w)
			}
		}
		if want.Creates != nil {
			if len(*want.Creates) == 0 && len(creates) > 0 {
				t.Errorf("%s: %s suggests orders %v, want none", fx.Name, row, creates)
			}
			for _, w := range *want.Creates {
				if !containsStr(creates, w) {
					t.Errorf("%s: %s suggested orders %v lack %q", fx.Name, row, creates, w)
				}
			}
		}
		for _, w := range want.Suggestions {
			if !containsStr(sugg, w) {
				t.Errorf("%s: %s suggestions %v lack %q", fx.Name, row, sugg, w)
			}
		}
	}
	if fx.OnlyListed && len(byRow) != len(fx.Cards) {
		t.Errorf("%s: cards for %v, want only %d listed", fx.Name, sortedRows(byRow), len(fx.Cards))
	}
	for _, r := range fx.NotRows {
		if _, ok := byRow[r]; ok {
			t.Errorf("%s: unexpected card for %s", fx.Name, r)
		}
	}
}

func sortedRows(m map[string]cdshooks.Card) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// TestHookFixtures: each fixture patient through its hook with the
// prefetch filled by the client; the expected cards, their indicators,
// cited resources, draft orders and suggestions.
func TestHookFixtures(t *testing.T) {
	for file, fx := range loadFixtures(t) {
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) {
			ts, _ := startServer(t, func(c *cdshooks.Config) { c.Today = fixtureDate(t, fx) })
			svc := discover(t, ts.URL)[fx.Hook]
			store := loadStore(t, fx.Patient)
			pid := patientIDOf(store)
			status, b := post(t, ts.URL+"/cds-services/"+svc.ID, hookRequest(fx, pid, store.prefetch(t, svc.Prefetch, pid), nil))
			if status != 200 {
				t.Fatalf("status %d: %s", status, b)
			}
			checkFixture(t, fx, checkCards(t, fx.Name, b))
		})
	}
}

// TestFetchFromFHIRServer: without prefetch, the service fetches from the
// client's FHIR server with the bearer token, follows paging, narrows the
// observation search to the value sets' codes, and answers as it does
// with the prefetch.
func TestFetchFromFHIRServer(t *testing.T) {
	fx := loadFixtures(t)["af_order_sign_ticagrelor.json"]
	store := loadStore(t, fx.Patient)
	store.token, store.pageSize = "secret-token", 1
	fhirSrv := httptest.NewServer(store)
	defer fhirSrv.Close()
	ts, _ := startServer(t, func(c *cdshooks.Config) { c.Today = fixtureDate(t, fx) })
	svc := discover(t, ts.URL)[fx.Hook]
	pid := patientIDOf(store)
	auth := map[string]any{"access_token": "secret-token", "token_type": "Bearer", "expires_in": 300, "scope": "patient/*.read", "subject": "execkg"}
	status, b := post(t, ts.URL+"/cds-services/"+svc.ID, hookRequest(fx, pid, nil, map[string]any{"fhirServer": fhirSrv.URL + "/fhir", "fhirAuthorization": auth}))
	if status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	checkFixture(t, fx, checkCards(t, fx.Name+" (fetched)", b))
	var sawPage2, sawObsCodes bool
	for i, r := range store.requests {
		if store.auth[i] != "Bearer secret-token" {
			t.Errorf("request %s sent Authorization %q", r, store.auth[i])
		}
		sawPage2 = sawPage2 || strings.Contains(r, "_page=1")
		if strings.HasPrefix(r, "/fhir/Observation?") {
			sawObsCodes = strings.Contains(r, "code=") && strings.Contains(r, "10230-1")
		}
	}
	if !sawPage2 {
		t.Errorf("the second page of a search was not fetched; requests %v", store.requests)
	}
	if !sawObsCodes {
		t.Errorf("the observation search was not narrowed to the value sets' codes; requests %v", store.requests)
	}

	// Some prefetch given, the rest fetched: the same cards again.
	store.requests, store.auth = nil, nil
	pre := store.prefetch(t, svc.Prefetch, pid)
	delete(pre, "medicationStatements")
	status, b = post(t, ts.URL+"/cds-services/"+svc.ID, hookRequest(fx, pid, pre, map[string]any{"fhirServer": fhirSrv.URL + "/fhir", "fhirAuthorization": auth}))
	if status != 200 {
		t.Fatalf("partial prefetch: status %d: %s", status, b)
	}
	checkFixture(t, fx, checkCards(t, fx.Name+" (partly fetched)", b))
	for _, r := range store.requests {
		if !strings.HasPrefix(r, "/fhir/MedicationStatement?") {
			t.Errorf("fetched %s, which the prefetch held", r)
		}
	}

	// A FHIR server the service may not send tokens to: 400 naming it.
	ts2, _ := startServer(t, func(c *cdshooks.Config) {
		c.AllowFHIRServer = func(u *url.URL) error { return fmt.Errorf("%s is not allowed", u) }
	})
	status, b = post(t, ts2.URL+"/cds-services/"+svc.ID, hookRequest(fx, pid, nil, map[string]any{"fhirServer": fhirSrv.URL + "/fhir", "fhirAuthorization": auth}))
	if status != http.StatusBadRequest || !strings.Contains(string(b), `"field":"fhirServer"`) {
		t.Errorf("disallowed fhirServer: status %d %s, want 400 naming fhirServer", status, b)
	}

	// An open FHIR server (fhirServer without fhirAuthorization): fetched
	// without an Authorization header.
	store.token, store.requests, store.auth = "", nil, nil
	status, b = post(t, ts.URL+"/cds-services/"+svc.ID, hookRequest(fx, pid, nil, map[string]any{"fhirServer": fhirSrv.URL + "/fhir"}))
	if status != 200 {
		t.Fatalf("open server: status %d: %s", status, b)
	}
	checkFixture(t, fx, checkCards(t, fx.Name+" (open server)", b))
	for i, a := range store.auth {
		if a != "" {
			t.Errorf("request %s to an open server sent Authorization %q", store.requests[i], a)
		}
	}
	store.token = "secret-token"

	// A token the FHIR server refuses: the data cannot be had, 412.
	auth["access_token"] = "wrong"
	status, b = post(t, ts.URL+"/cds-services/"+svc.ID, hookRequest(fx, pid, nil, map[string]any{"fhirServer": fhirSrv.URL + "/fhir", "fhirAuthorization": auth}))
	if status != http.StatusPreconditionFailed || !strings.Contains(string(b), "status 401") {
		t.Errorf("refused token: status %d %s, want 412 naming the FHIR server's 401", status, b)
	}
}

// TestFeedbackOnIssuedCard: feedback on a card the server issued is
// logged with the card's row; a suggestion of another card is refused.
func TestFeedbackOnIssuedCard(t *testing.T) {
	fx := loadFixtures(t)["af_order_sign_ticagrelor.json"]
	ts, logPath := startServer(t, func(c *cdshooks.Config) { c.Today = fixtureDate(t, fx) })
	svc := discover(t, ts.URL)[fx.Hook]
	store := loadStore(t, fx.Patient)
	pid := patientIDOf(store)
	status, b := post(t, ts.URL+"/cds-services/"+svc.ID, hookRequest(fx, pid, store.prefetch(t, svc.Prefetch, pid), nil))
	if status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	cards := checkCards(t, fx.Name, b)
	if len(cards) == 0 || len(cards[0].Suggestions) == 0 {
		t.Fatalf("no card with a suggestion: %s", b)
	}
	c := cards[0]
	fb := fmt.Sprintf(`{"feedback":[
		{"card":%q,"outcome":"accepted","acceptedSuggestions":[{"id":%q}],"outcomeTimestamp":"2026-06-01T09:00:00Z"},
		{"card":%q,"outcome":"overridden","overrideReason":{"reason":{"code":"clinical-judgement","system":"https://executablekg.org/cds-hooks/override-reason"},"userComment":"cardiologist agreed"},"outcomeTimestamp":"2026-06-01T09:01:00Z"}]}`,
		c.UUID, c.Suggestions[0].UUID, c.UUID)
	if status, b := post(t, ts.URL+"/cds-services/"+svc.ID+"/feedback", []byte(fb)); status != 200 {
		t.Fatalf("feedback: %d %s", status, b)
	}
	recs := readLog(t, logPath)
	if len(recs) != 2 {
		t.Fatalf("%d log lines, want 2", len(recs))
	}
	row := c.Extension.Recommendation.RowID
	if r := recs[0]; !r.CardKnown || r.RowID != row || r.Outcome != "accepted" || len(r.AcceptedSuggestions) != 1 || r.Service != svc.ID {
		t.Errorf("accepted logged as %+v", r)
	}
	if r := recs[1]; r.RowID != row || r.OverrideReason == nil || r.OverrideReason.Display != "Clinical judgement in this case" || r.UserComment != "cardiologist agreed" {
		t.Errorf("overridden logged as %+v", r)
	}
	bad := fmt.Sprintf(`{"feedback":[{"card":%q,"outcome":"accepted","acceptedSuggestions":[{"id":"not-a-suggestion"}],"outcomeTimestamp":"2026-06-01T09:00:00Z"}]}`, c.UUID)
	if status, b := post(t, ts.URL+"/cds-services/"+svc.ID+"/feedback", []byte(bad)); status != 400 || !strings.Contains(string(b), "acceptedSuggestions[0].id") {
		t.Errorf("unknown suggestion: %d %s, want 400 naming the field", status, b)
	}
	other := discover(t, ts.URL)["patient-view"].ID
	if status, b := post(t, ts.URL+"/cds-services/"+other+"/feedback", []byte(fb)); status != 400 {
		t.Errorf("feedback to another service: %d %s, want 400", status, b)
	}
}

// TestFHIRFixtureCases: the reader's hand-built patients
// (engine/fhir/testdata/cases.json) through patient-view, their data in
// the prefetch a client fills from our templates, give a card for exactly
// the rows the bundle itself fires: the templates lose nothing the
// patient's rows depend on.
func TestFHIRFixtureCases(t *testing.T) {
	dir := filepath.Join("..", "engine", "fhir", "testdata")
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases struct {
		Cases []struct {
			Name string   `json:"name"`
			Date string   `json:"date"`
			Rows []string `json:"rows"`
			// NoPrefetch says why the prefetch cannot carry the case.
			NoPrefetch string `json:"no_prefetch"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases.Cases) == 0 {
		t.Fatal("no cases in engine/fhir/testdata/cases.json")
	}
	for _, c := range cases.Cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.NoPrefetch != "" {
				t.Skip(c.NoPrefetch)
			}
			bundle, err := os.ReadFile(filepath.Join(dir, c.Name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			fx := hookFixture{Name: c.Name, Today: c.Date, Hook: "patient-view"}
			ts, _ := startServer(t, func(cfg *cdshooks.Config) { cfg.Today = fixtureDate(t, fx) })
			svc := discover(t, ts.URL)[fx.Hook]
			store := newStore(t, c.Name, bundle)
			pid := patientIDOf(store)
			status, body := post(t, ts.URL+"/cds-services/"+svc.ID, hookRequest(fx, pid, store.prefetch(t, svc.Prefetch, pid), nil))
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			var got []string
			for _, card := range checkCards(t, c.Name, body) {
				got = append(got, card.Extension.Recommendation.RowID)
			}
			sort.Strings(got)
			want := append([]string(nil), c.Rows...)
			sort.Strings(want)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("cards for\n  %v\nwant the bundle's rows\n  %v", got, want)
			}
		})
	}
}

// TestFetchReferencedMedication: a server that ignores _include leaves a
// statement's Medication out; the service fetches it by reference, and the
// drug is read.
func TestFetchReferencedMedication(t *testing.T) {
	dir := filepath.Join("..", "engine", "fhir", "testdata")
	bundle, err := os.ReadFile(filepath.Join(dir, "af_doac_after_pci.json"))
	if err != nil {
		t.Fatal(err)
	}
	store := newStore(t, "af_doac_after_pci", bundle)
	store.noInclude = true
	fhirSrv := httptest.NewServer(store)
	defer fhirSrv.Close()
	fx := hookFixture{Name: "medication by reference", Today: "2026-06-01", Hook: "patient-view"}
	ts, _ := startServer(t, func(c *cdshooks.Config) { c.Today = fixtureDate(t, fx) })
	svc := discover(t, ts.URL)[fx.Hook]
	pid := patientIDOf(store)
	status, b := post(t, ts.URL+"/cds-services/"+svc.ID, hookRequest(fx, pid, nil, map[string]any{"fhirServer": fhirSrv.URL + "/fhir"}))
	if status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	fetched := false
	for _, r := range store.requests {
		fetched = fetched || strings.HasPrefix(r, "/fhir/Medication/")
	}
	if !fetched {
		t.Errorf("the referenced Medication was not fetched; requests %v", store.requests)
	}
	cited := false
	for _, c := range checkCards(t, fx.Name, b) {
		for _, f := range c.Extension.Recommendation.FiredBy {
			cited = cited || strings.Contains(f.Evidence, "apixaban")
		}
	}
	if !cited {
		t.Errorf("no card cites the apixaban statement whose drug is a referenced Medication (%d bytes of cards)", len(b))
	}
}
