package cdshooks

import (
	"context"
	"time"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// NewPack wires a compiled program into a Pack: its value sets code the
// orders and the prefetch, and its FHIR reader (engine/fhir with the
// pack's value sets) reads the hooks' data.
func NewPack(prog *engine.Program) Pack {
	vs := prog.Pack().ValueSets
	p := Pack{Program: prog}
	if vs == nil {
		p.NoFHIR = "the pack has no value sets (" + rules.ValueSetsFile + "), so no code of a record can become a fact"
		return p
	}
	p.Codes = valueSetCodes{vs}
	p.ReadFHIR = func(ctx context.Context, caseID string, bundle []byte, date time.Time) (*patient.Model, error) {
		return prog.ReadFHIR(caseID, bundle, date)
	}
	p.AskPatient = func(ctx context.Context, m *patient.Model) (*engine.Result, error) {
		return prog.AskPatient(ctx, m)
	}
	return p
}

// valueSetCodes answers Codes from a pack's value sets.
type valueSetCodes struct{ vs *rules.ValueSets }

func (v valueSetCodes) Concepts(system, code string) []string {
	if m, ok := v.vs.Lookup(system, code); ok {
		return []string{m.Set.Concept}
	}
	return nil
}

func (v valueSetCodes) Codings(concept string) []Coding {
	n := rules.NormalizeName(concept)
	for _, s := range v.vs.Concepts {
		if rules.NormalizeName(s.Concept) == n {
			return v.codings(s)
		}
	}
	return nil
}

// codings are a set's exact codes (a class prefix is not a code a record
// or a search can carry).
func (v valueSetCodes) codings(s rules.ValueSet) []Coding {
	var out []Coding
	for _, c := range s.Codes {
		if uri := v.vs.URI(c.System); uri != "" && !c.Prefix {
			out = append(out, Coding{System: uri, Code: c.Code, Display: c.Display})
		}
	}
	return out
}

// SearchCodes gives the observation searches their codes: by code, the
// exact codes of the value sets (a record holds many observations the pack
// never reads); by coded value, those of the concepts that are not
// measured (a finding recorded as an interpretation's value). Codes of the
// classifications (systems whose codes may be class prefixes, ICD-10 and
// ATC) code diagnoses and drugs, not observations, and are left out.
func (v valueSetCodes) SearchCodes(resourceType, param string) []Coding {
	if resourceType != "Observation" {
		return nil
	}
	var out []Coding
	for _, s := range v.vs.Concepts {
		if s.Key == "" || param != "code" && (param != "value-concept" || s.Unit != "") {
			continue // a concept the pack does not test, or measured
		}
		for _, c := range s.Codes {
			if sys, ok := v.vs.Systems[c.System]; ok && !sys.Prefix && !c.Prefix && sys.URI != "" {
				out = append(out, Coding{System: sys.URI, Code: c.Code, Display: c.Display})
			}
		}
	}
	return out
}
