package engine

import (
	"regexp"
	"strings"
	"time"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
)

// Which findings are intended rather than present, and which are a
// relative's, is read by extract.Reading from the pack's sections data
// (meta/sections.json): a plan heading's kind has status "intended", a
// family history heading's experiencer is "relative", and the pack's
// intention words ("booked for", "next week") mark a finding that
// schedules itself. The engine reads the flags on the finding.

// asserted reports whether a finding states something the patient has now:
// not intended, not negated, not a relative's. The evidence readers (CKD
// stage, refractory symptoms, regimen) only read asserted findings.
func asserted(text string, f extract.Finding) bool {
	if f.Intended || f.Experiencer != "" {
		return false
	}
	fc := consistency.Analyze(text, f.Text)
	return !fc.Negated && !fc.Other
}

// findingAt returns the finding whose span holds byte offset pos, or nil.
func findingAt(findings []extract.Finding, pos int) *extract.Finding {
	for i := range findings {
		if findings[i].Start >= 0 && findings[i].Start <= pos && pos < findings[i].End {
			return &findings[i]
		}
	}
	return nil
}

// plannedForm returns the anchor of the pack's intended form of an anchor
// a plan governs ("Plan: PCI" → planned percutaneous coronary
// intervention, with the pack's form "planned {concept}"), when the pack
// has that concept.
func (p *Program) plannedForm(a grounding.Anchor) (grounding.Anchor, bool) {
	for _, n := range p.doc.PlannedForms(a.Concept) {
		if key, ok := p.keys[rules.NormalizeName(n)]; ok {
			a.ConceptKey, a.Concept = key, p.names[key]
			return a, true
		}
	}
	return a, false
}

// intended reports whether a finding another reader made (the LLM's,
// located in the text) is intended: under an intended section at its
// offset, or its own words schedule it.
func (p *Program) intended(text string, f extract.Finding) bool {
	if f.Intended {
		return true
	}
	fs := []extract.Finding{f}
	p.doc.Annotate(text, p.doc.Sections(text), fs)
	return fs[0].Intended
}

// intendedWhy says why a finding reads as intended, for the trace.
func (p *Program) intendedWhy(text string, f extract.Finding) string {
	if k := p.doc.Kind(f); k != nil && k.Status == rules.SectionIntended {
		return "it is under a '" + k.Kind + "' heading, so it is intended, not present"
	}
	if k := p.doc.Kind(f); k != nil && k.Status == rules.SectionMixed && p.doc.Cue(rules.CueIntention, f.Text) == "" {
		if m := p.doc.PlanCue(text, f); m != "" {
			return "under a '" + k.Kind + "' heading its item's words '" + m + "' plan it, so it is intended, not present"
		}
		if p.doc.Cue(rules.CueRecommendation, f.Text) == "" {
			return "under a '" + k.Kind + "' heading a procedure its item neither dates nor states done is planned, not done"
		}
	}
	if m := p.doc.Cue(rules.CueAlternatives, f.Text); m != "" && p.doc.Cue(rules.CueIntention, f.Text) == "" {
		return "its words '" + m + "' join procedures as options being weighed, so each is intended, not done"
	}
	m := p.doc.Cue(rules.CueIntention, f.Text)
	if r := p.doc.Cue(rules.CueRecommendation, f.Text); m == "" && r != "" {
		return "its words '" + r + "' put the procedure forward, so it is intended, not done"
	}
	if m == "" {
		return "it follows its sentence's condition clause (a pack condition cue), so it is intended, not done"
	}
	return "its words '" + m + "' schedule it, so it is intended, not present"
}

// weighedOptions reports whether a finding joins two or more procedures
// by the pack's alternatives words ("PCI or CABG", "CCTA versus stress
// echo") and states them, not denies them ("no prior PCI or CABG" is an
// absence of both, left to the negation check): options weighed are
// intended, not done.
func (p *Program) weighedOptions(ctext *consistency.Text, f extract.Finding, anchors []grounding.Anchor) bool {
	if p.doc.Cue(rules.CueAlternatives, f.Text) == "" {
		return false
	}
	procs := map[string]bool{}
	for _, a := range anchors {
		if p.roles[a.ConceptKey] == rules.RoleProcedure && !p.doc.PlannedConcept(a.Concept) {
			procs[a.ConceptKey] = true
		}
	}
	return len(procs) >= 2 && !ctext.Analyze(f.Text).Negated
}

