package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules/units"
)

// PatientReader reads a whole document into a patient model (an LLM
// reader, engine/llm's PatientReader). Its facts name their words, not
// their concepts: each fact's first span locates the words in the text,
// later spans locate words that date it; kind, status, certainty,
// experiencer, section and a value may be set. The engine grounds the
// words onto the pack and runs every check on them, so a reader can add
// typed statuses but never a concept the words do not support.
//
// A reader that wants the case read the deterministic way instead (a
// lenient reader whose call failed) returns an error with a method
// Fallback() bool that reports true.
type PatientReader interface {
	Name() string
	ReadPatient(ctx context.Context, caseID, text string) (*patient.Model, error)
}

// WithPatientReader makes Ask read text with r instead of the extractor
// and the text readers: grounding, formatting, the pre-grounding checks
// (a relative's finding, a plan heading, negation) and step (v) still
// judge every fact by its words in the text.
func WithPatientReader(r PatientReader) Option { return func(c *config) { c.reader = r } }

// askRead is the read stage with a PatientReader: the reader's facts are
// placed, grounded and formatted into the patient model, which then goes
// through the stages every model goes through (decide, with the text
// admitter over the facts' words).
func (p *Program) askRead(ctx context.Context, c *call, text string) (*Result, error) {
	caseID := c.caseID
	if p.cfg.maxBytes > 0 && len(text) > p.cfg.maxBytes {
		return nil, &LimitError{CaseID: caseID, Limit: "max-bytes",
			Detail: fmt.Sprintf("the question is %d bytes, the limit is %d; shorten it or raise the limit", len(text), p.cfg.maxBytes)}
	}
	if !utf8.ValidString(text) {
		// The deterministic path repairs and traces invalid UTF-8.
		return p.ask(ctx, c, text)
	}
	r := p.cfg.reader
	got, err := r.ReadPatient(ctx, caseID, text)
	var fb interface{ Fallback() bool }
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, deadlineError(caseID, "reading with "+r.Name(), ctx.Err())
	case err != nil && errors.As(err, &fb) && fb.Fallback():
		res, derr := p.ask(ctx, c, text)
		if derr == nil && res.Patient != nil {
			res.Patient.Dropped = append(res.Patient.Dropped, patient.Dropped{Reader: r.Name(),
				Reason: "the reader failed (" + err.Error() + "); the document was read by the deterministic readers"})
		}
		return res, derr
	case err != nil:
		return nil, stageErr(caseID, StageRead, err, "reading with %s", r.Name())
	case got == nil:
		got = &patient.Model{}
	}
	date := documentDate(text, noon(c.date))
	res := &Result{CaseID: caseID, Question: text, CaseDate: date.Format("2006-01-02")}
	tr := p.newTrace(c)
	ctext := consistency.NewText(text)
	m := &patient.Model{CaseID: caseID, Date: date.Format("2006-01-02"), Source: "text", Text: text,
		Sections: got.Sections, Dropped: append([]patient.Dropped(nil), got.Dropped...)}
	// Placed facts become findings: the text readers below and the
	// formatter read findings.
	var findings []extract.Finding
	var facts []patient.Fact
	for _, f := range got.Facts {
		if reason := misplaced(text, f); reason != "" {
			m.Dropped = append(m.Dropped, patient.Dropped{Text: f.Text, Reader: readerOf(f, r), Reason: reason})
			continue
		}
		s := f.Spans[0]
		if f.Experiencer == patient.Relative {
			m.Dropped = append(m.Dropped, patient.Dropped{Text: f.Text, Reader: readerOf(f, r), Reason: "the reader reads it as a relative's fact, not the patient's"})
			continue
		}
		// The reader chooses the stretch and its statuses; the clause
		// extractor cuts it as it cuts any text ("58M" is an age and a
		// sex, "HTN and DM2" two problems), each piece keeping the
		// reader's statuses.
		parts, _ := extract.Clauses{Demographic: demographicWords(p.pack.Reading)}.Extract(ctx, text[s.Start:s.End])
		var placed []extract.Finding
		for _, pt := range parts {
			if pt.Start >= 0 && pt.End <= s.End-s.Start && pt.Start < pt.End {
				placed = append(placed, pt)
			}
		}
		if len(placed) == 0 {
			// Nothing the extractor keeps as a finding: the stretch whole.
			placed = []extract.Finding{{Start: 0, End: s.End - s.Start}}
		}
		for _, pt := range placed {
			g := f
			g.ID = fmt.Sprintf("f%d", len(findings))
			g.Spans = append([]patient.Span{{Start: s.Start + pt.Start, End: s.Start + pt.End}}, f.Spans[1:]...)
			g.Text = text[g.Spans[0].Start:g.Spans[0].End]
			facts = append(facts, g)
			findings = append(findings, extract.Finding{ID: g.ID, Text: g.Text, Start: g.Spans[0].Start, End: g.Spans[0].End})
		}
	}
	byID := map[string]patient.Fact{}
	var pairs []evidence.Pair
	rank := map[[2]string]int{}
	negatedID := map[string]bool{}
	doubted := map[string]bool{}
	intentions := map[string]bool{} // findings the reader or a plan heading states as intended
	var antonyms []eval.Evidence
	byAntonym := map[[2]string]bool{}
	rd := newReadings() // which anchors are facts (Program.flag), as Ask reads them
	for i, f := range facts {
		if err := ctx.Err(); err != nil {
			return nil, deadlineError(caseID, "step (ii) grounding", err)
		}
		fd := findings[i]
		byID[fd.ID] = f
		res.Findings = append(res.Findings, Finding{ID: fd.ID, Text: fd.Text, Start: fd.Start, End: fd.End})
		clause := commaClause(text, fd.Start, fd.End)
		anchors, err := p.grounder.Ground(ctx, fd.Text)
		if err != nil {
			return nil, stageErr(caseID, StageGround, err, "grounding %q", fd.Text)
		}
		anchors = p.withDemographic(text, fd.Start, fd.End, fd.Text, anchors)
		anchors = p.withVerbatim(fd.Text, clause, anchors, p.cfg.topK)
		if p.ungrounded(fd.Text) {
			anchors = nil // a measurement the pack has no concept for (meta/reading.json)
		}
		// As the text reader: a graded abbreviation's other sense, a risk
		// score's procedure (meta/reading.json senses, risk_scores).
		anchors = p.withoutGradedSense(fd.Text, anchors)
		anchors = p.withoutOtherSite(fd.Text, anchors)
		anchors = p.withoutScoreSubject(leadIn(text, fd.Start, fd.End), anchors)
		negated := false
		if c.checks.Negation {
			fc := ctext.At(fd.Start).Analyze(fd.Text)
			if fc.Other {
				tr.Rejected = append(tr.Rejected, Rejection{FindingID: fd.ID, Check: consistency.CheckNegation, BeforeMatching: true,
					Reason: "negation: '" + strings.Join(fc.Cues, ", ") + "' makes this a relative's finding, not the patient's"})
				m.Dropped = append(m.Dropped, patient.Dropped{Text: fd.Text, Reader: readerOf(f, r), Reason: "a relative's finding ('" + strings.Join(fc.Cues, ", ") + "'), not the patient's"})
				continue
			}
			doubted[fd.ID] = fc.Uncertain
			negated = fc.Negated
		}
		planned := map[string]string{} // planned concept key → the procedure's concept key, for its phrases
		intent := f.Status == patient.StatusPlanned || f.Status == patient.StatusScheduled || c.checks.Certainty && p.intended(text, fd)
		if intent {
			// An intention is no present fact: only concepts that are
			// themselves intentions may use it, as under a plan heading.
			intentions[fd.ID] = true
			var kept []grounding.Anchor
			seen := map[string]bool{}
			for _, a := range anchors {
				if p.doc.PlannedConcept(a.Concept) {
					if !seen[a.ConceptKey] {
						seen[a.ConceptKey] = true
						kept = append(kept, a)
					}
				} else if pa, ok := p.plannedForm(a); ok && !seen[pa.ConceptKey] {
					seen[pa.ConceptKey] = true
					planned[pa.ConceptKey] = a.ConceptKey
					kept = append(kept, pa)
				}
			}
			if len(kept) < len(anchors) {
				tr.Rejected = append(tr.Rejected, Rejection{FindingID: fd.ID, Check: consistency.CheckCertainty, BeforeMatching: true,
					Reason: "certainty: the fact is stated as intended (" + string(f.Status) + "), not present"})
			}
			if len(kept) == 0 && len(anchors) > 0 {
				// Kept in the model as what it is, an intention, which
				// asserts nothing of the patient now.
				a := anchors[0]
				pf := p.fact(eval.Evidence{ID: fd.ID, ConceptKey: a.ConceptKey, Concept: a.Concept, Text: fd.Text, Present: true}, readerOf(f, r), f.Spans)
				pf.Status, pf.Section = patient.StatusPlanned, f.Section
				if f.Status == patient.StatusScheduled {
					pf.Status = patient.StatusScheduled
				}
				m.Facts = append(m.Facts, pf)
			}
			anchors = kept
		}
		if negated {
			if anchors, err = p.orAnchors(ctx, c, fd.Text, anchors); err != nil {
				return nil, stageErr(caseID, StageGround, err, "grounding %q", fd.Text)
			}
		}
		negatedID[fd.ID] = negated
		for _, a := range p.antonymEvidence(fd.ID, fd.Text, negated) {
			antonyms = append(antonyms, a)
			byAntonym[[2]string{fd.ID, a.ConceptKey}] = true
		}
		fa := FindingAnchors{FindingID: fd.ID, Query: fd.Text}
		p.read(rd, ctext.At(fd.Start), fd.ID, fd.Text, negated, anchors, c.checks)
		for j, a := range anchors {
			rank[[2]string{fd.ID, a.ConceptKey}] = j + 1
			fa.Anchors = append(fa.Anchors, anchorInfo(a))
			ph := phrasesFor(a, p.phrases)
			if proc, ok := planned[a.ConceptKey]; ok {
				ph = p.phrases[proc]
			}
			pairs = append(pairs, evidence.Pair{FindingID: fd.ID, Text: fd.Text, Negated: negated, Clause: clause,
				Anchor: evidence.Anchor{ConceptKey: a.ConceptKey, Concept: a.Concept, Units: p.units[a.ConceptKey], Phrases: ph}})
		}
		tr.Anchors = append(tr.Anchors, fa)
	}
	items, err := p.cfg.formatter.FormatCase(ctx, text, pairs)
	if err != nil {
		return nil, stageErr(caseID, StageFormat, err, "evidence with %s", p.cfg.formatter.Name())
	}
	intolerant, _ := p.intoleranceDrops(text, findings, items)
	cut := p.cutWhen(text, findings, date)
	spanOf := map[string][]patient.Span{}
	var ev []eval.Evidence
	for _, it := range items {
		f := byID[it.FindingID]
		reject := func(reason string) {
			tr.Rejected = append(tr.Rejected, Rejection{FindingID: it.FindingID, Check: "formatter", Reason: it.ConceptKey + ": " + reason})
		}
		switch {
		case it.Rejected != "":
			reject(it.Rejected)
			continue
		case intolerant[[2]string{it.FindingID, it.ConceptKey}] != "":
			reject("'" + intolerant[[2]string{it.FindingID, it.ConceptKey}] + "' states the drug is not tolerated, not taken")
			continue
		case byAntonym[[2]string{it.FindingID, it.ConceptKey}]:
			reject("the finding states an antonym phrase of the concept")
			continue
		}
		e := eval.Evidence{ID: it.FindingID, ConceptKey: it.ConceptKey, Concept: it.Concept, Text: it.Text,
			Present: it.Present, Value: it.Value, Unit: it.Unit, Comparator: it.Comparator, When: p.whenOf(it.Text, date)}
		e.AnchorRank = rank[[2]string{it.FindingID, it.ConceptKey}]
		p.flag(rd, &e)
		if e.Value == nil && e.Present && f.Value != nil && len(p.units[e.ConceptKey]) > 0 && numberIn(commaClause(text, f.Spans[0].Start, f.Spans[0].End), *f.Value) {
			// The reader's value, where the formatter found none in the
			// words and the number is written in their clause.
			v := *f.Value
			e.Value, e.Unit, e.Comparator = &v, units.Canonical(f.Unit), f.Comparator
			if e.Unit == "" && len(p.units[e.ConceptKey]) == 1 {
				e.Unit = p.units[e.ConceptKey][0]
			}
		}
		if e.When == nil {
			e.When = cut[it.FindingID]
		}
		for _, s := range f.Spans[1:] {
			if e.When == nil {
				e.When = p.whenOf(text[s.Start:s.End], date)
			}
		}
		if e.When == nil {
			e.When = p.whenOf(commaClause(text, f.Spans[0].Start, f.Spans[0].End), date)
		}
		if p.medications[e.ConceptKey] && p.notTakenAmong(text, findingOf(findings, e.ID), findings) {
			e.Secondary = true
		}
		if e.Present && !negatedID[e.ID] && (f.Status == patient.StatusAbsent || f.Status == patient.StatusStopped || f.Certainty == patient.Refuted) {
			// The reader states an absence the words do not negate
			// ("diabetes: none" read as one stretch, a drug stopped).
			e.Present, e.Value, e.Unit, e.Comparator = false, nil, "", ""
		}
		spanOf[e.ID] = f.Spans
		ev = append(ev, e)
	}
	ev = append(ev, antonyms...)
	// The text readers that read the document around its findings
	// (stenosis reports, refractory symptoms, recency, cut dates) read the
	// reader's findings as they read the extractor's.
	for _, x := range p.readRounds(&read.Case{Text: text, Findings: findings, Date: date}, ev) {
		ev = append(ev, x.Evidence)
	}
	for _, e := range ev {
		f, fromReader := byID[e.ID]
		reader := readerOf(f, r)
		if e.DerivedBy != "" {
			reader = e.DerivedBy // an engine reader read it around the reader's findings
		}
		fact := p.fact(e, reader, spanOf[e.ID])
		if fromReader {
			p.applyRead(&fact, f, negatedID[e.ID], doubted[e.ID], intentions[e.ID] && !p.doc.PlannedConcept(e.Concept))
		}
		m.Facts = append(m.Facts, fact)
	}
	res.Patient = m
	// The evidence is the model's: what its facts assert, after the
	// reader's statuses (a planned or refused drug asserts nothing).
	res.Evidence = m.Evidence()
	chk := p.checker(c, m, tr)
	if err := p.decide(ctx, c, res, tr, m, chk.admit, chk.passes, nil); err != nil {
		return nil, err
	}
	return res, nil
}

