package engine

import (
	"context"
	"errors"
	"time"

	"github.com/executablekg/execkg/engine/fhir"
	"github.com/executablekg/execkg/engine/patient"
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
	m, err := fhir.ReadParts(parts, p.pack.ValueSets, fhir.Options{CaseID: caseID, Date: date})
	if err != nil {
		return nil, stageErr(caseID, StageRead, err, "FHIR bundle")
	}
	return m, nil
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
