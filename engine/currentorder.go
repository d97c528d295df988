package engine

import (
	"regexp"
	"strings"

	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/grounding"
)

// listJoin is what joins the items of a drug list ("atorvastatin and
// bisoprolol", "aspirin, clopidogrel & statin"). Plain English.
var listJoin = regexp.MustCompile(`(?i)^[\s,]*(?:and|&|\+|/|plus|with)?[\s,]*$`)

// currentItem reports whether a finding keeps or adjusts a drug the
// patient takes (reading.json current_orders: "continue aspirin", "remain
// on bisoprolol", "reduce bisoprolol to 2.5 mg"), or is a drug listed
// right after such an item in its sentence ("continue atorvastatin and
// bisoprolol"): its drugs are taken now, under a plan heading too. A
// listed item must open with its drug's name: "continue aspirin and
// start ramipril" orders ramipril started, not continued. A finding that
// is the order alone ("carry on" before "with aspirin") heads the drug
// after it. current holds
// the findings before f already read so.
func (p *Program) currentItem(text string, f extract.Finding, findings []extract.Finding, current map[string]bool, anchors []grounding.Anchor) bool {
	r := p.reading
	if r.currentOrder == nil || f.Start < 0 || f.Start > len(text) {
		return false
	}
	names := p.drugNames(anchors)
	if names == nil {
		// An order cut off from its drug ("carry on | with aspirin"):
		// the order and nothing more heads the drug after it.
		m := r.currentOrder.FindStringIndex(f.Text)
		return m != nil && strings.Trim(f.Text[m[1]:], " \t.,:;-–") == "" && !p.currentOrderNegated(text, f)
	}
	if r.currentOrder.MatchString(f.Text) {
		return !p.currentOrderNegated(text, f)
	}
	if !opensWithName(f.Text, names) {
		return false
	}
	prev, ok := previousFinding(findings, f)
	return ok && current[prev.ID] && prev.End <= f.Start && listJoin.MatchString(text[prev.End:f.Start])
}

// currentOrderNegated: a negation right before the order in its sentence
// ("do not continue aspirin") turns it round.
func (p *Program) currentOrderNegated(text string, f extract.Finding) bool {
	r := p.reading
	if r.currentOrderNegated == nil || f.Start <= 0 || f.Start > len(text) {
		return false
	}
	before := text[strings.LastIndexAny(text[:f.Start], ".;\n")+1 : f.Start]
	return r.currentOrderNegated.MatchString(before)
}

// opensWithName reports whether a finding's words open with one of the
// names (ignoring case and list punctuation).
func opensWithName(words string, names []string) bool {
	w := strings.ToLower(strings.TrimLeft(words, " \t-–•*:,"))
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		if n != "" && strings.HasPrefix(w, n) && (len(w) == len(n) || !isWordByte(w[len(n)])) {
			return true
		}
	}
	return false
}

// previousFinding is the finding that ends last before f starts.
func previousFinding(findings []extract.Finding, f extract.Finding) (extract.Finding, bool) {
	best, ok := extract.Finding{}, false
	for _, o := range findings {
		if o.ID == f.ID || o.Start < 0 || o.End > f.Start {
			continue
		}
		if !ok || o.End > best.End {
			best, ok = o, true
		}
	}
	return best, ok
}

// drugNames: the names and pack phrases of the medications among a
// finding's anchors (nil when none is a drug), the words an order of it
// is looked for by.
func (p *Program) drugNames(anchors []grounding.Anchor) []string {
	var names []string
	for _, a := range anchors {
		if p.medications[a.ConceptKey] {
			names = append(append(names, a.Concept), p.phrases[a.ConceptKey]...)
		}
	}
	return names
}