// keptInPlan: a concept of a role an intended section keeps (a test the
// patient is to undergo) is read as stated from an intended finding,
// unless a broader concept has an intended form ("recent PCI" is a PCI,
// which a plan states as planned PCI). A finding whose own words intend it
// ("referred for ICA") keeps what the pack's intended sections keep.
func (p *Program) keptInPlan(f extract.Finding, a grounding.Anchor) bool {
	var roles []string
	if k := p.doc.Kind(f); k != nil && k.Status == rules.SectionIntended {
		roles = k.KeepsRoles
	} else if p.pack.Sections != nil {
		for _, k := range p.pack.Sections.Kinds {
			if k.Status == rules.SectionIntended {
				roles = append(roles, k.KeepsRoles...)
			}
		}
	}
	if len(roles) == 0 {
		return false
	}
	for _, b := range p.hierarchy.Broader(a.Concept) {
		if _, ok := p.plannedForm(grounding.Anchor{Concept: b}); ok {
			return false
		}
	}
	for _, r := range roles {
		if p.roles[a.ConceptKey] == r {
			return true
		}
	}
	return false
}

// primaryAnchor is the concept key of a finding's best reading: the first
// anchor whose own name the finding's words state by step (v)'s
// certainty and qualifier checks ("?CCS" is suspected CCS, not established
// CCS), else the first whose name's qualifiers they state (a doubted
// mention of the concept, left to step (v)), else none: a concept whose
// name carries a qualifier the words do not state ("fast irregular heart
// rate" for "permanent AF", "decompensated heart failure" for "heart
// failure") is not what the finding says. The other anchors are
// alternative readings.
func (p *Program) primaryAnchor(ctext *consistency.Text, mention string, negated bool, anchors []grounding.Anchor, checks consistency.Checks) string {
	fallback := ""
	for _, a := range anchors {
		v := p.statesName(ctext, mention, negated, a, checks)
		if v.Pass {
			return a.ConceptKey
		}
		if fallback == "" && v.Check != consistency.CheckQualifier {
			fallback = a.ConceptKey
		}
	}
	return fallback
}

// statesName is step (v)'s certainty and qualifier verdict on the
// finding's words stating the anchor's concept under its own name, as it
// would judge a condition that names it (a measured concept is stated by
// its value, not its words: it passes).
func (p *Program) statesName(ctext *consistency.Text, mention string, negated bool, a grounding.Anchor, checks consistency.Checks) consistency.Verdict {
	only := consistency.Checks{Certainty: checks.Certainty, Qualifier: checks.Qualifier}
	if only == (consistency.Checks{}) || len(p.units[a.ConceptKey]) > 0 {
		return consistency.Verdict{Pass: true}
	}
	op := rules.OpPresent
	if negated {
		op = rules.OpAbsent
	}
	// The condition is one of the pack's concepts, present or absent:
	// compiled once for every case, as the rules' conditions are.
	return ctext.CheckCompiled(mention, p.compile(consistency.Condition{Concept: a.Concept, Wording: a.Concept, Operator: op}), only)
}

// readings is which of a finding's anchors are facts (see readingFlags):
// its best reading, and the concepts it names word for word on their own
// or only inside a longer phrase that narrows them.
type readings struct {
	primary         map[string]string  // finding → concept key of its best reading
	named, narrowed map[[2]string]bool // (finding, concept key)
}

func newReadings() readings {
	return readings{primary: map[string]string{}, named: map[[2]string]bool{}, narrowed: map[[2]string]bool{}}
}

// read records a finding's readings.
func (p *Program) read(rd readings, ctext *consistency.Text, id, mention string, negated bool, anchors []grounding.Anchor, checks consistency.Checks) {
	rd.primary[id] = p.primaryAnchor(ctext, mention, negated, anchors, checks)
	for _, v := range p.verbatimNamed(mention) {
		rd.named[[2]string{id, v.ConceptKey}] = len(v.Channels) == 1
		rd.narrowed[[2]string{id, v.ConceptKey}] = len(v.Channels) > 1
	}
}

