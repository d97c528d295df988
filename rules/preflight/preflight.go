// Package preflight parses and checks every rule-table file of a pack before
// anything is written anywhere: JSON syntax, the JSON Schema, then the
// semantic checks of rules.Validate. Builders call Check first and stop on
// any diagnostic.
package preflight

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/schema"
)

// Report is the outcome of a preflight: the pack (nil when any file failed
// to parse), its counts and every diagnostic.
type Report struct {
	Dir         string            `json:"dir"`
	Files       []string          `json:"files"`
	Stats       rules.Stats       `json:"stats"`
	Reference   map[string]int    `json:"reference_system"`
	Diagnostics rules.Diagnostics `json:"diagnostics"`
	Pack        *rules.Pack       `json:"-"`
}

// OK reports whether the pack passed every check.
func (r *Report) OK() bool { return len(r.Diagnostics) == 0 }

// Err returns the diagnostics as an error, or nil.
func (r *Report) Err() error { return r.Diagnostics.Err() }

// Check reads every rule-table file in dir of fsys and checks it. The error
// is non-nil only when the directory cannot be read; problems in files are
// diagnostics in the report, so one run names all of them.
func Check(fsys fs.FS, dir string) (*Report, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("preflight: read rule directory %q: %w (pass a directory holding table_NN.json files)", dir, err)
	}
	rep := &Report{Dir: dir, Reference: rules.ReferenceStats}
	var tables []*rules.Table
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".json") || strings.HasPrefix(n, "_") || strings.HasPrefix(n, ".") {
			continue
		}
		rep.Files = append(rep.Files, n)
	}
	sort.Strings(rep.Files)
	if len(rep.Files) == 0 {
		return nil, fmt.Errorf("preflight: %q holds no *.json rule-table files", dir)
	}
	parsed := true
	for _, n := range rep.Files {
		data, err := fs.ReadFile(fsys, path.Join(dir, n))
		if err != nil {
			return nil, fmt.Errorf("preflight: read %s: %w", n, err)
		}
		t, err := rules.Parse(n, data)
		if err != nil {
			d, ok := err.(*rules.Diagnostic)
			if !ok {
				return nil, err
			}
			d.Row, d.Rule = -1, -1
			rep.Diagnostics = append(rep.Diagnostics, d)
			parsed = false
			continue
		}
		rep.Diagnostics = append(rep.Diagnostics, schemaCheck(n, data, t)...)
		tables = append(tables, t)
	}
	if len(tables) > 0 {
		p := &rules.Pack{Tables: tables, Guideline: tables[0].Guideline}
		sort.SliceStable(p.Tables, func(i, j int) bool { return p.Tables[i].Table < p.Tables[j].Table })
		p.Guideline = p.Tables[0].Guideline
		if g, err := rules.LoadGradingFS(fsys, dir); err != nil {
			rep.Diagnostics = append(rep.Diagnostics, &rules.Diagnostic{Code: rules.CodeGrading, File: rules.GradingFile, Row: -1, Rule: -1,
				Message: err.Error(), Fix: "declare the scheme's grades (value, term, meaning, direction) and levels; see rules/packs/ENCODING.md"})
			parsed = false
			p.Grading = &rules.Grading{Scheme: rules.GradingFile + " (unreadable)"}
		} else {
			p.Grading = g
		}
		rep.Diagnostics = append(rep.Diagnostics, rules.Validate(p)...)
		h, err := rules.LoadHierarchyFS(fsys, dir)
		if err != nil {
			rep.Diagnostics = append(rep.Diagnostics, &rules.Diagnostic{Code: rules.CodeHierarchy, File: rules.HierarchyFile, Row: -1, Rule: -1,
				Message: err.Error(), Fix: "fix the JSON field the message names (is-a relations, definitions, composites, values or anatomy)"})
		} else if h != nil {
			for _, bad := range h.Check(p) {
				rep.Diagnostics = append(rep.Diagnostics, &rules.Diagnostic{Code: rules.CodeHierarchy, File: rules.HierarchyFile, Row: -1, Rule: -1,
					Message: bad, Fix: "name concepts exactly as the tables' entity_standardized_candidate, or remove the entry"})
			}
			for _, bad := range h.CheckCalculators() {
				rep.Diagnostics = append(rep.Diagnostics, &rules.Diagnostic{Code: rules.CodeHierarchy, File: rules.HierarchyFile, Row: -1, Rule: -1,
					Message: bad, Fix: "declare the calculator's inputs with its names, kinds and units (package calculators), and the published examples as published"})
			}
			p.Hierarchy = h
		}
		rd, err := rules.LoadReadingFS(fsys, dir)
		if err != nil {
			rep.Diagnostics = append(rep.Diagnostics, &rules.Diagnostic{Code: rules.CodeReading, File: rules.ReadingFile, Row: -1, Rule: -1,
				Message: err.Error(), Fix: "fix the JSON field the message names (see rules/reading.go for the fields)"})
		} else if rd != nil {
			for _, bad := range rd.Check(p) {
				rep.Diagnostics = append(rep.Diagnostics, &rules.Diagnostic{Code: rules.CodeReading, File: rules.ReadingFile, Row: -1, Rule: -1,
					Message: bad, Fix: "name concepts exactly as the tables' entity_standardized_candidate or a hierarchy member, or remove the entry"})
			}
			p.Reading = rd
		}
		if vs, err := rules.LoadValueSetsFS(fsys, dir); err != nil {
			rep.Diagnostics = append(rep.Diagnostics, &rules.Diagnostic{Code: rules.CodeValueSets, File: rules.ValueSetsFile, Row: -1, Rule: -1,
				Message: err.Error(), Fix: "fix the JSON field the message names (systems, demographics, concepts, codes, units, as)"})
		} else if vs != nil {
			vs.Resolve(p)
			p.ValueSets = vs
			rep.Diagnostics = append(rep.Diagnostics, vs.Check(p)...)
		}
		if sec, err := rules.LoadSectionsFS(fsys, dir); err != nil {
			rep.Diagnostics = append(rep.Diagnostics, &rules.Diagnostic{Code: rules.CodeSections, File: rules.SectionsFile, Row: -1, Rule: -1,
				Message: err.Error(), Fix: "fix the entry and field the message names (section kinds and headings, cues, forms)"})
		} else {
			p.Sections = sec
		}
		rep.Stats = rules.ComputeStats(p)
		rep.Stats.Files = len(rep.Files)
		if parsed {
			rep.Pack = p
		}
	}
	rep.Diagnostics = preferSemantic(rep.Diagnostics)
	rep.Diagnostics.Sort()
	return rep, nil
}

