package vignettes

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ExcludedDoc is data/excluded.json: the concepts left out of the
// vignettes, each with its reason.
type ExcludedDoc struct {
	Note     string      `json:"note"`
	Count    int         `json:"count"`
	Excluded []Exclusion `json:"excluded"`
}

const excludedNote = "Input concepts no vignette states: every condition on them is a workflow or availability node (rules/packs/ENCODING.md), which depends on the care setting rather than the patient. Rows needing them stay in the pack and are never in the reference unless another OR member holds."

func marshalExcluded(ex []Exclusion) ([]byte, error) {
	if ex == nil {
		ex = []Exclusion{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ExcludedDoc{Note: excludedNote, Count: len(ex), Excluded: ex}); err != nil {
		return nil, fmt.Errorf("encode exclusions: %w", err)
	}
	return b.Bytes(), nil
}

// DefaultExcluded returns the shipped exclusion list.
func DefaultExcluded() (*ExcludedDoc, error) {
	b, err := Data.ReadFile(ExcludedFile)
	if err != nil {
		return nil, fmt.Errorf("shipped exclusion list: %w (run `execkg vignettes generate`)", err)
	}
	var d ExcludedDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", ExcludedFile, err)
	}
	return &d, nil
}
