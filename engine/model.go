package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// textModel is the read stage's output for a text case: every piece of
// evidence the readers made becomes a fact typed by its concept's role in
// the pack, with the finding's span, so later stages read the model.
func (p *Program) textModel(caseID, text string, date time.Time, findings []extract.Finding, ev []eval.Evidence, doubted map[string]bool, undoubted, doubtedWords, notTaken, inPlan map[[2]string]bool, dropped []patient.Dropped) *patient.Model {
	m := &patient.Model{CaseID: caseID, Date: date.Format("2006-01-02"), Source: "text", Text: text, Dropped: dropped,
		Facts: make([]patient.Fact, 0, len(ev))}
	spans := make(map[string][]patient.Span, len(findings))
	section := make(map[string]string, len(findings))
	words := make(map[string]string, len(findings)) // the finding's words, which may state the past
	rest := make(map[string]string, len(findings))  // the rest of its sentence, which may say how long
	rowStatus := map[string]string{}                // the status cell of its table row
	for _, f := range findings {
		if f.Start >= 0 && f.End <= len(text) && f.Start < f.End {
			spans[f.ID] = []patient.Span{{Start: f.Start, End: f.End}}
		}
		section[f.ID] = f.Section
		words[f.ID] = f.Text
		rest[f.ID] = sentenceRest(text, f.End)
		if f.RowStatus != "" {
			rowStatus[f.ID] = f.RowStatus
		}
	}
	for _, s := range p.doc.Sections(text) {
		if s.Kind != "" {
			m.Sections = append(m.Sections, patient.Section{Kind: s.Kind, Heading: s.Heading, Span: patient.Span{Start: s.Start, End: s.End}})
		}
	}
	for _, e := range ev {
		reader := "text"
		if e.DerivedBy != "" {
			reader = e.DerivedBy // the reader that made it (engine/read)
		}
		f := p.fact(e, reader, spans[e.ID])
		f.Section = section[e.ID]
		if doubted[e.ID] && !undoubted[[2]string{e.ID, e.ConceptKey}] || doubtedWords[[2]string{e.ID, e.ConceptKey}] {
			f.Certainty = patient.Suspected
		}
		if f.Status == patient.StatusDone && inPlan[[2]string{e.ID, e.ConceptKey}] {
			// "Referred for ICA", "Plan: ICA": the procedure is what the
			// plan states (evaluation reads it, as Intention), not done.
			f.Status, f.Intention = patient.StatusPlanned, true
		}
		if f.Status == patient.StatusTaking && notTaken[[2]string{e.ID, e.ConceptKey}] {
			f.Status = patient.StatusPlanned
		}
		if f.Status == patient.StatusActive && (f.Kind == patient.KindProblem || f.Kind == patient.KindOther) && p.pastFor(words[e.ID], rest[e.ID], p.namesOf(e), false) {
			f.Status = patient.StatusHistory // "history of AF", "AF ablated in 2019"
		}
		if f.Status == patient.StatusActive && (f.Kind == patient.KindProblem || f.Kind == patient.KindOther) {
			// A problem list's status column: "Angina | I20.9 | Resolved".
			switch p.doc.RowStatus(rowStatus[e.ID]) {
			case "resolved":
				f.Status = patient.StatusResolved
			case "history":
				f.Status = patient.StatusHistory
			}
		}
		m.Facts = append(m.Facts, f)
	}
	return m
}

// fact types one piece of evidence by its concept's role in the pack; a
// fact the case states absent has status absent.
func (p *Program) fact(e eval.Evidence, reader string, spans []patient.Span) patient.Fact {
	f := patient.Fact{Evidence: e, Kind: p.kindOf(e), Certainty: patient.Confirmed, Experiencer: patient.Self, Spans: spans, Reader: reader}
	switch {
	case !e.Present:
		f.Status = patient.StatusAbsent
	case p.doc.PlannedConcept(e.Concept):
		// "planned PCI": the plan is the fact, planned and not done.
		f.Status, f.Intention = patient.StatusPlanned, true
	case f.Kind == patient.KindMedication:
		f.Status = patient.StatusTaking
	case f.Kind == patient.KindProcedure:
		f.Status = patient.StatusDone
	default:
		f.Status = patient.StatusActive
	}
	return f
}