// flag marks an evidence item of a finding's anchor: an anchor other than
// the finding's best reading is an alternative reading (Secondary), no
// fact, unless the finding names its concept word for word ("stable CCS
// on maximally tolerated statin" states both) or, for a measured concept,
// states its value ("LVEF 30% on GDMT"); named only inside a longer phrase
// that narrows it ("chest discomfort" in "exertional chest discomfort"),
// it is a co-reading: a fact, but no premise of an inference. A concept
// the best reading's measure is of ("obstructive CAD" in "very low
// likelihood of obstructive CAD", the best reading the pre-test
// likelihood of obstructive CAD) is what the value is about, not a
// finding: an alternative reading even when named word for word.
func (p *Program) flag(rd readings, e *eval.Evidence) {
	k := [2]string{e.ID, e.ConceptKey}
	if e.ConceptKey == rd.primary[e.ID] || e.Value != nil && len(p.units[e.ConceptKey]) > 0 {
		return
	}
	if p.measureOf(rd.primary[e.ID], e.ConceptKey) {
		e.Secondary = true
		return
	}
	if p.bandOf(e.ConceptKey, rd.primary[e.ID]) {
		// "likelihood of obstructive CAD as low": the measure named
		// without a value, its band stated beside it, is the band.
		return
	}
	if rd.named[k] {
		return
	}
	e.CoReading = rd.narrowed[k]
	e.Secondary = !e.CoReading
}

// measureOf reports whether the measured concept m is a measure of the
// unmeasured concept c: m's name holds c's name ("pre-test likelihood of
// obstructive coronary artery disease" is of "obstructive coronary artery
// disease").
//
// A concept that implies a band of a measure (meta/hierarchy.json
// "values": "low pre-test likelihood of obstructive CAD") is a value of
// that measure: a concept the measure is of is no finding of it either
// ("obstructive CAD" in "low likelihood of obstructive CAD").
func (p *Program) measureOf(m, c string) bool {
	if m == "" || len(p.units[c]) > 0 || p.names[c] == "" {
		return false
	}
	cn := rules.NormalizeName(p.names[c])
	if len(p.units[m]) > 0 {
		return containsWords(rules.NormalizeName(p.names[m]), cn)
	}
	for _, v := range p.hierarchy.ValuesOf(p.names[m]) {
		if containsWords(rules.NormalizeName(v.Measure), cn) {
			return true
		}
	}
	return false
}

// bandOf reports whether concept b is a band of the measured concept m
// (meta/hierarchy.json "values": "low pre-test likelihood of obstructive
// CAD" of the pre-test likelihood).
func (p *Program) bandOf(b, m string) bool {
	if m == "" || len(p.units[m]) == 0 || p.names[b] == "" {
		return false
	}
	mn := rules.NormalizeName(p.names[m])
	for _, v := range p.hierarchy.ValuesOf(p.names[b]) {
		if rules.NormalizeName(v.Measure) == mn {
			return true
		}
	}
	return false
}

// conditionBefore is the part of f's sentence before it when that part
// closes with a comma-ended clause ("if significant disease, "): the
// words a condition cue must open; else "".
func conditionBefore(text string, f extract.Finding) string {
	if f.Start <= 0 || f.Start > len(text) {
		return ""
	}
	pre := text[:f.Start]
	pre = pre[strings.LastIndexAny(pre, ".;:\n")+1:]
	if !strings.Contains(pre, ",") {
		return ""
	}
	return strings.TrimSpace(pre)
}

// consequent reports whether a finding whose first reading is a
// procedure follows its sentence's condition clause (the pack's condition
// cues: "if significant disease, PCI at the same sitting") or holds one
// after the procedure (conditionAfter): it is done only if the condition
// holds, so it is intended.
func (p *Program) consequent(text string, f extract.Finding, anchors []grounding.Anchor) bool {
	if len(anchors) == 0 {
		return false
	}
	if (p.roles[anchors[0].ConceptKey] == rules.RoleProcedure || p.medications[anchors[0].ConceptKey] && p.orderShaped(f, anchors)) && p.doc.Cue(rules.CueCondition, conditionBefore(text, f)) != "" {
		return true
	}
	for _, a := range anchors {
		if p.roles[a.ConceptKey] == rules.RoleProcedure && !p.doc.PlannedConcept(a.Concept) && p.conditionAfter(f.Text, a) {
			return true
		}
	}
	return false
}

