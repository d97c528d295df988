package graph

import (
	"fmt"
	"sort"

	"github.com/executablekg/execkg/rules"
)

// Counts are nodes per label and relationships per type of one pack. Every
// schema label and type is present, zero included, so two Counts compare
// with ==-style equality.
type Counts struct {
	Nodes         map[string]int `json:"nodes"`
	Relationships map[string]int `json:"relationships"`
}

// NewCounts returns zero counts for every schema label and type.
func NewCounts() Counts {
	c := Counts{Nodes: map[string]int{}, Relationships: map[string]int{}}
	for _, l := range Labels {
		c.Nodes[l] = 0
	}
	for _, t := range RelTypes {
		c.Relationships[t] = 0
	}
	return c
}

// TotalNodes sums the node counts.
func (c Counts) TotalNodes() int { return sum(c.Nodes) }

// TotalRelationships sums the relationship counts.
func (c Counts) TotalRelationships() int { return sum(c.Relationships) }

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Diff lists every label or type whose count differs ("DecisionNode: 10 != 12").
// Empty means equal.
func (c Counts) Diff(o Counts) []string {
	var out []string
	cmp := func(kind string, a, b map[string]int) {
		keys := map[string]bool{}
		for k := range a {
			keys[k] = true
		}
		for k := range b {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if a[k] != b[k] {
				out = append(out, fmt.Sprintf("%s %s: %d != %d", kind, k, a[k], b[k]))
			}
		}
	}
	cmp("label", c.Nodes, o.Nodes)
	cmp("type", c.Relationships, o.Relationships)
	return out
}

// Equal reports whether both counts agree on every label and type.
func (c Counts) Equal(o Counts) bool { return len(c.Diff(o)) == 0 }

// Predict computes, from the pack alone, the counts a build must produce.
// It is written independently of the build plan (by arithmetic over groups,
// not by building the graph) so tests comparing the two catch errors in
// either. Entities the build would reject are left out.
func Predict(p *rules.Pack) Counts {
	c := NewCounts()
	if p == nil {
		return c
	}
	c.Nodes[LabelGuidelineSource] = len(p.Tables)
	concepts := map[string]bool{} // label + identity
	addConcept := func(e rules.Entity) (label string, ok bool) {
		target, ok := roleLabel(e.Role)
		if !ok {
			return "", false
		}
		label, id := target, e.SnomedID()
		if id == "" {
			label, id = LabelUnresolvedConcept, target+"|"+rules.ConceptKey(e)
		}
		if !concepts[label+"|"+id] {
			concepts[label+"|"+id] = true
			c.Nodes[label]++
		}
		return target, true
	}
	for _, r := range p.Rules() {
		c.Nodes[LabelRecommendationNode]++
		c.Relationships[RelMentionedIn]++
		groups := r.Rule.Groups()
		prevExit := 0
		for i, g := range groups {
			n := len(g.Members)
			entry, exit := 1, 1
			if g.Type == rules.LogicOR {
				entry, exit = n, n // parallel branches
			} else {
				c.Relationships[RelLeadsTo] += n - 1 // the AND chain
			}
			if i > 0 {
				c.Relationships[RelLeadsTo] += prevExit * entry
			}
			prevExit = exit
		}
		c.Relationships[RelResultsIn] += prevExit
		for _, e := range r.Rule.Conditions {
			c.Nodes[LabelDecisionNode]++
			if target, ok := addConcept(e); ok {
				if target == LabelClinicalCondition {
					c.Relationships[RelChecksFor]++
				} else {
					c.Relationships[RelEvaluates]++
				}
			}
		}
		seen := map[string]bool{} // two actions on one concept share one edge
		for _, a := range r.Actions {
			target, ok := addConcept(a)
			if !ok {
				continue
			}
			rel, err := actionRelation(target, actionDirection(a, r))
			if err != nil {
				continue
			}
			key := rel + "|" + target + "|" + a.SnomedID() + "|" + rules.ConceptKey(a)
			if !seen[key] {
				seen[key] = true
				c.Relationships[rel]++
			}
		}
	}
	return c
}
