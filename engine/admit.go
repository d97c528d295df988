package engine

import (
	"slices"
	"strings"
	"sync"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/rules"
)

// admitter is step (v) for one case: whether a piece of evidence may
// support a condition, judged against that condition's own wording and
// context, with every refusal recorded in the trace.
type admitter struct {
	p       *Program
	checks  consistency.Checks // this call's checks
	text    *consistency.Text  // the case, read once for every verdict
	mention map[string]string  // finding id → finding text
	clause  map[string]string  // finding id → its comma clause
	// start is finding id → the byte offset its mention is written at
	// (absent: located by its words), so a mention is judged where it
	// stands, not where its words first occur.
	start map[string]int
	// coded holds the facts with no words (coded data), judged by their
	// record's statuses instead of the text.
	coded map[string]consistency.Coded
	// undoubted holds (finding id, concept key) pairs that a doubted
	// finding states outside its doubt (Program.undoubtedAt): step (v)
	// judges their certainty at those words, not at the finding's head.
	undoubted map[[2]string]bool
	// doubtedWords: the other way round, pairs an undoubted finding
	// states in doubt (Program.doubtedAt).
	doubtedWords map[[2]string]bool
	tr           *Trace

	mu sync.Mutex
	// Many DecisionNodes share wording, context and operator (chronic
	// coronary syndrome is tested by dozens of rules): each distinct
	// (condition text, evidence) pair is judged once per case.
	verdicts map[verdictKey]consistency.Verdict
	seen     map[[2]string]bool
	// synonyms memoises judge's synonym cover: whether a finding's clause
	// (by finding id) states a curated synonym of a concept (by key) in
	// full. The answer depends on those two only, and the many conditions
	// on one concept ask it again for every finding they judge.
	synonyms map[[2]string]synonymCover
}

// synonymCover is a memoised CoversAll answer: covered, and by which synonym.
type synonymCover struct {
	ok  bool
	syn string
}

// verdictKey is a (condition, evidence) pair step (v) judges: the
// condition by its compiled form, one per distinct (concept, wording,
// context, operator), the evidence by its finding and derivation.
type verdictKey struct {
	cond             *consistency.Compiled
	finding, via, by string
}

func (p *Program) newAdmitter(c *call, text *consistency.Text, mention, clause map[string]string, tr *Trace) *admitter {
	return &admitter{p: p, checks: c.checks, text: text, mention: mention, clause: clause, tr: tr,
		verdicts: map[verdictKey]consistency.Verdict{}, seen: map[[2]string]bool{}, synonyms: map[[2]string]synonymCover{}}
}

// synonymIn is p.synCover[key].CoversAll(a.clause[id]), asked once per case.
func (a *admitter) synonymIn(key, id string) (bool, string) {
	k := [2]string{key, id}
	a.mu.Lock()
	sc, ok := a.synonyms[k]
	a.mu.Unlock()
	if !ok {
		sc.ok, sc.syn = a.p.synCover[key].CoversAll(a.clause[id])
		a.mu.Lock()
		a.synonyms[k] = sc
		a.mu.Unlock()
	}
	return sc.ok, sc.syn
}

// admit is the eval.Options.Admit hook; a refusal is traced.
func (a *admitter) admit(c eval.Cond, e eval.Evidence) bool {
	v := a.verdict(c, e)
	if v.Pass {
		return true
	}
	a.mu.Lock()
	rk := [2]string{c.DecisionID, e.ID}
	if !a.seen[rk] {
		a.seen[rk] = true
		a.tr.Rejected = append(a.tr.Rejected, Rejection{DecisionID: c.DecisionID, FindingID: e.ID, Check: v.Check, Reason: v.Reason})
	}
	a.mu.Unlock()
	return false
}

// passes is admit without the trace, for what-if evaluations.
func (a *admitter) passes(c eval.Cond, e eval.Evidence) bool { return a.verdict(c, e).Pass }