// orderShaped reports whether a drug finding is worded as an order: a
// start cue ("start apixaban"), or the drug's name alone with its dose and
// regimen ("apixaban 5 mg bd": a dose, then numbers, units, regimen words
// and other short tokens only; a bare name after a symptom's condition,
// "if angina recurs, GTN spray", is the PRN drug taken): after a condition clause ("if AF,
// apixaban 5 bd") it is the plan's conditional order, while a sentence
// that says what the drug does ("if pain, GTN spray settles it") states
// the drug taken.
func (p *Program) orderShaped(f extract.Finding, anchors []grounding.Anchor) bool {
	if p.doc.Cue(rules.CueStart, f.Text) != "" {
		return true
	}
	lower := strings.ToLower(f.Text)
	for _, n := range p.drugNames(anchors) {
		for _, sp := range namedAll(lower, f.Text, n) {
			if strings.Trim(f.Text[:sp[0]], " -–•*:>()") != "" {
				continue
			}
			only, dosed := true, false
			for _, w := range strings.Fields(f.Text[sp[1]:]) {
				w = strings.Trim(w, ",;()")
				if w != "" && w[0] >= '0' && w[0] <= '9' {
					dosed = true
					continue
				}
				if w == "" || w == "+" || w == "&" || len(w) <= 3 || units.Known(w) || p.doc.Cue(rules.CueRegimen, w) != "" {
					continue
				}
				only = false
				break
			}
			if only && dosed {
				return true
			}
		}
	}
	return false
}

// conditionAfter reports whether a condition cue opens a clause inside
// the finding after the words that name procedure a ("ICA if symptoms
// not controlled on medication", "invasive angiography only if symptoms
// persist"): the procedure is done only if the condition holds. A
// procedure the condition names ("peri-PCI regimen to be set if PCI goes
// ahead") is the condition's, judged by step (v).
func (p *Program) conditionAfter(ft string, a grounding.Anchor) bool {
	names := append([]string{a.Concept}, p.phrases[a.ConceptKey]...)
	for i := 1; i < len(ft); i++ {
		if ft[i-1] != ' ' || ft[i] == ' ' {
			continue
		}
		if p.doc.Cue(rules.CueCondition, ft[i:]) != "" {
			before, _ := evidence.Covers(ft[:i], names)
			within, _ := evidence.Covers(ft[i:], names)
			return before && !within
		}
	}
	return false
}

// recommended reports whether a finding that names a procedure recommends
// or advises it (the pack's recommendation cues: "Recommend CABG", "Heart
// Team advises PCI"): the procedure is intended, not done. Only the
// procedures are: "Heart Team recommends CABG" still states the Heart
// Team.
func (p *Program) recommended(f extract.Finding, anchors []grounding.Anchor) bool {
	for _, a := range anchors {
		if p.roles[a.ConceptKey] == rules.RoleProcedure && !p.doc.PlannedConcept(a.Concept) {
			return p.doc.Cue(rules.CueRecommendation, f.Text) != ""
		}
	}
	return false
}

// intentionCues reports whether every hypothetical cue read is one of the
// pack's intention cues ("planned"): an intended finding's own plan word
// states the plan, which the intended reading has taken.
func (p *Program) intentionCues(cues []string) bool {
	for _, c := range cues {
		if p.doc.Cue(rules.CueIntention, c) == "" {
			return false
		}
	}
	return len(cues) > 0
}

// bareProcedure reports whether a finding under a mixed section (an
// assessment and plan, "A/P:") names a procedure that its item neither
// dates nor states done (the pack's done cues: "s/p CABG", "prior PCI"):
// "A/P: ... CTCA" plans the test, as a plan heading would.
func (p *Program) bareProcedure(text string, f extract.Finding, anchors []grounding.Anchor, clause string, date time.Time) bool {
	k := p.doc.Kind(f)
	if k == nil || k.Status != rules.SectionMixed || f.Start < 0 || f.End > len(text) {
		return false
	}
	proc := false
	for _, a := range anchors {
		if p.roles[a.ConceptKey] == rules.RoleProcedure && !p.doc.PlannedConcept(a.Concept) {
			proc = true
			break
		}
	}
	if !proc || p.doc.Cue(rules.CueDone, text[extract.ItemStart(text, f.Start):f.End]) != "" {
		return false
	}
	return p.whenOf(clause, date) == nil
}

