package consistency

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// The cue lists and scope settings are data (cues/*.json), as in
// medspaCy's context rules: a new cue is an edit there, not here.
//
//go:embed cues/*.json
var embeddedCues embed.FS

// cueFiles is where the loaders read; tests swap in broken files.
var cueFiles fs.FS = embeddedCues

// cueFile is one category's cue list.
type cueFile struct {
	About string `json:"about"`
	// Lists: whether a cue of this category runs on over a list that
	// follows (or, for a backward cue, precedes) its clause: "all",
	// "heads" (only a list head) or "none".
	Lists string `json:"lists"`
	// Scope "sentence": a forward cue reaches to the end of its sentence
	// or a subject_ends word (a relative is the subject until the
	// patient is); default "clause".
	Scope       string   `json:"scope"`
	SubjectEnds []string `json:"subject_ends"`
	// Self: words that state their own absence ("NKDA"); the cue scopes
	// over itself.
	Self []string `json:"self"`
	// Closing: cues another file lists (a forward cue of its kind) that,
	// closing their clause right after a finding, are this file's kind
	// instead, looking back: shorthand that says the work-up before the
	// finding and its result after it.
	Closing []string `json:"closing"`
	// Openers: forward cues that are cues only where they open a
	// sentence: a verb with no subject before it is the note's own report
	// of the patient ("Declined PCI."), while after a noun the same word
	// may say that a value fell ("eGFR declined to 38").
	Openers []string `json:"openers"`
	// AgentBefore: after one of these words (a possessive between may
	// stand) a cue names a source, not the experiencer ("brought in by
	// his wife").
	AgentBefore []string `json:"agent_before"`
	// SharedAfter: a cue right after a subject_ends word and one of these
	// ("he and his father both have CAD") names someone who shares the
	// finding with the patient, so the finding stays the patient's.
	SharedAfter []string `json:"shared_after"`
	// Sexes: words that say a person's sex, by sex ("he", "his": one sex;
	// "she", "her": the other). A possessive before or in a cue ("her
	// father") gives the patient's sex, so a subject_ends pronoun of the
	// other sex later in the sentence ("... her father (he had an MI)")
	// is not the patient coming back as subject.
	Sexes map[string][]string `json:"sexes"`
	// Conditions: hypothetical cues that open a condition clause ("if",
	// "once"), inside which doubt and resolution cues are dropped.
	Conditions []string `json:"conditions"`
	// Glosses: a forward cue whose clause ends at a parenthesis of words
	// only reaches into it: the parenthesis explains or lists the kinds
	// of what the cue governs ("suspected INOCA (microvascular or
	// vasospastic)"). One with a number is a value of its own ("suspected
	// CCS (PTP 45%)") and is not reached.
	Glosses       bool     `json:"glosses"`
	Forward       []string `json:"forward"`
	Backward      []string `json:"backward"`
	Both          []string `json:"both"`
	Bidirectional []string `json:"bidirectional"`
	// BidirectionalStops end a bidirectional cue's reach either way: the
	// alternatives it weighs are the noun phrases beside it, and a
	// preposition opens what they are for ("PCI vs CABG for 3VD" weighs
	// the procedures, not the 3VD).
	BidirectionalStops []string `json:"bidirectional_limits"`
	// ForwardLimits end a forward cue's plain reach: a phrase that opens
	// the grounds of a judgement ("likely CAD given typical angina") or
	// what it rests on states them; the cue's doubt stays before it.
	ForwardLimits []string `json:"forward_limits"`
	Final         []string `json:"final"`
	ListHeads     []string `json:"list_heads"`
	// Compound: backward cues that head a noun compound ("MI risk", "CAD
	// risk assessment"): they reach only over the content words right
	// before them, up to a word of CompoundStops ("CAD high risk
	// features", "angina at low risk" state the CAD, the angina).
	Compound      []string `json:"compound"`
	CompoundStops []string `json:"compound_stops"`
	// CompoundStopPrefixes: a word starting with one of these states a
	// past event ("post-MI risk stratification"); a compound cue's reach
	// stops before it as at a compound stop.
	CompoundStopPrefixes []string `json:"compound_stop_prefixes"`
	// Habitual: a subject and a present-tense verb that open the main
	// clause of a condition telling what happens each time ("if he walks
	// fast he gets chest tightness"); a condition cue's scope ends there,
	// so the consequence is stated. Conditions' files only.
	Habitual struct {
		Subjects []string `json:"subjects"`
		Verbs    []string `json:"verbs"`
	} `json:"habitual"`
}

