package engine

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
)

// reading is the pack's reading vocabulary (rules.Reading,
// meta/reading.json) compiled once when the program is built. A pack
// without it has readers that read nothing.
type reading struct {
	ungrounded        []*regexp.Regexp
	senses            []sense
	sites             []site
	notTaken, stopped *cueMatcher
	// upTitrated: a medication item's words raising its dose now
	// (reading.json up_titrated; upTitratedTo).
	upTitrated *cueMatcher
	// begunAfter, begunBefore: the words that begin a drug now, after
	// its name and before it (reading.json begun_now; begunNow).
	begunAfter, begunBefore *cueMatcher
	// stoppedFor: adverse effects that, after a stopped cue in a drug's
	// list item, say it was stopped as not tolerated (stopped_for).
	stoppedFor *cueMatcher
	// stopOrder: a finding opening with an order to stop its drug
	// (reading.json stop_orders); stopOrderNegated: the words before it
	// that turn it round ("do not stop").
	stopOrder, stopOrderNegated *regexp.Regexp
	// stopOrderNamed: a finding opening with a stop cue that orders the
	// stop only with the drug's name right after it (stop_orders
	// name_next: "D/c warfarin", not "D/c on aspirin").
	stopOrderNamed *regexp.Regexp
	// stopRefer: a stop order whose object points back to the drugs
	// named before it in its sentence ("stopping both").
	stopRefer *regexp.Regexp
	stopWord  *regexp.Regexp // a stop cue anywhere (stopLater)
	// currentOrder: a finding opening with an order that keeps or adjusts
	// its drug (reading.json current_orders); currentOrderNegated: the
	// words before it that turn it round ("do not continue").
	currentOrder, currentOrderNegated *regexp.Regexp
	// switched, switchedTo: a done change of drug and the word before
	// the drug now taken (reading.json switched).
	switched, switchedTo *cueMatcher
	// switchedDirect: the switch cues whose direct object is the drug
	// stopped (reading.json switched.direct)
	switchedDirect *regexp.Regexp
	// switchedFrom: the word right after a switch cue that names the drug
	// stopped, when no "to" word follows (reading.json switched.from).
	switchedFrom *regexp.Regexp
	// switchOrder: a finding opening with an order to switch its drug now
	// (reading.json switched.orders).
	switchOrder *regexp.Regexp
	// notTakenNegated matches the words right before a not-taken cue that
	// turn it into its opposite ("do not stop").
	notTakenNegated *regexp.Regexp
	refractory      *refractoryVocab
	recentDays      int
	recentPrefix    string
	demographics    []demographicShape
	anatomyKept     []string // lower case
	// counts: counts out of a total and the measures they count
	// (reading.json counts), or nil.
	counts *countVocab

	// past, pastAfter: words stating a condition of the past, before it
	// (among the first pastLead words) and after it; pastNegated: the
	// words right before a past cue that make it a present state's
	// duration ("2-month history of"); now: words dating a finding to the
	// document's date; plausible: value ranges by normalised concept.
	past, pastAfter *cueMatcher
	pastNegated     *regexp.Regexp
	now             *cueMatcher
	// earlier: words stating a value as an earlier one of its measure
	// (now.earlier: "baseline LVEF 30%").
	earlier *cueMatcher
	// later: words opening a later value of the measure before it
	// (now.later: "improved to 50%").
	later *cueMatcher
	// pastEnds: words ending a past cue's reach; pastDrug: the past cues
	// of a drug (past.cues and past.drug); pastPresent: words saying the
	// state goes on now.
	pastEnds, pastDrug, pastPresent *cueMatcher
	// pastAdjacent: the past cues that date only a concept right after them.
	pastAdjacent map[string]bool
	pastLead     int
	plausible    map[string]rules.Plausible
	// reference: a target or reference cue and the value it writes
	// (references), or nil.
	reference *regexp.Regexp
	// scales: the plausible ranges of a concept measured on several
	// scales, by concept key and canonical unit (evidence.Anchor.Scales).
	scales map[string]map[string][2]float64
	// otherSetting, sameSetting: plausible's setting words, by normalised
	// concept.
	otherSetting, sameSetting map[string]*regexp.Regexp
	// undatedDays: how long before the document's date a dated value is
	// superseded by the document's own undated one
	// (now.undated_supersedes_days).
	undatedDays int
	// validFor: days a dated value stays current, by normalised concept
	// (now.valid_for).
	validFor map[string]int
}

// locatedf is an error about the pack's reading vocabulary.
func locatedf(format string, args ...any) error {
	return fmt.Errorf("%s: %s", rules.ReadingFile, fmt.Sprintf(format, args...))
}

