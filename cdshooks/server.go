package cdshooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// Pack is one compiled guideline pack the server offers.
type Pack struct {
	// Program answers the cases. Build it WithTrace(true): the cards list
	// the data that would change the advice from the trace.
	Program *engine.Program
	// Codes are the pack's value sets (nil: orders match by name only and
	// prefetch templates ask for every resource of a type).
	Codes Codes
	// ReadFHIR turns a FHIR bundle into the patient model (nil: the
	// service answers text only, and hooks answer 501).
	ReadFHIR func(ctx context.Context, caseID string, bundle []byte, date time.Time) (*patient.Model, error)
	// AskPatient answers a patient model (nil: hooks answer 501).
	AskPatient func(ctx context.Context, m *patient.Model) (*engine.Result, error)
	// NoFHIR says why ReadFHIR is nil, for the log and the page.
	NoFHIR string
}

func (p Pack) noFHIR() string {
	if p.NoFHIR != "" {
		return p.NoFHIR
	}
	return "no FHIR reader given"
}

// Config configures a Server.
type Config struct {
	Packs []Pack
	// FeedbackLog is the JSON-lines file feedback is appended to ("": kept
	// nowhere, the feedback endpoint answers 501).
	FeedbackLog string
	// MaxBody is the largest request body in bytes (default 8 MiB).
	MaxBody int64
	// EvalTimeout bounds the work for one request (default 30 s).
	EvalTimeout time.Duration
	// FHIRClient fetches missing prefetch (default: a client with a 10 s
	// timeout).
	FHIRClient *http.Client
	// AllowFHIRServer, when set, vets a request's fhirServer before the
	// service sends it a token; an error answers 400.
	AllowFHIRServer func(*url.URL) error
	// Logger receives one line per request error (default: log.Default()).
	Logger *log.Logger
	// ClientAuth, when set, requires every CDS Hooks call (discovery,
	// services, feedback) to carry a trusted client's signed JWT.
	ClientAuth *ClientAuth
	// Today is the date hook calls are answered on: ages and time windows
	// count from it (default: the current UTC date).
	Today func() time.Time
}

// packInfo is a Pack with what the services derive from it.
type packInfo struct {
	Pack
	id          string
	label       string // "2024 ESC CCS Guidelines"
	topicSystem string
	codes       Codes
	// hierarchy lets a draft order of a drug match a row about its class.
	hierarchy *rules.Hierarchy
	names     map[string]bool // normalised concept names
}

func (p *packInfo) rowLabel(rec engine.Recommendation) string {
	return fmt.Sprintf("%s, %s row %d", p.label, rec.Source.Table, rec.Source.Row)
}

// serviceDef is one CDS service: a pack under a hook.
type serviceDef struct {
	Service
	pack *packInfo
}

// Server serves the CDS Hooks endpoints, the page and its API.
type Server struct {
	cfg      Config
	packs    []*packInfo
	services []*serviceDef
	byID     map[string]*serviceDef
	feedback *feedbackLog
	issued   *cardIndex
	mux      *http.ServeMux
}