// phraseFile is a list of phrases without direction (pseudo-cues,
// termination cues).
type phraseFile struct {
	About   string   `json:"about"`
	Phrases []string `json:"phrases"`
	// Prefixes (termination.json only): a word glued to one of these
	// ("post-PCI") names the event a finding is timed by, as the
	// phrase "post PCI" does; a backward cue's reach stops before it.
	Prefixes []string `json:"prefixes"`
}

// scopeFile holds what bounds a scope: clause words, governors, lists.
type scopeFile struct {
	About         string      `json:"about"`
	ClauseWords   []string    `json:"clause_words"`
	ClausePairs   [][2]string `json:"clause_pairs"`
	Abbreviations []string    `json:"abbreviations"`
	SignedWords   []string    `json:"signed_words"`
	Determiners   []string    `json:"determiners"`
	Window        int         `json:"window"`
	// ResolveFollowers may follow a cue listed both ways without
	// making it look forward.
	ResolveFollowers []string `json:"resolve_followers"`
	Governors        struct {
		Reach int `json:"reach"`
		// Verb governors take their object directly ("not able to
		// tolerate statin"); noun and item governors only before a
		// follower ("no effect on", "no change in").
		Verb      []string `json:"verb"`
		Noun      []string `json:"noun"`
		Item      []string `json:"item"`
		Followers []string `json:"followers"`
	} `json:"governors"`
	Lists struct {
		Separators   []string `json:"separators"`
		Coordinators []string `json:"coordinators"`
		Conjunctive  []string `json:"conjunctive"`
		Disjunctive  []string `json:"disjunctive"`
		// TailWords start a phrase that closes a list item and may hold
		// anything ("VT on 48 h Holter"), in a list closed by "or".
		TailWords            []string `json:"tail_words"`
		Ends                 []string `json:"ends"`
		MaxItemWords         int      `json:"max_item_words"`
		MaxItemWordsAfterAnd int      `json:"max_item_words_after_and"`
		MinItemsNoCoord      int      `json:"min_items_without_coordinator"`
		Breakers             []string `json:"breakers"`
	} `json:"lists"`
	// Checklists: how a block of lines each opened by a check box is told
	// to be a form's options or a task list (optionBlock in text.go).
	// TaskHeadings: words of a heading over a task list ("Plan",
	// "Actions"); Instructions: a form's words asking for ticks ("tick
	// all that apply").
	Checklists struct {
		TaskHeadings []string `json:"task_headings"`
		Instructions []string `json:"instructions"`
	} `json:"checklists"`
}

// categories maps each cue file to its kind.
var categories = []struct {
	file string
	kind cueKind
}{
	{"negation.json", kindNegation},
	{"uncertainty.json", kindUncertainty},
	{"either.json", kindEither},
	{"hypothetical.json", kindHypothetical},
	{"experiencer.json", kindExperiencer},
	{"unlikely.json", kindUnlikely},
}

