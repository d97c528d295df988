package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/fhir"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/rules"
)

// ValueSets returns the pack's value sets (meta/valuesets.json), or nil
// when the pack has none.
func (p *Program) ValueSets() *rules.ValueSets { return p.pack.ValueSets }

// ReadFHIR reads a FHIR R4 Bundle into the patient model with the pack's
// value sets; ages count to date (zero: today).
func (p *Program) ReadFHIR(caseID string, bundle []byte, date time.Time) (*patient.Model, error) {
	return p.ReadFHIRParts(caseID, [][]byte{bundle}, date)
}

// ReadFHIRParts is ReadFHIR over several Bundles or single resources about
// one patient (a CDS Hooks prefetch).
func (p *Program) ReadFHIRParts(caseID string, parts [][]byte, date time.Time) (*patient.Model, error) {
	if p.pack.ValueSets == nil {
		return nil, &StageError{CaseID: caseID, Stage: StageRead, Detail: "FHIR bundle",
			Err: errors.New("the pack has no value sets (" + rules.ValueSetsFile + "), so no code can become a fact")}
	}
	m, err := fhir.ReadParts(parts, p.pack.ValueSets, fhir.Options{CaseID: caseID, Date: date, Name: p.nameFromWords, Past: p.pastWords,
		Drug: p.drugInWords, Agent: p.hierarchy.AgentNamed,
		Narrative: func(text string) ([]patient.Fact, []patient.Dropped) { return p.narrative(caseID, text, date) }})
	if err != nil {
		return nil, stageErr(caseID, StageRead, err, "FHIR bundle")
	}
	return m, nil
}

// narrative reads a resource's free text as the text reader reads a note:
// the facts it states (derivations are the model's, made once from all of
// it) and what it set aside.
func (p *Program) narrative(caseID, text string, date time.Time) ([]patient.Fact, []patient.Dropped) {
	if date.IsZero() {
		date = time.Now().UTC()
	}
	res, err := p.AskOn(context.Background(), caseID, text, date)
	if err != nil || res.Patient == nil {
		why := "the text reader read nothing"
		if err != nil {
			why = "the text reader failed: " + err.Error()
		}
		return nil, []patient.Dropped{{Text: text, Reason: why}}
	}
	var facts []patient.Fact
	drops := res.Patient.Dropped
	for _, f := range res.Patient.Facts {
		if f.Reader == readerDerive {
			continue
		}
		why, doubted := narrativeDoubt(text, f)
		if why != "" {
			drops = append(drops, patient.Dropped{Text: f.Concept, Reason: why})
			continue
		}
		if doubted {
			f.Certainty = patient.Suspected
		}
		facts = append(facts, f)
	}
	return facts, drops
}

// narrativeDoubt says why a fact read from a resource's free text is not
// kept: once in the record its words are gone, so step (v) cannot judge
// them later, and the cues are judged here. A stated finding is kept
// unless a negation, a possibility or another person's cue scopes over it,
// or a negation later in its sentence follows a list it may cover ("Left
// main, proximal LAD, LCx and RCA without significant stenosis"); one in
// doubt is kept as suspected; an absence stands as stated.
func narrativeDoubt(text string, f patient.Fact) (why string, doubted bool) {
	present, _ := f.Asserts()
	if !present || len(f.Spans) == 0 {
		return "", false
	}
	sp := f.Spans[0]
	if sp.Start < 0 || sp.End > len(text) || sp.Start >= sp.End {
		return "", false
	}
	from := strings.LastIndexAny(text[:sp.Start], ".;\n") + 1
	to := len(text)
	if i := strings.IndexAny(text[sp.End:], ".;\n"); i >= 0 {
		to = sp.End + i
	}
	sentence := text[from:to]
	words := text[sp.Start:sp.End]
	cx := consistency.Analyze(sentence, words)
	if cx.Negated || cx.Hypothetical || cx.Other {
		return "its words in the record's text are set aside ('" + strings.Join(cx.Cues, ", ") + "' in '" + sentence + "')", false
	}
	if tc := tailCues(words); tc.Negated {
		// "RCA without significant stenosis" states no stenosis.
		return "its own words negate it ('" + strings.Join(tc.Cues, ", ") + "' in '" + words + "')", false
	}
	// A negation inside a later clause ("LCx and RCA without ...") may
	// cover the list before it; one opening its own clause ("no LBBB")
	// covers that clause only.
	for _, cl := range strings.Split(text[sp.End:to], ",") {
		cl = strings.TrimSpace(cl)
		for _, cue := range tailCues(cl).Cues {
			if !strings.HasPrefix(strings.ToLower(cl), strings.ToLower(cue)) {
				return "a negation later in its sentence may cover it ('" + cue + "' in '" + sentence + "')", false
			}
		}
	}
	return "", cx.Uncertain
}

