package engine

import (
	"regexp"
	"strings"
	"time"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// laterOrder: an order that names a time to come, in its clause or before
// it in its sentence ("stop clopidogrel at 12 months", "continue both
// until 11/2026, then stop clopidogrel", "in 3 months", "once healed")
// plans a stop; it changes nothing now. Plain English.
var laterOrder = regexp.MustCompile(`(?i)\b(?:at|after|from|by|once|until|till|when|if|before|then|thereafter|later|afterwards|subsequently|on completion of)\b|\bin\s+\d`)

// stopOrder reports whether a medication finding is the document's order
// to stop its drug now ("STOP ISMN" under "Recommend:"; reading.json
// stop_orders): its first words order the stop, no negation comes right
// before them ("do not stop"), and its clause names no time to come.
func (p *Program) stopOrder(text string, f extract.Finding, clause string, date time.Time, names []string) bool {
	r := p.reading
	if r.stopOrder == nil {
		return false
	}
	if !r.stopOrder.MatchString(f.Text) && !p.stopOrderNamed(f.Text, names) {
		return p.stopReferred(text, f, date)
	}
	before := ""
	if f.Start > 0 && f.Start <= len(text) {
		before = text[strings.LastIndexAny(text[:f.Start], ".;\n")+1 : f.Start]
		before = afterArrow(before)
	}
	if i := strings.Index(clause, f.Text); i > 0 {
		clause = afterArrow(clause[:i]) + clause[i:]
	}
	if r.stopOrderNegated != nil && r.stopOrderNegated.MatchString(before) {
		return false
	}
	// "STOP clopidogrel now - should have stopped at 6 months": a now
	// word in the order's own words (reading.json now cues) dates it to
	// the document, whatever the rest of its clause says of other times.
	now := r.now != nil && r.now.MatchString(f.Text)
	if laterOrder.MatchString(before) || !now && laterOrder.MatchString(clause) {
		return false
	}
	if w := p.whenOf(clause, date); w != nil && w.From.After(noon(date)) {
		return false
	}
	return true
}

// afterArrow: an arrow opens the order's own clause ("ASA not indicated
// this far out from PCI -> STOP aspirin"); what precedes it is the reason,
// whose words ("from PCI") date nothing to come.
func afterArrow(s string) string {
	for _, arrow := range trendArrows {
		if i := strings.LastIndex(s, arrow); i >= 0 {
			s = s[i+len(arrow):]
		}
	}
	return s
}

// stopReferred: later in the drug's sentence an order stops "both",
// "them" or "these" (reading.json stop_orders.refers), the drugs the
// sentence named before it: "Nitrates (ISMN and GTN) are likely to worsen
// the gradient - recommend stopping both now". The order is the
// document's, now, as stopOrder reads one that opens its finding: no
// negation right before it, no time to come in its sentence.
func (p *Program) stopReferred(text string, f extract.Finding, date time.Time) bool {
	r := p.reading
	if r.stopRefer == nil || f.End <= 0 || f.End > len(text) {
		return false
	}
	rest := text[f.End:]
	if i := strings.IndexAny(rest, ".;\n"); i >= 0 {
		rest = rest[:i]
	}
	loc := r.stopRefer.FindStringIndex(rest)
	if loc == nil {
		return false
	}
	if r.stopOrderNegated != nil && r.stopOrderNegated.MatchString(rest[:loc[0]]) {
		return false
	}
	order := rest[loc[0]:]
	if laterOrder.MatchString(order) {
		return false
	}
	if w := p.whenOf(order, date); w != nil && w.From.After(noon(date)) {
		return false
	}
	return true
}

// stopOrderWords are the words of a finding's stop order for the trace:
// the finding itself, or for an order that points back to it, the finding
// and the order ("ISMN … stopping both").
func (p *Program) stopOrderWords(text string, f extract.Finding) string {
	r := p.reading
	if r.stopOrder == nil || r.stopOrder.MatchString(f.Text) || r.stopRefer == nil || f.End <= 0 || f.End > len(text) {
		return f.Text
	}
	rest := text[f.End:]
	if i := strings.IndexAny(rest, ".;\n"); i >= 0 {
		rest = rest[:i]
	}
	if m := r.stopRefer.FindString(rest); m != "" {
		return f.Text + " … " + m
	}
	return f.Text
}

// stopSupersede drops the taken readings of drugs the document orders
// stopped (stops: drug key → the ordering finding's words): the list
// said what the patient took until the order, and the order is the
// document's last word on the drug. Each drop is traced.
func stopSupersede(ev, listed []eval.Evidence, stops map[string]string, tr *Trace, dropped *[]patient.Dropped) ([]eval.Evidence, []eval.Evidence) {
	if len(stops) == 0 {
		return ev, listed
	}
	superseded := func(e eval.Evidence) bool {
		by, ok := stops[e.ConceptKey]
		return ok && e.Present && e.Value == nil && e.Via == "" && e.Text != by
	}
	why := func(e eval.Evidence) string {
		return "'" + stops[e.ConceptKey] + "' orders the drug stopped, so it is not taken now"
	}
	return dropSuperseded(ev, superseded, why, tr, dropped), dropSuperseded(listed, superseded, nil, nil, nil)
}

// dropSuperseded keeps the evidence superseded does not reject; with why,
// each drop is traced and listed among the model's dropped readings.
func dropSuperseded(in []eval.Evidence, superseded func(eval.Evidence) bool, why func(eval.Evidence) string, tr *Trace, dropped *[]patient.Dropped) []eval.Evidence {
	out := in[:0:0]
	for _, e := range in {
		if !superseded(e) {
			out = append(out, e)
			continue
		}
		if why != nil {
			w := why(e)
			tr.Rejected = append(tr.Rejected, Rejection{FindingID: e.ID, Check: "formatter", Reason: e.ConceptKey + ": " + w})
			*dropped = append(*dropped, patient.Dropped{Text: e.Text, Reader: "text", Reason: w})
		}
	}
	return out
}

// stopLater reports whether a medication list item's only not-taken words
// order its drug stopped at a time to come ("Aspirin 75 mg - continue for
// 1 month only (stop 04/07/2025)", "aspirin 81 mg - STOP after
// 10/30/2025", "clopidogrel - continue as single antiplatelet after
// aspirin stops"): the list states the drug taken now, and the stop is
// planned (laterOrder, or a date after the document's). A stop with no
// time ("Aspirin - stop"), or any other not-taken word beside it
// ("stopped", "held"), leaves the item not taken.
func (p *Program) stopLater(item string, date time.Time) bool {
	r := p.reading
	if r.stopWord == nil || !r.stopWord.MatchString(item) {
		return false
	}
	rest := r.stopWord.ReplaceAllString(item, " ")
	if r.notTakenIn(rest) {
		return false
	}
	if laterOrder.MatchString(rest) {
		return true
	}
	w := p.whenOf(item, date)
	return w != nil && w.From.After(noon(date))
}

// listedStop reports whether finding f is an item of a medication list
// (a section whose drugs are taken, or a list of drugs stopped,
// meta/sections.json): a stop it states is the list's word on the drug
// now.
func (p *Program) listedStop(f extract.Finding) bool {
	k := p.doc.Kind(f)
	return k != nil && (k.Medication == rules.SectionTaking || k.Medication == rules.SectionStopped)
}

// stoppedListed reports whether finding f lies in a list of drugs stopped
// or tried before ("Stopped: amlodipine, ISMN", "Tried/stopped: ISMN -
// headaches"; a section whose medication is "stopped"): the heading
// states its drugs stopped, as a stopped cue in the item's own words
// would.
func (p *Program) stoppedListed(f extract.Finding) bool {
	k := p.doc.Kind(f)
	return k != nil && k.Medication == rules.SectionStopped
}

// historySupersede drops the taken readings, under a history heading
// (a section whose status is past), of drugs the medication list states
// stopped (listStops: drug key → the list item's words): "Bg: CCS III
// despite BB + ISMN" tells what was taken then, and "Meds: ISMN stopped
// (revascularised)" what is taken now. A reading outside a history
// section is left for the evaluator to weigh. Each drop is traced.
func (p *Program) historySupersede(ev, listed []eval.Evidence, listStops map[string]string, byID map[string]extract.Finding, tr *Trace, dropped *[]patient.Dropped) ([]eval.Evidence, []eval.Evidence) {
	if len(listStops) == 0 {
		return ev, listed
	}
	superseded := func(e eval.Evidence) bool {
		// The stop item itself reads absent; a history reading of the
		// same words ("amlodipine") is another finding's.
		_, ok := listStops[e.ConceptKey]
		if !ok || !e.Present || e.Value != nil || e.Via != "" {
			return false
		}
		f, ok := byID[e.ID]
		if !ok {
			return false
		}
		// So is a stay's own account of the presentation (the pack's
		// stay_sections: "Diagnosis: ... angina despite bisoprolol +
		// ISMN" over a discharge list's "ISMN - STOPPED").
		k := p.doc.Kind(f)
		return k != nil && (k.Status == rules.SectionPast || k.Status == "" && p.pack.Sections != nil && containsFold(p.pack.Sections.Frame.StaySections, k.Kind))
	}
	why := func(e eval.Evidence) string {
		return "the medication list states it stopped ('" + listStops[e.ConceptKey] + "'); the history tells what was taken then"
	}
	return dropSuperseded(ev, superseded, why, tr, dropped), dropSuperseded(listed, superseded, nil, nil, nil)
}

// laterStopped returns the taken readings (finding id, drug key) of a
// drug that the text states stopped further on (stoppedAt: drug key →
// where a finding states it stopped, outside a medication list): "on
// aspirin and prasugrel after the 2019 stent; prasugrel stopped 2020"
// tells what was taken then, and the stop what is taken now, so the
// reading is of the past (the model's fact is a history). A regimen read
// before the stop of one of its components is over too ("DAPT with
// aspirin and prasugrel; prasugrel stopped 2020": meta/hierarchy.json
// components, the stopped drug counting as the component's class). An
// item of a medication list, an order keeping the drug (current) and a
// reading after the stop are left as they are.
func (p *Program) laterStopped(ev []eval.Evidence, stoppedAt map[string][]int, byID map[string]extract.Finding, current map[string]bool) map[[2]string]bool {
	if len(stoppedAt) == 0 {
		return nil
	}
	// last: per concept name (normalised), the last place a drug it
	// counts as, or is, is stated stopped.
	last := map[string]int{}
	for key, at := range stoppedAt {
		pos := -1
		for _, a := range at {
			pos = max(pos, a)
		}
		names := []string{rules.NormalizeName(p.names[key])}
		if p.hierarchy != nil {
			names = append(names, p.hierarchy.CountsAs(p.names[key])...)
		}
		for _, n := range names {
			if old, ok := last[n]; !ok || pos > old {
				last[n] = pos
			}
		}
	}
	stopOf := func(e eval.Evidence) int {
		name := rules.NormalizeName(p.names[e.ConceptKey])
		if _, ok := stoppedAt[e.ConceptKey]; ok {
			return last[name]
		}
		pos := -1
		for _, c := range p.regimenMembers(name) {
			if at, ok := last[c]; ok && at > pos {
				pos = at
			}
		}
		return pos
	}
	var out map[[2]string]bool
	for _, e := range ev {
		if !e.Present || e.Value != nil || e.Via != "" || !p.medications[e.ConceptKey] || current[e.ID] {
			continue
		}
		f, ok := byID[e.ID]
		if !ok || f.Start < 0 {
			continue
		}
		if k := p.doc.Kind(f); k != nil && k.Medication == rules.SectionTaking {
			continue
		}
		if stopOf(e) > f.Start {
			if out == nil {
				out = map[[2]string]bool{}
			}
			out[[2]string{e.ID, e.ConceptKey}] = true
		}
	}
	return out
}

// regimenMembers are the drugs a regimen concept is made of (normalised):
// its components (meta/hierarchy.json components) and the concept
// members of its composite definition ("combination antithrombotic
// therapy" is two of aspirin, a P2Y12 inhibitor, an OAC...). A regimen
// stated before one of them is stopped is the regimen before the change.
func (p *Program) regimenMembers(name string) []string {
	if p.hierarchy == nil {
		return nil
	}
	out := p.hierarchy.ComponentsOf(name)
	for _, c := range p.hierarchy.Composites {
		if rules.NormalizeName(c.Concept) != name {
			continue
		}
		for _, l := range c.Expr.Leaves() {
			if l.Concept != "" && l.Window == nil {
				out = append(out, rules.NormalizeName(l.Concept))
			}
		}
	}
	return out
}

// statesStop reports whether finding f states its drug (named by one of
// names) stopped as a thing done: the drug is named before the stopped
// cue ("prasugrel stopped 2020", "DAPT (...) completed"), not after it
// ("asked about stopping the prasugrel", "stopped when X started" names
// another drug's stop), and no word before the drug in its sentence puts
// the stop in time to come ("after aspirin is stopped"; laterOrder).
func (p *Program) statesStop(text string, f extract.Finding, names []string) bool {
	if p.reading.stopped == nil || f.Start < 0 || f.End > len(text) || f.Start >= f.End {
		return false
	}
	lower := strings.ToLower(f.Text)
	first := -1
	for _, n := range names {
		for _, sp := range namedAll(lower, f.Text, n) {
			if first < 0 || sp[0] < first {
				first = sp[0]
			}
		}
	}
	if first < 0 {
		return false
	}
	before := sentenceBefore(text, f.Start)
	if k := strings.LastIndexAny(before, ",:(-"); k >= 0 {
		before = before[k+1:] // the drug's own clause
	}
	if laterOrder.MatchString(before + " " + f.Text[:first]) {
		return false
	}
	if m := p.reading.stopped.FindStringIndex(f.Text); m != nil {
		// "to be stopped at 6 months", "can be stopped": a stop to come.
		w := rules.CueWords(f.Text[:m[0]])
		return m[0] > first && (len(w) == 0 || w[len(w)-1] != "be")
	}
	return true // the cue follows the finding (stoppedItem, stoppedNext)
}

// stoppedNow reports whether finding f states its drug stopped now, as a
// thing done at the document's date ("clopidogrel stopped today"): a
// stop statesStop accepts with a now word in the finding's own words
// (reading.json now cues). Under a plan heading it is the plan's done
// decision, no intention.
func (p *Program) stoppedNow(text string, f extract.Finding, names []string) bool {
	return p.reading.now != nil && p.reading.now.MatchString(f.Text) && p.stoppedItem(text, f) && p.statesStop(text, f, names)
}

// stopOrderNamed reports whether a finding opens with a stop cue that
// orders the stop only with a name of the drug right after it
// (reading.json stop_orders name_next): "D/c warfarin" stops warfarin;
// "D/c on aspirin" or "D/c home" is the discharge the abbreviation also
// means.
func (p *Program) stopOrderNamed(words string, names []string) bool {
	r := p.reading
	if r.stopOrderNamed == nil {
		return false
	}
	m := r.stopOrderNamed.FindStringIndex(words)
	if m == nil {
		return false
	}
	lower := strings.ToLower(words)
	for _, n := range names {
		for _, sp := range namedAll(lower, words, n) {
			if sp[0] == m[1] {
				return true
			}
		}
	}
	return false
}