// readCueFile decodes an embedded file strictly: an unknown field is a
// typo that would silently drop a rule.
func readCueFile(name string, v any) error {
	b, err := fs.ReadFile(cueFiles, "cues/"+name)
	if err != nil {
		return fmt.Errorf("engine/consistency/cues/%s: %v", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("engine/consistency/cues/%s: %v; fix the file (fields are listed in engine/consistency/cuedata.go)", name, err)
	}
	return nil
}

func tokenizeCue(s string) []string {
	var out []string
	for _, t := range tokenize(s) {
		out = append(out, t.low)
	}
	return out
}

// cueSet is the cues loaded from cues/.
type cueSet struct {
	defs []cueDef
	// lists: "all", "heads" or "none" per kind.
	lists map[cueKind]string
	// sentence: kinds whose forward cues reach the sentence end, with
	// the words that end that reach.
	sentence map[cueKind]map[string]bool
	// agent: per kind, the words after which its cues name a source.
	agent map[cueKind]map[string]bool
	// sexes: per kind, each word's sex (cueFile.Sexes).
	sexes map[cueKind]map[string]string
	// shared: per kind, the words joining the patient to a cue that
	// shares the finding (cueFile.SharedAfter).
	shared map[cueKind]map[string]bool
	// compoundStops: per kind, the words a compound cue's reach stops at.
	compoundStops map[cueKind]map[string]bool
	// bidiStops: per kind, the words a bidirectional cue's reach stops at
	// (cueFile.BidirectionalStops).
	bidiStops map[cueKind]map[string]bool
	// forwardStops: per kind, the phrases (as words) a forward cue's
	// reach stops at (cueFile.ForwardLimits).
	forwardStops map[cueKind][][]string
	// terminationPrefixes: the prefixes of words that name the event a
	// finding is timed by (termination.json prefixes).
	terminationPrefixes []string
	// compoundStopPrefixes: per kind, the prefixes of such words.
	compoundStopPrefixes map[cueKind][]string
	// habitSubjects, habitVerbs: the words that open a habitual main
	// clause after a condition (cueFile.Habitual).
	habitSubjects, habitVerbs map[string]bool
	// glosses: kinds whose forward cues reach into a gloss (cueFile.Glosses).
	glosses map[cueKind]bool
}

// scopeSet is scope.json with its lists as sets.
type scopeSet struct {
	scopeFile
	clauseWords      map[string]bool
	determiners      map[string]bool
	resolveFollowers map[string]bool
	conj, disj       map[string]bool
	tails            map[string]bool
	nounGov          map[string]bool
	verbGov          map[string]bool
	itemGov          map[string]bool
	govNext          map[string]bool
	sep              map[string]bool
	coord            map[string]bool
	ends             map[string]bool
	breakers         map[string]bool
}

func setOf(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[strings.ToLower(x)] = true
	}
	return m
}

// loadScope reads and checks cues/scope.json.
func loadScope() (*scopeSet, error) {
	s := &scopeSet{}
	if err := readCueFile("scope.json", &s.scopeFile); err != nil {
		return nil, err
	}
	sc := &s.scopeFile
	if sc.Window <= 0 || sc.Governors.Reach < 0 || sc.Lists.MaxItemWords <= 0 || sc.Lists.MaxItemWordsAfterAnd <= 0 || sc.Lists.MinItemsNoCoord < 2 {
		return nil, fmt.Errorf("engine/consistency/cues/scope.json: window, lists.max_item_words and lists.max_item_words_after_and must be positive, governors.reach not negative and lists.min_items_without_coordinator at least 2")
	}
	s.verbGov, s.nounGov, s.itemGov, s.govNext = setOf(sc.Governors.Verb), setOf(sc.Governors.Noun), setOf(sc.Governors.Item), setOf(sc.Governors.Followers)
	s.disj, s.tails = setOf(sc.Lists.Disjunctive), setOf(sc.Lists.TailWords)
	s.sep, s.coord, s.ends, s.breakers = setOf(sc.Lists.Separators), setOf(sc.Lists.Coordinators), setOf(sc.Lists.Ends), setOf(sc.Lists.Breakers)
	for w := range s.coord {
		if !s.sep[w] {
			return nil, fmt.Errorf("engine/consistency/cues/scope.json: coordinator %q is not among lists.separators; add it there", w)
		}
	}
	s.determiners = setOf(sc.Determiners)
	s.clauseWords, s.resolveFollowers, s.conj = setOf(sc.ClauseWords), setOf(sc.ResolveFollowers), setOf(sc.Lists.Conjunctive)
	for w := range s.disj {
		if !s.coord[w] || s.conj[w] {
			return nil, fmt.Errorf("engine/consistency/cues/scope.json: disjunctive %q must be a coordinator and not conjunctive", w)
		}
	}
	for w := range s.conj {
		if !s.coord[w] {
			return nil, fmt.Errorf("engine/consistency/cues/scope.json: conjunctive %q is not among lists.coordinators; add it there", w)
		}
	}
	for _, a := range sc.Abbreviations {
		if !strings.HasSuffix(a, ".") || strings.ToLower(a) != a {
			return nil, fmt.Errorf("engine/consistency/cues/scope.json: abbreviation %q must be lower case and end in its full stop", a)
		}
	}
	return s, nil
}