// tailCues are the negation cues scoping over a phrase's last word (a
// cue inside a phrase does not scope over the phrase as a whole).
func tailCues(phrase string) consistency.Context {
	ws := strings.Fields(phrase)
	if len(ws) < 2 {
		return consistency.Context{}
	}
	cx := consistency.Analyze(phrase, ws[len(ws)-1])
	if !cx.Negated {
		cx.Cues = nil
	}
	return cx
}

// nameFromWords is the FHIR reader's fallback for a resource none of whose
// codes the value sets list: the concepts its words state word for word (a
// pack name, row wording or synonym, or a value set's concept by its name
// or lexicon synonyms: the same verbatim match the text reader trusts
// most), read with the same cues as text, so that "Family history of
// ischaemic heart disease" is no fact of the patient's and "Suspected
// angina" is a suspected one. A product's words are read by ingredient
// too ("amlodipine 5 MG / atorvastatin 10 MG Oral Tablet" is two drugs).
// Fuzzy grounding is not used: a code's words are short and exact, and a
// near miss would invent a fact the record does not state.
func (p *Program) nameFromWords(w fhir.Words) ([]fhir.Named, string) {
	words := w.Text
	if p.ungrounded(words) {
		return nil, "name a measurement the pack has no concept for"
	}
	anchors, unread := p.wordAnchors(w)
	if w.Narrower != "" {
		anchors, unread = p.kindsOf(w.Narrower, anchors), nil
	}
	if len(anchors) == 0 {
		return nil, "name no concept of the pack word for word"
	}
	// Each concept is judged at its own words, as the text reader judges
	// a finding's concepts (consistency.Text.AnalyzeAt): a display of
	// several clauses ("Chest pain, r/o MI", "Stable angina; family
	// history of premature CAD") doubts, negates or gives another person
	// only the concepts its cue reaches, not the words as a whole.
	ctext := consistency.NewText(words)
	whole := ctext.Analyze(words)
	var names []fhir.Named
	var aside, whys []string
	for _, a := range anchors {
		set := p.pack.ValueSets.ByKey(a.ConceptKey)
		if set == nil {
			if a.Concept == "" {
				a.Concept = p.recordNaming.names[a.ConceptKey]
			}
			set = &rules.ValueSet{Concept: a.Concept, Key: a.ConceptKey}
			if name, key := p.intoleranceConcept(a.ConceptKey, a.Concept); key != "" {
				// A drug not tolerated is the pack's intolerance of it
				// ("Atorvastatin" allergy: statin intolerance), as a
				// value set's "as" says for a coded one.
				set.As, set.AsKeys = map[string]string{"not-tolerated": name}, map[string]string{"not-tolerated": key}
			}
			if p.roles[a.ConceptKey] == rules.RoleProcedure {
				// A procedure ordered or in preparation is what a plan
				// states in text: the pack's planned form of it ("planned
				// PCI"), else the procedure itself as an intention
				// (SPECT requested: the rows for a patient having it).
				name, key := set.Concept, a.ConceptKey
				if f, ok := p.plannedForm(a); ok {
					name, key = f.Concept, f.ConceptKey
				}
				if set.As == nil {
					set.As, set.AsKeys = map[string]string{}, map[string]string{}
				}
				set.As["planned"], set.AsKeys["planned"] = name, key
			}
			if u := p.units[a.ConceptKey]; len(u) == 1 {
				// A measured concept the value sets do not list: its value
				// is read in the unit the pack's rules use, and no other.
				set.Unit, set.Units = u[0], map[string]string{u[0]: u[0]}
			}
		}
		cx := whole
		if stated := p.recordNaming.statedIn(a.ConceptKey, words); len(stated) > 0 {
			cx = ctext.AnalyzeAt(words, strings.Join(stated, " ; "))
		}
		if why := p.wordsAside(cx, a); why != "" {
			aside = append(aside, set.Concept+", and "+why)
			if !slices.Contains(whys, why) {
				whys = append(whys, why)
			}
			continue
		}
		// The doubt of a concept whose own name states it ("Suspected
		// angina pectoris" is a suspected CCS, as named) is its name.
		cert := patient.Confirmed
		if cx.Uncertain && !p.doubtfulName(set.Concept) {
			cert = patient.Suspected
		}
		names = append(names, fhir.Named{Set: set, Certainty: cert})
	}
	if len(names) == 0 {
		return nil, strings.Join(whys, "; ")
	}
	names[0].Aside = aside
	names[0].Unread = unread
	return names, ""
}

