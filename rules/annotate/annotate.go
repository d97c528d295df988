// Package annotate is the annotation index: every unique (wording, context,
// role) input and output node of a pack, collected once so concept codes are
// filled in one place and written back to every occurrence (the reference
// system's entity_standardization_pipeline index / validate / apply).
package annotate

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"github.com/executablekg/execkg/rules"
)

// File names of the index inside its folder.
const (
	InputFile  = "input_nodes.json"
	OutputFile = "output_nodes.json"
)

// Node is one unique node of the index with its concept(s) and how often
// it occurs in the tables.
type Node struct {
	EntityOriginal         string               `json:"entity_original"`
	Context                string               `json:"context"`
	Role                   string               `json:"role"`
	EntityStandardizedList []rules.Standardized `json:"entity_standardized_list"`
	Occurrences            int                  `json:"occurrences"`
	// Rows lists the row ids where the node occurs, for review.
	Rows []string `json:"rows"`
}

// Key returns the node's identity.
func (n Node) Key() rules.NodeKey {
	return rules.NodeKey{Wording: n.EntityOriginal, Context: n.Context, Role: n.Role}
}

// Index is the pair of node lists.
type Index struct {
	Inputs  []Node `json:"inputs"`
	Outputs []Node `json:"outputs"`
}

// Build collects the index from a pack. Concepts come from the tables;
// when prev is given, codes already filled in prev are kept for nodes
// whose concept name is unchanged, so re-indexing never loses annotations.
func Build(p *rules.Pack, prev *Index) *Index {
	in := map[rules.NodeKey]*Node{}
	out := map[rules.NodeKey]*Node{}
	add := func(m map[rules.NodeKey]*Node, e rules.Entity, rowID string) {
		k := rules.KeyOf(e)
		n, ok := m[k]
		if !ok {
			n = &Node{EntityOriginal: e.EntityOriginal, Context: e.Context, Role: e.Role,
				EntityStandardizedList: append([]rules.Standardized(nil), e.EntityStandardizedList...)}
			m[k] = n
		}
		n.Occurrences++
		if len(n.Rows) == 0 || n.Rows[len(n.Rows)-1] != rowID {
			n.Rows = append(n.Rows, rowID)
		}
	}
	for _, r := range p.Rules() {
		for _, c := range r.Rule.Conditions {
			add(in, c, r.RowID)
		}
		for _, a := range r.Actions {
			add(out, a, r.RowID)
		}
	}
	idx := &Index{Inputs: sorted(in), Outputs: sorted(out)}
	if prev != nil {
		carry(idx.Inputs, prev.Inputs)
		carry(idx.Outputs, prev.Outputs)
	}
	return idx
}

func carry(nodes, prev []Node) {
	old := map[rules.NodeKey]Node{}
	for _, n := range prev {
		old[n.Key()] = n
	}
	for i, n := range nodes {
		o, ok := old[n.Key()]
		if !ok || len(o.EntityStandardizedList) == 0 {
			continue
		}
		if len(n.EntityStandardizedList) == 0 || rules.NormalizeName(n.EntityStandardizedList[0].Candidate) == rules.NormalizeName(o.EntityStandardizedList[0].Candidate) {
			nodes[i].EntityStandardizedList = o.EntityStandardizedList
		}
	}
}

func sorted(m map[rules.NodeKey]*Node) []Node {
	out := make([]Node, 0, len(m))
	for _, n := range m {
		out = append(out, *n)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.EntityOriginal != b.EntityOriginal {
			return a.EntityOriginal < b.EntityOriginal
		}
		if a.Role != b.Role {
			return a.Role < b.Role
		}
		return a.Context < b.Context
	})
	return out
}

// Load reads an index folder.
func Load(fsys fs.FS, dir string) (*Index, error) {
	idx := &Index{}
	for name, dst := range map[string]*[]Node{InputFile: &idx.Inputs, OutputFile: &idx.Outputs} {
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("annotation index: read %s: %w (create it with 'execkg annotate index')", path.Join(dir, name), err)
		}
		if err := json.Unmarshal(b, dst); err != nil {
			return nil, fmt.Errorf("annotation index: %s: %w", path.Join(dir, name), err)
		}
	}
	return idx, nil
}

// Problem is one inconsistency in an index.
type Problem struct {
	File    string `json:"file"`
	Index   int    `json:"index"`
	Message string `json:"message"`
}

func (p Problem) String() string { return fmt.Sprintf("%s[%d]: %s", p.File, p.Index, p.Message) }