// startOrder reports whether an intended finding names a drug that its
// own words start now (the pack's start cues: "Plan: add ISMN", "start
// bisoprolol 2.5 mg"), or that is listed right after such a finding in
// its sentence ("start empagliflozin and semaglutide"; startedIDs holds
// the findings before f already read so), with no not-taken or
// not-tolerated cue ("avoid", "consider starting"), option or condition
// ("if symptoms persist, add ranolazine") in its item: the drug is
// planned, started by the plan. A drug named later in the item is no
// drug started ("start pantoprazole given the combination therapy").
func (p *Program) startOrder(text string, f extract.Finding, findings []extract.Finding, startedIDs map[string]bool) bool {
	if !f.Intended || f.Start < 0 || f.End > len(text) || f.Start > f.End {
		return false
	}
	if p.doc.Cue(rules.CueStart, f.Text) == "" {
		prev, ok := previousFinding(findings, f)
		if !ok || !startedIDs[prev.ID] || prev.End > f.Start || !listJoin.MatchString(text[prev.End:f.Start]) {
			return false
		}
	}
	item := text[extract.ItemStart(text, f.Start):f.End]
	for _, kind := range []string{rules.CueNotTaken, rules.CueNotTolerated, rules.CueCondition, rules.CueOption} {
		if p.doc.Cue(kind, item) != "" {
			return false
		}
	}
	sentence := text[strings.LastIndexAny(text[:f.Start], ".;\n")+1 : f.Start]
	return p.doc.Cue(rules.CueCondition, strings.TrimLeft(sentence, " -•*0123456789.)")) == ""
}

// startsDrug reports whether a finding that starts its drugs (startOrder)
// starts this one: its words hold no start cue (a drug listed after a
// started one), or one of the drug's names comes within three words
// after the cue ("start bisoprolol", "add ISMN XL 30 mg", "add
// rivaroxaban 2.5 mg"), or within six words before it ("ISMN MR 30 mg
// each morning added"). A drug named further on is the reason, not the
// drug started ("start pantoprazole 40 mg daily given the combination
// therapy").
func (p *Program) startsDrug(words string, names []string) bool {
	m := p.doc.Cue(rules.CueStart, words)
	if m == "" {
		return true
	}
	lower := strings.ToLower(words)
	at := strings.Index(lower, strings.ToLower(m))
	if at < 0 {
		return true
	}
	end := at + len(m)
	for _, n := range names {
		for _, sp := range namedAll(lower, words, n) {
			if sp[0] >= end && len(strings.Fields(words[end:sp[0]])) <= 3 {
				return true
			}
			if sp[1] <= at && len(strings.Fields(words[sp[1]:at])) <= 6 {
				return true // "ISMN MR 30 mg each morning added"
			}
		}
	}
	return false
}

// underPlan reports whether a finding sits under an intended section
// ("Plan:"), not only intended by its own words.
func (p *Program) underPlan(f extract.Finding) bool {
	k := p.doc.Kind(f)
	return k != nil && k.Status == rules.SectionIntended
}