// site: a vessel pattern (the anatomy reader's), "" for none.
func compileReading(r *rules.Reading, site string) (*reading, error) {
	out := &reading{}
	if r == nil {
		return out, nil
	}
	out.ungrounded = compileUngrounded(r.Ungrounded, site)
	out.senses = compileSenses(r.Senses)
	out.sites = compileSites(r.Sites)
	out.counts = compileCounts(r.Counts)
	cues := func(l *rules.CueList) *cueMatcher {
		if l == nil {
			return nil
		}
		return newCueMatcher(l.Cues)
	}
	out.notTaken, out.stopped, out.now = cues(r.NotTaken), cues(r.Stopped), cues(r.Now.List())
	out.upTitrated = cues(r.UpTitrated)
	if bn := r.BegunNow; bn != nil {
		out.begunAfter = newCueMatcher(bn.After)
		if len(bn.Before) > 0 {
			out.begunBefore = newCueMatcher(bn.Before)
		}
	}
	out.stoppedFor = cues(r.StoppedFor)
	if so := r.StopOrders; so != nil && len(so.Cues) > 0 {
		out.stopOrder = regexp.MustCompile(`(?i)^[\s\-–•*:]*(?:` + rules.WordsPattern(so.Cues) + `)\b`)
		if len(so.NameNext) > 0 {
			out.stopOrderNamed = regexp.MustCompile(`(?i)^[\s\-–•*:]*(?:` + rules.WordsPattern(so.NameNext) + `)\s+`)
		}
		// Anywhere in a list item, with its third person ("after aspirin
		// stops"), for a stop planned at a time to come (stopLater).
		out.stopWord = regexp.MustCompile(`(?i)\b(?:` + rules.WordsPattern(so.Cues) + `)s?\b`)
		if len(so.NegatedBy) > 0 {
			out.stopOrderNegated = regexp.MustCompile(`(?i)\b(?:` + rules.WordsPattern(so.NegatedBy) + `)\W*$`)
		}
		if len(so.Refers) > 0 {
			out.stopRefer = regexp.MustCompile(`(?i)\b(?:` + strings.Join(inflected(so.Cues), "|") + `)\s+(?:` + rules.WordsPattern(so.Refers) + `)\b`)
		}
	}
	if co := r.CurrentOrders; co != nil && len(co.Cues) > 0 {
		// The order may follow its subject and a modal ("she will
		// continue", "patient to remain on"): plain English.
		out.currentOrder = regexp.MustCompile(`(?i)^[\s\-–•*:]*(?:(?:he|she|they|patient|pt|the patient)\s+)?(?:(?:is|are|will|would|to|should|can|may|must)\s+)?(?:` + rules.WordsPattern(co.Cues) + `)\b`)
		if len(co.NegatedBy) > 0 {
			out.currentOrderNegated = regexp.MustCompile(`(?i)\b(?:` + rules.WordsPattern(co.NegatedBy) + `)\W*$`)
		}
	}
	if r.NotTaken != nil && len(r.NotTaken.NegatedBy) > 0 {
		out.notTakenNegated = regexp.MustCompile(`(?i)\b(?:` + rules.WordsPattern(r.NotTaken.NegatedBy) + `)\s+$`)
	}
	if sw := r.Switched; sw != nil {
		out.switched, out.switchedTo = cues(&rules.CueList{Cues: sw.Cues}), cues(&rules.CueList{Cues: sw.To})
		if len(sw.From) > 0 {
			out.switchedFrom = regexp.MustCompile(`(?i)^\s*(?:` + rules.WordsPattern(sw.From) + `)\b`)
		}
		if len(sw.Orders) > 0 {
			out.switchOrder = regexp.MustCompile(`(?i)^[\s\-–•*:]*(?:` + rules.WordsPattern(sw.Orders) + `)\b`)
		}
		if len(sw.Direct) > 0 {
			out.switchedDirect = regexp.MustCompile(`(?i)^(?:` + rules.WordsPattern(sw.Direct) + `)$`)
		}
	}
	if r.Now != nil {
		if len(r.Now.Earlier) > 0 {
			out.earlier = cues(&rules.CueList{Cues: r.Now.Earlier})
		}
		if len(r.Now.Later) > 0 {
			out.later = cues(&rules.CueList{Cues: r.Now.Later})
		}
		out.undatedDays = r.Now.UndatedSupersedesDays
		for _, v := range r.Now.ValidFor {
			if v.Days <= 0 || strings.TrimSpace(v.Why) == "" {
				return nil, locatedf("now.valid_for %q: give days > 0 and why", v.Concept)
			}
			if out.validFor == nil {
				out.validFor = map[string]int{}
			}
			out.validFor[rules.NormalizeName(v.Concept)] = v.Days
		}
	}
	if pc := r.Past; pc != nil {
		out.past, out.pastLead = cues(&rules.CueList{Cues: pc.Cues}), pc.Lead
		if len(pc.After) > 0 {
			out.pastAfter = cues(&rules.CueList{Cues: pc.After})
		}
		if len(pc.Ends) > 0 {
			out.pastEnds = cues(&rules.CueList{Cues: pc.Ends})
		}
		for _, a := range pc.Adjacent {
			if out.pastAdjacent == nil {
				out.pastAdjacent = map[string]bool{}
			}
			out.pastAdjacent[strings.ToLower(a)] = true
		}
		if len(pc.Present) > 0 {
			out.pastPresent = cues(&rules.CueList{Cues: pc.Present})
		}
		out.pastDrug = cues(&rules.CueList{Cues: append(append([]string(nil), pc.Cues...), pc.Drug...)})
		if len(pc.NegatedBy) > 0 {
			out.pastNegated = regexp.MustCompile(`(?i)\b(?:` + rules.WordsPattern(pc.NegatedBy) + `)\W*$`)
		}
	}
	var err error
	if out.refractory, err = compileRefractory(r.Refractory); err != nil {
		return nil, err
	}
	if rc := r.Recency; rc != nil {
		out.recentDays, out.recentPrefix = rc.WindowDays, rc.Prefix
	}
	if out.demographics, err = compileDemographics(r.Demographics); err != nil {
		return nil, err
	}
	if rc := r.References; rc != nil {
		// The cue right before the number ("goal 1.8", "ref <3.0"), or
		// before a name of at most three words and a bound ("Target
		// LDL-C <1.4"; "target vessel LAD 90%" writes no bound).
		if out.reference, err = regexp.Compile(`(?i)\b(?:` + rules.WordsPattern(rc.Cues) + `)(?:\s*(?:of|is|=|:)?\s*(?:<=|>=|[<>≤≥~])?|(?:\s+[a-z][\w-]*){1,3}?\s*(?:of|is|=|:)?\s*(?:<=|>=|[<>≤≥]))\s*(\d+(?:[.,]\d+)?)`); err != nil {
			return nil, fmt.Errorf("references: %v", err)
		}
	}
	out.plausible = map[string]rules.Plausible{}
	for _, pl := range r.Plausible {
		k := rules.NormalizeName(pl.Concept)
		out.plausible[k] = pl
		if len(pl.OtherSetting) > 0 {
			if out.otherSetting == nil {
				out.otherSetting, out.sameSetting = map[string]*regexp.Regexp{}, map[string]*regexp.Regexp{}
			}
			out.otherSetting[k] = cues(&rules.CueList{Cues: pl.OtherSetting}).re
			if len(pl.SameSetting) > 0 {
				out.sameSetting[k] = cues(&rules.CueList{Cues: pl.SameSetting}).re
			}
		}
	}
	if a := r.AnatomyChecks; a != nil {
		for _, w := range a.KeptFor {
			out.anatomyKept = append(out.anatomyKept, strings.ToLower(w))
		}
	}
	return out, nil
}

