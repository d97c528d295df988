package cdshooks

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"github.com/executablekg/execkg/engine"
)

//go:embed static
var staticFiles embed.FS

// staticHandler serves the page: plain files, no build step, nothing
// loaded from elsewhere (the policy header holds the page to its origin).
func staticHandler() http.Handler {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err) // the embed pattern guarantees the folder
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		files.ServeHTTP(w, r)
	})
}

// AskRequest is the body of POST /api/ask: a case text or a FHIR bundle.
type AskRequest struct {
	// Pack is the pack id ("esc-ccs-2024"; default the first pack).
	Pack   string          `json:"pack,omitempty"`
	Text   string          `json:"text,omitempty"`
	Bundle json.RawMessage `json:"bundle,omitempty"`
	// Date is the case date (YYYY-MM-DD; default today).
	Date string `json:"date,omitempty"`
}

// AskResponse is the page's view of one answered case.
type AskResponse struct {
	CaseID   string `json:"case_id"`
	Pack     string `json:"pack"`
	Source   string `json:"source"` // text or fhir
	CaseDate string `json:"case_date,omitempty"`
	// Text is the case text the cards' spans point into.
	Text       string         `json:"text,omitempty"`
	Cards      []Card         `json:"cards"`
	NearMisses []NearMissView `json:"near_misses,omitempty"`
	// Withheld are rows that fired but would give what the record says
	// the patient does not tolerate or must not have.
	Withheld []WithheldView `json:"withheld,omitempty"`
	// Facts and Dropped are the patient model the case was read into:
	// what was read, and what was read but not kept, with the reason.
	Facts   []FactView    `json:"facts,omitempty"`
	Dropped []DroppedView `json:"dropped,omitempty"`
}

// FactView is one fact of the patient model as the page lists it.
type FactView struct {
	ID          string   `json:"id"`
	Text        string   `json:"text,omitempty"`
	Concept     string   `json:"concept,omitempty"`
	Kind        string   `json:"kind,omitempty"`
	Status      string   `json:"status,omitempty"`
	Certainty   string   `json:"certainty,omitempty"`
	Experiencer string   `json:"experiencer,omitempty"`
	Value       *float64 `json:"value,omitempty"`
	Unit        string   `json:"unit,omitempty"`
	Date        string   `json:"date,omitempty"`
	Resource    string   `json:"resource,omitempty"`
	Via         string   `json:"via,omitempty"`
	Spans       []Span   `json:"spans,omitempty"`
}

// DroppedView is a reading the model did not keep, and why.
type DroppedView struct {
	Text     string `json:"text,omitempty"`
	Resource string `json:"resource,omitempty"`
	Reason   string `json:"reason"`
}

// NearMissView is a row that would apply if the missing data were known.
type NearMissView struct {
	RowID   string   `json:"row_id"`
	Source  Source   `json:"source"`
	Text    string   `json:"text"`
	Class   string   `json:"class"`
	Missing []string `json:"missing"`
}

// WithheldView is one withheld row as the page lists it.
type WithheldView struct {
	RowID  string `json:"row_id"`
	Source Source `json:"source"`
	Class  string `json:"class"`
	Reason string `json:"reason"`
}