// intoleranceConcept is the pack's concept of a drug not tolerated
// (meta/sections.json intolerance_forms: "{drug} intolerance",
// "contraindication to {drug}"), formed from the drug's name or one of
// its lexicon synonyms ("statin" of lipid-lowering therapy gives
// "statin intolerance"); "" when the pack has none or the concept is no
// drug.
func (p *Program) intoleranceConcept(key, concept string) (name, intolKey string) {
	if !p.medications[key] || concept == "" {
		return "", ""
	}
	names := []string{concept}
	if lex := p.cfg.lexicon; lex != nil {
		if c := lex.Concept(concept); c != nil {
			names = append(names, c.Synonyms...)
		}
	}
	for _, n := range names {
		for _, f := range p.doc.IntoleranceForms(n) {
			if k, ok := p.keys[rules.NormalizeName(f)]; ok && k != key {
				return p.names[k], k
			}
		}
	}
	return "", ""
}

// wordsAside says why a concept a record's words name is no fact of the
// patient's, from the cues that reach its own words; "" when it is one.
func (p *Program) wordsAside(cx consistency.Context, a grounding.Anchor) string {
	cues := "'" + strings.Join(cx.Cues, ", ") + "'"
	own := []grounding.Anchor{a}
	switch {
	case cx.Other:
		return "are about someone other than the patient (" + cues + ")"
	case cx.Negated:
		return "state it absent (" + cues + "); a record's status, not its name, says what is absent"
	case cx.Hypothetical && !p.cueInConcept(own, cx.Cues): // "High bleeding risk" names its risk
		return "state a possibility, not a fact (" + cues + ")"
	case cx.Unlikely && !p.cueInConcept(own, cx.Cues):
		return "state it probably absent (" + cues + "), neither present nor absent"
	}
	return ""
}

