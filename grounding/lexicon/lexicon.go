// Package lexicon holds the concept lexicon: for every input concept of a
// guideline pack, the synonyms, abbreviations and phrasings a clinician
// writes for it. Grounding adds them to the concept's grounding text, so a
// finding written as "rapid AF" can find the rules that test
// "fast irregular heart rate".
//
// The default lexicon ships inside the pack (meta/lexicon.json); a path
// overrides it. SNOMED CT synonyms can be merged in from an RF2 description
// file (ImportRF2).
package lexicon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/rules/packs"
)

// Version is the lexicon file format version this package reads and writes.
const Version = 1

// DefaultPath is the lexicon's path inside packs.FS().
var DefaultPath = path.Join(packs.DefaultDir, "meta", "lexicon.json")

// Lexicon is the lexicon file. Get one from Load, LoadFS or Parse; after
// changing Concepts or Ambiguous by hand, call Reindex before Lookup.
type Lexicon struct {
	Version  int       `json:"version"`
	Concepts []Concept `json:"concepts"`
	// Ambiguous lists terms that deliberately name more than one concept
	// ("CCS" for both suspected and established chronic coronary syndrome
	// would be one); every other term must name exactly one concept.
	Ambiguous []Ambiguity `json:"ambiguous,omitempty"`

	byTerm map[string][]int // normalised term → concept indexes
	byName map[string]int   // normalised concept name → index
	bySCT  map[string][]int // SNOMED CT id → concept indexes
}

// Concept is one concept with its synonyms.
type Concept struct {
	// Concept is the canonical concept name as used in the rule tables
	// (entity_standardized_candidate).
	Concept string `json:"concept"`
	// SnomedID is the SNOMED CT concept id, when one fits exactly.
	SnomedID string `json:"snomed_id,omitempty"`
	// Synonyms are other ways to write the concept.
	Synonyms []string `json:"synonyms"`
	// Antonyms are phrases that state the concept is absent without a
	// negation word ("surgical candidate" for ineligibility for cardiac
	// surgery, "low bleeding risk" for high bleeding risk). They are not
	// grounding text: step (iv) reads a finding that states one as a
	// stated absence of the concept (a negated one as a presence).
	Antonyms []string `json:"antonyms,omitempty"`
}

// Ambiguity is a term allowed to name several concepts, with the reason.
type Ambiguity struct {
	Term   string `json:"term"`
	Reason string `json:"reason"`
}

// Key is the normalised form under which names and synonyms are compared.
func Key(term string) string { return textnorm.Normalize(term) }

// Parse decodes and indexes a lexicon file; name is used in errors.
func Parse(name string, data []byte) (*Lexicon, error) {
	var l Lexicon
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("lexicon %s: %v (want {\"version\":1,\"concepts\":[{\"concept\":…,\"synonyms\":[…]}]})", name, err)
	}
	if l.Version != Version {
		return nil, fmt.Errorf("lexicon %s: version %d, this build reads version %d", name, l.Version, Version)
	}
	if err := l.Reindex(); err != nil {
		return nil, fmt.Errorf("lexicon %s: %w", name, err)
	}
	return &l, nil
}