func (s *Server) handlePacks(w http.ResponseWriter, r *http.Request) {
	type packView struct {
		ID      string `json:"id"`
		Label   string `json:"label"`
		Title   string `json:"title,omitempty"`
		Version string `json:"version,omitempty"`
	}
	var out []packView
	for _, p := range s.packs {
		g := p.Program.Pack().Guideline
		out = append(out, packView{ID: p.id, Label: p.label, Title: g.Title, Version: g.Version})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) handleAsk(w http.ResponseWriter, r *http.Request) {
	var req AskRequest
	if err := decodeJSON(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.EvalTimeout)
	defer cancel()
	resp, err := s.ask(ctx, req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) ask(ctx context.Context, req AskRequest) (*AskResponse, error) {
	p := s.packs[0]
	if req.Pack != "" {
		p = nil
		for _, q := range s.packs {
			if q.id == req.Pack {
				p = q
			}
		}
		if p == nil {
			return nil, &fieldError{Field: "pack", Msg: fmt.Sprintf("%q is not a pack of this server; GET /api/packs lists them", req.Pack)}
		}
	}
	var date time.Time
	if req.Date != "" {
		d, err := time.Parse(time.DateOnly, req.Date)
		if err != nil {
			return nil, &fieldError{Field: "date", Msg: fmt.Sprintf("%q: want YYYY-MM-DD", req.Date)}
		}
		date = d
	}
	text := strings.TrimSpace(req.Text)
	hasBundle := len(req.Bundle) > 0 && string(req.Bundle) != "null"
	switch {
	case text == "" && !hasBundle:
		return nil, &fieldError{Field: "text", Msg: "is empty; send a case text, or a FHIR bundle in bundle"}
	case text != "" && hasBundle:
		return nil, &fieldError{Field: "bundle", Msg: "is given with text; send one of the two"}
	}
	out := &AskResponse{CaseID: "page", Pack: p.id}
	var res *engine.Result
	var data *caseData
	if hasBundle {
		if err := checkPrefetchValue("bundle", req.Bundle); err != nil {
			return nil, &fieldError{Field: "bundle", Msg: "must be a FHIR Bundle (a JSON object with resourceType)"}
		}
		if p.ReadFHIR == nil || p.AskPatient == nil {
			return nil, &fieldError{Field: "bundle", Msg: "pack " + p.id + " cannot read FHIR data: " + p.noFHIR() + "; paste a case text"}
		}
		m, err := p.ReadFHIR(ctx, out.CaseID, req.Bundle, date)
		if err != nil {
			return nil, &fieldError{Field: "bundle", Msg: err.Error()}
		}
		if res, err = p.AskPatient(ctx, m); err != nil {
			return nil, err
		}
		out.Source = "fhir"
		data = newCaseData(res)
	} else {
		var err error
		if res, err = p.Program.AskOn(ctx, out.CaseID, req.Text, date); err != nil {
			return nil, err
		}
		out.Source, out.Text = "text", req.Text
		data = newCaseData(res)
	}
	out.CaseDate = res.CaseDate
	if m := res.Patient; m != nil {
		for _, f := range m.Facts {
			fv := FactView{ID: f.ID, Text: f.Text, Concept: f.Concept, Kind: string(f.Kind), Status: string(f.Status),
				Certainty: string(f.Certainty), Experiencer: string(f.Experiencer), Value: f.Value, Unit: f.Unit,
				Date: whenText(f.When), Resource: f.Resource, Via: f.Via}
			for _, sp := range f.Spans {
				fv.Spans = append(fv.Spans, Span{sp.Start, sp.End})
			}
			out.Facts = append(out.Facts, fv)
		}
		for _, d := range m.Dropped {
			out.Dropped = append(out.Dropped, DroppedView{Text: d.Text, Resource: d.Resource, Reason: d.Reason})
		}
	}
	sd := &serviceDef{pack: p, Service: Service{Hook: hookPatientView}}
	out.Cards = s.cardsFor(sd, res, data, nil)
	for _, nm := range res.NearMisses {
		out.NearMisses = append(out.NearMisses, NearMissView{RowID: nm.RowID, Source: rowSource(p, nm.RowID), Text: nm.Text, Class: nm.Class, Missing: nm.Missing})
	}
	for _, w := range res.Withheld {
		out.Withheld = append(out.Withheld, WithheldView{RowID: w.RowID, Source: rowSource(p, w.RowID), Class: w.Class, Reason: w.Reason})
	}
	return out, nil
}

// rowSource is a row's source as a card cites it, for rows that are no card.
func rowSource(p *packInfo, rowID string) Source {
	tab, row, topic := rowOf(p, rowID)
	return source(engine.Recommendation{Source: engine.Source{Table: tab, Row: row, DOI: p.Program.Pack().Guideline.DOI}, TableTopic: topic}, p)
}

// rowOf returns a row's table label, row number and table topic.
func rowOf(p *packInfo, rowID string) (string, int, string) {
	t, r, ok := p.Program.Pack().Row(rowID)
	if !ok {
		return rowID, 0, ""
	}
	label := t.Source.Table
	if label == "" {
		label = fmt.Sprintf("Recommendation Table %d", t.Table)
	}
	return label, r.Row, t.Topic
}