// kindOf reads a fact's kind off the role the pack gives its concept.
func (p *Program) kindOf(e eval.Evidence) patient.Kind {
	switch p.roles[e.ConceptKey] {
	case rules.RoleMedication:
		return patient.KindMedication
	case rules.RoleProcedure:
		return patient.KindProcedure
	}
	if e.Value != nil || len(p.units[e.ConceptKey]) > 0 {
		return patient.KindMeasurement
	}
	switch p.roles[e.ConceptKey] {
	case rules.RoleClinicalCondition:
		return patient.KindProblem
	case rules.RoleClinicalParameter:
		return patient.KindFinding
	}
	return patient.KindOther
}

// AskPatient answers a patient model (read from FHIR, from structured
// data, or by an LLM): the stages after reading — derive, expand, check,
// evaluate — exactly as for text. Step (v) judges a fact with spans in
// the model's text by its words, and a coded fact by its record's
// statuses (a provisional diagnosis is doubtful, a refuted one absent).
// The model is not modified; the Result carries a copy with the derived
// facts added.
func (p *Program) AskPatient(ctx context.Context, m *patient.Model, opts ...EvalOption) (*Result, error) {
	if m == nil {
		return nil, &StageError{Stage: StageRead, Detail: "patient model", Err: errors.New("no patient model given")}
	}
	c := p.newCall(m.CaseID, opts)
	if err := m.Validate(); err != nil {
		return nil, stageErr(m.CaseID, StageRead, err, "patient model")
	}
	if c.date.IsZero() && m.Date != "" {
		d, err := time.Parse("2006-01-02", m.Date)
		if err != nil {
			return nil, stageErr(m.CaseID, StageRead, err, "patient model date %q (want YYYY-MM-DD)", m.Date)
		}
		c.date = d
	}
	cp := *m
	cp.Facts = append([]patient.Fact(nil), m.Facts...)
	for i := range cp.Facts {
		f := &cp.Facts[i]
		if f.Reader == "" {
			f.Reader = cp.Source
		}
		if f.ConceptKey == "" && f.Concept != "" {
			// A fact named by concept: the pack's key for that name
			// (a coded concept's "sct:" key), else the name key.
			n := rules.NormalizeName(f.Concept)
			if k, ok := p.keys[n]; ok {
				f.ConceptKey = k
			} else {
				f.ConceptKey = "name:" + n
			}
		}
		if f.Concept == "" {
			f.Concept = p.names[f.ConceptKey]
		}
	}
	res := &Result{CaseID: m.CaseID, Question: m.Text, CaseDate: noon(c.date).Format("2006-01-02"), Patient: &cp}
	tr := p.newTrace(c)
	res.Evidence = cp.Evidence()
	chk := p.checker(c, &cp, tr)
	if err := p.decide(ctx, c, res, tr, &cp, chk.admit, chk.passes, nil); err != nil {
		return nil, err
	}
	return res, nil
}

// checker is step (v) for a patient model: the text admitter for facts
// with words in the model's text, the record's statuses for coded facts.
func (p *Program) checker(c *call, m *patient.Model, tr *Trace) *admitter {
	mention, clause := map[string]string{}, map[string]string{}
	start := map[string]int{}
	coded := map[string]consistency.Coded{}
	for _, f := range m.Facts {
		if len(f.Spans) > 0 && m.Text != "" {
			s := f.Spans[0]
			mention[f.ID] = m.Text[s.Start:s.End]
			start[f.ID] = s.Start
			clause[f.ID] = commaClause(m.Text, s.Start, s.End)
			continue
		}
		coded[f.ID] = p.coded(f)
	}
	ctext := consistency.NewText(m.Text)
	adm := p.newAdmitter(c, ctext, mention, clause, tr)
	adm.coded, adm.start = coded, start
	// A fact the model holds confirmed although its words sit in a
	// doubted finding ("3VD" in "PCI vs CABG for 3VD") was read outside
	// that doubt (undoubtedAt): step (v) judges it so, as on the text path.
	// So is, the other way round, a suspected fact whose finding's head no
	// doubt reaches (doubtedAt).
	for _, f := range m.Facts {
		s, ok := start[f.ID]
		if !ok || !f.Present || f.Reader == "derive" {
			continue
		}
		headDoubt := ctext.At(s).Analyze(mention[f.ID]).Uncertain
		k := [2]string{f.ID, f.ConceptKey}
		switch {
		case f.Certainty == patient.Confirmed && headDoubt:
			if adm.undoubted == nil {
				adm.undoubted = map[[2]string]bool{}
			}
			adm.undoubted[k] = true
		case f.Certainty == patient.Suspected && !headDoubt:
			if adm.doubtedWords == nil {
				adm.doubtedWords = map[[2]string]bool{}
			}
			adm.doubtedWords[k] = true
		}
	}
	return adm
}