func (a *admitter) verdict(c eval.Cond, e eval.Evidence) consistency.Verdict {
	if a.checks == (consistency.Checks{}) {
		return consistency.Verdict{Pass: true}
	}
	cc := a.p.compileCond(c)
	k := verdictKey{cc, e.ID, e.Via, e.DerivedBy}
	a.mu.Lock()
	v, ok := a.verdicts[k]
	a.mu.Unlock()
	if !ok {
		v = a.judge(c, e, cc)
		a.mu.Lock()
		a.verdicts[k] = v
		a.mu.Unlock()
	}
	return v
}

// compiledConds maps consistency.Condition → *consistency.Compiled (one
// per distinct condition), and a rule condition's decision id to its
// condition's, so the conditions judged again in every case are found by
// one short key, not by hashing their four texts.
type compiledConds struct {
	sync.Map
	mu         sync.RWMutex
	byDecision map[string]*consistency.Compiled
}

// compile returns the condition compiled for step (v), compiling it the
// first time any case judges it: the pack's conditions are few and judged
// again in every case.
func (p *Program) compile(cond consistency.Condition) *consistency.Compiled {
	if c, ok := p.compiled.Load(cond); ok {
		return c.(*consistency.Compiled)
	}
	c, _ := p.compiled.LoadOrStore(cond, consistency.Compile(cond))
	return c.(*consistency.Compiled)
}

// compileCond is compile for a rule's condition, found by its decision id
// when that id was last seen with the same texts.
func (p *Program) compileCond(c eval.Cond) *consistency.Compiled {
	if f, ok := c.Tag.(*condForm); ok && sameCond(f.cond, c) {
		// A rule's condition (Program.rule), compiled once.
		if x := f.cc.Load(); x != nil {
			return x
		}
		x := p.compile(f.cond)
		f.cc.Store(x)
		return x
	}
	cc := &p.compiled
	if c.DecisionID != "" {
		cc.mu.RLock()
		x := cc.byDecision[c.DecisionID]
		cc.mu.RUnlock()
		if x != nil && sameCond(x.Condition(), c) {
			return x
		}
	}
	x := p.compile(consistency.Condition{Concept: c.Concept, Wording: c.Wording, Context: c.Context, Operator: c.Operator})
	if c.DecisionID != "" {
		cc.mu.Lock()
		if cc.byDecision == nil {
			cc.byDecision = map[string]*consistency.Compiled{}
		}
		cc.byDecision[c.DecisionID] = x
		cc.mu.Unlock()
	}
	return x
}

// sameCond: k has c's texts (for the same strings, a comparison of
// their addresses).
func sameCond(k consistency.Condition, c eval.Cond) bool {
	return k.Concept == c.Concept && k.Wording == c.Wording && k.Context == c.Context && k.Operator == c.Operator
}