// optionCue returns the pack's option cue ("feasible", "would",
// "appropriate") that speaks of a finding's procedure as an option, a
// possibility or a comparison, or "" when none does or the finding names
// no procedure. The cue is read in the finding's own words or in those of
// a finding joined to it by a bare conjunction ("CABG and PCI both
// appropriate": the cue after "PCI" speaks of both).
func (p *Program) optionCue(text string, f extract.Finding, findings []extract.Finding, anchors []grounding.Anchor) string {
	proc := false
	for _, a := range anchors {
		if p.roles[a.ConceptKey] == rules.RoleProcedure && !p.doc.PlannedConcept(a.Concept) {
			proc = true
			break
		}
	}
	if !proc {
		return ""
	}
	// "Options weighed:" over "b) PCI LAD +/- Cx", "Options: (1) redo
	// PCI; (2) CABG": an item of a list, or a field, that the pack's option
	// cue heads is an option too.
	if h := listHeading(text, f); h != "" {
		if m := p.doc.Cue(rules.CueOption, h); m != "" {
			return m
		}
		// "Options discussed:" over "1. CABG (LIMA-LAD): best
		// durability for the LAD": the item's own label names the
		// option, the list's heading weighs it.
		if h := parentHeading(text, f); h != "" {
			if m := p.doc.Cue(rules.CueOption, h); m != "" {
				return m
			}
		}
	}
	if ph := recentPhrase(f.Text, 1<<30); ph != "" && strings.TrimSpace(strings.Trim(f.Text, " ,;()")) == ph {
		// "PCI discussed with the patient yesterday": a fragment that is
		// only a time phrase dates what its sentence's finding before it
		// states; an option weighed there is no event done.
		if prev, ok := previousFinding(findings, f); ok && prev.End <= f.Start && !strings.ContainsAny(text[prev.End:f.Start], ".;\n") {
			if m := p.doc.Cue(rules.CueOption, prev.Text); m != "" {
				return m
			}
		}
	}
	for cur, hops := f, 0; hops < 4; hops++ {
		if m := p.doc.Cue(rules.CueOption, cur.Text); m != "" {
			return m
		}
		next := joinedAfter(text, cur, findings)
		if next == nil {
			return ""
		}
		cur = *next
	}
	return ""
}

// joinedAfter is the finding right after f in the text when only a bare
// conjunction ("and", "or", "+", "/", "&") stands between them, or nil.
func joinedAfter(text string, f extract.Finding, findings []extract.Finding) *extract.Finding {
	var next *extract.Finding
	for i := range findings {
		g := &findings[i]
		if g.Start >= f.End && (next == nil || g.Start < next.Start) {
			next = g
		}
	}
	if next == nil || f.End < 0 || next.Start > len(text) {
		return nil
	}
	switch strings.ToLower(strings.TrimSpace(text[f.End:next.Start])) {
	case "and", "or", "+", "/", "&", "and/or":
		return next
	}
	return nil
}

// withoutOptionProcedures drops a finding's procedure anchors that an
// option cue speaks of (optionCue): an option weighed is neither done nor
// planned nor absent. Concepts that are intentions themselves ("candidate
// for myocardial revascularization") and the finding's other concepts
// ("complete revascularization achievable with PCI") are kept.
func (p *Program) withoutOptionProcedures(anchors []grounding.Anchor) []grounding.Anchor {
	return p.procedureFree(anchors, true)
}

// withoutProcedures drops every procedure anchor, planned forms among
// them: an option set aside is neither done nor planned.
func (p *Program) withoutProcedures(anchors []grounding.Anchor) []grounding.Anchor {
	return p.procedureFree(anchors, false)
}

// procedureFree keeps the anchors that name no procedure (by role, or as
// a class or a kind of one), and with keepPlanned the planned forms too.
func (p *Program) procedureFree(anchors []grounding.Anchor, keepPlanned bool) []grounding.Anchor {
	kept := anchors[:0:0]
	for _, a := range anchors {
		if !(keepPlanned && p.doc.PlannedConcept(a.Concept)) && (p.roles[a.ConceptKey] == rules.RoleProcedure || p.procedureClass(a.Concept) || p.procedureKind(a.Concept)) {
			continue
		}
		kept = append(kept, a)
	}
	return kept
}