// Evaluate answers a case given as structured evidence (coded data, no
// text): the evidence becomes a patient model of coded facts, then derive,
// expand and evaluate run as for any model, without step (v) (structured
// evidence states its own polarity; AskPatient with certainties is the
// checked way). Evidence is matched by ConceptKey ("sct:<id>" or
// "name:<concept name>"; a bare Concept name works too). The caller's
// slice is not modified.
func (p *Program) Evaluate(ctx context.Context, caseID string, ev []eval.Evidence, opts ...EvalOption) (*Result, error) {
	c := p.newCall(caseID, opts)
	m := &patient.Model{CaseID: caseID, Source: "structured", Facts: make([]patient.Fact, 0, len(ev))}
	res := &Result{CaseID: caseID, Patient: m}
	tr := p.newTrace(c)
	tr.Checks = "none (structured input)"
	for i, e := range ev {
		k := e.Key()
		if k == "" {
			return nil, stageErr(caseID, StageRead, fmt.Errorf("evidence %d (%q) names no concept", i, e.Text), "structured evidence; set ConceptKey or Concept")
		}
		e.ConceptKey = k
		m.Facts = append(m.Facts, p.fact(e, "structured", nil))
		res.Evidence = append(res.Evidence, e)
	}
	if err := p.decide(ctx, c, res, tr, m, nil, nil, nil); err != nil {
		return nil, err
	}
	return res, nil
}

// StepV returns step (v) as a run applies it, for a stored result: each
// verdict judges evidence against a condition with the result's own text
// and findings (coded facts by their statuses), under the given checks.
// The error analysis asks it what the checks would have done to evidence
// a run let through, so it never keeps a copy of step (v) of its own.
func (p *Program) StepV(res *Result, checks consistency.Checks) func(eval.Cond, eval.Evidence) consistency.Verdict {
	c := &call{caseID: res.CaseID, checks: checks}
	mention, clause := map[string]string{}, map[string]string{}
	start := map[string]int{}
	for _, f := range res.Findings {
		mention[f.ID] = f.Text
		start[f.ID] = f.Start
		clause[f.ID] = commaClause(res.Question, f.Start, f.End)
	}
	adm := p.newAdmitter(c, consistency.NewText(res.Question), mention, clause, &Trace{})
	adm.start = start
	if res.Patient != nil {
		coded := map[string]consistency.Coded{}
		for _, f := range res.Patient.Facts {
			if _, ok := mention[f.ID]; !ok && len(f.Spans) == 0 {
				coded[f.ID] = p.coded(f)
			}
		}
		adm.coded = coded
	}
	return adm.verdict
}

// coded is a fact without words as step (v) sees it: its record's doubt
// (a provisional status, or a code that names a suspicion itself,
// "suspected X") and its stated absence.
func (p *Program) coded(f patient.Fact) consistency.Coded {
	present, _ := f.Asserts()
	doubt := f.Certainty == patient.Suspected || f.Concept != "" && p.doubtfulName(f.Concept)
	return consistency.Coded{Uncertain: doubt, Absent: !present}
}

// doubtfulName reports whether a concept's own name states a doubt (read
// by the cue data), cached per Program: concept names are few and asked
// of in every case.
// doubtInName reports whether an uncertainty cue lies anywhere among
// name's words, over its head or over a part of it ("of unclear
// functional significance").
func (p *Program) doubtInName(name string) bool {
	return consistency.Shared(name).UncertaintyIn(name)
}

func (p *Program) doubtfulName(name string) bool {
	if v, ok := p.doubtful.Load(name); ok {
		return v.(bool)
	}
	d := consistency.Analyze(name, name).Uncertain
	p.doubtful.Store(name, d)
	return d
}
