package vignettes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/executablekg/execkg/rules"
)

// ParaphraseFile is data/paraphrases.json: the hand-written, freer
// vignettes with the input nodes each was written to state. Nodes name
// their concept by canonical name; the generator fills in the concept key
// from the pack, so the file survives re-coding of concepts.
type ParaphraseFile struct {
	Version   int        `json:"version"`
	Note      string     `json:"note,omitempty"`
	Vignettes []Vignette `json:"vignettes"`

	name string
}

// ParseParaphrases decodes the paraphrase file; name is used in errors.
func ParseParaphrases(name string, data []byte) (*ParaphraseFile, error) {
	var f ParaphraseFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("%s: version %d, want 1", name, f.Version)
	}
	f.name = name
	return &f, nil
}

// resolve fills category and concept keys and checks that every named
// concept exists in the pack.
func (f *ParaphraseFile) resolve(ix *index) ([]Vignette, error) {
	var errs []string
	out := make([]Vignette, 0, len(f.Vignettes))
	for i, v := range f.Vignettes {
		v.Category = Paraphrase
		v.Intended = append([]Node(nil), v.Intended...)
		for j := range v.Intended {
			n := &v.Intended[j]
			c := ix.byName[rules.NormalizeName(n.Concept)]
			if c == nil {
				errs = append(errs, fmt.Sprintf("%s: vignettes[%d] (%s) intended[%d]: concept %q is not tested by any rule of the pack; use a canonical concept name", f.name, i, v.CaseID, j, n.Concept))
				continue
			}
			n.ConceptKey = c.Key
			n.Concept = c.Name
		}
		out = append(out, v)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return out, nil
}
