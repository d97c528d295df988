package cdshooks_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/executablekg/execkg/cdshooks"
	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules/packs"
)

var (
	progOnce sync.Once
	prog     *engine.Program
	progErr  error
)

// testProgram compiles the built-in pack once for every test (a few
// seconds), with the trace the cards' missing data comes from.
func testProgram(t *testing.T) *engine.Program {
	t.Helper()
	progOnce.Do(func() { prog, progErr = engine.NewDefault(context.Background(), engine.WithTrace(true)) })
	if progErr != nil {
		t.Fatal(progErr)
	}
	return prog
}

// startServer runs the service on a real listener; the feedback log lives
// in the test's temporary folder.
func startServer(t *testing.T, edit func(*cdshooks.Config)) (*httptest.Server, string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "feedback.jsonl")
	cfg := cdshooks.Config{Packs: []cdshooks.Pack{cdshooks.NewPack(testProgram(t))}, FeedbackLog: logPath}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := cdshooks.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(func() { ts.Close(); srv.Close() })
	return ts, logPath
}

func post(t *testing.T, url string, body []byte) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("POST %s: Content-Type %q, want JSON", url, ct)
	}
	return resp.StatusCode, b
}

func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// checkNoEmpty fails on any null, "", [] or {} in a CDS Hooks body: the
// specification forbids them for optional fields. The response's own
// "cards" array may be empty (no guidance).
func checkNoEmpty(t *testing.T, where string, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: not JSON: %v", where, err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case nil:
			t.Errorf("%s: %s is null", where, path)
		case string:
			if x == "" {
				t.Errorf("%s: %s is an empty string", where, path)
			}
		case []any:
			if len(x) == 0 && path != "$.cards" && path != "$.services" {
				t.Errorf("%s: %s is an empty array", where, path)
			}
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case map[string]any:
			if len(x) == 0 {
				t.Errorf("%s: %s is an empty object", where, path)
			}
			for k, e := range x {
				walk(path+"."+k, e)
			}
		}
	}
	walk("$", v)
}