// Reindex rebuilds the lookup tables after Concepts changed. Two entries
// with the same concept name are an error: merge their synonyms instead.
func (l *Lexicon) Reindex() error {
	l.byTerm = map[string][]int{}
	l.byName = map[string]int{}
	l.bySCT = map[string][]int{}
	var errs []string
	for i, c := range l.Concepts {
		k := Key(c.Concept)
		if k == "" {
			errs = append(errs, fmt.Sprintf("entry %d has an empty concept name", i))
			continue
		}
		if j, dup := l.byName[k]; dup {
			errs = append(errs, fmt.Sprintf("concept %q is listed twice (entries %d and %d); merge the synonyms into one entry", c.Concept, j, i))
			continue
		}
		l.byName[k] = i
		if c.SnomedID != "" {
			l.bySCT[c.SnomedID] = append(l.bySCT[c.SnomedID], i)
		}
		seen := map[string]bool{}
		for _, t := range append([]string{c.Concept}, c.Synonyms...) {
			tk := Key(t)
			if tk == "" || seen[tk] {
				continue
			}
			seen[tk] = true
			l.byTerm[tk] = append(l.byTerm[tk], i)
		}
	}
	for i, c := range l.Concepts {
		for _, a := range c.Antonyms {
			for _, j := range l.byTerm[Key(a)] {
				if j == i {
					errs = append(errs, fmt.Sprintf("concept %q lists %q both as a name or synonym and as an antonym", c.Concept, a))
				}
			}
			if Key(a) == "" {
				errs = append(errs, fmt.Sprintf("concept %q has an empty antonym", c.Concept))
			}
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// Load reads the lexicon at p, or the pack's embedded lexicon when p is "".
func Load(p string) (*Lexicon, error) {
	if p == "" {
		return LoadFS(packs.FS(), DefaultPath)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("read lexicon: %w", err)
	}
	return Parse(p, data)
}

// LoadFS reads a lexicon from a file system.
func LoadFS(fsys fs.FS, p string) (*Lexicon, error) {
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, fmt.Errorf("read lexicon %s: %w (the pack's lexicon lives in meta/lexicon.json next to the rule tables)", p, err)
	}
	return Parse(p, data)
}

// Lookup returns every concept whose name or synonym equals term after
// normalisation, in file order.
func (l *Lexicon) Lookup(term string) []*Concept {
	if l == nil {
		return nil
	}
	var out []*Concept
	for _, i := range l.byTerm[Key(term)] {
		out = append(out, &l.Concepts[i])
	}
	return out
}

// Concept returns the entry for a concept name (normalised), or nil.
func (l *Lexicon) Concept(name string) *Concept {
	if l == nil {
		return nil
	}
	if i, ok := l.byName[Key(name)]; ok {
		return &l.Concepts[i]
	}
	return nil
}

// BySnomedID returns the entries carrying a SNOMED CT id.
func (l *Lexicon) BySnomedID(id string) []*Concept {
	if l == nil || id == "" {
		return nil
	}
	var out []*Concept
	for _, i := range l.bySCT[id] {
		out = append(out, &l.Concepts[i])
	}
	return out
}

// Synonyms returns the synonyms for a concept: those of the entry with that
// SNOMED CT id (when sctID is given and listed) together with those of the
// entry with that name, without duplicates (by normalised form) and without
// the name itself.
func (l *Lexicon) Synonyms(name, sctID string) []string {
	if l == nil {
		return nil
	}
	seen := map[string]bool{Key(name): true}
	var out []string
	add := func(c *Concept) {
		for _, s := range append([]string{c.Concept}, c.Synonyms...) {
			k := Key(s)
			if k == "" || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, s)
		}
	}
	for _, c := range l.BySnomedID(sctID) {
		add(c)
	}
	if c := l.Concept(name); c != nil {
		add(c)
	}
	return out
}

// IsAmbiguous reports whether term is listed as deliberately ambiguous.
func (l *Lexicon) IsAmbiguous(term string) bool {
	if l == nil {
		return false
	}
	k := Key(term)
	for _, a := range l.Ambiguous {
		if Key(a.Term) == k {
			return true
		}
	}
	return false
}

// Conflict is a term that names more than one concept.
type Conflict struct {
	Term     string
	Concepts []string
}

// Conflicts lists terms (names or synonyms) that name more than one concept
// and are not listed as ambiguous, sorted by term.
func (l *Lexicon) Conflicts() []Conflict {
	var out []Conflict
	for k, idx := range l.byTerm {
		if len(idx) < 2 || l.IsAmbiguous(k) {
			continue
		}
		c := Conflict{Term: k}
		for _, i := range idx {
			c.Concepts = append(c.Concepts, l.Concepts[i].Concept)
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Term < out[j].Term })
	return out
}

// Marshal writes the lexicon in its file format: one concept per line
// block, concepts in their current order, stable across runs.
func (l *Lexicon) Marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n  \"version\": ")
	fmt.Fprintf(&b, "%d,\n  \"concepts\": [\n", l.Version)
	for i, c := range l.Concepts {
		if c.Synonyms == nil {
			c.Synonyms = []string{}
		}
		line, err := marshalLine(c)
		if err != nil {
			return nil, err
		}
		b.WriteString("    ")
		b.Write(line)
		if i < len(l.Concepts)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]")
	if len(l.Ambiguous) > 0 {
		b.WriteString(",\n  \"ambiguous\": [\n")
		for i, a := range l.Ambiguous {
			line, err := marshalLine(a)
			if err != nil {
				return nil, err
			}
			b.WriteString("    ")
			b.Write(line)
			if i < len(l.Ambiguous)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("  ]")
	}
	b.WriteString("\n}\n")
	return b.Bytes(), nil
}

// marshalLine encodes v on one line without HTML escaping, so "<" in a
// synonym stays readable.
func marshalLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
