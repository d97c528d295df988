package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// Member is one pack of a Multi: its id (the prefix of its row ids in a
// multi-pack answer), the pack and the options only it gets (its lexicon,
// its view of a shared graph store).
type Member struct {
	ID      string
	Pack    *rules.Pack
	Options []Option
}

// Multi answers one patient with several packs: a Program per pack, built
// once, each answering every case. Step (i) runs once per case and its
// findings are shared, so every pack reads the same patient. In the merged
// Result each row id is prefixed "<pack id>/" and each recommendation and
// near miss names its pack; evidence about a concept the packs share (one
// concept key) is listed once. Like a Program, a Multi is immutable after
// NewMulti and safe for concurrent use.
type Multi struct {
	ids   []string
	progs []*Program
}

// NewMulti compiles every member with the shared options followed by the
// member's own. Member ids must be distinct and non-empty.
func NewMulti(ctx context.Context, members []Member, shared ...Option) (*Multi, error) {
	if len(members) == 0 {
		return nil, errors.New("engine: a multi-pack program needs at least one pack")
	}
	// One extraction per case, whichever pack asks first.
	var c config
	for _, o := range shared {
		o(&c)
	}
	inner := c.extractor
	if inner == nil {
		// The first pack's document reading (sections) and every pack's
		// demographic words: one reading of the case serves them all.
		var words []string
		for _, mb := range members {
			words = append(words, demographicWords(mb.Pack.Reading)...)
		}
		inner = extract.Clauses{Sections: members[0].Pack.Sections, Demographic: words, Reading: extract.NewReading(members[0].Pack.Sections)}
	}
	memo := onceExtractor{inner: inner}
	m := &Multi{}
	seen := map[string]bool{}
	for _, mb := range members {
		if mb.ID == "" || strings.Contains(mb.ID, "/") || seen[mb.ID] {
			m.Close()
			return nil, fmt.Errorf("engine: pack id %q is empty, holds a '/' or is given twice; each pack needs its own id", mb.ID)
		}
		seen[mb.ID] = true
		opts := append(append(append([]Option{}, shared...), WithExtractor(memo)), mb.Options...)
		p, err := New(ctx, mb.Pack, opts...)
		if err != nil {
			m.Close()
			return nil, fmt.Errorf("engine: pack %s: %w", mb.ID, err)
		}
		m.ids = append(m.ids, mb.ID)
		m.progs = append(m.progs, p)
	}
	return m, nil
}

// IDs returns the pack ids in answer order.
func (m *Multi) IDs() []string { return append([]string(nil), m.ids...) }

// Programs returns the per-pack programs, in IDs order.
func (m *Multi) Programs() []*Program { return append([]*Program(nil), m.progs...) }

// Packs returns the compiled packs, in IDs order.
func (m *Multi) Packs() []*rules.Pack {
	out := make([]*rules.Pack, len(m.progs))
	for i, p := range m.progs {
		out[i] = p.Pack()
	}
	return out
}

// Settings describes the configuration, the same for every pack.
func (m *Multi) Settings() string { return m.progs[0].Settings() }