// Validate checks an index: every node names a concept; one concept name
// carries at most one code; one code carries one concept name; codes are
// 6–18 digits.
func Validate(idx *Index) []Problem {
	var ps []Problem
	for _, part := range []struct {
		file  string
		nodes []Node
	}{{InputFile, idx.Inputs}, {OutputFile, idx.Outputs}} {
		nameCode := map[string]string{}
		codeName := map[string]string{}
		for i, n := range part.nodes {
			if len(n.EntityStandardizedList) == 0 || n.EntityStandardizedList[0].Candidate == "" {
				ps = append(ps, Problem{part.file, i, fmt.Sprintf("%q has no standardized concept name", n.EntityOriginal)})
				continue
			}
			s := n.EntityStandardizedList[0]
			name := rules.NormalizeName(s.Candidate)
			if s.SnomedID != "" && (len(s.SnomedID) < 6 || len(s.SnomedID) > 18 || !digits(s.SnomedID)) {
				ps = append(ps, Problem{part.file, i, fmt.Sprintf("%q: SNOMED CT id %q is not 6-18 digits", n.EntityOriginal, s.SnomedID)})
			}
			if prev, ok := nameCode[name]; ok && prev != s.SnomedID {
				ps = append(ps, Problem{part.file, i, fmt.Sprintf("concept %q is coded %q here and %q elsewhere", s.Candidate, s.SnomedID, prev)})
			} else if !ok {
				nameCode[name] = s.SnomedID
			}
			if s.SnomedID != "" {
				if prev, ok := codeName[s.SnomedID]; ok && prev != name {
					ps = append(ps, Problem{part.file, i, fmt.Sprintf("SNOMED CT %s names %q here and %q elsewhere", s.SnomedID, s.Candidate, prev)})
				} else if !ok {
					codeName[s.SnomedID] = name
				}
			}
		}
	}
	return ps
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Apply writes the index's concepts back into every occurrence in the
// pack's tables (in place) and returns how many entities changed. Nodes of
// the pack missing from the index are an error: re-index first.
func Apply(p *rules.Pack, idx *Index) (int, error) {
	in := map[rules.NodeKey]Node{}
	for _, n := range idx.Inputs {
		in[n.Key()] = n
	}
	out := map[rules.NodeKey]Node{}
	for _, n := range idx.Outputs {
		out[n.Key()] = n
	}
	changed := 0
	var missing []string
	set := func(e *rules.Entity, m map[rules.NodeKey]Node, where string) {
		n, ok := m[rules.KeyOf(*e)]
		if !ok {
			missing = append(missing, fmt.Sprintf("%s: %q (%s)", where, e.EntityOriginal, e.Role))
			return
		}
		if !sameList(e.EntityStandardizedList, n.EntityStandardizedList) {
			e.EntityStandardizedList = append([]rules.Standardized(nil), n.EntityStandardizedList...)
			changed++
		}
	}
	for _, t := range p.Tables {
		for ri := range t.Rows {
			row := &t.Rows[ri]
			where := rules.RowID(t.File, row.Row)
			for k := range row.Rules {
				for ci := range row.Rules[k].Conditions {
					set(&row.Rules[k].Conditions[ci], in, where)
				}
				for ai := range row.Rules[k].Actions {
					set(&row.Rules[k].Actions[ai], out, where)
				}
			}
			for ai := range row.Actions {
				set(&row.Actions[ai], out, where)
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return 0, fmt.Errorf("annotation index is stale: %d node(s) of the tables are not in it, e.g. %s; run 'execkg annotate index' first", len(missing), missing[0])
	}
	return changed, nil
}

func sameList(a, b []rules.Standardized) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Coverage counts coded nodes and occurrences of an index.
type Coverage struct {
	InputNodes, CodedInputNodes, InputOccurrences, CodedInputOccurrences     int
	OutputNodes, CodedOutputNodes, OutputOccurrences, CodedOutputOccurrences int
}

// Cover computes the coverage of an index.
func Cover(idx *Index) Coverage {
	var c Coverage
	for _, n := range idx.Inputs {
		c.InputNodes++
		c.InputOccurrences += n.Occurrences
		if coded(n) {
			c.CodedInputNodes++
			c.CodedInputOccurrences += n.Occurrences
		}
	}
	for _, n := range idx.Outputs {
		c.OutputNodes++
		c.OutputOccurrences += n.Occurrences
		if coded(n) {
			c.CodedOutputNodes++
			c.CodedOutputOccurrences += n.Occurrences
		}
	}
	return c
}

func coded(n Node) bool {
	for _, s := range n.EntityStandardizedList {
		if s.SnomedID != "" {
			return true
		}
	}
	return false
}