// plannedNotDone drops the undated readings of a procedure as done when
// the document both plans it and states it absent from the history ("no
// previous cardiac surgery" ... "Proposes CABG x3" ... "reassess LVEF 3
// months post CABG", "SVG-OM"): the bare mentions are of the operation to
// come, which is all the document knows of. A dated or stated-done
// reading (Done: "CABG performed 20/11") stays.
func (p *Program) plannedNotDone(ev, listed []eval.Evidence, tr *Trace, dropped *[]patient.Dropped) ([]eval.Evidence, []eval.Evidence) {
	absent, planned := map[string]bool{}, map[string]bool{}
	for _, e := range ev {
		if e.Secondary || e.Value != nil || p.roles[e.ConceptKey] != rules.RoleProcedure {
			continue
		}
		if !e.Present {
			absent[e.ConceptKey] = true
		} else if p.doc.PlannedConcept(e.Concept) {
			planned[e.ConceptKey] = true
		}
	}
	if len(planned) == 0 {
		return ev, listed
	}
	base := map[string]bool{} // procedure key → whether its planned form is planned, once per key
	plannedBase := func(k string) bool {
		b, seen := base[k]
		if !seen {
			pf, ok := p.plannedForm(grounding.Anchor{ConceptKey: k, Concept: p.names[k]})
			b = ok && planned[pf.ConceptKey]
			base[k] = b
		}
		return b
	}
	superseded := func(e eval.Evidence) bool {
		if !e.Present || e.Done || e.Value != nil || e.Via != "" || p.roles[e.ConceptKey] != rules.RoleProcedure || !plannedBase(e.ConceptKey) {
			return false
		}
		// None done before, or the mention times something by it
		// ("cardiac rehab after PCI", "post-CABG review"): the one to
		// come. A date the mention states ("rehab after PCI on 12/03")
		// is of one done; one the document lends it is not.
		return absent[e.ConceptKey] && e.When == nil || afterProcedure.MatchString(e.Text) && !strings.ContainsAny(e.Text, "0123456789")
	}
	why := func(e eval.Evidence) string {
		if absent[e.ConceptKey] {
			return "the document plans it and states none done before: an undated mention is of the one to come"
		}
		return "the document plans it, and the mention times something after it: the one to come"
	}
	return dropSuperseded(ev, superseded, why, tr, dropped), dropSuperseded(listed, superseded, nil, nil, nil)
}

// afterProcedure: a mention that times something after a procedure
// ("rehab after PCI", "post-CABG", "post PCI"). Plain English.
var afterProcedure = regexp.MustCompile(`(?i)\b(?:after|post|following)[\s-]+\S`)

// procedureKind reports whether a concept no rule condition gives a role
// is a kind of a procedure: the hierarchy names a procedure broader than it
// ("CTO PCI", a kind of PCI), so an option weighed drops it with the
// procedure it derives.
func (p *Program) procedureKind(concept string) bool {
	return p.unroledBy(concept, p.hierarchy.Broader, true)
}

// procedureClass reports whether a concept no rule condition gives a
// role is a class of procedures: the hierarchy names a procedure as a kind
// of it ("myocardial revascularization", the class of PCI and CABG). A
// finding's class that a procedure also implies ("atherosclerotic
// coronary artery disease") is a condition's concept, with its own role.
func (p *Program) procedureClass(concept string) bool {
	return p.unroledBy(concept, p.hierarchy.Narrower, false)
}

// unroledBy: the concept has no role of its own, and one of the concepts
// related gives it (broader or narrower ones) is a procedure (not a
// planned form, where unplanned).
func (p *Program) unroledBy(concept string, related func(string) []string, unplanned bool) bool {
	key, ok := p.keys[rules.NormalizeName(concept)]
	if !ok || p.roles[key] != "" {
		return false
	}
	for _, c := range related(concept) {
		if k, ok := p.keys[rules.NormalizeName(c)]; ok && p.roles[k] == rules.RoleProcedure && !(unplanned && p.doc.PlannedConcept(c)) {
			return true
		}
	}
	return false
}

// listHeading is the label a finding stands under: the text before the
// first colon of its line when the finding follows it ("Options: (1) redo
// PCI"), or, for an item of a list (a bulleted, numbered or indented line),
// the line ending in a colon that the list hangs from ("Options weighed:"
// over " b) PCI LAD"). "" when there is none.
func listHeading(text string, f extract.Finding) string {
	if f.Start < 0 || f.Start > len(text) {
		return ""
	}
	ls := strings.LastIndexByte(text[:f.Start], '\n') + 1
	if c := strings.IndexByte(text[ls:f.Start], ':'); c >= 0 {
		return text[ls : ls+c]
	}
	return parentHeading(text, f)
}