// derivation describes one of eval.Derive's derivations as a reader, so
// that step (v) asks it like any other: it reads the evidence and makes
// the items eval marks with its name (eval.Evidence.DerivedBy).
type derivation struct {
	name   string
	emits  []patient.Kind
	checks consistency.Checks
}

func (d derivation) Name() string                           { return d.name }
func (derivation) Reads() read.Input                        { return read.Evidence }
func (d derivation) Emits() []patient.Kind                  { return d.emits }
func (d derivation) Satisfies(eval.Cond) consistency.Checks { return d.checks }

// derivations: an is-a step says nothing of a condition's wording; a value
// inside a numeric definition states the defined concept's qualifiers
// ("LVEF 60%" is preserved LVEF); a stated concept's implied value band
// (a CKD stage's eGFR) states them too, and needs no stated absence.
var derivations = []derivation{
	{eval.ReaderIsA, []patient.Kind{patient.KindProblem}, consistency.Checks{}},
	{eval.ReaderDefinition, []patient.Kind{patient.KindProblem}, consistency.Checks{Qualifier: true}},
	{eval.ReaderImplied, []patient.Kind{patient.KindMeasurement}, consistency.Checks{Qualifier: true, Absence: true}},
}

// plausibleList is the pack's plausible ranges (none without a reading
// file).
func (p *Program) plausibleList() []rules.Plausible {
	if p.pack.Reading == nil {
		return nil
	}
	return p.pack.Reading.Plausible
}