// New builds a server from the config.
func New(cfg Config) (*Server, error) {
	if len(cfg.Packs) == 0 {
		return nil, errors.New("cdshooks: no packs to serve; pass at least one compiled pack")
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 8 << 20
	}
	if cfg.EvalTimeout <= 0 {
		cfg.EvalTimeout = 30 * time.Second
	}
	if cfg.FHIRClient == nil {
		cfg.FHIRClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Today == nil {
		cfg.Today = func() time.Time { return time.Now().UTC() }
	}
	if cfg.Logger == nil {
		cfg.Logger = log.Default()
	}
	s := &Server{cfg: cfg, byID: map[string]*serviceDef{}, issued: newCardIndex(100000), mux: http.NewServeMux()}
	for _, p := range cfg.Packs {
		if p.Program == nil {
			return nil, errors.New("cdshooks: a pack without a Program; compile it with engine.New")
		}
		pi := newPackInfo(p)
		for _, other := range s.packs {
			if other.id == pi.id {
				return nil, fmt.Errorf("cdshooks: pack %s given twice", pi.id)
			}
		}
		s.packs = append(s.packs, pi)
		if p.ReadFHIR == nil || p.AskPatient == nil {
			// A pack that cannot read coded records (no value sets)
			// offers no CDS service; the page still answers its text.
			cfg.Logger.Printf("pack %s: no CDS Hooks services (%s); the page answers case texts", pi.id, p.noFHIR())
			continue
		}
		for _, sd := range servicesFor(pi) {
			s.services = append(s.services, sd)
			s.byID[sd.ID] = sd
		}
	}
	if cfg.FeedbackLog != "" {
		fl, err := openFeedbackLog(cfg.FeedbackLog)
		if err != nil {
			return nil, err
		}
		s.feedback = fl
	}
	s.routes()
	return s, nil
}

// Close closes the feedback log.
func (s *Server) Close() error {
	if s.feedback != nil {
		return s.feedback.Close()
	}
	return nil
}

func newPackInfo(p Pack) *packInfo {
	pk := p.Program.Pack()
	g := pk.Guideline
	pi := &packInfo{Pack: p, id: serviceSlug(g.ID), label: guidelineLabel(g), codes: p.Codes, hierarchy: pk.Hierarchy,
		names: map[string]bool{}}
	pi.topicSystem = "https://executablekg.org/packs/" + pi.id + "/tables"
	nameOfKey, _ := pk.ConceptIndex()
	for _, n := range nameOfKey {
		pi.names[rules.NormalizeName(n)] = true
	}
	return pi
}

// serviceSlug turns a guideline id into a URL-safe service id prefix
// ("ESC_CCS_2024" → "esc-ccs-2024").
func serviceSlug(id string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// guidelineLabel is the short citation of a pack: the year, the id's other
// parts and "Guidelines" ("ESC_CCS_2024", 2024 → "2024 ESC CCS
// Guidelines"); the title where the id has no parts to show.
func guidelineLabel(g rules.Guideline) string {
	year := strconv.Itoa(g.Year)
	var parts []string
	for _, p := range strings.FieldsFunc(g.ID, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if p != year {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		if g.Title != "" {
			return g.Title
		}
		return g.ID
	}
	if g.Year > 0 {
		return year + " " + strings.Join(parts, " ") + " Guidelines"
	}
	return strings.Join(parts, " ") + " Guidelines"
}

func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", s.handleHealth)
	s.mux.HandleFunc("GET /cds-services", s.handleDiscovery)
	s.mux.HandleFunc("POST /cds-services/{id}", s.handleHook)
	s.mux.HandleFunc("POST /cds-services/{id}/feedback", s.handleFeedback)
	s.mux.HandleFunc("OPTIONS /cds-services", s.handlePreflight)
	s.mux.HandleFunc("OPTIONS /cds-services/", s.handlePreflight)
	s.mux.HandleFunc("GET /api/packs", s.handlePacks)
	s.mux.HandleFunc("POST /api/ask", s.handleAsk)
	s.mux.Handle("GET /", staticHandler())
}

// ServeHTTP limits the body, sets the CORS headers browser-based CDS
// clients need, and routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBody)
	if strings.HasPrefix(r.URL.Path, "/cds-services") {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
		if s.cfg.ClientAuth != nil && r.Method != http.MethodOptions {
			if err := s.cfg.ClientAuth.Check(r); err != nil {
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
				writeJSON(w, http.StatusUnauthorized, ErrorBody{Error: err.Error(), Field: "Authorization"})
				return
			}
		}
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) handlePreflight(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	var ids []string
	for _, p := range s.packs {
		ids = append(ids, p.id)
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "packs": ids})
}

func (s *Server) handleDiscovery(w http.ResponseWriter, r *http.Request) {
	d := Discovery{Services: []Service{}}
	for _, sd := range s.services {
		d.Services = append(d.Services, sd.Service)
	}
	writeJSON(w, http.StatusOK, d)
}

// fieldError is a request fault in one field: 400 with the field named.
type fieldError struct {
	Field string
	Msg   string
}

func (e *fieldError) Error() string { return e.Field + " " + e.Msg }

// statusError is an answer other than 400 (412, 413, 501, 502).
type statusError struct {
	Status int
	Msg    string
}

func (e *statusError) Error() string { return e.Msg }

// writeError answers err as JSON: a fieldError is 400 naming the field, a
// statusError its status, a body over the limit 413, anything else 500.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var fe *fieldError
	var se *statusError
	var mb *http.MaxBytesError
	status, body := http.StatusInternalServerError, ErrorBody{Error: err.Error()}
	switch {
	case errors.As(err, &mb):
		status = http.StatusRequestEntityTooLarge
		body.Error = fmt.Sprintf("request body over the %d-byte limit; send less, or start the server with a larger --max-body", mb.Limit)
	case errors.As(err, &fe):
		status, body = http.StatusBadRequest, ErrorBody{Error: fe.Error(), Field: fe.Field}
	case errors.As(err, &se):
		status = se.Status
	}
	var le *engine.LimitError
	if errors.As(err, &le) {
		status = http.StatusServiceUnavailable
	}
	if status >= 500 {
		s.cfg.Logger.Printf("%s %s: %d %v", r.Method, r.URL.Path, status, err)
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// decodeJSON reads a JSON object body into v; a syntax or type error
// names the field at fault.
func decodeJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	if err := dec.Decode(v); err != nil {
		var mb *http.MaxBytesError
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &mb):
			return err
		case errors.As(err, &te):
			f := te.Field
			if f == "" {
				f = "(body)"
			}
			return &fieldError{Field: f, Msg: fmt.Sprintf("has JSON type %s; want %s", te.Value, te.Type)}
		case errors.As(err, &se):
			return &fieldError{Field: "(body)", Msg: fmt.Sprintf("is not valid JSON at byte %d: %v", se.Offset, err)}
		case errors.Is(err, io.EOF):
			return &fieldError{Field: "(body)", Msg: "is empty; send a JSON object"}
		}
		return &fieldError{Field: "(body)", Msg: "is not a JSON object: " + err.Error()}
	}
	if dec.More() {
		return &fieldError{Field: "(body)", Msg: "holds more than one JSON value; send one object"}
	}
	return nil
}