// loadCues reads and checks the cue files.
func loadCues() (*cueSet, error) {
	s := &cueSet{glosses: map[cueKind]bool{}, lists: map[cueKind]string{}, sentence: map[cueKind]map[string]bool{}, sexes: map[cueKind]map[string]string{}, agent: map[cueKind]map[string]bool{}, shared: map[cueKind]map[string]bool{},
		compoundStops: map[cueKind]map[string]bool{}, bidiStops: map[cueKind]map[string]bool{}, forwardStops: map[cueKind][][]string{}, compoundStopPrefixes: map[cueKind][]string{}}

	merged := map[string]*cueDef{}
	var order []string
	add := func(file string, list []string, kind cueKind, set func(*cueDef)) error {
		for _, phrase := range list {
			ts := tokenize(strings.TrimSpace(phrase))
			if len(ts) == 0 || ts[0].boundary && !ts[0].word {
				// A cue must start with a word or symbol: matching never
				// starts on punctuation.
				return fmt.Errorf("engine/consistency/cues/%s: cue %q has no words, or starts with punctuation", file, phrase)
			}
			ws := make([]string, len(ts))
			for i, t := range ts {
				ws[i] = t.low
			}
			k := strings.Join(ws, " ")
			d, ok := merged[k]
			if !ok {
				d = &cueDef{words: ws, text: k, kind: kind}
				merged[k] = d
				order = append(order, k)
			} else if d.kind != kind {
				// A phrase is a cue of one kind only; "not excluded" is
				// uncertainty, never negation.
				return fmt.Errorf("engine/consistency/cues/%s: cue %q is also listed under another kind; keep it in one file", file, phrase)
			}
			set(d)
		}
		return nil
	}
	type closingList struct {
		file string
		kind cueKind
		list []string
	}
	var closing []closingList // set once every file's cues are in
	for _, c := range categories {
		var f cueFile
		if err := readCueFile(c.file, &f); err != nil {
			return nil, err
		}
		closing = append(closing, closingList{c.file, c.kind, f.Closing})
		switch f.Lists {
		case "all", "heads", "none":
			s.lists[c.kind] = f.Lists
		default:
			return nil, fmt.Errorf("engine/consistency/cues/%s: lists %q must be \"all\", \"heads\" or \"none\"", c.file, f.Lists)
		}
		switch f.Scope {
		case "", "clause":
		case "sentence":
			s.sentence[c.kind] = setOf(f.SubjectEnds)
		default:
			return nil, fmt.Errorf("engine/consistency/cues/%s: scope %q must be \"clause\" or \"sentence\"", c.file, f.Scope)
		}
		s.agent[c.kind] = setOf(f.AgentBefore)
		if len(f.Sexes) > 0 {
			if f.Scope != "sentence" {
				return nil, fmt.Errorf("engine/consistency/cues/%s: sexes needs scope \"sentence\"", c.file)
			}
			s.sexes[c.kind] = map[string]string{}
			for sex, words := range f.Sexes {
				for _, w := range words {
					s.sexes[c.kind][strings.ToLower(w)] = sex
				}
			}
		}
		s.glosses[c.kind] = f.Glosses
		s.compoundStops[c.kind] = setOf(f.CompoundStops)
		if len(f.BidirectionalStops) > 0 && len(f.Bidirectional) == 0 {
			return nil, fmt.Errorf("engine/consistency/cues/%s: bidirectional_limits without bidirectional cues; list the cues or drop the limits", c.file)
		}
		s.bidiStops[c.kind] = setOf(f.BidirectionalStops)
		for _, p := range f.ForwardLimits {
			words := strings.Fields(strings.ToLower(p))
			if len(words) == 0 {
				return nil, fmt.Errorf("engine/consistency/cues/%s: an empty forward_limits phrase", c.file)
			}
			s.forwardStops[c.kind] = append(s.forwardStops[c.kind], words)
		}
		for _, pre := range f.CompoundStopPrefixes {
			s.compoundStopPrefixes[c.kind] = append(s.compoundStopPrefixes[c.kind], strings.ToLower(pre))
		}
		if len(f.SharedAfter) > 0 {
			if f.Scope != "sentence" {
				return nil, fmt.Errorf("engine/consistency/cues/%s: shared_after needs scope \"sentence\" and its subject_ends", c.file)
			}
			s.shared[c.kind] = setOf(f.SharedAfter)
		}
		if h := f.Habitual; len(h.Subjects)+len(h.Verbs) > 0 {
			if len(f.Conditions) == 0 || len(h.Subjects) == 0 || len(h.Verbs) == 0 || s.habitSubjects != nil {
				return nil, fmt.Errorf("engine/consistency/cues/%s: habitual needs both subjects and verbs, in the one file that lists conditions", c.file)
			}
			s.habitSubjects, s.habitVerbs = setOf(h.Subjects), setOf(h.Verbs)
		}
		if len(f.Self) > 0 && c.kind != kindNegation {
			return nil, fmt.Errorf("engine/consistency/cues/%s: self cues are negation cues only", c.file)
		}
		steps := []struct {
			list []string
			set  func(*cueDef)
		}{
			{f.Forward, func(d *cueDef) { d.dir |= forward }},
			{f.Backward, func(d *cueDef) { d.dir |= backward }},
			{f.Both, func(d *cueDef) { d.dir |= both }},
			{f.Bidirectional, func(d *cueDef) { d.dir |= both; d.bidi = true }},
			{f.Final, func(d *cueDef) { d.final = true }},
			{f.ListHeads, func(d *cueDef) { d.listHead = true }},
			{f.Self, func(d *cueDef) { d.self = true }},
			{f.Openers, func(d *cueDef) { d.dir |= forward; d.opener = true }},
			{f.Conditions, func(d *cueDef) { d.condition = true }},
			{f.Compound, func(d *cueDef) { d.dir |= backward; d.compound = true }},
		}
		for _, st := range steps {
			if err := add(c.file, st.list, c.kind, st.set); err != nil {
				return nil, err
			}
		}
		for _, h := range f.ListHeads {
			if d := merged[strings.Join(tokenizeCue(h), " ")]; d.dir&forward == 0 {
				return nil, fmt.Errorf("engine/consistency/cues/%s: list head %q is not a forward cue; add it to forward or both", c.file, h)
			}
		}
	}
	for _, cl := range closing {
		for _, phrase := range cl.list {
			d, ok := merged[strings.Join(tokenizeCue(phrase), " ")]
			if !ok || d.kind == cl.kind || d.dir&forward == 0 {
				return nil, fmt.Errorf("engine/consistency/cues/%s: closing cue %q must be another file's forward cue; list it there under forward", cl.file, phrase)
			}
			d.closing = &cueDef{words: d.words, text: d.text, kind: cl.kind, dir: backward, final: true}
		}
	}
	for _, pf := range []struct {
		file string
		kind cueKind
	}{{"pseudo.json", kindPseudo}, {"termination.json", kindTermination}} {
		var f phraseFile
		if err := readCueFile(pf.file, &f); err != nil {
			return nil, err
		}
		if err := add(pf.file, f.Phrases, pf.kind, func(*cueDef) {}); err != nil {
			return nil, err
		}
		if len(f.Prefixes) > 0 && pf.kind != kindTermination {
			return nil, fmt.Errorf("engine/consistency/cues/%s: prefixes belong in termination.json", pf.file)
		}
		if pf.kind == kindTermination {
			for _, pre := range f.Prefixes {
				s.terminationPrefixes = append(s.terminationPrefixes, strings.ToLower(pre))
			}
		}
	}
	for _, k := range order {
		d := merged[k]
		if d.kind != kindPseudo && d.kind != kindTermination && d.dir == 0 && !d.final && !d.self {
			return nil, fmt.Errorf("engine/consistency/cues: cue %q has no direction; list it under forward, backward, both or final", k)
		}
		s.defs = append(s.defs, *d)
	}
	// Longest first so "no history of" wins over "no" and "cannot be
	// excluded" over "excluded".
	sort.SliceStable(s.defs, func(i, j int) bool {
		if len(s.defs[i].words) != len(s.defs[j].words) {
			return len(s.defs[i].words) > len(s.defs[j].words)
		}
		return s.defs[i].text < s.defs[j].text
	})
	return s, nil
}

