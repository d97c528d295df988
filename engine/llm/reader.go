package llm

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	invopop "github.com/invopop/jsonschema"

	"github.com/executablekg/execkg/engine/patient"
)

// ReadPromptVersion names the reading prompt and reply schema. Bump it
// whenever either changes: it is part of the cache key and the reader's
// Name.
const ReadPromptVersion = "read-v1"

// DefaultChunkBytes is the longest document part one reading call gets
// (Config.ChunkBytes); a longer document is read in parts cut at
// paragraph, line or sentence boundaries.
const DefaultChunkBytes = 8 << 10

// readReply is the reply of the reading prompt: the patient model's facts
// as the model states them, in the patient's words. There is no concept
// key: the engine grounds the words onto the pack, so a model cannot name
// a concept the words do not support. Its JSON Schema is generated from
// these types, with the enums taken from the patient model's constants.
type readReply struct {
	Facts []readFact `json:"facts"`
}

type readFact struct {
	Words       string   `json:"words" jsonschema:"minLength=1" jsonschema_description:"the patient's words for the fact, copied exactly as one contiguous stretch of the document"`
	Kind        string   `json:"kind"`
	Status      string   `json:"status"`
	Certainty   string   `json:"certainty"`
	Experiencer string   `json:"experiencer"`
	Value       *float64 `json:"value" jsonschema:"nullable" jsonschema_description:"the number the words state, as written; null when none"`
	Unit        string   `json:"unit" jsonschema_description:"the unit written with the value; empty when none"`
	Comparator  string   `json:"comparator"`
	Date        string   `json:"date" jsonschema_description:"the words that date the fact, copied from the document (2019, 3 weeks ago); empty when undated"`
	Section     string   `json:"section" jsonschema_description:"the heading the fact is written under, copied from the document; empty when none"`
}

// The enums of the reply, from the patient model's own constants.
var (
	readKinds = []any{string(patient.KindProblem), string(patient.KindMedication), string(patient.KindMeasurement),
		string(patient.KindProcedure), string(patient.KindFinding), string(patient.KindDemographic), string(patient.KindOther)}
	readStatuses = []any{string(patient.StatusActive), string(patient.StatusHistory), string(patient.StatusResolved),
		string(patient.StatusTaking), string(patient.StatusStopped), string(patient.StatusPlanned), string(patient.StatusNotTolerated),
		string(patient.StatusContraindicated), string(patient.StatusRefused), string(patient.StatusDone), string(patient.StatusScheduled),
		string(patient.StatusAbsent)}
	readCertainties  = []any{string(patient.Confirmed), string(patient.Suspected), string(patient.Refuted)}
	readExperiencers = []any{string(patient.Self), string(patient.Relative)}
)

// JSONSchemaExtend sets the enums (invopop's tag syntax cannot spell "=",
// and the lists belong to the patient model, not to a tag).
func (readFact) JSONSchemaExtend(s *invopop.Schema) {
	for name, enum := range map[string][]any{"kind": readKinds, "status": readStatuses, "certainty": readCertainties,
		"experiencer": readExperiencers, "comparator": comparators} {
		if p, ok := s.Properties.Get(name); ok && p != nil {
			p.Enum = enum
		}
	}
}

var readSchema = mustSchema(newReplySchema(&readReply{}, nil))

// The prompt is data (prompts/read.txt): its examples are clinical words, which
// the engine's Go code does not hold.
//
//go:embed prompts/read.txt
var readSystemHead string

// readSystem is the system prompt: the rules and the reply schema itself,
// so a server that ignores "format" still shows the model the form.
var readSystem = readSystemHead + strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(readSchema.raw))

// PatientReader reads a whole document into the patient model with one
// call (one per part for a long document). Go locates every fact's words
// in the document: a fact whose words are not there is dropped, with the
// reason, into Model.Dropped. Get one from Client.PatientReader.
type PatientReader struct {
	c *Client
}

// PatientReader is the document reader with this client.
func (c *Client) PatientReader() *PatientReader { return &PatientReader{c: c} }

