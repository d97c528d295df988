package engine

import (
	"slices"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/rules"
)

// deniedNarrower returns the stated absences (finding, concept key) that a
// denial of a narrower concept in the same finding makes: a finding read
// as denying both "obstructive coronary artery disease" and "coronary
// artery disease" ("no obstructive CAD") denies only the narrower one, as
// the is-a relations read a denial (it reaches down, never up). It holds
// only where the narrower concept's name the mention states holds every
// word of the broader one's and more ("obstructive CAD" over "CAD"): two
// names the mention states alike ("no prior CAD") are one denial. The
// value is the narrower concept's name, for the trace.
func (p *Program) deniedNarrower(items []evidence.Item, pairs []evidence.Pair) map[[2]string]string {
	if p.hierarchy == nil {
		return nil
	}
	denied := map[string][]string{} // finding → denied concept keys
	for _, it := range items {
		if it.Rejected == "" && !it.Present && it.Value == nil {
			denied[it.FindingID] = append(denied[it.FindingID], it.ConceptKey)
		}
	}
	var out map[[2]string]string
	for id, keys := range denied {
		if len(keys) < 2 {
			continue
		}
		for _, b := range keys {
			name := p.names[b]
			for _, up := range p.hierarchy.Broader(name) {
				k, ok := p.keys[rules.NormalizeName(up)]
				if !ok || k == b || !slices.Contains(keys, k) || !p.namesMore(statedName(pairs, id, b), b, statedName(pairs, id, k), k) {
					continue
				}
				if out == nil {
					out = map[[2]string]string{}
				}
				out[[2]string{id, k}] = name
			}
		}
	}
	return out
}

// statedName is the name of the concept key that the finding's mention
// states in full (step (iv)'s covering phrase), or "".
func statedName(pairs []evidence.Pair, finding, key string) string {
	for _, pr := range pairs {
		if pr.FindingID != finding || pr.Anchor.ConceptKey != key {
			continue
		}
		mention := pr.Text
		if pr.Clause != "" {
			mention = pr.Clause
		}
		var ph string
		if pr.Anchor.Covering != nil {
			_, ph = pr.Anchor.Covering.CoversAmong(mention, key, pr.Anchor.Names)
		} else {
			_, ph = evidence.CoversAmong(mention, pr.Anchor.Phrases, key, pr.Anchor.Names)
		}
		// Only a name the mention states word for word: a name it covers
		// by the two-thirds allowance ("recent PCI" for "no previous
		// PCI") says nothing more than the words that are there.
		if full, _ := evidence.CoversAll(mention, []string{ph}); !full {
			return ""
		}
		return ph
	}
	return ""
}

// namesMore: the narrower concept's stated name states the broader
// concept word for word ("obstructive coronary artery disease" states
// "coronary artery disease", its acronyms read as the covering reads
// them), and the broader one's stated name does not state the narrower
// one: the narrower name says more.
func (p *Program) namesMore(narrow, narrowKey, broad, broadKey string) bool {
	if narrow == "" || broad == "" {
		return false
	}
	nc, bc := p.covering[narrowKey], p.covering[broadKey]
	if nc == nil || bc == nil {
		return false
	}
	if ok, _ := bc.CoversAll(narrow); !ok {
		return false
	}
	ok, _ := nc.CoversAll(broad)
	return !ok
}

// deniedQualified returns the qualifier of a stated absence whose mention
// negates only a qualified form of the concept ("no nocturnal symptoms":
// nocturnal, a resting qualifier, that the concept's name does not carry),
// or "". Step (v) reads a stated absence so for an ABSENT condition
// (consistency's qualifier check); read as the concept's absence, the
// denial would reach down the is-a relations to every narrower concept
// (angina, inadequately controlled angina) that the record states.
func (p *Program) deniedQualified(ctext *consistency.Text, byID map[string]extract.Finding, it evidence.Item) string {
	if it.Rejected != "" || it.Present || it.Value != nil {
		return ""
	}
	f, ok := byID[it.FindingID]
	if !ok || f.Start < 0 {
		return ""
	}
	cond := consistency.Condition{Concept: it.Concept, Operator: rules.OpAbsent}
	v := ctext.At(f.Start).CheckCompiled(f.Text, p.compile(cond), consistency.Checks{Qualifier: true})
	if v.Pass || v.Check != consistency.CheckQualifier || !v.Context.Negated {
		return ""
	}
	if i := strings.Index(v.Reason, "only the '"); i >= 0 {
		q := v.Reason[i+len("only the '"):]
		if j := strings.IndexByte(q, '\''); j >= 0 {
			return "'" + q[:j] + "'"
		}
	}
	return "qualified"
}