// cardIndex remembers the cards issued, so that feedback names the row a
// card was for. It keeps the newest n.
type cardIndex struct {
	mu    sync.Mutex
	n     int
	order []string
	cards map[string]issuedCard
}

type issuedCard struct {
	RowID        string
	Service      string
	HookInstance string
	Suggestions  map[string]bool
}

func newCardIndex(n int) *cardIndex { return &cardIndex{n: n, cards: map[string]issuedCard{}} }

func (ci *cardIndex) add(uuid string, c issuedCard) {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	ci.cards[uuid] = c
	ci.order = append(ci.order, uuid)
	for len(ci.order) > ci.n {
		delete(ci.cards, ci.order[0])
		ci.order = ci.order[1:]
	}
}

func (ci *cardIndex) get(uuid string) (issuedCard, bool) {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	c, ok := ci.cards[uuid]
	return c, ok
}

func (s *Server) remember(sd *serviceDef, hookInstance string, cards []Card) {
	for _, c := range cards {
		ic := issuedCard{Service: sd.ID, HookInstance: hookInstance, Suggestions: map[string]bool{}}
		if c.Extension != nil && c.Extension.Recommendation != nil {
			ic.RowID = c.Extension.Recommendation.RowID
		}
		for _, sg := range c.Suggestions {
			ic.Suggestions[sg.UUID] = true
		}
		s.issued.add(c.UUID, ic)
	}
}

// missingOf returns, per row, the data that would change the advice: the
// conditions unknown for lack of data (from the trace), and the exceptions
// that held only because the record does not state them.
func missingOf(res *engine.Result) map[string][]string {
	out := map[string][]string{}
	if res.Trace != nil {
		for _, rt := range res.Trace.Rules {
			if len(rt.Missing) > 0 {
				out[rt.RowID] = append(out[rt.RowID], rt.Missing...)
			}
		}
	}
	for _, rec := range res.Recommendations {
		for _, fc := range rec.FiredBy {
			if fc.Operator == "UNLESS" && len(fc.Evidence) == 0 {
				out[rec.RowID] = append(out[rec.RowID], fc.Concept+": not stated; if present, the row would not apply")
			}
		}
	}
	for k, v := range out {
		sort.Strings(v)
		out[k] = dedupe(v)
	}
	return out
}

func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if len(out) == 0 || out[len(out)-1] != x {
			out = append(out, x)
		}
	}
	return out
}