// judge is step (v) on one (condition, evidence) pair; cc is the
// condition compiled.
func (a *admitter) judge(c eval.Cond, e eval.Evidence, cc *consistency.Compiled) consistency.Verdict {
	cond := cc.Condition()
	cf, coded := a.coded[e.ID]
	var v consistency.Verdict
	if coded {
		if (e.DerivedBy == eval.ReaderIsA || e.DerivedBy == eval.ReaderDefinition) && !cf.Uncertain && a.nameDoubts(e.Concept) {
			// A broader concept whose own name states a doubt ("symptoms
			// suggestive of ischaemia" from a recorded angina) is as
			// doubtful as a record naming it: the pack's is-a says so,
			// and so does a definition that makes it of recorded facts
			// (a recorded chest pain with a recorded pre-test likelihood),
			// as it does for the same words in text.
			cf.Uncertain = true
		}
		v = cc.CheckCoded(cf, a.checks)
	} else {
		v = a.at(e.ID).CheckCompiled(a.mention[e.ID], cc, a.checks)
		if a.checks.Certainty {
			switch {
			case a.ownWords(a.undoubted, e):
				v = a.certaintyAtOwnWords(c, e, cond, v)
			case a.ownWords(a.doubtedWords, e):
				v = a.doubtAtOwnWords(c, e, cond, v)
			}
		}
		if v.Pass && a.checks.Negation && wordedAbsence(c) && !cuesWorded(c.Wording, v.Context.Cues) {
			// A definition's member worded as an absence with its cue
			// ("acute coronary syndrome ruled out") asks for that cue: a
			// plain denial ("no ACS") is an absence of another kind.
			v.Pass, v.Check = false, consistency.CheckNegation
			v.Reason = consistency.CheckNegation + ": the definition's member asks for the absence worded '" + c.Wording + "', which '" + a.mention[e.ID] + "' does not state"
		}
	}
	if a.checks.Qualifier && (e.DerivedBy != "" || coded) && wordingQualifies(c) {
		// A definition's member whose wording adds a course the
		// concept's name lacks ("persistent angina pectoris") asks for
		// that course in the patient's words: a fact derived from other
		// facts (an angina made of exertional pain and obstructive CAD)
		// states none, nor does a coded record, which has no words.
		v.Pass, v.Check = false, consistency.CheckQualifier
		v.Reason = consistency.CheckQualifier + ": the definition's member is worded '" + c.Wording + "', which the derived '" + e.Concept + "' does not state"
		return v
	}
	if v.Pass {
		return v
	}
	if coded {
		// A record has no words for the synonym pass below; what a
		// derivation states (a definition's own doubt) holds for it as
		// for text.
		return a.derivedPass(c, e, v)
	}
	// A curated synonym carries the concept's qualifiers in its own words:
	// "stable angina" is chronic coronary syndrome although it does not say
	// "chronic". So does a synonym that is itself a doubtful finding:
	// "palpitations" is a suspected arrhythmia without saying "suspected".
	// The synonym must be stated in full, and a doubtful case mention is
	// never let through.
	// A definition's member worded as a doubt of a concept whose name is
	// none ("suspected angina pectoris") asks for the case's doubt: the
	// concept's synonyms ("ischaemic cardiomyopathy") state it undoubted.
	if v.Check == consistency.CheckQualifier && !a.qualifierWorded(c, v) ||
		v.Check == consistency.CheckCertainty && strings.HasPrefix(v.Reason, consistency.CheckCertainty+": the condition is uncertain") && !a.doubtWorded(c) {
		cl := a.clause[e.ID]
		if ok, syn := a.synonymIn(c.ConceptKey, e.ID); ok && !doubtfulSynonym(cl, syn, cond, a.checks) {
			v.Pass, v.Check, v.Reason = true, "", "qualifier: the clause states the synonym '"+syn+"' of '"+c.Concept+"'"
			return v
		}
	}
	// A doubt cue that is a word of the stated synonym itself ("CABG vs
	// PCI" for a revascularisation candidate) is the concept's wording.
	if v.Check == consistency.CheckCertainty && strings.HasPrefix(v.Reason, consistency.CheckCertainty+": the case is uncertain") {
		if syn := doubtInSynonym(a.clause[e.ID], a.p.synonyms[c.ConceptKey], a.p.synPadded[c.ConceptKey], v.Context.Cues); syn != "" {
			v.Pass, v.Check, v.Reason = true, "", "certainty: the doubt cue is a word of the stated synonym '"+syn+"' of '"+c.Concept+"'"
			return v
		}
	}
	if v.Check == consistency.CheckNegation && e.Present && e.DerivedBy != "" && a.p.statesPastNegation(a.at(e.ID), a.mention[e.ID]) {
		v.Pass, v.Check, v.Reason = true, "", "negation: derived from a concept '"+a.mention[e.ID]+"' states beyond its negation"
		return v
	}
	return a.derivedPass(c, e, v)
}

