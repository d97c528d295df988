package cdshooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"
)

// feedbackLog appends feedback records to a JSON-lines file. Each request's
// records go out in one write on a file opened O_APPEND, under a mutex, so
// lines from concurrent requests never interleave.
type feedbackLog struct {
	mu sync.Mutex
	f  *os.File
}

func openFeedbackLog(path string) (*feedbackLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("feedback log %s: %w (choose a writable path with --feedback-log)", path, err)
	}
	return &feedbackLog{f: f}, nil
}

func (l *feedbackLog) append(lines []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(lines); err != nil {
		return err
	}
	return l.f.Sync()
}

func (l *feedbackLog) Close() error { return l.f.Close() }

// FeedbackRecord is one line of the feedback log.
type FeedbackRecord struct {
	Received string `json:"received"`
	Service  string `json:"service"`
	Card     string `json:"card"`
	// RowID is the recommendation row the card was for; empty when the
	// card is not one this server issued since it started (CardKnown
	// false).
	RowID               string   `json:"row_id,omitempty"`
	CardKnown           bool     `json:"card_known"`
	HookInstance        string   `json:"hook_instance,omitempty"`
	Outcome             string   `json:"outcome"`
	AcceptedSuggestions []string `json:"accepted_suggestions,omitempty"`
	OverrideReason      *Coding  `json:"override_reason,omitempty"`
	UserComment         string   `json:"user_comment,omitempty"`
	OutcomeTimestamp    string   `json:"outcome_timestamp"`
}

func (s *Server) handleFeedback(w http.ResponseWriter, r *http.Request) {
	sd, ok := s.byID[r.PathValue("id")]
	if !ok {
		writeJSON(w, http.StatusNotFound, ErrorBody{Error: fmt.Sprintf("no CDS service %q; GET /cds-services lists them", r.PathValue("id"))})
		return
	}
	if s.feedback == nil {
		writeJSON(w, http.StatusNotImplemented, ErrorBody{Error: "feedback is not kept: start the server with --feedback-log FILE"})
		return
	}
	var fb Feedback
	if err := decodeJSON(r, &fb); err != nil {
		s.writeError(w, r, err)
		return
	}
	recs, err := s.feedbackRecords(sd, fb)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, rec := range recs {
		if err := enc.Encode(rec); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	if err := s.feedback.append(buf.Bytes()); err != nil {
		s.writeError(w, r, fmt.Errorf("appending to the feedback log: %w", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"logged": len(recs)})
}

// feedbackRecords validates the feedback entries as the specification
// defines them and joins each to the row its card was for.
func (s *Server) feedbackRecords(sd *serviceDef, fb Feedback) ([]FeedbackRecord, error) {
	if len(fb.Feedback) == 0 {
		return nil, &fieldError{Field: "feedback", Msg: "is missing or empty; send {\"feedback\": [{\"card\": …, \"outcome\": …, \"outcomeTimestamp\": …}]}"}
	}
	now := time.Now().UTC().Format(time.RFC3339)
	var out []FeedbackRecord
	for i, e := range fb.Feedback {
		f := func(name string) string { return fmt.Sprintf("feedback[%d].%s", i, name) }
		if e.Card == "" {
			return nil, &fieldError{Field: f("card"), Msg: "is missing; send the card's uuid"}
		}
		if e.OutcomeTimestamp == "" {
			return nil, &fieldError{Field: f("outcomeTimestamp"), Msg: "is missing; send when the user acted (ISO 8601, UTC)"}
		}
		if _, err := time.Parse(time.RFC3339, e.OutcomeTimestamp); err != nil {
			return nil, &fieldError{Field: f("outcomeTimestamp"), Msg: fmt.Sprintf("%q is not an ISO 8601 timestamp (2026-12-01T10:00:00Z)", e.OutcomeTimestamp)}
		}
		ic, known := s.issued.get(e.Card)
		if known && ic.Service != sd.ID {
			return nil, &fieldError{Field: f("card"), Msg: fmt.Sprintf("card %s was issued by service %s, not %s", e.Card, ic.Service, sd.ID)}
		}
		rec := FeedbackRecord{Received: now, Service: sd.ID, Card: e.Card, RowID: ic.RowID, CardKnown: known, HookInstance: ic.HookInstance,
			Outcome: e.Outcome, OutcomeTimestamp: e.OutcomeTimestamp}
		switch e.Outcome {
		case "accepted":
			if len(e.AcceptedSuggestions) == 0 {
				return nil, &fieldError{Field: f("acceptedSuggestions"), Msg: "is required for an accepted outcome; list the accepted suggestions' uuids"}
			}
			for j, a := range e.AcceptedSuggestions {
				if a.ID == "" {
					return nil, &fieldError{Field: fmt.Sprintf("feedback[%d].acceptedSuggestions[%d].id", i, j), Msg: "is missing"}
				}
				if known && !ic.Suggestions[a.ID] {
					return nil, &fieldError{Field: fmt.Sprintf("feedback[%d].acceptedSuggestions[%d].id", i, j), Msg: fmt.Sprintf("%q is not a suggestion of card %s", a.ID, e.Card)}
				}
				rec.AcceptedSuggestions = append(rec.AcceptedSuggestions, a.ID)
			}
			if e.OverrideReason != nil {
				return nil, &fieldError{Field: f("overrideReason"), Msg: "goes with an overridden outcome, not accepted"}
			}
		case "overridden":
			if len(e.AcceptedSuggestions) > 0 {
				return nil, &fieldError{Field: f("acceptedSuggestions"), Msg: "goes with an accepted outcome, not overridden"}
			}
			if o := e.OverrideReason; o != nil {
				if o.Reason != nil {
					if o.Reason.Code == "" {
						return nil, &fieldError{Field: f("overrideReason.reason.code"), Msg: "is missing"}
					}
					rc := *o.Reason
					if rc.Display == "" {
						for _, c := range overrideReasons {
							if c.Code == rc.Code && (rc.System == "" || rc.System == c.System) {
								rc.Display = c.Display
							}
						}
					}
					rec.OverrideReason = &rc
				}
				rec.UserComment = o.UserComment
			}
		case "":
			return nil, &fieldError{Field: f("outcome"), Msg: "is missing; use accepted or overridden"}
		default:
			return nil, &fieldError{Field: f("outcome"), Msg: fmt.Sprintf("is %q; use accepted or overridden", e.Outcome)}
		}
		out = append(out, rec)
	}
	return out, nil
}