// Name identifies the reader in caches, traces and on every fact it makes:
// "ollama:<model>:read-v1".
func (r *PatientReader) Name() string { return "ollama:" + r.c.cfg.Model + ":" + ReadPromptVersion }

// FallbackError is a lenient reader's failed call (logged in the failure
// log): the caller should read the document another way. Fallback lets a
// caller find it without importing this package.
type FallbackError struct{ Err error }

func (e *FallbackError) Error() string {
	return e.Err.Error() + " (lenient: read the document with the deterministic readers instead)"
}
func (e *FallbackError) Unwrap() error  { return e.Err }
func (e *FallbackError) Fallback() bool { return true }

// ReadPatient reads text into a patient model. The model's facts carry
// the document's own words (Text), their spans, kind, status, certainty,
// experiencer, the value the model read and the section heading; a second
// span, when present, locates the fact's date words. Concept keys are left
// empty for the engine to ground.
//
// When a call fails, strict mode returns the *CallError; lenient mode logs
// it and returns a *FallbackError.
func (r *PatientReader) ReadPatient(ctx context.Context, caseID, text string) (*patient.Model, error) {
	m := &patient.Model{CaseID: caseID, Source: "text", Text: text, Facts: []patient.Fact{}}
	if strings.TrimSpace(text) == "" {
		return m, nil // nothing to read; no call
	}
	parts := chunks(text, r.c.cfg.chunkBytes())
	seen := map[string]bool{}
	for i, part := range parts {
		user := "Document:\n" + text[part.Start:part.End]
		if len(parts) > 1 {
			user = fmt.Sprintf("Document, part %d of %d (the other parts are read separately):\n%s", i+1, len(parts), text[part.Start:part.End])
		}
		q := question{kind: "read", version: ReadPromptVersion, caseText: text, system: readSystem, user: user, schema: readSchema}
		var rep readReply
		if _, err := r.c.ask(ctx, q, &rep); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("llm read: case %s: %w", caseID, ctx.Err())
			}
			var ce *CallError
			if errors.As(err, &ce) {
				ce.Finding = fmt.Sprintf("part %d of %d (bytes %d-%d)", i+1, len(parts), part.Start, part.End)
			}
			if r.c.cfg.Strict {
				if lerr := r.c.logFailure("read", ReadPromptVersion, text, "", err, ""); lerr != nil {
					return nil, errors.Join(err, lerr)
				}
				return nil, err
			}
			r.c.fallbacks.Add(1)
			if lerr := r.c.logFailure("read", ReadPromptVersion, text, "", err, "deterministic readers"); lerr != nil {
				return nil, lerr
			}
			return nil, &FallbackError{Err: err}
		}
		r.place(m, text, part, rep.Facts, seen)
	}
	return m, nil
}

// place locates each replied fact inside its part of the document and
// appends it to the model, or drops it with the reason. A fact repeated
// (the same words, span and reading, as overlapping parts may give) is
// kept once.
func (r *PatientReader) place(m *patient.Model, text string, part patient.Span, facts []readFact, seen map[string]bool) {
	from := part.Start
	for _, rf := range facts {
		words := strings.TrimSpace(rf.Words)
		s, e := locateWords(text, words, part, from)
		if s < 0 {
			m.Dropped = append(m.Dropped, patient.Dropped{Text: words, Reader: r.Name(),
				Reason: "the reader's words are not in the document (exactly or ignoring case and spacing), so the fact is not kept"})
			continue
		}
		from = e
		f := patient.Fact{Kind: patient.Kind(rf.Kind), Status: patient.Status(rf.Status), Certainty: patient.Certainty(rf.Certainty),
			Experiencer: patient.Experiencer(rf.Experiencer), Spans: []patient.Span{{Start: s, End: e}}, Reader: r.Name()}
		f.Text = text[s:e]
		f.Present = f.Status != patient.StatusAbsent && f.Certainty != patient.Refuted
		if rf.Value != nil {
			v := *rf.Value
			f.Value, f.Unit, f.Comparator = &v, strings.TrimSpace(rf.Unit), rf.Comparator
		}
		if d := strings.TrimSpace(rf.Date); d != "" {
			if ds, de := nearestWords(text, d, part, s); ds >= 0 {
				f.Spans = append(f.Spans, patient.Span{Start: ds, End: de})
			} else {
				m.Dropped = append(m.Dropped, patient.Dropped{Text: d, Reader: r.Name(),
					Reason: fmt.Sprintf("the date words of %q are not in the document, so the fact is kept undated", f.Text)})
			}
		}
		if h := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(rf.Section), ":")); h != "" {
			// A heading is kept only where the document writes it before
			// the fact.
			if hs, _ := locateWords(text, h, patient.Span{Start: part.Start, End: s}, part.Start); hs >= 0 {
				f.Section = strings.ToLower(h)
			}
		}
		k := fmt.Sprintf("%d:%d:%s:%s:%s:%s", s, e, f.Kind, f.Status, f.Certainty, f.Experiencer)
		if seen[k] {
			continue
		}
		seen[k] = true
		f.ID = fmt.Sprintf("f%d", len(m.Facts))
		m.Facts = append(m.Facts, f)
	}
}