// The files are embedded, so an error is a bad edit that the package
// tests report; stop at once rather than run without rules.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// scopeRules and cueRules are loaded once; scopeRules first, as cue
// phrases are tokenised with its clause words and abbreviations.
var (
	scopeRules = must(loadScope())
	cueRules   = must(loadCues())
)

// qualifierFile is cues/qualifiers.json.
type qualifierFile struct {
	About        string            `json:"about"`
	Course       []string          `json:"course"`
	Severity     []string          `json:"severity"`
	Rate         []string          `json:"rate"`
	Certainty    []string          `json:"certainty"`
	Spellings    map[string]string `json:"spellings"`
	Descriptions map[string]string `json:"descriptions"`
	// DescribedImplies: the qualifiers a description of a qualifier
	// states beside it ("despite therapy" describes a refractory course,
	// so a persistent one too); a qualifier written as such states
	// itself only.
	DescribedImplies map[string][]string `json:"described_implies"`
}

// loadQualifierImplies reads the described_implies table of cues/qualifiers.json,
// each side a qualifier the file lists.
func loadQualifierImplies() (map[string][]string, error) {
	var f qualifierFile
	if err := readCueFile("qualifiers.json", &f); err != nil {
		return nil, err
	}
	q, _, _, err := loadQualifiers()
	if err != nil {
		return nil, err
	}
	for k, vs := range f.DescribedImplies {
		for _, v := range append([]string{k}, vs...) {
			if _, ok := q[v]; !ok {
				return nil, fmt.Errorf("engine/consistency/cues/qualifiers.json: described_implies[%q] names %q, which is no qualifier of course, severity, rate or certainty; name one of them", k, v)
			}
		}
	}
	return f.DescribedImplies, nil
}

