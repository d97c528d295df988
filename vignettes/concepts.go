package vignettes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/executablekg/execkg/rules"
)

// Concept is one input concept of the pack (one rules.ConceptKey) with
// where it is tested.
type Concept struct {
	Key  string
	Name string
	// Usable is true when at least one occurrence is a patient finding,
	// i.e. carries no workflow kind.
	Usable bool
	// Workflow lists the workflow kinds of its workflow occurrences.
	Workflow []string
	// Rows lists the rows testing it, in pack order.
	Rows []string

	order int
	rules []int // rule indexes with a non-workflow occurrence, pack order
}

// Exclusion is a concept no vignette states because every condition on it
// is a workflow or availability node: it depends on the care setting, not
// the patient, so no patient sentence can make it true.
type Exclusion struct {
	ConceptKey string   `json:"concept_key"`
	Concept    string   `json:"concept"`
	Workflow   []string `json:"workflow"`
	Rows       []string `json:"rows"`
	Reason     string   `json:"reason"`
}

// workflowReasons explains each workflow kind (rules.WorkflowKinds).
var workflowReasons = map[string]string{
	"availability":       "depends on what the hospital has available, not on the patient",
	"expertise":          "depends on local expertise or a Heart Team, not on the patient",
	"shared-decision":    "is the outcome of a shared decision with the patient, not a finding",
	"clinical-judgement": "is a clinician's judgement about the case, not a stated finding",
	"setting":            "depends on the care setting or health system, not on the patient",
}

// index is the pack seen from its input concepts.
type index struct {
	rules    []rules.RuleRef
	conds    [][]rules.Condition
	concepts []*Concept
	byKey    map[string]*Concept
	byName   map[string]*Concept
}

func buildIndex(p *rules.Pack) *index {
	ix := &index{byKey: map[string]*Concept{}, byName: map[string]*Concept{}}
	ix.rules = p.Rules()
	rowSeen := map[string]map[string]bool{}
	for ri, r := range ix.rules {
		cs := r.Conditions()
		// Pack (condition) order, not group order, so the first concept of
		// a row comes first.
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].Index < cs[j].Index })
		ix.conds = append(ix.conds, cs)
		for _, c := range cs {
			k := rules.ConceptKey(c.Entity)
			co := ix.byKey[k]
			if co == nil {
				co = &Concept{Key: k, Name: c.Entity.Concept(), order: len(ix.concepts)}
				ix.byKey[k] = co
				ix.concepts = append(ix.concepts, co)
				rowSeen[k] = map[string]bool{}
			}
			if n := rules.NormalizeName(c.Entity.Concept()); ix.byName[n] == nil {
				ix.byName[n] = co
			}
			if !rowSeen[k][r.RowID] {
				rowSeen[k][r.RowID] = true
				co.Rows = append(co.Rows, r.RowID)
			}
			if w := c.Entity.Workflow; w != "" {
				if !contains(co.Workflow, w) {
					co.Workflow = append(co.Workflow, w)
				}
				continue
			}
			co.Usable = true
			if len(co.rules) == 0 || co.rules[len(co.rules)-1] != ri {
				co.rules = append(co.rules, ri)
			}
		}
	}
	for _, co := range ix.concepts {
		sort.Strings(co.Workflow)
	}
	return ix
}

// Concepts lists the pack's input concepts in order of first appearance
// (table, row, rule, condition).
func Concepts(p *rules.Pack) []Concept {
	ix := buildIndex(p)
	out := make([]Concept, len(ix.concepts))
	for i, c := range ix.concepts {
		out[i] = *c
	}
	return out
}

// Exclusions lists the concepts reachable only through workflow or
// availability conditions, each with its reason, sorted by concept name.
func Exclusions(p *rules.Pack) []Exclusion {
	var out []Exclusion
	for _, c := range buildIndex(p).concepts {
		if c.Usable {
			continue
		}
		var why []string
		for _, w := range c.Workflow {
			r := workflowReasons[w]
			if r == "" {
				r = "is a workflow condition"
			}
			why = append(why, fmt.Sprintf("%s: %s", w, r))
		}
		out = append(out, Exclusion{
			ConceptKey: c.Key, Concept: c.Name, Workflow: c.Workflow, Rows: c.Rows,
			Reason: "every condition on it is a workflow node; it " + strings.Join(why, "; it "),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Concept < out[j].Concept })
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
