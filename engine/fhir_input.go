package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/fhir"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// ValueSets returns the pack's value sets (meta/valuesets.json), or nil
// when the pack has none.
func (p *Program) ValueSets() *rules.ValueSets { return p.pack.ValueSets }

// ReadFHIR reads a FHIR R4 Bundle into the patient model with the pack's
// value sets; ages count to date (zero: today).
func (p *Program) ReadFHIR(caseID string, bundle []byte, date time.Time) (*patient.Model, error) {
	return p.ReadFHIRParts(caseID, [][]byte{bundle}, date)
}

// ReadFHIRParts is ReadFHIR over several Bundles or single resources about
// one patient (a CDS Hooks prefetch).
func (p *Program) ReadFHIRParts(caseID string, parts [][]byte, date time.Time) (*patient.Model, error) {
	if p.pack.ValueSets == nil {
		return nil, &StageError{CaseID: caseID, Stage: StageRead, Detail: "FHIR bundle",
			Err: errors.New("the pack has no value sets (" + rules.ValueSetsFile + "), so no code can become a fact")}
	}
	m, err := fhir.ReadParts(parts, p.pack.ValueSets, fhir.Options{CaseID: caseID, Date: date, Name: p.nameFromWords, Past: p.pastWords,
		Drug: p.drugInWords, Agent: p.hierarchy.AgentNamed})
	if err != nil {
		return nil, stageErr(caseID, StageRead, err, "FHIR bundle")
	}
	return m, nil
}

// nameFromWords is the FHIR reader's fallback for a resource none of whose
// codes the value sets list: the concept its words state word for word (a
// pack name, row wording or synonym: the same verbatim match the text
// reader trusts most), read with the same cues as text, so that "Family
// history of ischaemic heart disease" is no fact of the patient's and
// "Suspected angina" is a suspected one. Fuzzy grounding is not used: a
// code's words are short and exact, and a near miss would invent a fact
// the record does not state.
func (p *Program) nameFromWords(words string) ([]*rules.ValueSet, patient.Certainty, string) {
	if p.ungrounded(words) {
		return nil, "", "name a measurement the pack has no concept for"
	}
	// Names and synonyms stated on their own: a concept named only inside
	// a longer one ("coronary artery disease" in "non-obstructive coronary
	// artery disease") is that longer one's, not a second fact.
	var anchors []grounding.Anchor
	for _, a := range p.verbatimNamed(words) {
		if !slices.Contains(a.Channels, channelNarrowed) {
			anchors = append(anchors, a)
		}
	}
	if len(anchors) == 0 {
		return nil, "", "name no concept of the pack word for word"
	}
	// The words are judged whole, as a clause: a code's words are one.
	cx := consistency.Analyze(words, words)
	switch {
	case cx.Other:
		return nil, "", "are about someone other than the patient ('" + strings.Join(cx.Cues, ", ") + "')"
	case cx.Negated:
		return nil, "", "state it absent ('" + strings.Join(cx.Cues, ", ") + "'); a record's status, not its name, says what is absent"
	case cx.Hypothetical:
		return nil, "", "state a possibility, not a fact ('" + strings.Join(cx.Cues, ", ") + "')"
	}
	// Every concept the words name ("Stable angina, non-obstructive
	// coronary artery disease" is two), in the words' order.
	var sets []*rules.ValueSet
	for _, a := range anchors {
		set := p.pack.ValueSets.ByKey(a.ConceptKey)
		if set == nil {
			set = &rules.ValueSet{Concept: a.Concept, Key: a.ConceptKey}
			if u := p.units[a.ConceptKey]; len(u) == 1 {
				// A measured concept the value sets do not list: its value
				// is read in the unit the pack's rules use, and no other.
				set.Unit, set.Units = u[0], map[string]string{u[0]: u[0]}
			}
		}
		sets = append(sets, set)
	}
	cert := patient.Confirmed
	if cx.Uncertain && !p.doubtfulName(anchors[0].Concept) { // a concept named "suspected …" carries the doubt itself
		cert = patient.Suspected
	}
	return sets, cert, ""
}

// drugInWords tells the FHIR reader whether a concept named from a
// resource's words is a drug, and the words' not-tolerated cue (the
// pack's, meta/sections.json): "Aspirin allergy" states aspirin not
// tolerated, never taken.
func (p *Program) drugInWords(key, words string) (bool, string) {
	if !p.medications[key] {
		return false, ""
	}
	return true, p.doc.Cue(rules.CueNotTolerated, words)
}

// AskFHIR answers a FHIR R4 Bundle: the bundle becomes the patient model
// (ReadFHIR), then derive → expand → check → evaluate run as for text
// (AskPatient). The case date (EvalDate, default today) is the date ages
// count to and time windows count from.
func (p *Program) AskFHIR(ctx context.Context, caseID string, bundle []byte, opts ...EvalOption) (*Result, error) {
	return p.AskFHIRParts(ctx, caseID, [][]byte{bundle}, opts...)
}

// AskFHIRParts is AskFHIR over several Bundles or resources of one
// patient (a CDS Hooks prefetch).
func (p *Program) AskFHIRParts(ctx context.Context, caseID string, parts [][]byte, opts ...EvalOption) (*Result, error) {
	date := p.newCall(caseID, opts).date
	if date.IsZero() {
		date = time.Now().UTC()
	}
	m, err := p.ReadFHIRParts(caseID, parts, date)
	if err != nil {
		return nil, err
	}
	return p.AskPatient(ctx, m, opts...)
}

// AskFHIR answers a FHIR R4 Bundle with every pack, each reading it with
// its own value sets; a pack without value sets reads no fact from it
// (and says so in its model's dropped readings).
func (m *Multi) AskFHIR(ctx context.Context, caseID string, bundle []byte, opts ...EvalOption) (*Result, error) {
	return m.AskFHIRParts(ctx, caseID, [][]byte{bundle}, opts...)
}

// AskFHIRParts is AskFHIR over several Bundles or resources of one
// patient (a CDS Hooks prefetch).
func (m *Multi) AskFHIRParts(ctx context.Context, caseID string, parts [][]byte, opts ...EvalOption) (*Result, error) {
	opts = m.oneDay(opts)
	return m.each(func(p *Program) (*Result, error) {
		if p.pack.ValueSets == nil {
			date := p.newCall(caseID, opts).date
			pm := &patient.Model{CaseID: caseID, Source: "fhir", Date: date.Format("2006-01-02"), Facts: []patient.Fact{},
				Dropped: []patient.Dropped{{Reader: fhir.ReaderName, Reason: "the pack has no value sets (" + rules.ValueSetsFile + "): no code of the record is read"}}}
			return p.AskPatient(ctx, pm, opts...)
		}
		return p.AskFHIRParts(ctx, caseID, parts, opts...)
	})
}