// applyRead maps the reader's statuses onto a grounded fact. The pack's
// role decides the kind (the reader's only where the pack has none); the
// reader's status holds where it fits the kind; the words in the text have
// the last say: negated words are an absence, doubted words a suspicion,
// a drug stated stopped is stopped.
func (p *Program) applyRead(fact *patient.Fact, read patient.Fact, negated, doubted, intent bool) {
	if fact.Kind == patient.KindOther && read.Kind != "" {
		fact.Kind = read.Kind
	}
	fact.Section = read.Section
	if read.Experiencer != "" {
		fact.Experiencer = read.Experiencer
	}
	if read.Certainty != "" {
		fact.Certainty = read.Certainty
	}
	if doubted && fact.Certainty == patient.Confirmed {
		fact.Certainty = patient.Suspected
	}
	if statusFits(fact.Kind, read.Status) {
		fact.Status = read.Status
	}
	if read.Status == patient.StatusAbsent && fact.Value == nil {
		fact.Present, fact.Status = false, patient.StatusAbsent
	}
	if fact.Kind == patient.KindMedication && fact.Present && p.stopped(fact.Text) {
		fact.Status = patient.StatusStopped
	}
	if negated {
		fact.Present, fact.Status = false, patient.StatusAbsent
	}
	if intent && fact.Status != patient.StatusScheduled {
		fact.Status = patient.StatusPlanned
	}
	if fact.Present && (fact.Status == patient.StatusPlanned || fact.Status == patient.StatusScheduled) && p.doc.PlannedConcept(fact.Concept) {
		// The concept is itself the intention ("planned PCI"): the plan
		// is what it states, as the deterministic read has it.
		nf := p.fact(fact.Evidence, fact.Reader, nil)
		fact.Status, fact.Intention = nf.Status, nf.Intention
	}
}