// ownWords: e's concept, or for an is-a or a composite's item the stated
// concept it was read from, is in set (undoubted or doubtedWords) for its
// finding.
func (a *admitter) ownWords(set map[[2]string]bool, e eval.Evidence) bool {
	if len(set) == 0 {
		return false
	}
	key := e.ConceptKey
	switch e.DerivedBy {
	case "":
	case eval.ReaderIsA, eval.ReaderDefinition:
		key = e.From
	default:
		return false
	}
	return set[[2]string{e.ID, key}]
}

// certaintyAtOwnWords re-judges the certainty of a verdict on evidence
// whose own words no doubt reaches ("3VD" in "PCI vs CABG for 3VD"): the
// case's doubt at the finding's head is not the concept's, so a certain
// condition passes (the other checks still judged) and a condition that
// asks for doubt ("suspected obstructive CAD") is refused.
func (a *admitter) certaintyAtOwnWords(c eval.Cond, e eval.Evidence, cond consistency.Condition, v consistency.Verdict) consistency.Verdict {
	uncertainCase := strings.HasPrefix(v.Reason, consistency.CheckCertainty+": the case is uncertain")
	if !v.Pass && v.Check == consistency.CheckCertainty && uncertainCase {
		rest := a.checks
		rest.Certainty = false
		w := a.at(e.ID).CheckCompiled(a.mention[e.ID], a.p.compile(cond), rest)
		if w.Pass {
			w.Reason = "certainty: the doubt in '" + a.mention[e.ID] + "' does not reach the words that name " + quoteName(e)
		}
		return w
	}
	if v.Pass && a.p.doubtfulName(c.Wording) && !a.p.doubtfulName(e.Concept) {
		v.Pass, v.Check = false, consistency.CheckCertainty
		v.Reason = consistency.CheckCertainty + ": the condition is uncertain but '" + a.mention[e.ID] + "' states " + quoteName(e) + " outside its doubt"
	}
	return v
}

// doubtAtOwnWords is certaintyAtOwnWords the other way round, for
// evidence whose own words a doubt reaches while its finding's head is
// certain ("regional pattern suggests ischaemic aetiology"): a certain
// condition is refused, a doubtful one passes (the other checks still
// judged).
func (a *admitter) doubtAtOwnWords(c eval.Cond, e eval.Evidence, cond consistency.Condition, v consistency.Verdict) consistency.Verdict {
	if !v.Pass && v.Check == consistency.CheckCertainty && strings.HasPrefix(v.Reason, consistency.CheckCertainty+": the condition is uncertain") {
		rest := a.checks
		rest.Certainty = false
		w := a.at(e.ID).CheckCompiled(a.mention[e.ID], a.p.compile(cond), rest)
		if w.Pass {
			w.Reason = "certainty: '" + a.mention[e.ID] + "' states " + quoteName(e) + " with doubt"
		}
		return w
	}
	if v.Pass && !a.asksDoubt(c.Wording) && !a.asksDoubt(c.Concept) && !a.asksDoubt(e.Concept) {
		v.Pass, v.Check = false, consistency.CheckCertainty
		v.Reason = consistency.CheckCertainty + ": the case is uncertain ('" + a.mention[e.ID] + "' states " + quoteName(e) + " with doubt) but the condition '" + c.Concept + "' is not"
	}
	return v
}

// asksDoubt: a name that states a doubt, by its cue scan or as step (v)
// reads it ("symptoms suggestive of myocardial ischaemia").
func (a *admitter) asksDoubt(name string) bool {
	return name != "" && (a.p.doubtfulName(name) || a.nameDoubts(name))
}

func quoteName(e eval.Evidence) string { return "'" + e.Concept + "'" }

// at is the case text read at finding id's own place (Text.At).
func (a *admitter) at(id string) *consistency.Text {
	if s, ok := a.start[id]; ok {
		return a.text.At(s)
	}
	return a.text
}

// nameDoubts reports whether a concept's own name, judged as a coded
// fact's condition, asks for doubt (step (v)'s reading, not the cue
// scan of doubtfulName, which skips a cue inside its own target).
func (a *admitter) nameDoubts(concept string) bool {
	v := a.p.compile(consistency.Condition{Concept: concept, Operator: rules.OpPresent}).CheckCoded(consistency.Coded{}, consistency.Checks{Certainty: true})
	return !v.Pass && v.Check == consistency.CheckCertainty
}

