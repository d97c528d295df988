package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Pack is a loaded guideline: every table, in table order.
type Pack struct {
	Guideline Guideline
	Tables    []*Table
	// Hierarchy holds the pack's is-a relations (meta/hierarchy.json), or
	// nil when the pack has none.
	Hierarchy *Hierarchy
	// Reading holds the words the engine's evidence readers read with
	// (meta/reading.json), or nil when the pack has none.
	Reading *Reading
	// ValueSets map the pack's concepts to the codes of coded records
	// (meta/valuesets.json), resolved against the pack; nil when the pack
	// has none.
	ValueSets *ValueSets
	// Sections is how the pack reads documents (meta/sections.json):
	// section headings and their meaning, status words; nil when the pack
	// has none.
	Sections *Sections
	// Grading is the pack's grading scheme (meta/grading.json, else
	// DefaultGrading); nil reads as DefaultGrading.
	Grading *Grading
}

// Scheme returns the pack's grading scheme.
func (p *Pack) Scheme() *Grading {
	if p == nil || p.Grading == nil {
		return DefaultGrading
	}
	return p.Grading
}

// HierarchyFile is where a pack keeps its is-a relations, relative to its
// rule directory.
const HierarchyFile = "meta/hierarchy.json"

// LoadHierarchyFS reads dir/meta/hierarchy.json; a missing file is no
// hierarchy, not an error.
func LoadHierarchyFS(fsys fs.FS, dir string) (*Hierarchy, error) {
	name := path.Join(dir, HierarchyFile)
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseHierarchy(name, b)
}

// ConceptIndex maps every condition concept key of the pack to its name
// and every normalised name to its key.
func (p *Pack) ConceptIndex() (nameOfKey, keyOfName map[string]string) {
	nameOfKey, keyOfName = p.ConditionIndex()
	// Members of composite definitions that no rule names are concepts of
	// the pack too: a case may state them and a definition reads them.
	members, _ := p.Hierarchy.MemberConcepts(keyOfName)
	for _, n := range members {
		k := "name:" + NormalizeName(n)
		nameOfKey[k], keyOfName[NormalizeName(n)] = n, k
	}
	return nameOfKey, keyOfName
}

// ConditionIndex is ConceptIndex restricted to the concepts rules name.
func (p *Pack) ConditionIndex() (nameOfKey, keyOfName map[string]string) {
	nameOfKey, keyOfName = map[string]string{}, map[string]string{}
	for _, r := range p.Rules() {
		for _, c := range r.Rule.Conditions {
			k := ConceptKey(c)
			nameOfKey[k] = c.Concept()
			keyOfName[NormalizeName(c.Concept())] = k
		}
	}
	return nameOfKey, keyOfName
}

// RuleRef is one rule of the pack with its ids and the row it came from.
type RuleRef struct {
	ID      string // <guideline>::<row id>::rule_<k>
	RowID   string // <file>::row_<n>
	K       int
	Table   *Table
	Row     *Row
	Rule    *Rule
	Actions []Entity
}

// Condition is one condition occurrence with its decision id.
type Condition struct {
	DecisionID string
	RuleID     string
	Group      Group
	Step       int // 1-based position in the group
	Entity     Entity
	Index      int // index in Rule.Conditions
}

// Rules lists every rule of the pack in table, row and rule order.
func (p *Pack) Rules() []RuleRef {
	var out []RuleRef
	for _, t := range p.Tables {
		for ri := range t.Rows {
			row := &t.Rows[ri]
			rowID := RowID(t.File, row.Row)
			for k := range row.Rules {
				out = append(out, RuleRef{
					ID:      RuleID(p.Guideline.ID, rowID, k),
					RowID:   rowID,
					K:       k,
					Table:   t,
					Row:     row,
					Rule:    &row.Rules[k],
					Actions: row.RuleActions(k),
				})
			}
		}
	}
	return out
}

// Conditions lists a rule's conditions with their decision ids.
func (r RuleRef) Conditions() []Condition {
	var out []Condition
	for _, g := range r.Rule.Groups() {
		for s, idx := range g.Members {
			out = append(out, Condition{
				DecisionID: DecisionID(r.ID, g.Index, s+1),
				RuleID:     r.ID,
				Group:      g,
				Step:       s + 1,
				Entity:     r.Rule.Conditions[idx],
				Index:      idx,
			})
		}
	}
	return out
}

// Row looks a row up by row id.
func (p *Pack) Row(rowID string) (*Table, *Row, bool) {
	file, n, err := ParseRowID(rowID)
	if err != nil {
		return nil, nil, false
	}
	for _, t := range p.Tables {
		if t.File != file {
			continue
		}
		for i := range t.Rows {
			if t.Rows[i].Row == n {
				return t, &t.Rows[i], true
			}
		}
	}
	return nil, nil, false
}

// LoadFS parses every *.json file directly in dir of fsys (files starting
// with "_" or "." are skipped) without validating them; use
// preflight.Check for the full check. Parse errors of all files are
// collected, so one run names every broken file.
func LoadFS(fsys fs.FS, dir string) (*Pack, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read rule directory %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".json") || strings.HasPrefix(n, "_") || strings.HasPrefix(n, ".") {
			continue
		}
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("rule directory %s holds no *.json rule-table files", dir)
	}
	var diags Diagnostics
	p := &Pack{}
	for _, n := range names {
		data, err := fs.ReadFile(fsys, path.Join(dir, n))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", n, err)
		}
		t, err := Parse(n, data)
		if err != nil {
			if d, ok := err.(*Diagnostic); ok {
				d.Row, d.Rule = -1, -1
				diags = append(diags, d)
				continue
			}
			return nil, err
		}
		p.Tables = append(p.Tables, t)
	}
	if len(diags) > 0 {
		return nil, diags
	}
	sort.SliceStable(p.Tables, func(i, j int) bool {
		if p.Tables[i].Table != p.Tables[j].Table {
			return p.Tables[i].Table < p.Tables[j].Table
		}
		return p.Tables[i].File < p.Tables[j].File
	})
	p.Guideline = p.Tables[0].Guideline
	h, err := LoadHierarchyFS(fsys, dir)
	if err != nil {
		return nil, err
	}
	p.Hierarchy = h
	if p.Reading, err = LoadReadingFS(fsys, dir); err != nil {
		return nil, err
	}
	if p.Sections, err = LoadSectionsFS(fsys, dir); err != nil {
		return nil, err
	}
	g, err := LoadGradingFS(fsys, dir)
	if err != nil {
		return nil, err
	}
	p.Grading = g
	vs, err := LoadValueSetsFS(fsys, dir)
	if err != nil {
		return nil, err
	}
	vs.Resolve(p)
	p.ValueSets = vs
	return p, nil
}
