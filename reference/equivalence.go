package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
)

// Equivalences is data/equivalences.json: groups of concepts judged to
// name the same finding, merged in the sensitivity variant of the
// reference (as the reference system merged its two SNOMED CT codes for
// chronic coronary syndrome). NoneReason says why no group is listed.
type Equivalences struct {
	Version    int     `json:"version"`
	Note       string  `json:"note,omitempty"`
	Groups     []Group `json:"groups"`
	NoneReason string  `json:"none_reason,omitempty"`
}

// Group is one set of equivalent concepts, by canonical name.
type Group struct {
	Concepts []string `json:"concepts"`
	Reason   string   `json:"reason"`
}

// ParseEquivalences decodes the equivalence file; name is used in errors.
func ParseEquivalences(name string, data []byte) (*Equivalences, error) {
	var e Equivalences
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if e.Version != 1 {
		return nil, fmt.Errorf("%s: version %d, want 1", name, e.Version)
	}
	for i, g := range e.Groups {
		if len(g.Concepts) < 2 || g.Reason == "" {
			return nil, fmt.Errorf("%s: groups[%d]: list at least two concepts and a reason", name, i)
		}
	}
	if len(e.Groups) == 0 && e.NoneReason == "" {
		return nil, fmt.Errorf("%s: no groups: say why in none_reason", name)
	}
	return &e, nil
}

// Candidate is a pair of concept keys that may name one finding, found
// mechanically; whether to merge them is a judgement recorded in
// equivalences.json.
type Candidate struct {
	Keys  []string `json:"keys"`
	Names []string `json:"names"`
	Why   string   `json:"why"`
}

// Candidates scans the pack (and lexicon, when given) for concepts that
// may be one finding under two keys: one canonical name carried by two
// keys (coded in some rows, uncoded or coded differently in others — the
// reference system's CCS split), and a lexicon term naming two concepts.
func Candidates(p *rules.Pack, lex *lexicon.Lexicon) []Candidate {
	byName := map[string][]string{}
	keyName := map[string]string{}
	for _, r := range p.Rules() {
		for _, c := range r.Rule.Conditions {
			n := rules.NormalizeName(c.Concept())
			k := rules.ConceptKey(c)
			if _, ok := keyName[k]; !ok {
				keyName[k] = c.Concept()
			}
			if !containsStr(byName[n], k) {
				byName[n] = append(byName[n], k)
			}
		}
	}
	var out []Candidate
	for n, ks := range byName {
		if len(ks) > 1 {
			sort.Strings(ks)
			out = append(out, Candidate{Keys: ks, Names: []string{n}, Why: "one concept name under several concept keys"})
		}
	}
	if lex != nil {
		for _, c := range lex.Conflicts() {
			var keys, names []string
			for _, name := range c.Concepts {
				names = append(names, name)
				for _, k := range byName[rules.NormalizeName(name)] {
					keys = append(keys, k)
				}
			}
			if len(keys) > 1 {
				out = append(out, Candidate{Keys: keys, Names: names, Why: fmt.Sprintf("lexicon term %q names each", c.Term)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i].Keys, ",") < strings.Join(out[j].Keys, ",") })
	return out
}

// MergeMap maps every key of a merged group to the group's first key.
// Concepts are resolved by name to all their keys, so a name carried by
// two keys merges as well; one name under several keys is always merged,
// since it is one finding by construction. Unknown names are an error.
func MergeMap(p *rules.Pack, e *Equivalences) (map[string]string, error) {
	byName := map[string][]string{}
	for _, r := range p.Rules() {
		for _, c := range r.Rule.Conditions {
			n := rules.NormalizeName(c.Concept())
			k := rules.ConceptKey(c)
			if !containsStr(byName[n], k) {
				byName[n] = append(byName[n], k)
			}
		}
	}
	m := map[string]string{}
	var groups [][]string
	for _, ks := range byName {
		if len(ks) > 1 {
			groups = append(groups, ks)
		}
	}
	if e != nil {
		for i, g := range e.Groups {
			var keys []string
			for _, name := range g.Concepts {
				ks := byName[rules.NormalizeName(name)]
				if len(ks) == 0 {
					return nil, fmt.Errorf("equivalences: groups[%d]: concept %q is not tested by any rule; use a canonical concept name", i, name)
				}
				keys = append(keys, ks...)
			}
			groups = append(groups, keys)
		}
	}
	// Union-find, so overlapping groups join into one.
	parent := map[string]string{}
	var find func(string) string
	find = func(k string) string {
		p, ok := parent[k]
		if !ok || p == k {
			parent[k] = k
			return k
		}
		r := find(p)
		parent[k] = r
		return r
	}
	for _, ks := range groups {
		for _, k := range ks[1:] {
			a, b := find(ks[0]), find(k)
			if a == b {
				continue
			}
			if b < a { // the smallest key names the merged concept
				a, b = b, a
			}
			parent[b] = a
		}
	}
	for k := range parent {
		if r := find(k); r != k {
			m[k] = r
		}
	}
	return m, nil
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