// derivedPass lets through a failed verdict on derived evidence where the
// derivation itself makes the point of the check.
func (a *admitter) derivedPass(c eval.Cond, e eval.Evidence, v consistency.Verdict) consistency.Verdict {
	// A definition or an is-a edge whose concept is itself a doubt
	// ("suspected X", made from a stated pre-test likelihood; an
	// "uncertain diagnosis" that a non-diagnostic test is) states the doubt
	// a doubtful condition asks for: the derivation, not the mention, is
	// uncertain.
	if v.Check == consistency.CheckCertainty && (e.DerivedBy == eval.ReaderDefinition || e.DerivedBy == eval.ReaderIsA) &&
		strings.HasPrefix(v.Reason, consistency.CheckCertainty+": the condition is uncertain") && a.p.doubtfulName(e.Concept) {
		v.Pass, v.Check, v.Reason = true, "", "certainty: the definition of '"+e.Concept+"' states the doubt"
		return v
	}
	// A definition of the condition's own concept whose name holds its
	// doubt on a part of it ("CAD of unclear functional significance on
	// CCTA", made of a CCTA and an intermediate stenosis) states that
	// doubt: the definition reads what is unclear, the mentions it is made
	// of need not say so.
	if v.Check == consistency.CheckCertainty && e.DerivedBy == eval.ReaderDefinition &&
		strings.HasPrefix(v.Reason, consistency.CheckCertainty+": the condition is uncertain") &&
		rules.NormalizeName(e.Concept) == rules.NormalizeName(c.Concept) && a.p.doubtInName(e.Concept) {
		v.Pass, v.Check, v.Reason = true, "", "certainty: the definition of '"+e.Concept+"' states the doubt its name holds"
		return v
	}
	// A definition whose member asks for the doubt in its own wording
	// ("angina pectoris" worded "suspected angina pectoris" makes symptoms
	// suggestive of ischaemia) has read the case's doubt as what the
	// defined concept says: the doubt was the member's.
	if v.Check == consistency.CheckCertainty && e.DerivedBy == eval.ReaderDefinition &&
		(strings.HasPrefix(v.Reason, consistency.CheckCertainty+": the case is uncertain") ||
			strings.HasPrefix(v.Reason, consistency.CheckCertainty+": the record states the fact with doubt")) {
		if w := a.doubtingMember(e); w != "" {
			v.Pass, v.Check, v.Reason = true, "", "certainty: the definition of '"+e.Concept+"' reads the doubt as its member '"+w+"'"
			return v
		}
	}
	// A definition whose member is a stated absence worded with its cue
	// ("acute coronary syndrome ruled out" makes a clinical presentation
	// suggestive of ACS: what was ruled out was suspected) is affirmed by
	// a mention negated by that cue ("ACS excluded by serial troponins"),
	// not by any other ("no ACS", "not ACS": a denial says nothing of a
	// suspicion).
	if v.Check == consistency.CheckNegation && e.DerivedBy == eval.ReaderDefinition {
		if w := a.excludingMember(e, v.Context.Cues); w != "" {
			v.Pass, v.Check, v.Reason = true, "", "negation: the definition of '"+e.Concept+"' reads the negation as its member '"+w+"'"
			return v
		}
	}
	// A definition made of stated absences only ("asymptomatic" is chest
	// pain and exertional dyspnoea stated absent) is affirmed by negated
	// mentions: the negation is what the definition reads, not a denial
	// of the defined concept.
	if v.Check == consistency.CheckNegation && e.DerivedBy == eval.ReaderDefinition && a.p.absenceDefined(e.Concept) {
		v.Pass, v.Check, v.Reason = true, "", "negation: the definition of '"+e.Concept+"' is made of stated absences"
		return v
	}
	// Derived evidence whose reader declares that its derivation makes
	// the point of the failed check in the patient's own words
	// (read.Reader.Satisfies) is let through; Via says how, for the trace.
	if a.p.readers.Satisfied(e, v.Check, c) {
		v.Pass, v.Reason, v.Check = true, v.Check+": "+e.Via, ""
	}
	return v
}