// locateWords finds words in text[in.Start:in.End]: exactly first, then
// ignoring case and runs of white space, at word boundaries, searching
// from `from` first (the model lists facts in order, so repeated words map
// to their next occurrence) and then from the part's start. It returns -1,
// -1 when the words are not there.
func locateWords(text, words string, in patient.Span, from int) (int, int) {
	if words == "" || in.End <= in.Start {
		return -1, -1
	}
	part := text[in.Start:in.End]
	if from < in.Start || from > in.End {
		from = in.Start
	}
	for _, at := range []int{from - in.Start, 0} {
		for i := at; i <= len(part); {
			j := strings.Index(part[i:], words)
			if j < 0 {
				break
			}
			s := i + j
			if bounded(part, s, s+len(words)) {
				return in.Start + s, in.Start + s + len(words)
			}
			i = s + 1
		}
	}
	if s, e := locate(part, words, from-in.Start); s >= 0 {
		return in.Start + s, in.Start + e
	}
	return -1, -1
}

// nearestWords locates words in the part at the occurrence nearest to pos
// (a date written before or after its fact).
func nearestWords(text, words string, in patient.Span, pos int) (int, int) {
	best, bs, be := -1, -1, -1
	for from := in.Start; from < in.End; {
		s, e := locateWords(text, words, patient.Span{Start: from, End: in.End}, from)
		if s < 0 {
			break
		}
		d := s - pos
		if d < 0 {
			d = -d
		}
		if best < 0 || d < best {
			best, bs, be = d, s, e
		}
		from = s + 1
	}
	return bs, be
}

// bounded reports whether s[i:j] starts and ends at word boundaries, as
// locate's \b does: "MI" is not found inside "MINOCA".
func bounded(s string, i, j int) bool {
	if i > 0 && isWordRune(rune(s[i-1])) && isWordRune(rune(s[i])) {
		return false
	}
	if j < len(s) && isWordRune(rune(s[j-1])) && isWordRune(rune(s[j])) {
		return false
	}
	return true
}

// chunks cuts text into parts of at most max bytes: at the last paragraph
// break (a blank line, where sections begin) inside the limit, else the
// last line break, else the last sentence end, else at a character
// boundary. max ≤ 0 means one part.
func chunks(text string, max int) []patient.Span {
	if max <= 0 || len(text) <= max {
		return []patient.Span{{Start: 0, End: len(text)}}
	}
	var out []patient.Span
	for start := 0; start < len(text); {
		end := start + max
		if end >= len(text) {
			out = append(out, patient.Span{Start: start, End: len(text)})
			break
		}
		win := text[start:end]
		cut := -1
		for _, sep := range []string{"\n\n", "\n", ". "} {
			if i := strings.LastIndex(win, sep); i > 0 {
				cut = start + i + len(sep)
				break
			}
		}
		if cut < 0 {
			cut = end
			for cut > start && !utf8.RuneStart(text[cut]) {
				cut--
			}
			if cut == start {
				cut = end
			}
		}
		out = append(out, patient.Span{Start: start, End: cut})
		start = cut
	}
	return out
}