// kindsOf keeps the anchors whose concept is a kind of the named one
// (the pack's is-a): what a coded resource's words add to its code.
func (p *Program) kindsOf(concept string, anchors []grounding.Anchor) []grounding.Anchor {
	var out []grounding.Anchor
	for _, a := range anchors {
		name := a.Concept
		if name == "" {
			name = p.recordNaming.names[a.ConceptKey]
		}
		for _, b := range p.hierarchy.Broader(name) {
			if rules.NormalizeName(b) == rules.NormalizeName(concept) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// wordAnchors are the concepts words name on their own: a concept named
// only inside a longer one ("coronary artery disease" in "non-obstructive
// coronary artery disease") is that longer one's, not a second fact. A
// product's words name drugs only (the "HR" of "24 HR" is no heart rate),
// whole ("atorvastatin 80", a synonym with its strength) and by
// ingredient; unread are the ingredients that name none.
func (p *Program) wordAnchors(w fhir.Words) (anchors []grounding.Anchor, unread []string) {
	seen := map[string]bool{}
	add := func(text string, drugsOnly bool) int {
		n := 0
		set := &p.recordNaming.words
		if w.Product {
			set = &p.recordNaming.products
		}
		found, _, _ := p.verbatimIn(set, text, true)
		for _, a := range found {
			if slices.Contains(a.Channels, channelNarrowed) || drugsOnly && !p.drug(a.ConceptKey) {
				continue
			}
			n++
			if !seen[a.ConceptKey] {
				seen[a.ConceptKey] = true
				anchors = append(anchors, a)
			}
		}
		return n
	}
	add(w.Text, w.Product)
	if !w.Product && w.Substance && len(anchors) == 0 {
		// An allergy's substance the concepts' own names do not name
		// ("Atorvastatin") is read as a drug list's words are: by the
		// drugs' names and lexicon synonyms.
		w.Product = true
		add(w.Text, true)
	}
	if !w.Product {
		return anchors, nil
	}
	for _, part := range strings.Split(w.Text, " / ") {
		// An ingredient the words name with its strength ("rivaroxaban
		// 2.5", a dose's own concept) is not read again by its bare name,
		// which would name the drug at another dose.
		if p.namesDrug(part) {
			continue
		}
		for _, in := range fhir.Ingredients(part) {
			if add(in, true) == 0 {
				unread = append(unread, in)
			}
		}
	}
	if len(anchors) == 0 {
		return nil, nil
	}
	return p.oneKeyPerName(anchors), unread
}

// oneKeyPerName keeps one anchor per concept name: a drug a rule gives by
// name and the value sets list by code ("clopidogrel 75 MG Oral Tablet
// [Plavix]" names it by ingredient and by brand) is one drug taken, not
// two facts; the value sets' key is kept, at the first one's place.
func (p *Program) oneKeyPerName(anchors []grounding.Anchor) []grounding.Anchor {
	at := map[string]int{}
	var out []grounding.Anchor
	for _, a := range anchors {
		name := a.Concept
		if name == "" {
			name = p.recordNaming.names[a.ConceptKey]
		}
		n := rules.NormalizeName(name)
		i, seen := at[n]
		switch {
		case n == "" || !seen:
			at[n] = len(out)
			out = append(out, a)
		case p.pack.ValueSets.ByKey(out[i].ConceptKey) == nil && p.pack.ValueSets.ByKey(a.ConceptKey) != nil:
			out[i] = a
		}
	}
	return out
}

// namesDrug reports whether words, as a product's, name a drug on their
// own (not only inside a longer phrase).
func (p *Program) namesDrug(words string) bool {
	found, _, _ := p.verbatimIn(&p.recordNaming.products, words, true)
	for _, a := range found {
		if !slices.Contains(a.Channels, channelNarrowed) && p.drug(a.ConceptKey) {
			return true
		}
	}
	return false
}

// drug reports whether a concept may be what a product's words name: one
// of the pack's drugs (a rule tests or gives it as a medication; an
// action's drug may be keyed by its SNOMED CT code in the value sets and
// by name among the medications), or a concept no rule gives another role
// and no unit (a definition's member drug, dipyridamole beside aspirin).
func (p *Program) drug(key string) bool {
	if p.medications[key] {
		return true
	}
	set := p.pack.ValueSets.ByKey(key)
	if set != nil && p.medications["name:"+rules.NormalizeName(set.Concept)] {
		return true
	}
	return p.roles[key] == "" && len(p.units[key]) == 0 && (set == nil || set.Unit == "")
}

// recordNaming is how nameFromWords reads a record's words: the concepts'
// names and synonyms (naming), and for a product also every drug the
// pack tests or gives (a rule's action drug, a value set's) by its name
// and lexicon synonyms ("nitroglycerin" is nitrate, "atorvastatin"
// lipid-lowering therapy) — a drug list names what is taken, whether or
// not a rule tests it; other resources' words name no more concepts than
// text does.
type recordNaming struct {
	words, products verbatimSet
	// names of the drugs only the products' phrases hold, by key.
	names map[string]string
	// phrases are every concept's phrases (both spellings), by key: the
	// words a concept is judged at.
	phrases map[string][]string
}

// statedIn is the phrases of a concept that words state word for word.
func (rn recordNaming) statedIn(key, words string) []string {
	lower := " " + strings.ToLower(words) + " "
	var out []string
	for _, ph := range rn.phrases[key] {
		if statedIn(lower, words, ph) {
			out = append(out, ph)
		}
	}
	return out
}

func (p *Program) recordNames(names map[string][]string, lex *lexicon.Lexicon) recordNaming {
	rn := recordNaming{names: map[string]string{}}
	drugs := make(map[string][]string, len(names))
	for k, phs := range names {
		drugs[k] = phs
	}
	add := func(key, name string) {
		if _, ok := drugs[key]; ok || key == "" {
			return
		}
		phs := []string{name}
		if c := lex.Concept(name); c != nil {
			phs = append(phs, c.Synonyms...)
		}
		drugs[key] = phs
		rn.names[key] = name
	}
	for _, r := range p.pack.Rules() {
		for _, a := range r.Actions {
			if a.Role == rules.RoleMedication {
				add(rules.ConceptKey(a), a.Concept())
			}
		}
	}
	if vs := p.pack.ValueSets; vs != nil {
		for _, set := range vs.Concepts {
			if p.drug(set.Key) {
				add(set.Key, set.Concept)
			}
		}
	}
	rn.phrases = bothSpellings(drugs)
	rn.words, rn.products = verbatimPhrases(bothSpellings(names)), verbatimPhrases(rn.phrases)
	return rn
}

// bothSpellings: records are written in either spelling, so each phrase
// is looked for in the other one too ("ischaemic heart disease" names
// "Ischemic heart disease"), as grounding's normalisation matches text.
func bothSpellings(phrases map[string][]string) map[string][]string {
	out := make(map[string][]string, len(phrases))
	for k, phs := range phrases {
		all := phs[:len(phs):len(phs)]
		for _, ph := range phs {
			if v := spelledAmerican(ph); v != strings.ToLower(ph) && !slices.Contains(all, v) {
				all = append(all, v)
			}
		}
		out[k] = all
	}
	return out
}

// spelledAmerican is a phrase lower-cased with each word in the spelling
// grounding's normalisation gives it (textnorm.Normalize: British
// digraphs mapped), punctuation kept.
func spelledAmerican(ph string) string {
	var b strings.Builder
	word := func(w string) {
		if n := textnorm.Normalize(w); len(n) == len(w)-1 || len(n) == len(w)-2 {
			b.WriteString(n) // a digraph or two merged; nothing else changed
		} else {
			b.WriteString(strings.ToLower(w))
		}
	}
	start := -1
	for i, r := range ph {
		letter := 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
		switch {
		case letter && start < 0:
			start = i
		case !letter && start >= 0:
			word(ph[start:i])
			start = -1
		}
		if !letter {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	if start >= 0 {
		word(ph[start:])
	}
	return b.String()
}

// drugInWords tells the FHIR reader whether a concept named from a
// resource's words is a drug, and the words' not-tolerated cue (the
// pack's, meta/sections.json): "Aspirin allergy" states aspirin not
// tolerated, never taken.
func (p *Program) drugInWords(key, words string) (bool, string) {
	if !p.medications[key] {
		return false, ""
	}
	return true, p.doc.Cue(rules.CueNotTolerated, words)
}

// AskFHIR answers a FHIR R4 Bundle: the bundle becomes the patient model
// (ReadFHIR), then derive → expand → check → evaluate run as for text
// (AskPatient). The case date (EvalDate, default today) is the date ages
// count to and time windows count from.
func (p *Program) AskFHIR(ctx context.Context, caseID string, bundle []byte, opts ...EvalOption) (*Result, error) {
	return p.AskFHIRParts(ctx, caseID, [][]byte{bundle}, opts...)
}

// AskFHIRParts is AskFHIR over several Bundles or resources of one
// patient (a CDS Hooks prefetch).
func (p *Program) AskFHIRParts(ctx context.Context, caseID string, parts [][]byte, opts ...EvalOption) (*Result, error) {
	date := p.newCall(caseID, opts).date
	if date.IsZero() {
		date = time.Now().UTC()
	}
	m, err := p.ReadFHIRParts(caseID, parts, date)
	if err != nil {
		return nil, err
	}
	return p.AskPatient(ctx, m, opts...)
}

// AskFHIR answers a FHIR R4 Bundle with every pack, each reading it with
// its own value sets; a pack without value sets reads no fact from it
// (and says so in its model's dropped readings).
func (m *Multi) AskFHIR(ctx context.Context, caseID string, bundle []byte, opts ...EvalOption) (*Result, error) {
	return m.AskFHIRParts(ctx, caseID, [][]byte{bundle}, opts...)
}

// AskFHIRParts is AskFHIR over several Bundles or resources of one
// patient (a CDS Hooks prefetch).
func (m *Multi) AskFHIRParts(ctx context.Context, caseID string, parts [][]byte, opts ...EvalOption) (*Result, error) {
	opts = m.oneDay(opts)
	return m.each(func(p *Program) (*Result, error) {
		if p.pack.ValueSets == nil {
			date := p.newCall(caseID, opts).date
			pm := &patient.Model{CaseID: caseID, Source: "fhir", Date: date.Format("2006-01-02"), Facts: []patient.Fact{},
				Dropped: []patient.Dropped{{Reader: fhir.ReaderName, Reason: "the pack has no value sets (" + rules.ValueSetsFile + "): no code of the record is read"}}}
			return p.AskPatient(ctx, pm, opts...)
		}
		return p.AskFHIRParts(ctx, caseID, parts, opts...)
	})
}

// readerDerive is the Reader of the facts decide derives (program.go).
const readerDerive = "derive"