// doubtingMember returns the wording of a member of the definition that
// derived e, worded apart from its concept's name, that the mention of e
// states by step (v) (a doubted "?angina" states "suspected angina
// pectoris"), or "". Coded facts have no words to judge.
func (a *admitter) doubtingMember(e eval.Evidence) string {
	if a.p.hierarchy == nil || !strings.HasPrefix(e.Via, eval.ViaDefinition+e.Concept+" ") {
		return ""
	}
	if cf, coded := a.coded[e.ID]; coded {
		return a.codedDoubtingMember(e, cf)
	}
	for _, c := range a.p.hierarchy.Composites {
		if rules.NormalizeName(c.Concept) != rules.NormalizeName(e.Concept) {
			continue
		}
		for _, l := range c.Expr.Leaves() {
			if l.Wording == "" || l.Concept == "" {
				continue
			}
			// Only the doubt is asked of the mention here: its concept
			// was admitted as the member already, and a curated synonym
			// ("unstable angina" for ACS) need not spell the wording's
			// qualifiers ("acute").
			cond := consistency.Condition{Concept: l.Concept, Wording: l.Wording, Operator: rules.OpPresent}
			if a.at(e.ID).CheckCompiled(a.mention[e.ID], a.p.compile(cond), consistency.Checks{Certainty: a.checks.Certainty}).Pass {
				return l.Wording
			}
		}
	}
	return ""
}

// excludingMember returns the wording of a member of the definition that
// derived e which is a stated absence (operator ABSENT) worded with the
// negation cues that negate the mention of e ("acute coronary syndrome
// ruled out" for "ACS ruled out"), or "". Every cue must be a phrase of
// the wording, so a plain denial ("no ACS") states no such member.
func (a *admitter) excludingMember(e eval.Evidence, cues []string) string {
	if a.p.hierarchy == nil || len(cues) == 0 || !strings.HasPrefix(e.Via, eval.ViaDefinition+e.Concept+" ") {
		return ""
	}
	for _, c := range a.p.hierarchy.Composites {
		if rules.NormalizeName(c.Concept) != rules.NormalizeName(e.Concept) {
			continue
		}
		for _, l := range c.Expr.Leaves() {
			if l.Wording == "" || l.Concept == "" || rules.NormalizeOperator(l.Op) != rules.OpAbsent {
				continue
			}
			if cuesWorded(l.Wording, cues) {
				return l.Wording
			}
		}
	}
	return ""
}

// wordedAbsence: c is a definition's member asking for a stated absence
// in words of its own ("acute coronary syndrome ruled out"), not its
// concept's bare name.
func wordedAbsence(c eval.Cond) bool {
	return c.Operator == rules.OpAbsent && strings.HasPrefix(c.DecisionID, "definition::") && c.Wording != "" &&
		rules.NormalizeName(c.Wording) != rules.NormalizeName(c.Concept)
}

// cuesWorded reports whether every negation cue is a phrase of wording
// ("ruled out" of "acute coronary syndrome ruled out"); no cue states
// none.
func cuesWorded(wording string, cues []string) bool {
	if len(cues) == 0 {
		return false
	}
	w := " " + strings.Join(strings.Fields(strings.ToLower(wording)), " ") + " "
	for _, cue := range cues {
		k := strings.Join(strings.Fields(strings.ToLower(strings.Trim(cue, "'"))), " ")
		if k == "" || !strings.Contains(w, " "+k+" ") {
			return false
		}
	}
	return true
}

