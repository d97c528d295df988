package rules

import (
	"fmt"
	"sort"
	"strings"
)

// What a recorded intolerance bars is pack data in meta/hierarchy.json,
// beside the relations the deriver reads, so that withholding a row and
// deriving a class from a drug use one membership relation.

// Component says that giving Concept gives each concept Of: a combination
// regimen ("dual antiplatelet therapy" gives aspirin and a P2Y12
// inhibitor), so a barred component bars the regimen; a procedure gives
// what it uses (CCTA an iodinated contrast medium), so a barred component
// puts a caution on performing it.
type Component struct {
	Concept string   `json:"concept"`
	Of      []string `json:"of"`
	Source  string   `json:"source"`
}

// Bar says that an active problem Concept ("contraindication to
// beta-blocker") bars giving Drug, as a not-tolerated Drug would.
type Bar struct {
	Concept string `json:"concept"`
	Drug    string `json:"drug"`
	Source  string `json:"source"`
}

// AgentList names the single agents of a drug class that the lexicon
// reads as the class ("metoprolol" for beta-blocker): taking one is taking
// the class, but not tolerating one bars only that agent, not the class.
type AgentList struct {
	Class  string   `json:"class"`
	Agents []string `json:"agents"`
	Source string   `json:"source"`
}

// Declared is a drug class no rule names, declared so that relations,
// agents and bars may name it and the program reads it ("statin": an
// allergy to statins bars the high-intensity statin a row gives).
type Declared struct {
	Concept string `json:"concept"`
	Source  string `json:"source"`
}

// checkBarring validates the components, bars and agents of a hierarchy file.
func (h *Hierarchy) checkBarring(name string) error {
	for i, c := range h.Components {
		if NormalizeName(c.Concept) == "" || len(c.Of) == 0 || strings.TrimSpace(c.Source) == "" {
			return fmt.Errorf("%s: components[%d]: give concept, the concepts in of, and source", name, i)
		}
		for _, o := range c.Of {
			if NormalizeName(o) == "" || NormalizeName(o) == NormalizeName(c.Concept) {
				return fmt.Errorf("%s: components[%d] (%s): each of must name another concept", name, i, c.Concept)
			}
		}
	}
	for i, b := range h.Bars {
		if NormalizeName(b.Concept) == "" || NormalizeName(b.Drug) == "" || strings.TrimSpace(b.Source) == "" {
			return fmt.Errorf("%s: bars[%d]: concept, drug and source are required", name, i)
		}
	}
	for i, a := range h.Agents {
		if NormalizeName(a.Class) == "" || len(a.Agents) == 0 || strings.TrimSpace(a.Source) == "" {
			return fmt.Errorf("%s: agents[%d]: class, agents and source are required", name, i)
		}
	}
	for field, list := range map[string][]Declared{"classes": h.Classes, "partial": h.Partial} {
		for i, d := range list {
			if NormalizeName(d.Concept) == "" || strings.TrimSpace(d.Source) == "" {
				return fmt.Errorf("%s: %s[%d]: concept and source are required", name, field, i)
			}
		}
	}
	return nil
}

// PartialIntolerance reports whether the pack declares intolerance of a
// drug usually partial (dose-related muscle symptoms of a statin), so
// that it cautions the rows that give the drug and withholds none.
func (h *Hierarchy) PartialIntolerance(concept string) bool {
	if h == nil {
		return false
	}
	n := NormalizeName(concept)
	for _, d := range h.Partial {
		if NormalizeName(d.Concept) == n {
			return true
		}
	}
	return false
}

// CountsAs returns every concept a given one counts as, transitively and
// normalised: its is-a broader concepts and the concepts whose composite
// definition admits it alone (an any_of member: clopidogrel is an
// antiplatelet therapy by definition, not by an is-a relation). These are
// the concepts the deriver draws from a stated concept by itself
// (engine's TestCountsAsIsWhatDerivationDraws holds the two together).
func (h *Hierarchy) CountsAs(concept string) []string {
	if h == nil {
		return nil
	}
	// A membership the composite excludes for this concept does not hold:
	// DAPT is an antiplatelet therapy, but as a combination therapy no
	// single antithrombotic therapy.
	self := map[string]bool{NormalizeName(concept): true}
	for _, b := range h.up[NormalizeName(concept)] {
		self[b] = true
	}
	excluded := func(c Composite) bool {
		for _, u := range c.Unless {
			for _, l := range u.Leaves() {
				if l.Concept != "" && self[NormalizeName(l.Concept)] {
					return true
				}
			}
		}
		return false
	}
	seen := map[string]bool{}
	var walk func(n string)
	walk = func(n string) {
		for _, b := range h.up[n] {
			if !seen[b] {
				seen[b] = true
				walk(b)
			}
		}
		for _, c := range h.Composites {
			if excluded(c) {
				continue
			}
			for _, m := range c.AnyOf {
				if m.Concept != "" && m.Window == nil && NormalizeName(m.Concept) == n {
					if b := NormalizeName(c.Concept); !seen[b] && b != NormalizeName(concept) {
						seen[b] = true
						walk(b)
					}
				}
			}
		}
	}
	walk(NormalizeName(concept))
	out := make([]string, 0, len(seen))
	for b := range seen {
		out = append(out, b)
	}
	sort.Strings(out)
	return out
}

// ComponentsOf returns the concepts giving a concept gives (normalised),
// or nil when it is no declared combination.
func (h *Hierarchy) ComponentsOf(concept string) []string {
	if h == nil {
		return nil
	}
	n := NormalizeName(concept)
	for _, c := range h.Components {
		if NormalizeName(c.Concept) == n {
			out := make([]string, len(c.Of))
			for i, o := range c.Of {
				out[i] = NormalizeName(o)
			}
			return out
		}
	}
	return nil
}

// BarredDrug returns the drug an active problem concept bars, or "".
func (h *Hierarchy) BarredDrug(concept string) string {
	if h == nil {
		return ""
	}
	n := NormalizeName(concept)
	for _, b := range h.Bars {
		if NormalizeName(b.Concept) == n {
			return b.Drug
		}
	}
	return ""
}

// AgentNamed returns the agent of class the words name ("Metoprolol
// 50 mg" names metoprolol of beta-blocker), or "" when they name none
// (the class itself).
func (h *Hierarchy) AgentNamed(class, words string) string {
	if h == nil {
		return ""
	}
	n, w := NormalizeName(class), " "+strings.Join(CueWords(words), " ")+" "
	for _, a := range h.Agents {
		if NormalizeName(a.Class) != n {
			continue
		}
		for _, ag := range a.Agents {
			if strings.Contains(w, " "+strings.Join(CueWords(ag), " ")+" ") {
				return ag
			}
		}
	}
	return ""
}