// checkCards applies the CDS Hooks 2.0 card rules to a hook response and
// returns its cards.
func checkCards(t *testing.T, where string, body []byte) []cdshooks.Card {
	t.Helper()
	checkNoEmpty(t, where, body)
	var resp struct {
		Cards *[]cdshooks.Card `json:"cards"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || resp.Cards == nil {
		t.Fatalf("%s: no cards array in %s (%v)", where, body, err)
	}
	uuids := map[string]bool{}
	for i, c := range *resp.Cards {
		at := fmt.Sprintf("%s card %d (%s)", where, i, c.Summary)
		if c.Summary == "" || utf8.RuneCountInString(c.Summary) >= 140 {
			t.Errorf("%s: summary of %d characters; want 1 to 139", at, utf8.RuneCountInString(c.Summary))
		}
		if c.Indicator != "info" && c.Indicator != "warning" && c.Indicator != "critical" {
			t.Errorf("%s: indicator %q", at, c.Indicator)
		}
		if c.Source.Label == "" {
			t.Errorf("%s: source without label", at)
		}
		if c.UUID == "" || uuids[c.UUID] {
			t.Errorf("%s: uuid %q missing or repeated", at, c.UUID)
		}
		uuids[c.UUID] = true
		if len(c.Suggestions) > 0 && c.SelectionBehavior != "at-most-one" && c.SelectionBehavior != "any" {
			t.Errorf("%s: %d suggestions with selectionBehavior %q", at, len(c.Suggestions), c.SelectionBehavior)
		}
		if len(c.Suggestions) == 0 && c.SelectionBehavior != "" {
			t.Errorf("%s: selectionBehavior without suggestions", at)
		}
		for j, s := range c.Suggestions {
			if s.Label == "" || s.UUID == "" {
				t.Errorf("%s: suggestion %d without label or uuid", at, j)
			}
			for _, a := range s.Actions {
				switch {
				case a.Description == "":
					t.Errorf("%s: suggestion %d action without description", at, j)
				case a.Type == "create" && a.Resource["resourceType"] == nil:
					t.Errorf("%s: create action without a resource", at)
				case a.Type == "delete" && a.ResourceID == "":
					t.Errorf("%s: delete action without resourceId", at)
				case a.Type != "create" && a.Type != "delete" && a.Type != "update":
					t.Errorf("%s: action type %q", at, a.Type)
				}
			}
		}
		if len(c.OverrideReasons) == 0 {
			t.Errorf("%s: no override reasons", at)
		}
		for _, o := range c.OverrideReasons {
			if o.Code == "" || o.Display == "" {
				t.Errorf("%s: override reason %+v without code or display", at, o)
			}
		}
		x := c.Extension
		if x == nil || x.Recommendation == nil || x.Recommendation.RowID == "" || x.Recommendation.Class == "" || len(x.Recommendation.FiredBy) == 0 {
			t.Errorf("%s: extension %s without row, class or fired_by", at, cdshooks.ExtensionKey)
			continue
		}
		if !strings.Contains(c.Source.Label, "Recommendation Table") {
			t.Errorf("%s: source label %q does not name the table", at, c.Source.Label)
		}
		if c.Detail == "" || !strings.Contains(c.Detail, "Fired by") {
			t.Errorf("%s: detail does not list the firing conditions", at)
		}
	}
	return *resp.Cards
}

type errorCase struct {
	Name          string          `json:"name"`
	Service       string          `json:"service"`
	Request       json.RawMessage `json:"request"`
	Body          json.RawMessage `json:"body"`
	Raw           *string         `json:"raw"`
	Status        int             `json:"status"`
	Field         string          `json:"field"`
	ErrorContains string          `json:"error_contains"`
}

func loadCases(t *testing.T, name string) []errorCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var cs []errorCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatalf("testdata/%s: %v", name, err)
	}
	return cs
}

func checkError(t *testing.T, c errorCase, status int, body []byte) {
	t.Helper()
	if status != c.Status {
		t.Fatalf("%s: status %d, want %d; body %s", c.Name, status, c.Status, body)
	}
	checkNoEmpty(t, c.Name, body)
	var e cdshooks.ErrorBody
	if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
		t.Fatalf("%s: error body %s is not {\"error\": …}", c.Name, body)
	}
	if e.Field != c.Field {
		t.Errorf("%s: field %q, want %q (error %q)", c.Name, e.Field, c.Field, e.Error)
	}
	if c.ErrorContains != "" && !strings.Contains(e.Error, c.ErrorContains) {
		t.Errorf("%s: error %q does not say %q", c.Name, e.Error, c.ErrorContains)
	}
}

// TestHookErrors: malformed calls answer 400 naming the field, missing
// prefetch without a FHIR server 412, an unknown service 404.
func TestHookErrors(t *testing.T) {
	ts, _ := startServer(t, nil)
	for _, c := range loadCases(t, "hook_errors.json") {
		body := []byte(c.Request)
		if c.Raw != nil {
			body = []byte(*c.Raw)
		}
		status, b := post(t, ts.URL+"/cds-services/"+c.Service, body)
		checkError(t, c, status, b)
	}
}

func TestFeedbackErrors(t *testing.T) {
	ts, logPath := startServer(t, nil)
	for _, c := range loadCases(t, "feedback_errors.json") {
		body := []byte(c.Body)
		if c.Raw != nil {
			body = []byte(*c.Raw)
		}
		status, b := post(t, ts.URL+"/cds-services/esc-ccs-2024-patient-view/feedback", body)
		checkError(t, c, status, b)
	}
	if b, _ := os.ReadFile(logPath); len(b) > 0 {
		t.Errorf("rejected feedback reached the log:\n%s", b)
	}
}

// TestAskErrors: the page's API names the field at fault.
func TestAskErrors(t *testing.T) {
	ts, _ := startServer(t, nil)
	for _, c := range loadCases(t, "ask_errors.json") {
		body := []byte(c.Body)
		if c.Raw != nil {
			body = []byte(*c.Raw)
		}
		status, b := post(t, ts.URL+"/api/ask", body)
		checkError(t, c, status, b)
	}
}

func TestBodyLimit(t *testing.T) {
	ts, _ := startServer(t, func(c *cdshooks.Config) { c.MaxBody = 1000 })
	big := `{"text": "` + strings.Repeat("chest pain ", 200) + `"}`
	status, b := post(t, ts.URL+"/api/ask", []byte(big))
	if status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413; body %s", status, b)
	}
}

// TestDiscovery: a patient-view, order-select and order-sign service per
// pack, each with its prefetch templates.
func TestDiscovery(t *testing.T) {
	ts, _ := startServer(t, nil)
	status, b := get(t, ts.URL+"/cds-services")
	if status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	checkNoEmpty(t, "discovery", b)
	var d cdshooks.Discovery
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	hooks := map[string]cdshooks.Service{}
	for _, s := range d.Services {
		if s.ID == "" || s.Description == "" || s.Hook == "" {
			t.Errorf("service %+v lacks id, hook or description", s)
		}
		hooks[s.Hook] = s
	}
	for _, h := range []string{"patient-view", "order-select", "order-sign"} {
		s, ok := hooks[h]
		if !ok {
			t.Errorf("no %s service in %s", h, b)
			continue
		}
		if s.Prefetch["patient"] != "Patient/{{context.patientId}}" {
			t.Errorf("%s: patient prefetch %q", h, s.Prefetch["patient"])
		}
		for _, k := range []string{"conditions", "observations", "medications", "procedures"} {
			if !strings.Contains(s.Prefetch[k], "patient={{context.patientId}}") {
				t.Errorf("%s: prefetch %s = %q", h, k, s.Prefetch[k])
			}
		}
	}
	if status, b := get(t, ts.URL+"/healthz"); status != 200 || !strings.Contains(string(b), `"ok"`) {
		t.Errorf("healthz: %d %s", status, b)
	}
}

type askCase struct {
	Name    string   `json:"name"`
	Text    string   `json:"text"`
	Date    string   `json:"date"`
	Rows    []string `json:"rows"`
	NotRows []string `json:"not_rows"`
	// Indicators are expected card indicators per row.
	Indicators map[string]string `json:"indicators"`
	// Words are, per row, words of the text its card must highlight.
	Words map[string][]string `json:"words"`
}

// TestAskText: the page's API answers a case text with cards whose spans
// point at the patient's words.
func TestAskText(t *testing.T) {
	ts, _ := startServer(t, nil)
	b, err := os.ReadFile("testdata/ask_text.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []askCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		req, _ := json.Marshal(map[string]string{"text": c.Text, "date": c.Date})
		status, body := post(t, ts.URL+"/api/ask", req)
		if status != 200 {
			t.Fatalf("%s: status %d: %s", c.Name, status, body)
		}
		cards := checkCards(t, c.Name, body)
		var resp cdshooks.AskResponse
		if err := json.Unmarshal(body, &resp); err != nil {
			t.Fatal(err)
		}
		byRow := map[string]cdshooks.Card{}
		for _, card := range cards {
			byRow[card.Extension.Recommendation.RowID] = card
		}
		for _, r := range c.Rows {
			if _, ok := byRow[r]; !ok {
				t.Errorf("%s: no card for %s", c.Name, r)
			}
		}
		for _, r := range c.NotRows {
			if _, ok := byRow[r]; ok {
				t.Errorf("%s: unexpected card for %s", c.Name, r)
			}
		}
		for r, ind := range c.Indicators {
			if card, ok := byRow[r]; ok && card.Indicator != ind {
				t.Errorf("%s: %s indicator %s, want %s", c.Name, r, card.Indicator, ind)
			}
		}
		for r, words := range c.Words {
			card, ok := byRow[r]
			if !ok {
				continue
			}
			var got []string
			for _, f := range card.Extension.Recommendation.FiredBy {
				for _, s := range f.Spans {
					got = append(got, resp.Text[s.Start:s.End])
				}
			}
			for _, w := range words {
				if !containsSub(got, w) {
					t.Errorf("%s: %s highlights %q, not %q", c.Name, r, got, w)
				}
			}
		}
		spanned := 0
		for _, f := range resp.Facts {
			if len(f.Spans) > 0 {
				spanned++
			}
		}
		if len(resp.Facts) == 0 || spanned == 0 {
			t.Errorf("%s: the patient model lists %d facts, %d with the patient's words", c.Name, len(resp.Facts), spanned)
		}
		if len(resp.NearMisses) == 0 {
			t.Errorf("%s: no near misses", c.Name)
		}
		for _, nm := range resp.NearMisses {
			if len(nm.Missing) == 0 || !strings.Contains(nm.Source.Label, "row") {
				t.Errorf("%s: near miss %+v without missing data or source", c.Name, nm)
			}
		}
	}
}

func containsSub(xs []string, w string) bool {
	for _, x := range xs {
		if strings.Contains(x, w) {
			return true
		}
	}
	return false
}

// TestFeedbackUnknownCard: feedback on a card this server did not issue
// (a restart since) is still logged, marked unknown.
func TestFeedbackUnknownCard(t *testing.T) {
	ts, logPath := startServer(t, nil)
	body := `{"feedback":[{"card":"9368d37b-283f-44a0-93ea-547cebab93ed","outcome":"overridden","overrideReason":{"reason":{"code":"patient-declined","system":"https://executablekg.org/cds-hooks/override-reason"},"userComment":"prefers to wait"},"outcomeTimestamp":"2026-12-01T10:00:00Z"}]}`
	status, b := post(t, ts.URL+"/cds-services/esc-ccs-2024-patient-view/feedback", []byte(body))
	if status != 200 {
		t.Fatalf("status %d: %s", status, b)
	}
	recs := readLog(t, logPath)
	if len(recs) != 1 {
		t.Fatalf("%d log lines, want 1", len(recs))
	}
	r := recs[0]
	if r.CardKnown || r.RowID != "" || r.Outcome != "overridden" || r.OverrideReason == nil || r.OverrideReason.Display != "Patient declined" || r.UserComment != "prefers to wait" {
		t.Errorf("logged %+v", r)
	}
}

func readLog(t *testing.T, path string) []cdshooks.FeedbackRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []cdshooks.FeedbackRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r cdshooks.FeedbackRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		out = append(out, r)
	}
	return out
}

// TestFeedbackConcurrent: concurrent requests append whole lines.
func TestFeedbackConcurrent(t *testing.T) {
	ts, logPath := startServer(t, nil)
	var wg sync.WaitGroup
	const n = 20
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"feedback":[{"card":"card-%d","outcome":"overridden","overrideReason":{"userComment":%q},"outcomeTimestamp":"2026-12-01T10:00:00Z"},{"card":"card-%d-b","outcome":"overridden","outcomeTimestamp":"2026-12-01T10:00:01Z"}]}`, i, strings.Repeat("x", 5000), i)
			resp, err := http.Post(ts.URL+"/cds-services/esc-ccs-2024-order-sign/feedback", "application/json", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("status %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	if recs := readLog(t, logPath); len(recs) != 2*n {
		t.Errorf("%d log lines, want %d", len(recs), 2*n)
	}
}

// TestPackWithoutValueSets: a pack that cannot read coded records offers
// no CDS service, and its page refuses a bundle naming why, but answers
// text.
func TestPackWithoutValueSets(t *testing.T) {
	p, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	p.ValueSets = nil
	lex, err := lexicon.Load("")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := engine.New(context.Background(), p, engine.WithLexicon(lex), engine.WithTrace(true))
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Close()
	srv, err := cdshooks.New(cdshooks.Config{Packs: []cdshooks.Pack{cdshooks.NewPack(prog)}, Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	if status, b := get(t, ts.URL+"/cds-services"); status != 200 || string(bytes.TrimSpace(b)) != `{"services":[]}` {
		t.Errorf("discovery: %d %s, want no services", status, b)
	}
	status, b := post(t, ts.URL+"/api/ask", []byte(`{"bundle":{"resourceType":"Bundle","type":"collection","entry":[]}}`))
	if status != 400 || !strings.Contains(string(b), "no value sets") {
		t.Errorf("bundle: %d %s, want 400 naming the missing value sets", status, b)
	}
	if status, b := post(t, ts.URL+"/api/ask", []byte(`{"text":"Patient with CCS.","date":"2026-12-01"}`)); status != 200 {
		t.Errorf("text: %d %s", status, b)
	}
}

// The page lists a withheld row with the record's reason and its source,
// and no card for it.
func TestAskListsWithheldRows(t *testing.T) {
	ts, _ := startServer(t, nil)
	bundle := `{"resourceType": "Bundle", "type": "collection", "entry": [
 {"resource": {"resourceType": "Patient", "id": "p", "gender": "male", "birthDate": "1960-01-01"}},
 {"resource": {"resourceType": "Condition", "id": "mi", "clinicalStatus": {"coding": [{"code": "active"}]},
   "code": {"coding": [{"system": "http://snomed.info/sct", "code": "22298006", "display": "Myocardial infarction"}]}, "onsetDateTime": "2021-03-01"}},
 {"resource": {"resourceType": "AllergyIntolerance", "id": "asa", "clinicalStatus": {"coding": [{"code": "active"}]},
   "code": {"coding": [{"system": "http://snomed.info/sct", "code": "387458008", "display": "Aspirin"}]}}}]}`
	status, body := post(t, ts.URL+"/api/ask", []byte(`{"bundle":`+bundle+`,"date":"2026-06-01"}`))
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var resp cdshooks.AskResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Withheld) != 1 || resp.Withheld[0].RowID != "table_17.json::row_0" ||
		!strings.Contains(resp.Withheld[0].Reason, "AllergyIntolerance/asa") || !strings.Contains(resp.Withheld[0].Source.Label, "row") {
		t.Fatalf("withheld = %+v, want T17 r0 with the allergy and its source", resp.Withheld)
	}
	for _, c := range resp.Cards {
		if c.Extension.Recommendation.RowID == "table_17.json::row_0" {
			t.Error("a card for the withheld row")
		}
	}
}

// A row the record puts in doubt without barring it (an unconfirmed
// aspirin intolerance) stays a card, marked warning, whose detail states
// the caution with its certainty.
func TestAskCardCarriesCaution(t *testing.T) {
	ts, _ := startServer(t, nil)
	bundle := `{"resourceType": "Bundle", "type": "collection", "entry": [
 {"resource": {"resourceType": "Patient", "id": "p", "gender": "male", "birthDate": "1960-01-01"}},
 {"resource": {"resourceType": "Condition", "id": "mi", "clinicalStatus": {"coding": [{"code": "active"}]},
   "code": {"coding": [{"system": "http://snomed.info/sct", "code": "22298006", "display": "Myocardial infarction"}]}, "onsetDateTime": "2021-03-01"}},
 {"resource": {"resourceType": "AllergyIntolerance", "id": "asa", "type": "intolerance", "clinicalStatus": {"coding": [{"code": "active"}]},
   "verificationStatus": {"coding": [{"code": "unconfirmed"}]},
   "code": {"coding": [{"system": "http://snomed.info/sct", "code": "387458008", "display": "Aspirin"}]}}}]}`
	status, body := post(t, ts.URL+"/api/ask", []byte(`{"bundle":`+bundle+`,"date":"2026-06-01"}`))
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	var resp cdshooks.AskResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatal(err)
	}
	if len(resp.Withheld) != 0 {
		t.Errorf("withheld = %+v: an unconfirmed intolerance withholds nothing", resp.Withheld)
	}
	found := false
	for _, c := range resp.Cards {
		if c.Extension.Recommendation.RowID != "table_17.json::row_0" {
			continue
		}
		found = true
		if c.Indicator != cdshooks.Warning || !strings.Contains(c.Detail, "Caution") || !strings.Contains(c.Detail, "unconfirmed") {
			t.Errorf("card %s: indicator %s, detail %q; want a warning whose detail states the unconfirmed intolerance", c.Extension.Recommendation.RowID, c.Indicator, c.Detail)
		}
	}
	if !found {
		t.Error("no card for T17 r0 (aspirin)")
	}
}