// codedDoubtingMember is doubtingMember for a coded fact, which has no
// words: a record that holds the fact as uncertain (a provisional
// diagnosis) states the doubt of a member worded as one whose concept is
// the fact's own (a provisional "suspected vasospastic angina" is the
// member "suspected vasospastic angina" of angina pectoris), as the same
// words in text do.
func (a *admitter) codedDoubtingMember(e eval.Evidence, cf consistency.Coded) string {
	if !cf.Uncertain || e.From == "" {
		return ""
	}
	for _, c := range a.p.hierarchy.Composites {
		if rules.NormalizeName(c.Concept) != rules.NormalizeName(e.Concept) {
			continue
		}
		for _, l := range c.Expr.Leaves() {
			if l.Wording == "" || l.Concept == "" || !a.p.doubtfulName(l.Wording) {
				continue
			}
			if k, ok := a.p.keys[rules.NormalizeName(l.Concept)]; ok && k == e.From {
				return l.Wording
			}
		}
	}
	return ""
}

// wordedMember: c is a definition's member worded otherwise than its
// concept's name ("suspected heart failure of ischaemic aetiology"; see
// rules.Expr.Wording).
func wordedMember(c eval.Cond) bool {
	return strings.HasPrefix(c.DecisionID, "definition::") && c.Wording != "" && rules.NormalizeName(c.Wording) != rules.NormalizeName(c.Concept)
}

// wordingQualified memoises wordingQualifies by (concept, wording).
var wordingQualified sync.Map

// wordingQualifies reports whether a definition's member is worded with a
// qualifier its concept's own name does not state ("persistent angina
// pectoris" for angina pectoris).
func wordingQualifies(c eval.Cond) bool {
	if !wordedMember(c) {
		return false
	}
	k := [2]string{c.Concept, c.Wording}
	if q, ok := wordingQualified.Load(k); ok {
		return q.(bool)
	}
	cond := consistency.Condition{Concept: c.Concept, Wording: c.Wording, Operator: rules.OpPresent}
	q := !consistency.Check(c.Concept, c.Concept, cond, consistency.Checks{Qualifier: true}).Pass
	wordingQualified.Store(k, q)
	return q
}

// qualifierWorded reports whether the qualifier v misses is one a
// definition's member adds in its wording to a concept whose name lacks
// it ("persistent angina pectoris"): the concept's synonyms ("stable
// angina") do not state it.
func (a *admitter) qualifierWorded(c eval.Cond, v consistency.Verdict) bool {
	if !wordedMember(c) {
		return false
	}
	const says = "the condition says '"
	i := strings.Index(v.Reason, says)
	if i < 0 {
		return false
	}
	q, _, ok := strings.Cut(v.Reason[i+len(says):], "'")
	if !ok || q == "" {
		return false
	}
	return !slices.Contains(strings.Fields(rules.NormalizeName(c.Concept)), rules.NormalizeName(q))
}

// doubtWorded: c is a definition's member whose own wording is a doubt of
// a concept whose name is not ("suspected heart failure of ischaemic
// aetiology"; see rules.Expr.Wording).
func (a *admitter) doubtWorded(c eval.Cond) bool {
	return strings.HasPrefix(c.DecisionID, "definition::") && c.Wording != "" &&
		rules.NormalizeName(c.Wording) != rules.NormalizeName(c.Concept) &&
		a.p.doubtfulName(c.Wording) && !a.p.doubtfulName(c.Concept)
}

// absenceDefined reports whether concept is a composite every member of
// which (its exclusions aside) is met by a stated absence (op ABSENT).
func (p *Program) absenceDefined(concept string) bool {
	if p.hierarchy == nil {
		return false
	}
	n := rules.NormalizeName(concept)
	for _, c := range p.hierarchy.Composites {
		if rules.NormalizeName(c.Concept) != n {
			continue
		}
		leaves := c.Expr.Leaves()
		for _, l := range leaves {
			if l.Concept == "" || rules.NormalizeOperator(l.Op) != rules.OpAbsent {
				return false
			}
		}
		return len(leaves) > 0
	}
	return false
}