// initReaders compiles the pack's reading vocabulary and registers the
// readers: by name for step (v), and the case readers in rounds (the
// readers of one round read the evidence the rounds before made).
func (p *Program) initReaders() error {
	var err error
	site := ""
	if p.anatomy != nil {
		site = p.anatomy.site
	}
	if p.reading, err = compileReading(p.pack.Reading, site); err != nil {
		return err
	}
	for _, pl := range p.plausibleList() {
		if k, ok := p.keys[rules.NormalizeName(pl.Concept)]; ok && len(pl.Scales) > 0 {
			sc := map[string][2]float64{units.Canonical(pl.Unit): {pl.Min, pl.Max}}
			for _, s := range pl.Scales {
				sc[units.Canonical(s.Unit)] = [2]float64{s.Min, s.Max}
			}
			if p.reading.scales == nil {
				p.reading.scales = map[string]map[string][2]float64{}
			}
			p.reading.scales[k] = sc
		}
	}
	p.riskScores = p.riskScoreKeys()
	p.glossedStates, p.glossPersons = p.glossedStateKeys()
	p.rounds = [][]read.CaseReader{
		{anatomyStage{p}, refractoryStage{p}, countStage{p}, chainStage{p}},
		{recencyStage{p}, fallStage{p}},
	}
	p.readers = read.Registry{}
	p.readers.Add(antonymStage{}, demographicStage{}, ungroundedStage{}, medicationStatusStage{}, whenStage{})
	for _, round := range p.rounds {
		for _, r := range round {
			p.readers.Add(r)
		}
	}
	for _, d := range derivations {
		p.readers.Add(d)
	}
	return nil
}

// Readers lists the program's readers by name, for documentation and
// traces.
func (p *Program) Readers() []read.Reader {
	out := make([]read.Reader, 0, len(p.readers))
	for _, n := range sortedReaderNames(p.readers) {
		out = append(out, p.readers[n])
	}
	return out
}

func sortedReaderNames(g read.Registry) []string {
	m := make(map[string]bool, len(g))
	for n := range g {
		m[n] = true
	}
	return sortedKeys(m)
}

// readRounds runs the case readers round by round, each round on the
// evidence so far, and returns what they read in order.
func (p *Program) readRounds(c *read.Case, ev []eval.Evidence) []patient.Fact {
	var out []patient.Fact
	ev = ev[:len(ev):len(ev)] // appends never write into the caller's array
	for _, round := range p.rounds {
		c.Evidence = ev
		var facts []patient.Fact
		for _, r := range round {
			facts = append(facts, r.Read(c)...)
		}
		for _, f := range facts {
			ev = append(ev, f.Evidence)
		}
		out = append(out, facts...)
	}
	return out
}

// notTakenIn: s holds a not-taken cue that no negating word just before it
// turns round ("continue, do not stop" takes the drug).
func (r *reading) notTakenIn(s string) bool {
	if r.notTaken == nil {
		return false
	}
	for _, m := range r.notTaken.FindAllStringIndex(s, -1) {
		if compoundHead(s, m[1]) {
			// "ezetimibe add-on since 2022": the cue word opens a
			// hyphenated compound, a noun, not the order it spells.
			continue
		}
		if r.notTakenNegated == nil || !r.notTakenNegated.MatchString(s[:m[0]]) {
			return true
		}
	}
	return false
}

// compoundHead reports whether the word ending at byte end of s is joined
// by a hyphen to a following word ("add-on", "start-up").
func compoundHead(s string, end int) bool {
	if end+1 >= len(s) || s[end] != '-' {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[end+1:])
	return unicode.IsLetter(r)
}

// leadingCue: s opens with a not-taken cue, no word before it ("NOT
// started (single episode)", the value after "Anticoagulation:").
func (r *reading) leadingCue(s string) bool {
	if r.notTaken == nil {
		return false
	}
	m := r.notTaken.FindStringIndex(s)
	return m != nil && strings.IndexFunc(s[:m[0]], unicode.IsLetter) < 0
}

// inflected returns regexp alternatives for each verb and its English
// forms: "stop" → stop, stops, stopped, stopping; "discontinue" →
// discontinue(s|d), discontinuing.
func inflected(verbs []string) []string {
	var out []string
	for _, v := range verbs {
		q := regexp.QuoteMeta(v)
		switch {
		case strings.HasSuffix(v, "e"):
			out = append(out, q+`(?:s|d)?`, regexp.QuoteMeta(strings.TrimSuffix(v, "e"))+`ing`)
		case len(v) >= 3 && strings.IndexByte("aeiou", v[len(v)-2]) >= 0 && strings.IndexByte("aeiouwy", v[len(v)-1]) < 0 && strings.IndexByte("aeiou", v[len(v)-3]) < 0:
			d := q + regexp.QuoteMeta(v[len(v)-1:])
			out = append(out, q+`s?`, d+`ed`, d+`ing`)
		default:
			out = append(out, q+`(?:s|ed|ing)?`)
		}
	}
	return out
}