// loadQualifiers reads cues/qualifiers.json: each word once, every
// spelling and description naming a qualifier the file lists.
func loadQualifiers() (map[string]qualKind, map[string]string, map[string]string, error) {
	var f qualifierFile
	if err := readCueFile("qualifiers.json", &f); err != nil {
		return nil, nil, nil, err
	}
	q := map[string]qualKind{}
	for _, g := range []struct {
		words []string
		kind  qualKind
		field string
	}{{f.Course, qualCourse, "course"}, {f.Severity, qualSeverity, "severity"}, {f.Rate, qualRate, "rate"}, {f.Certainty, qualCertainty, "certainty"}} {
		for _, w := range g.words {
			if _, dup := q[w]; dup || w == "" {
				return nil, nil, nil, fmt.Errorf("engine/consistency/cues/qualifiers.json: %s: %q is empty or listed twice; list each qualifier once", g.field, w)
			}
			q[w] = g.kind
		}
	}
	for field, m := range map[string]map[string]string{"spellings": f.Spellings, "descriptions": f.Descriptions} {
		for k, v := range m {
			if _, ok := q[v]; !ok {
				return nil, nil, nil, fmt.Errorf("engine/consistency/cues/qualifiers.json: %s[%q] names %q, which is no qualifier of course, severity, rate or certainty; name one of them", field, k, v)
			}
		}
	}
	return q, f.Spellings, f.Descriptions, nil
}

func must3[A, B, C any](a A, b B, c C, err error) (A, B, C) {
	if err != nil {
		panic(err)
	}
	return a, b, c
}