// preferSemantic drops schema violations at a pointer that a semantic check
// also reports: its message and fix are the more specific of the two.
func preferSemantic(ds rules.Diagnostics) rules.Diagnostics {
	semantic := map[string]bool{}
	for _, d := range ds {
		if d.Code != rules.CodeSchema {
			semantic[d.File+"#"+d.Pointer] = true
		}
	}
	out := ds[:0]
	for _, d := range ds {
		if d.Code == rules.CodeSchema && semantic[d.File+"#"+d.Pointer] {
			continue
		}
		out = append(out, d)
	}
	return out
}

// schemaCheck validates the file as written when it uses our layout, so
// pointers and misspelt keys point at the file itself; files in the
// reference system's layouts are validated in their normalised form.
func schemaCheck(name string, data []byte, t *rules.Table) rules.Diagnostics {
	doc := data
	if usesReferenceLayout(data) {
		norm, err := json.Marshal(t)
		if err != nil {
			return rules.Diagnostics{{Code: rules.CodeSchema, File: name, Row: -1, Rule: -1, Message: err.Error()}}
		}
		doc = norm
	}
	vs, err := schema.Validate(doc)
	if err != nil {
		return rules.Diagnostics{{Code: rules.CodeSchema, File: name, Row: -1, Rule: -1, Message: "schema validation failed: " + err.Error()}}
	}
	var ds rules.Diagnostics
	for _, v := range vs {
		row, rule := locate(v.Pointer, t)
		ds = append(ds, &rules.Diagnostic{Code: rules.CodeSchema, File: name, Row: row, Rule: rule, Pointer: v.Pointer,
			Message: v.Message, Fix: "see schema/ruletable.schema.json and rules/packs/ENCODING.md"})
	}
	return ds
}

// usesReferenceLayout spots the reference system's key spellings and flat
// condition lists.
func usesReferenceLayout(data []byte) bool {
	for _, k := range []string{`"Class a"`, `"Level b"`, `"Recommendations"`, `"Section Header"`} {
		if bytes.Contains(data, []byte(k)) {
			return true
		}
	}
	var probe struct {
		Rows []struct {
			Rules []map[string]json.RawMessage `json:"rules"`
		} `json:"rows"`
	}
	if json.Unmarshal(data, &probe) == nil {
		for _, r := range probe.Rows {
			for _, ru := range r.Rules {
				if _, ok := ru["entity_original"]; ok {
					return true
				}
			}
		}
	}
	return false
}

// locate maps a JSON pointer to the row number and rule index it names.
func locate(ptr string, t *rules.Table) (row, rule int) {
	row, rule = -1, -1
	parts := strings.Split(ptr, "/")
	for i := 0; i+1 < len(parts); i++ {
		var n int
		if _, err := fmt.Sscanf(parts[i+1], "%d", &n); err != nil {
			continue
		}
		switch parts[i] {
		case "rows":
			row = n
			if n < len(t.Rows) {
				row = t.Rows[n].Row
			}
		case "rules":
			rule = n
		}
	}
	return row, rule
}