// parentHeading is the line ending in a colon that the list item holding
// f hangs from (listHeading without the item's own label), or "".
func parentHeading(text string, f extract.Finding) string {
	if f.Start < 0 || f.Start > len(text) {
		return ""
	}
	ls := strings.LastIndexByte(text[:f.Start], '\n') + 1
	_, le := extract.LineAt(text, f.Start)
	if !extract.ListItem(text[ls:le]) && !indented(text[ls:le]) {
		return ""
	}
	for h := ls; h > 0; {
		ps := strings.LastIndexByte(text[:h-1], '\n') + 1
		line := text[ps : h-1]
		switch {
		case strings.TrimSpace(line) == "":
			return ""
		case strings.HasSuffix(strings.TrimSpace(line), ":") && leading(line) < leading(text[ls:le]):
			// "- Options considered:" over "  a) CTO PCI": an item
			// ending in a colon heads the items indented under it.
			return strings.TrimLeft(strings.TrimSuffix(strings.TrimSpace(line), ":"), "-*•· ")
		case extract.ListItem(line) || indented(line):
			h = ps
			continue
		case strings.HasSuffix(strings.TrimSpace(line), ":"):
			return strings.TrimSuffix(strings.TrimSpace(line), ":")
		}
		return ""
	}
	return ""
}

// leading is the number of spaces and tabs a line opens with.
func leading(line string) int {
	return len(line) - len(strings.TrimLeft(line, " \t"))
}

// regimenOrder reports whether a finding under a plan heading names a drug
// written with its regimen: a dose right after the drug's name ("DAPT ASA
// 81", "aspirin 75"), or the pack's regimen words (cues.regimen: a
// frequency or a course, "bd", "6 months", "x 3/12") after it in its item
// ("Plan: aspirin + clopidogrel 6 months"). A drug with its regimen is an
// order: the plan prescribes it, as a start word would ("Plan: start
// aspirin"). An item that avoids, weighs, conditions or only recommends
// the drug ("consider aspirin 75 mg", "if no bleeding, aspirin 75 od"),
// or negates it, prescribes nothing.
func (p *Program) regimenOrder(ctext *consistency.Text, text string, f extract.Finding, anchors []grounding.Anchor) bool {
	if !f.Intended || !p.underPlan(f) || f.Start < 0 || f.End > len(text) || f.Start > f.End {
		return false
	}
	names := p.drugNames(anchors)
	if names == nil {
		return false
	}
	end := itemEnd(text, f.End)
	item := text[extract.ItemStart(text, f.Start):end]
	for _, kind := range []string{rules.CueNotTaken, rules.CueNotTolerated, rules.CueCondition, rules.CueOption, rules.CueRecommendation} {
		if p.doc.Cue(kind, item) != "" {
			return false
		}
	}
	if ctext.Analyze(f.Text).Negated {
		return false
	}
	lower := strings.ToLower(f.Text)
	for _, n := range names {
		for _, sp := range namedAll(lower, f.Text, n) {
			if f.Start+sp[1] > end {
				continue
			}
			after := text[f.Start+sp[1] : end]
			if w := strings.Fields(after); len(w) > 0 && w[0][0] >= '0' && w[0][0] <= '9' {
				return true // "ASA 81"
			}
			if p.doc.Cue(rules.CueRegimen, after) != "" {
				return true
			}
		}
	}
	return false
}

// itemEnd is where the item holding byte offset pos ends: at the next
// line end, sentence end, semicolon, dash or arrow (ItemStart's bounds).
func itemEnd(text string, pos int) int {
	hi := len(text)
	for _, sep := range []string{"\n", ". ", "; ", " - ", " – ", " -> ", " → "} {
		if i := strings.Index(text[pos:], sep); i >= 0 && pos+i < hi {
			hi = pos + i
		}
	}
	return hi
}

// statedDone reports whether an intended finding's own words state its
// procedure done (the pack's done cues: "> 3 yrs from PCI", "s/p PCI",
// "previous CABG"): under a plan heading the procedure is the plan's
// reason, not the procedure planned. Words that schedule it ("CABG will
// be performed") keep it planned.
func (p *Program) statedDone(f extract.Finding, a grounding.Anchor) bool {
	return p.roles[a.ConceptKey] == rules.RoleProcedure && p.doc.Cue(rules.CueDone, f.Text) != "" && p.doc.Cue(rules.CueIntention, f.Text) == ""
}