// Close closes every program.
func (m *Multi) Close() error {
	var errs []error
	for _, p := range m.progs {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// Ask answers a case in free text with every pack, as of today.
func (m *Multi) Ask(ctx context.Context, caseID, text string, opts ...EvalOption) (*Result, error) {
	return m.AskOn(ctx, caseID, text, time.Time{}, opts...)
}

// AskOn answers a case in free text written on date with every pack.
func (m *Multi) AskOn(ctx context.Context, caseID, text string, date time.Time, opts ...EvalOption) (*Result, error) {
	ctx = context.WithValue(ctx, extractionKey{}, &extraction{})
	opts = m.oneDay(opts)
	return m.each(func(p *Program) (*Result, error) { return p.AskOn(ctx, caseID, text, date, opts...) })
}

// AskPatient answers a patient model (FHIR, structured data) with every
// pack.
func (m *Multi) AskPatient(ctx context.Context, pm *patient.Model, opts ...EvalOption) (*Result, error) {
	if pm != nil && pm.Date == "" {
		opts = m.oneDay(opts)
	}
	return m.each(func(p *Program) (*Result, error) { return p.AskPatient(ctx, pm, opts...) })
}

// Evaluate answers structured evidence with every pack.
func (m *Multi) Evaluate(ctx context.Context, caseID string, ev []eval.Evidence, opts ...EvalOption) (*Result, error) {
	opts = m.oneDay(opts)
	return m.each(func(p *Program) (*Result, error) { return p.Evaluate(ctx, caseID, ev, opts...) })
}

// oneDay dates an undated call today once for every pack, so no two packs
// answer it on different days across midnight; a date in opts still wins.
func (m *Multi) oneDay(opts []EvalOption) []EvalOption {
	return append([]EvalOption{EvalDate(time.Now().UTC())}, opts...)
}

func (m *Multi) each(ask func(*Program) (*Result, error)) (*Result, error) {
	rs := make([]*Result, len(m.progs))
	for i, p := range m.progs {
		r, err := ask(p)
		if err != nil {
			return nil, fmt.Errorf("pack %s: %w", m.ids[i], err)
		}
		rs[i] = r
	}
	return m.merge(rs), nil
}

// merge joins the packs' results: row ids prefixed with the pack id, rows
// in pack order, evidence listed once per finding and concept.
func (m *Multi) merge(rs []*Result) *Result {
	first := rs[0]
	out := &Result{CaseID: first.CaseID, Question: first.Question, CaseDate: first.CaseDate, Findings: first.Findings,
		PredictedRowIDs: []string{}, Recommendations: []Recommendation{}, Evidence: []EvidenceItem{},
		RetrievedRowIDs: []string{}, RetrievedRules: []string{}}
	var errs, packs, versions []string
	evAt := map[string]int{}
	var tr *Trace
	for i, r := range rs {
		id := m.ids[i]
		pre := func(row string) string { return id + "/" + row }
		for _, row := range r.PredictedRowIDs {
			out.PredictedRowIDs = append(out.PredictedRowIDs, pre(row))
		}
		for _, rec := range r.Recommendations {
			rec.RowID, rec.Pack = pre(rec.RowID), id
			out.Recommendations = append(out.Recommendations, rec)
		}
		for _, e := range r.Evidence {
			k := evidenceIdentity(e)
			if j, ok := evAt[k]; ok {
				if e.AnchorRank > 0 && (out.Evidence[j].AnchorRank == 0 || e.AnchorRank < out.Evidence[j].AnchorRank) {
					out.Evidence[j].AnchorRank = e.AnchorRank
				}
				continue
			}
			evAt[k] = len(out.Evidence)
			out.Evidence = append(out.Evidence, e)
		}
		for _, row := range r.RetrievedRowIDs {
			out.RetrievedRowIDs = append(out.RetrievedRowIDs, pre(row))
		}
		out.RetrievedRules = append(out.RetrievedRules, r.RetrievedRules...)
		for _, nm := range r.NearMisses {
			nm.RowID, nm.Pack = pre(nm.RowID), id
			out.NearMisses = append(out.NearMisses, nm)
		}
		for _, w := range r.Withheld {
			w.RowID, w.Pack = pre(w.RowID), id
			out.Withheld = append(out.Withheld, w)
		}
		if r.Error != "" {
			errs = append(errs, id+": "+r.Error)
		}
		if r.Trace == nil {
			continue
		}
		packs, versions = append(packs, r.Trace.Pack), append(versions, r.Trace.PackVersion)
		if tr == nil {
			t := *r.Trace
			t.Anchors, t.Rules, t.Rejected, t.Events, t.Calculations = nil, nil, nil, nil, nil
			tr = &t
		}
		for _, fa := range r.Trace.Anchors {
			fa.Pack = id
			tr.Anchors = append(tr.Anchors, fa)
		}
		for _, rt := range r.Trace.Rules {
			rt.RowID = pre(rt.RowID)
			tr.Rules = append(tr.Rules, rt)
		}
		tr.Rejected = append(tr.Rejected, r.Trace.Rejected...)
		tr.Calculations = append(tr.Calculations, r.Trace.Calculations...)
		for _, ev := range r.Trace.Events {
			if ev.RowID != "" {
				ev.RowID = pre(ev.RowID)
			}
			tr.Events = append(tr.Events, ev)
		}
	}
	out.Patient = mergePatients(rs)
	if tr != nil {
		tr.Pack, tr.PackVersion = strings.Join(packs, "+"), strings.Join(versions, "+")
		out.Trace = tr
	}
	out.Error = strings.Join(errs, "; ")
	return out
}

// mergePatients joins the packs' patient models: each pack reads the
// same findings with its own concepts, so the facts are the union, a fact
// about a concept packs share (same key) listed once.
func mergePatients(rs []*Result) *patient.Model {
	var out *patient.Model
	seen := map[string]bool{}
	for _, r := range rs {
		pm := r.Patient
		if pm == nil {
			continue
		}
		if out == nil {
			cp := *pm
			cp.Facts, cp.Sections, cp.Dropped = nil, nil, nil
			out = &cp
		}
		for _, f := range pm.Facts {
			if k := "f" + factIdentity(f); !seen[k] {
				seen[k] = true
				out.Facts = append(out.Facts, f)
			}
		}
		for _, sct := range pm.Sections {
			if k := "s" + jsonKey(sct); !seen[k] {
				seen[k] = true
				out.Sections = append(out.Sections, sct)
			}
		}
		for _, d := range pm.Dropped {
			if k := "d" + jsonKey(d); !seen[k] {
				seen[k] = true
				out.Dropped = append(out.Dropped, d)
			}
		}
	}
	return out
}

func factIdentity(f patient.Fact) string {
	f.AnchorRank = 0
	return jsonKey(f)
}

func jsonKey(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// evidenceIdentity is an evidence item without its anchor rank: two packs
// formatting the same finding for a concept they share (same concept key)
// give the same item, listed once.
func evidenceIdentity(e EvidenceItem) string {
	e.AnchorRank = 0
	return jsonKey(e)
}

// onceExtractor runs step (i) once per multi-pack case: the first pack to
// ask extracts, the others reuse its findings (the context carries them).
// Outside a Multi call it extracts as the inner extractor does.
type onceExtractor struct{ inner extract.Extractor }

type extractionKey struct{}

type extraction struct {
	once     sync.Once
	text     string
	findings []extract.Finding
	err      error
}

func (o onceExtractor) Name() string { return o.inner.Name() }

func (o onceExtractor) Extract(ctx context.Context, text string) ([]extract.Finding, error) {
	x, _ := ctx.Value(extractionKey{}).(*extraction)
	if x == nil {
		return o.inner.Extract(ctx, text)
	}
	x.once.Do(func() { x.text = text; x.findings, x.err = o.inner.Extract(ctx, text) })
	if x.text != text {
		// A pack that repaired the text differently; never reuse findings
		// of another text.
		return o.inner.Extract(ctx, text)
	}
	return append([]extract.Finding(nil), x.findings...), x.err
}
