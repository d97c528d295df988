package engine

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/rules"
)

// ViaRecency starts the Via (trace text) of an item read as the "recent"
// form of a stated event ("DES 1 week ago" → recent percutaneous coronary
// intervention).
const ViaRecency = "recency: "

// recencyStage reads a dated event as the pack's recent form of it: how
// far back is recent and how the recent form is named are pack data
// (meta/reading.json recency); a year alone never counts (the case has no
// date).
type recencyStage struct{ p *Program }

func (recencyStage) Name() string          { return "recency" }
func (recencyStage) Reads() read.Input     { return read.Evidence }
func (recencyStage) Emits() []patient.Kind { return []patient.Kind{patient.KindProcedure} }

// Satisfies: a dated event states its recency, the qualifier of the
// recent form.
func (recencyStage) Satisfies(eval.Cond) consistency.Checks {
	return consistency.Checks{Qualifier: true}
}

func (r recencyStage) Read(c *read.Case) []patient.Fact {
	var out []patient.Fact
	for _, e := range append(r.p.recencyEvidence(c.Evidence), r.p.cutDateEvidence(c.Text, c.Findings)...) {
		out = append(out, read.Fact(r, patient.KindProcedure, e))
	}
	return out
}

var recencyRE = regexp.MustCompile(`(?i)\b(?:(today|yesterday|tonight|this morning|this afternoon|this week|this admission|last night|last week|last month|earlier this (?:week|month)|recently|just now)|(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several)\s+(day|days|week|weeks|wk|wks|month|months|mo)\s+(?:ago|earlier|previously|before|prior))\b`)

var numberWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "few": 3, "several": 5}

// recentPhrase returns the first time phrase of text that dates an event
// within windowDays, or "".
func recentPhrase(text string, windowDays int) string {
	for _, m := range recencyRE.FindAllStringSubmatch(text, -1) {
		if m[1] != "" {
			return m[0]
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			n = numberWords[strings.ToLower(m[2])]
		}
		days := n
		switch u := strings.ToLower(m[3]); {
		case strings.HasPrefix(u, "w"):
			days = 7 * n
		case strings.HasPrefix(u, "mo"):
			days = 30 * n
		}
		if n > 0 && days <= windowDays {
			return m[0]
		}
	}
	return ""
}

// recencyEvidence reads an affirmed event the finding dates within the
// window as the pack's "recent <event>" concept, when the pack has one.
func (p *Program) recencyEvidence(ev []eval.Evidence) []eval.Evidence {
	if p.reading.recentPrefix == "" {
		return nil
	}
	var out []eval.Evidence
	seen := map[[2]string]bool{}
	for _, e := range ev {
		if !e.Present || e.DerivedBy != "" {
			continue
		}
		name := p.names[e.ConceptKey]
		if name == "" {
			continue
		}
		key, ok := p.keys[rules.NormalizeName(p.reading.recentPrefix+name)]
		if !ok || seen[[2]string{e.ID, key}] {
			continue
		}
		ph := recentPhrase(e.Text, p.reading.recentDays)
		if ph == "" {
			continue
		}
		seen[[2]string{e.ID, key}] = true
		out = append(out, eval.Evidence{ID: e.ID, ConceptKey: key, Concept: p.names[key], Text: e.Text, Present: true,
			Via: ViaRecency + "'" + ph + "' dates " + name, When: e.When, Done: e.Done})
	}
	return out
}

// cutDateEvidence reads a recent date the splitter cut off from its event
// at a joining word: in "LMS bifurcation PCI with two-stent technique
// 6 weeks ago" the date closes the second fragment but dates the PCI the
// first one states. The date must end its fragment, the two fragments
// must be joined only by "with"/"w/"/"+"/"plus", the first must state
// exactly one event with a recent form (word for word), be asserted,
// carry no date of its own and hold no option cue ("PCI discussed with
// the patient yesterday" dates the talk).
func (p *Program) cutDateEvidence(text string, findings []extract.Finding) []eval.Evidence {
	if p.reading.recentPrefix == "" {
		return nil
	}
	var out []eval.Evidence
	seen := map[[2]string]bool{}
	for i := 1; i < len(findings); i++ {
		f, g := findings[i-1], findings[i]
		if f.Start < 0 || g.Start < f.End || g.Start > len(text) || !cutJoin.MatchString(text[f.End:g.Start]) {
			continue
		}
		ph := recentPhrase(g.Text, p.reading.recentDays)
		if ph == "" || !strings.HasSuffix(strings.TrimRight(g.Text, " )."), ph) {
			continue
		}
		if recentPhrase(f.Text, p.reading.recentDays) != "" || datedElse.MatchString(f.Text) || !asserted(text, f) {
			continue
		}
		if p.doc != nil && p.doc.Cue(rules.CueOption, f.Text) != "" {
			// "PCI discussed with the patient yesterday": the date is
			// the talk's; an event weighed as an option is not done.
			continue
		}
		var recent []string // keys of the recent forms
		var names []string
		for _, a := range p.verbatimAnchors(f.Text) {
			if k, ok := p.keys[rules.NormalizeName(p.reading.recentPrefix+a.Concept)]; ok {
				recent = append(recent, k)
				names = append(names, a.Concept)
			}
		}
		if len(recent) != 1 || seen[[2]string{f.ID, recent[0]}] {
			continue
		}
		seen[[2]string{f.ID, recent[0]}] = true
		out = append(out, eval.Evidence{ID: f.ID, ConceptKey: recent[0], Concept: p.names[recent[0]], Text: f.Text, Present: true,
			Via: ViaRecency + "'" + ph + "' (in '" + g.Text + "') dates " + names[0]})
	}
	return out
}

// cutJoin: the separator the splitter dropped between an event and the
// detail that carries its date.
var cutJoin = regexp.MustCompile(`(?i)^\s*(?:with|w/|\+|plus)\s*$`)

// datedElse: a year or a phrase dating an event outside the window.
var datedElse = regexp.MustCompile(`(?i)\b(?:19|20)\d\d\b|\b(?:years?|yrs?)\s+ago\b|\bremote\b|\bprevious\b|\bprior\b|\bhistory of\b`)