// statusFits reports whether a status is one a fact of the kind can have.
func statusFits(k patient.Kind, s patient.Status) bool {
	switch s {
	case "":
		return false
	case patient.StatusAbsent, patient.StatusPlanned:
		return true
	case patient.StatusTaking, patient.StatusStopped, patient.StatusNotTolerated, patient.StatusContraindicated, patient.StatusRefused:
		return k == patient.KindMedication
	case patient.StatusDone, patient.StatusScheduled:
		return k == patient.KindProcedure
	case patient.StatusActive, patient.StatusHistory, patient.StatusResolved:
		return k != patient.KindMedication && k != patient.KindProcedure
	}
	return false
}

// misplaced says why a reader's fact cannot be used ("" when it can): it
// has no span, a span outside the text, or words that are not the text's
// words at its span. The engine checks it itself, so no reader can bring
// a fact the document does not state.
func misplaced(text string, f patient.Fact) string {
	if len(f.Spans) == 0 {
		return "the fact has no span in the text, so its words cannot be checked"
	}
	for _, s := range f.Spans {
		if s.Start < 0 || s.End <= s.Start || s.End > len(text) {
			return fmt.Sprintf("span [%d,%d) lies outside the %d-byte text", s.Start, s.End, len(text))
		}
	}
	s := f.Spans[0]
	if f.Text != "" && f.Text != text[s.Start:s.End] {
		return fmt.Sprintf("the fact's words %q are not the text's words %q at its span", f.Text, text[s.Start:s.End])
	}
	return ""
}

func readerOf(f patient.Fact, r PatientReader) string {
	if f.Reader != "" {
		return f.Reader
	}
	return r.Name()
}

// numberIn reports whether v is written as a number in s (not as a part
// of a longer number: 1 is not in "12").
func numberIn(s string, v float64) bool {
	for _, m := range evidence.ParseMeasures(s) {
		if m.Value == v {
			return true
		}
	}
	n := strconv.FormatFloat(v, 'f', -1, 64)
	for i := 0; i <= len(s)-len(n); i++ {
		if s[i:i+len(n)] == n && (i == 0 || !isNumByte(s[i-1])) && (i+len(n) == len(s) || !isNumByte(s[i+len(n)])) {
			return true
		}
	}
	return false
}

func isNumByte(c byte) bool { return c >= '0' && c <= '9' || c == '.' || c == ',' }

// findingOf returns the finding with the id (Start -1 when none).
func findingOf(findings []extract.Finding, id string) extract.Finding {
	for _, f := range findings {
		if f.ID == id {
			return f
		}
	}
	return extract.Finding{ID: id, Start: -1, End: -1}
}
