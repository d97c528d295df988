package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/graph"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
)

// Program is a compiled pack ready to answer cases. Build it once with New
// and call Ask (or Evaluate) from many goroutines: a Program is immutable
// after New.
type Program struct {
	cfg      config
	pack     *rules.Pack
	store    graph.Store
	grounder *grounding.Grounder
	// units of the numeric conditions per concept key, for step (iv).
	units map[string][]string
	// phrases naming each concept (wordings, name, synonyms), for step (iv).
	phrases map[string][]string
	// phrasesLower is phrases lower-cased, read once (phraseForms).
	phrasesLower map[string][]string

	riskScores []string // concept keys of meta/reading.json risk_scores
	// glossedStates: concept keys of meta/reading.json glossed_states,
	// and its person words.
	glossedStates map[string]bool
	glossPersons  []string
	// rivals: every concept's phrases, for the formatter's two-thirds
	// allowance (evidence.Names).
	rivals    *evidence.Names
	verbatim  verbatimSet                  // phrases prepared once for verbatimAnchors
	covering  map[string]*evidence.Phrases // phrases read once for evidence.Covers, by concept key
	synCover  map[string]*evidence.Phrases // synonyms, likewise
	naming    verbatimSet                  // concept names and lexicon synonyms alone, for verbatimNamed
	compiled  compiledConds                // conditions compiled for step (v), admit.go
	doubtful  sync.Map                     // concept name → its name states a doubt (model.go)
	synonyms  map[string][]string          // lexicon synonyms alone, for step (v)
	synPadded map[string][]string          // synonyms as spacedNorm writes them
	hierarchy *rules.Hierarchy
	// anatomy reads per-vessel stenosis reports with the pack's words.
	anatomy *anatomyReader
	// recordNaming is naming as a coded record's words are read
	// (nameFromWords, fhir_input.go).
	recordNaming recordNaming
	// concept names per key, and keys per normalised name.
	names map[string]string
	keys  map[string]string
	rows  map[string]rowInfo
	// antonym phrases of the lexicon, for step (iv).
	antonyms []antonym
	// medication concept keys, for discontinuation ("aspirin stopped").
	medications map[string]bool
	// roles: the pack's role per concept key, which types a fact's kind.
	roles map[string]string
	// otherOrgan: concept key → withoutOtherOrgan drops its anchors (a
	// name holds another site's word and none a site's word), judged once
	// per concept from the pack's phrases and sites (sites.go).
	otherOrgan sync.Map
	// nameKeys: the definitions' names with their concept keys
	// (eval.Options.NameKeys).
	nameKeys map[string]string
	// reading: the pack's reading vocabulary compiled; readers by name
	// (step v asks them) and the case readers in rounds (readers.go).
	reading *reading
	readers read.Registry
	rounds  [][]read.CaseReader
	rules   cowMap[*graph.Bundle, eval.Rule] // bundles.go
	// doc is the pack's document reading data (meta/sections.json):
	// headings, their meaning, status words (plan.go, intolerance.go).
	doc *extract.Reading
}

type rowInfo struct {
	table *rules.Table
	row   *rules.Row
}

type config struct {
	store       graph.Store
	extractor   extract.Extractor
	formatter   evidence.Formatter
	checks      consistency.Checks
	closedWorld bool
	topK        int
	trace       bool
	lexicon     *lexicon.Lexicon
	embedder    embed.Embedder
	grounding   []grounding.Option
	fraction    bool
	hierarchy   *rules.Hierarchy
	maxBytes    int
	reader      PatientReader // llmread.go
}

// Option configures New (functional options, as in cel-go and rego).
type Option func(*config)

// WithStore uses a graph store (default: a fresh in-memory store, loaded
// with the pack by New). A store passed here is loaded by New too, unless
// WithPreloadedStore is used.
func WithStore(s graph.Store) Option { return func(c *config) { c.store = s } }

// WithExtractor sets step (i) (default: the deterministic clause splitter).
func WithExtractor(e extract.Extractor) Option { return func(c *config) { c.extractor = e } }

// WithFormatter sets step (iv) (default: the deterministic formatter).
func WithFormatter(f evidence.Formatter) Option { return func(c *config) { c.formatter = f } }

// WithChecks selects the step (v) checks (default certainty, negation,
// qualifier; consistency.Checks{} turns step (v) off).
func WithChecks(ch consistency.Checks) Option { return func(c *config) { c.checks = ch } }

// WithClosedWorld reads unmentioned findings as absent, reproducing the
// reference system (default: open world, unmentioned is unknown).
func WithClosedWorld(on bool) Option { return func(c *config) { c.closedWorld = on } }

// WithTopK keeps k concept anchors per finding (default 3).
func WithTopK(k int) Option { return func(c *config) { c.topK = k } }

// WithTrace attaches the full trace to every Result (default off).
func WithTrace(on bool) Option { return func(c *config) { c.trace = on } }

// WithLexicon sets the concept lexicon feeding grounding (default: the
// pack's meta/lexicon.json when given through WithLexiconFS, else none).
func WithLexicon(l *lexicon.Lexicon) Option { return func(c *config) { c.lexicon = l } }

// WithEmbedder sets the vector channel's embedder (default: built-in).
func WithEmbedder(e embed.Embedder) Option { return func(c *config) { c.embedder = e } }

// WithGroundingOptions passes options to the grounder.
func WithGroundingOptions(opts ...grounding.Option) Option {
	return func(c *config) { c.grounding = append(c.grounding, opts...) }
}

// WithFractions lets a unitless 0–1 value meet a percent threshold
// (LVEF 0.35 → 35 %); off by default because FFR 0.8 is not 80 %.
func WithFractions(on bool) Option { return func(c *config) { c.fraction = on } }

// WithHierarchy sets is-a relations between the pack's concepts (default:
// the pack's own, rules.Pack.Hierarchy): evidence for a narrower concept
// also supports the broader one, a stated absence of a broader one also
// denies the narrower ones.
func WithHierarchy(h *rules.Hierarchy) Option { return func(c *config) { c.hierarchy = h } }

// New compiles a pack: loads it into the graph store, indexes the
// grounding texts and prepares the steps. It fails with a located error
// when the pack is invalid (run the preflight first for the full list).
func New(ctx context.Context, pack *rules.Pack, opts ...Option) (*Program, error) {
	if pack == nil || len(pack.Tables) == 0 {
		return nil, fmt.Errorf("engine: empty pack")
	}
	cfg := config{checks: consistency.DefaultChecks, topK: 3}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.topK < 1 {
		return nil, fmt.Errorf("engine: top-k must be at least 1, got %d", cfg.topK)
	}
	if cfg.extractor == nil {
		cfg.extractor = extract.Clauses{Sections: pack.Sections, Demographic: demographicWords(pack.Reading), Reading: extract.NewReading(pack.Sections)}
	}
	if cfg.formatter == nil {
		cfg.formatter = evidence.Deterministic{}
	}
	if ds := rules.Validate(pack); len(ds) > 0 {
		return nil, fmt.Errorf("engine: pack has %d error(s), first: %w", len(ds), ds[0])
	}
	p := &Program{cfg: cfg, pack: pack, units: map[string][]string{}, phrases: map[string][]string{}, synonyms: map[string][]string{}, rows: map[string]rowInfo{}}
	p.hierarchy = cfg.hierarchy
	if p.hierarchy == nil {
		p.hierarchy = pack.Hierarchy
	}
	if p.hierarchy != nil {
		var err error
		if p.anatomy, err = newAnatomyReader(p.hierarchy.Anatomy); err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
	}
	p.names, p.keys = pack.ConceptIndex()
	records := grounding.Records(pack, cfg.lexicon, false)
	// Members of composite definitions that no rule names are grounded
	// too, so that "thrombocytopenia" can make "high bleeding risk".
	_, condKeys := pack.ConditionIndex()
	members, memberUnits := p.hierarchy.MemberConcepts(condKeys)
	for _, n := range members {
		k := "name:" + rules.NormalizeName(n)
		p.names[k], p.keys[rules.NormalizeName(n)] = n, k
	}
	records = append(records, grounding.ConceptRecords(members, cfg.lexicon)...)
	if cfg.store == nil {
		cfg.store = graph.NewMemory()
	}
	aliases := map[string][]string{}
	texts := map[string]string{}
	for _, r := range records {
		aliases[r.DecisionID] = r.Aliases
		texts[r.DecisionID] = r.Text
		for _, ph := range r.Phrases {
			if ph.Source != grounding.SourceContext && !containsStr(p.phrases[r.ConceptKey], ph.Text) {
				p.phrases[r.ConceptKey] = append(p.phrases[r.ConceptKey], ph.Text)
			}
			if (ph.Source == grounding.SourceSynonym || ph.Source == grounding.SourceWording && r.WordingSynonym) && !containsStr(p.synonyms[r.ConceptKey], ph.Text) {
				p.synonyms[r.ConceptKey] = append(p.synonyms[r.ConceptKey], ph.Text)
			}
		}
	}
	p.verbatim = verbatimPhrases(p.phrases)
	p.phrasesLower = phraseForms(p.phrases)
	p.rivals = evidence.NewNames(p.phrases)
	p.covering = make(map[string]*evidence.Phrases, len(p.phrases))
	for k, phs := range p.phrases {
		p.covering[k] = evidence.NewPhrases(phs)
	}
	p.synCover = make(map[string]*evidence.Phrases, len(p.synonyms))
	p.synPadded = make(map[string][]string, len(p.synonyms))
	for k, syns := range p.synonyms {
		p.synCover[k] = evidence.NewPhrases(syns)
		p.synPadded[k] = spacedNorm(syns)
	}
	// A concept is named by its name, its lexicon synonyms and a row's
	// wording that abbreviates its name ("ICA"); other row wordings
	// ("symptoms") are the guideline's words in context, no names.
	names := map[string][]string{}
	for k, phs := range p.phrases {
		names[k] = append([]string{p.names[k]}, p.synonyms[k]...)
		for _, ph := range phs {
			if acronymOf(ph, p.names[k]) {
				names[k] = append(names[k], ph)
			}
		}
	}
	// A pair that nests only through synonyms cannot apply without the
	// lexicon (WithLexicon); it is checked when there is one.
	if cfg.lexicon != nil {
		if err := distinctNested(p.hierarchy, p.keys, names); err != nil {
			return nil, err
		}
	}
	p.naming = verbatimPhrases(names)
	if !storeHolds(ctx, cfg.store, pack) {
		_, err := cfg.store.Load(ctx, pack, graph.BuildOptions{
			Grounding: func(c rules.Condition) (string, []string) { return texts[c.DecisionID], aliases[c.DecisionID] },
		})
		if err != nil {
			return nil, fmt.Errorf("engine: load pack into graph store: %w", err)
		}
	}
	p.store = cfg.store
	gopts := append([]grounding.Option{}, cfg.grounding...)
	if cfg.embedder != nil {
		gopts = append([]grounding.Option{grounding.WithEmbedder(cfg.embedder)}, gopts...)
	}
	var err error
	p.grounder, err = grounding.New(records, gopts...)
	if err != nil {
		return nil, fmt.Errorf("engine: build grounding index: %w", err)
	}
	for n, us := range memberUnits {
		k := p.keys[n]
		for _, u := range us {
			if u := units.Canonical(u); !containsStr(p.units[k], u) {
				p.units[k] = append(p.units[k], u)
			}
		}
	}
	p.medications = map[string]bool{}
	p.roles = map[string]string{}
	for _, r := range pack.Rules() {
		p.rows[r.RowID] = rowInfo{table: r.Table, row: r.Row}
		// Drugs a definition reads but no rule tests (clopidogrel in
		// DAPT) are the pack's action drugs; their keys are by name.
		for _, a := range r.Actions {
			if a.Role == rules.RoleMedication {
				p.medications["name:"+rules.NormalizeName(a.Concept())] = true
				p.roles["name:"+rules.NormalizeName(a.Concept())] = a.Role
			}
		}
		for _, c := range r.Conditions() {
			k := rules.ConceptKey(c.Entity)
			if p.roles[k] == "" {
				p.roles[k] = c.Entity.Role
			}
			if c.Entity.Role == rules.RoleMedication {
				p.medications[k] = true
			}
			if rules.IsNumeric(c.Entity.LogicStructured.Operator) {
				u := units.Canonical(c.Entity.LogicStructured.Unit)
				if !containsStr(p.units[k], u) {
					p.units[k] = append(p.units[k], u)
				}
			}
		}
	}
	if p.hierarchy != nil {
		// A drug class declared for what an intolerance bars ("statin").
		for _, d := range p.hierarchy.Classes {
			k := "name:" + rules.NormalizeName(d.Concept)
			p.medications[k], p.roles[k] = true, rules.RoleMedication
		}
	}
	p.recordNaming = p.recordNames(names, cfg.lexicon)
	p.antonyms = antonymsOf(cfg.lexicon, p.keys)
	if err := p.initReaders(); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	p.nameKeys = eval.NameKeys(p.hierarchy, p.keys)
	p.doc = extract.NewReading(pack.Sections)
	p.cfg = cfg
	return p, nil
}

// storeHolds reports whether a store (typically a Neo4j graph built by
// `execkg build`) already holds exactly this pack, so New need not rewrite
// it: every answer then reads the graph as built.
func storeHolds(ctx context.Context, st graph.Store, pack *rules.Pack) bool {
	u, ok := st.(interface{ UsePack(id, version string) })
	if !ok {
		return false
	}
	u.UsePack(pack.Guideline.ID, pack.Guideline.Version)
	c, err := st.Counts(ctx)
	if err != nil || c.TotalNodes() == 0 {
		return false
	}
	return c.Equal(graph.Predict(pack))
}

// Close releases the grounding index and the store.
func (p *Program) Close() error {
	err := p.grounder.Close()
	if e := p.store.Close(); err == nil {
		err = e
	}
	return err
}

// Pack returns the compiled pack.
func (p *Program) Pack() *rules.Pack { return p.pack }

// Settings describes the program's configuration for traces and reports.
func (p *Program) Settings() string {
	read := ""
	if p.cfg.reader != nil {
		read = "reader=" + p.cfg.reader.Name() + " "
	}
	return fmt.Sprintf("%sextractor=%s formatter=%s checks=%s closed_world=%v topk=%d", read,
		p.cfg.extractor.Name(), p.cfg.formatter.Name(), p.cfg.checks, p.cfg.closedWorld, p.cfg.topK)
}

// WithMaxBytes makes Ask refuse a question longer than n bytes with a
// *LimitError (0, the default: no limit). Ask's time grows faster than the
// length of the text, so a service taking text from users should set one.
func WithMaxBytes(n int) Option { return func(c *config) { c.maxBytes = n } }

// LimitError is a case refused or stopped by a limit: the question's size
// (WithMaxBytes) or the caller's deadline.
type LimitError struct {
	CaseID string
	Limit  string // "max-bytes" or "deadline"
	Detail string
	Cause  error // ctx.Err() for a deadline
}

func (e *LimitError) Error() string {
	return "case " + e.CaseID + ": over the " + e.Limit + " limit: " + e.Detail
}

func (e *LimitError) Unwrap() error { return e.Cause }

// Ask answers one case in free text: steps (i)–(vi), with today as the
// case date. Invalid UTF-8 is replaced by U+FFFD before step (i), and the
// repair is traced. Ask stops with a *LimitError (wrapping ctx.Err()) once
// ctx is done.
func (p *Program) Ask(ctx context.Context, caseID, text string, opts ...EvalOption) (*Result, error) {
	return p.AskOn(ctx, caseID, text, time.Time{}, opts...)
}

// AskOn answers a case written on the given date: time windows ("PCI
// within the last 7 days") and relative dates in the text ("6 weeks ago")
// count from it. A zero date is today.
func (p *Program) AskOn(ctx context.Context, caseID, text string, date time.Time, opts ...EvalOption) (*Result, error) {
	c := p.newCall(caseID, opts)
	if !date.IsZero() {
		c.date = date
	}
	var res *Result
	var err error
	if p.cfg.reader != nil {
		res, err = p.askRead(ctx, c, text)
	} else {
		res, err = p.ask(ctx, c, text)
	}
	var le *LimitError
	if err != nil && ctx.Err() != nil && !errors.As(err, &le) {
		// A step that watches ctx itself (an embedder, the store) stopped.
		return nil, &LimitError{CaseID: caseID, Limit: "deadline", Detail: err.Error(), Cause: err}
	}
	return res, err
}

func (p *Program) ask(ctx context.Context, c *call, text string) (*Result, error) {
	caseID := c.caseID
	if p.cfg.maxBytes > 0 && len(text) > p.cfg.maxBytes {
		return nil, &LimitError{CaseID: caseID, Limit: "max-bytes",
			Detail: fmt.Sprintf("the question is %d bytes, the limit is %d; shorten it or raise the limit", len(text), p.cfg.maxBytes)}
	}
	var repairs []string
	if !utf8.ValidString(text) {
		n := 0
		for i := 0; i < len(text); {
			r, w := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && w == 1 {
				n++
			}
			i += w
		}
		text = strings.ToValidUTF8(text, "\uFFFD")
		repairs = append(repairs, fmt.Sprintf("invalid UTF-8: %d byte(s) that encode no character were replaced by U+FFFD before extraction", n))
	}
	date := documentDate(text, noon(c.date))
	res := &Result{CaseID: caseID, Question: text, CaseDate: date.Format("2006-01-02")}
	findings, err := p.cfg.extractor.Extract(ctx, text)
	if err != nil {
		return nil, stageErr(caseID, StageRead, err, "extraction with %s", p.cfg.extractor.Name())
	}
	secs := p.doc.Sections(text)
	p.doc.Annotate(text, secs, findings)
	title := titleLine(text)
	tr := p.newTrace(c)
	tr.Repairs = repairs
	// Step (v) reads the case once: the Text is the one the readers'
	// package-level consistency.Analyze calls on the case find again.
	ctext := consistency.Shared(text)
	// Sized once for a long document's many findings instead of doubled
	// from empty (a case without findings keeps them nil).
	var pairs []evidence.Pair
	if len(findings) > 0 {
		res.Findings = make([]Finding, 0, len(findings))
		tr.Anchors = make([]FindingAnchors, 0, len(findings))
		pairs = make([]evidence.Pair, 0, 2*len(findings))
	}
	rank := map[[2]string]int{} // (finding, concept key) → anchor rank
	rd := newReadings()         // which anchors are facts (Program.flag)
	mention := make(map[string]string, len(findings))
	starts := make(map[string]int, len(findings))
	clause := make(map[string]string, len(findings))
	keys := map[string]bool{}
	var antonyms []eval.Evidence
	byAntonym := map[[2]string]bool{}
	planned := map[[2]string]grounding.Anchor{} // (finding, planned key) → the procedure's own anchor
	inPlan := map[[2]string]bool{}              // (finding, key) a plan states as itself: planned, not done
	doubted := map[string]bool{}                // finding ids the case states with doubt
	current := map[string]bool{}                // finding ids that keep their drugs ("continue aspirin")
	started := map[[2]string]bool{}             // (finding, drug key) a plan starts ("add ISMN")
	startedIDs := map[string]bool{}             // findings whose drugs a plan starts
	prescribedIDs := map[string]bool{}          // findings whose drugs a plan prescribes with their regimen
	undoubted := map[[2]string]bool{}           // (finding, key) a doubted finding states outside its doubt (undoubtedAt)
	doubtedWords := map[[2]string]bool{}        // (finding, key) an undoubted finding states in doubt (doubtedAt)
	var dropped []patient.Dropped
	var reports *anatomyReports     // the case's stenosis reports, read once
	procedural := map[string]bool{} // findings that name a procedure first (labelWhen)
	prevF, prevAnchors := extract.Finding{Start: -1}, []grounding.Anchor(nil)
	var siteOf [][2]string // a finding's words and the clause that set it aside as another site's
	for _, f := range findings {
		if err := ctx.Err(); err != nil {
			return nil, deadlineError(caseID, "step (ii) grounding", err)
		}
		res.Findings = append(res.Findings, Finding{ID: f.ID, Text: f.Text, Start: f.Start, End: f.End, Section: f.Section})
		mention[f.ID] = f.Text
		starts[f.ID] = f.Start
		at := ctext.At(f.Start) // the finding where it is written, not its words' first occurrence
		clause[f.ID] = commaClause(text, f.Start, f.End)
		if f.RowStatus != "" {
			// A status table's row ends at its status cell: the cells
			// after it (a comment, a reason) are statements of their own.
			if k := strings.Index(clause[f.ID], f.Text); k >= 0 {
				clause[f.ID] = clause[f.ID][:k+len(f.Text)]
			}
		}
		covering := labelled(text, secs, f.Start, clause[f.ID])
		anchors, err := p.ground(ctx, c, f.Text)
		if err != nil {
			return nil, stageErr(caseID, StageGround, err, "grounding %q", f.Text)
		}
		if !p.listedValue(text, prevF, prevAnchors, f) {
			anchors = p.withDemographic(text, f.Start, f.End, f.Text, anchors)
		}
		anchors = p.withVerbatim(f.Text, covering, anchors, p.cfg.topK)
		if p.ungrounded(f.Text) {
			// A measurement the pack has no concept for (meta/reading.json
			// ungrounded) grounds to nothing.
			anchors = nil
		}
		anchors = p.withoutGradedSense(f.Text, anchors)
		anchors = p.withoutOtherSite(f.Text, anchors)
		anchors = p.withoutSiteBefore(text, f, anchors, &siteOf)
		anchors = p.withoutSymptomlessRefractory(f.Text, anchors)
		anchors = p.withoutScoreSubject(leadIn(text, f.Start, f.End), anchors)
		anchors = p.withoutGlossedState(text, f.Start, f.End, anchors)
		if anchors, err = p.withoutTitleGuesses(ctx, text, f, anchors); err != nil {
			return nil, stageErr(caseID, StageGround, err, "grounding %q", f.Text)
		}
		if reports == nil {
			reports = p.anatomy.reports(text)
		}
		if p.anatomy.located(text, f.Start, f.End, reports) || p.anatomy.normalValue(f.Start, f.End, reports) {
			// A vessel name that heads a stenosis report is where the
			// report lies (the anatomy reader reads it), not a finding.
			anchors = nil
		}
		// A stenosis report's per-vessel facts are the anatomy reader's,
		// read from its numbers and segment, not the grounder's guess.
		anchors = p.anatomy.withoutRead(f.Start, f.End, reports, anchors)
		anchors = p.anatomy.withoutNonStenosis(f.Text, anchors)
		if p.anatomy.holds(f.Start, f.End, reports) {
			anchors = p.withoutOtherOrgan(anchors) // a coronary report names no other organ's disease
			anchors = p.anatomy.withoutStenting(f.Text, anchors)
		}
		if a, ok := p.continuedMeasure(text, prevF, prevAnchors, f, anchors); ok {
			// "BMI 41, now 29": the value continues the measure before it.
			anchors = withFirst(a, anchors)
			clause[f.ID] = text[prevF.Start:f.End]
		}
		// A code the finding writes that the pack's value sets list names
		// its concept ("I25.2 Old MI"): codes.go.
		var codeWords map[string]string
		anchors, codeWords = p.withCodes(f.Text, anchors)
		if len(anchors) > 0 || !bareDate(f.Text) {
			// A bare date between a value and its continuation ("LVEF
			// 35% (2020), now 50%") is no finding of its own to continue.
			prevF, prevAnchors = f, anchors
		}
		current[f.ID] = p.currentItem(text, f, findings, current, anchors)
		if c.checks.Certainty && !f.Intended && (p.weighedOptions(at, f, anchors) || p.consequent(text, f, anchors)) {
			f.Intended = true // "options PCI or CABG": each is intended, none done
		}
		if c.checks.Certainty && !f.Intended {
			if m := p.optionCue(text, f, findings, anchors); m != "" {
				// "PCI feasible", "CABG and PCI both appropriate": an
				// option weighed is no procedure done, planned or absent.
				if kept := p.withoutOptionProcedures(anchors); len(kept) < len(anchors) {
					tr.Rejected = append(tr.Rejected, Rejection{FindingID: f.ID, Check: consistency.CheckCertainty, BeforeMatching: true,
						Reason: "certainty: its words '" + m + "' speak of the procedure as an option, neither done, planned nor absent"})
					anchors = kept
				}
			}
		}
		if c.checks.Certainty && f.Intended {
			m, why := p.doc.Cue(rules.CueUnchosen, f.Text), "set the procedure aside as the option not chosen"
			if m == "" && p.underPlan(f) {
				// "if CABG: stop clopidogrel; if PCI: DAPT": a plan's
				// branch names the procedure as a condition, not a plan.
				m, why = p.doc.Cue(rules.CueCondition, f.Text), "make the procedure a branch of the plan, a condition"
			}
			if m != "" {
				// "Recommendation: CABG. ... went over the PCI
				// alternative": in a plan, the option its own words set
				// aside is not the one planned.
				if kept := p.withoutProcedures(anchors); len(kept) < len(anchors) {
					tr.Rejected = append(tr.Rejected, Rejection{FindingID: f.ID, Check: consistency.CheckCertainty, BeforeMatching: true,
						Reason: "certainty: its words '" + m + "' " + why + ", so the plan does not plan it"})
					anchors = kept
				}
			}
		}
		procOnly := false // only the finding's procedures are intended ("Heart Team recommends CABG")
		if c.checks.Certainty && !f.Intended && (p.recommended(f, anchors) || p.bareProcedure(text, f, anchors, clause[f.ID], date)) {
			f.Intended, procOnly = true, true
		}
		// A finding its own intention words schedule ("admitted for
		// NSTEMI", "referred for chest pain on exertion", "PCI (2019) for
		// stable angina"), outside a plan, schedules what is done, not
		// the condition it is done for: the condition is the reason, and
		// stated.
		reason := c.checks.Certainty && f.Intended && !procOnly && !p.underPlan(f) && p.doc.Cue(rules.CueIntention, f.Text) != ""
		if c.checks.Certainty && f.Intended {
			// Under a "Plan:" heading a finding is intended, not present:
			// only concepts that are themselves intentions may use it.
			startedIDs[f.ID] = p.startOrder(text, f, findings, startedIDs)
			if !startedIDs[f.ID] && !current[f.ID] && p.regimenOrder(at, text, f, anchors) {
				// "Plan: aspirin + clopidogrel 6 months": prescribed
				// with its regimen, the drug is started and in force.
				startedIDs[f.ID], prescribedIDs[f.ID] = true, true
			}
			kept := anchors[:0:0]
			seen := map[string]bool{}
			for _, a := range anchors {
				if reason && p.roles[a.ConceptKey] != rules.RoleProcedure && p.roles[a.ConceptKey] != rules.RoleMedication && !p.doc.PlannedConcept(a.Concept) {
					if !seen[a.ConceptKey] {
						seen[a.ConceptKey] = true
						kept = append(kept, a)
					}
				} else if procOnly && p.roles[a.ConceptKey] != rules.RoleProcedure {
					if !seen[a.ConceptKey] {
						seen[a.ConceptKey] = true
						kept = append(kept, a)
					}
				} else if p.doc.PlannedConcept(a.Concept) {
					if !seen[a.ConceptKey] {
						seen[a.ConceptKey] = true
						kept = append(kept, a)
					}
				} else if pa, ok := p.plannedForm(a); ok && !seen[pa.ConceptKey] && !p.statedDone(f, a) {
					// "Plan: PCI" states the planned procedure: the
					// mention must name the procedure, not the plan.
					seen[pa.ConceptKey] = true
					planned[[2]string{f.ID, pa.ConceptKey}] = a
					kept = append(kept, pa)
				} else if !ok && p.keptInPlan(f, a) && !seen[a.ConceptKey] {
					seen[a.ConceptKey] = true
					inPlan[[2]string{f.ID, a.ConceptKey}] = true
					kept = append(kept, a)
				} else if !ok && p.medications[a.ConceptKey] && !seen[a.ConceptKey] && !p.underPlan(f) && p.notTakenAmong(text, f, findings) {
					// "Apixaban planned": the drug's own words plan it;
					// the not-taken reader below types it planned.
					seen[a.ConceptKey] = true
					kept = append(kept, a)
				} else if !ok && p.medications[a.ConceptKey] && !seen[a.ConceptKey] && !current[f.ID] && startedIDs[f.ID] && p.startsDrug(f.Text, append([]string{a.Concept}, p.phrases[a.ConceptKey]...)) {
					// "Plan: add ISMN": the plan starts the drug; the
					// model types it planned, started.
					seen[a.ConceptKey] = true
					started[[2]string{f.ID, a.ConceptKey}] = true
					kept = append(kept, a)
				} else if !ok && p.medications[a.ConceptKey] && !seen[a.ConceptKey] && (current[f.ID] || p.stopOrder(text, f, clause[f.ID], date, append([]string{a.Concept}, p.phrases[a.ConceptKey]...)) || p.switchRole(f.Text, append([]string{a.Concept}, p.phrases[a.ConceptKey]...)) != 0 || p.stoppedNow(text, f, append([]string{a.Concept}, p.phrases[a.ConceptKey]...))) {
					// "STOP ISMN": the plan's order stops the drug now;
					// "continue aspirin" keeps it taken; "switch
					// clopidogrel to prasugrel" does both; "clopidogrel
					// stopped today" is done, not planned.
					seen[a.ConceptKey] = true
					kept = append(kept, a)
				}
			}
			if len(kept) < len(anchors) {
				tr.Rejected = append(tr.Rejected, Rejection{FindingID: f.ID, Check: consistency.CheckCertainty, BeforeMatching: true,
					Reason: "certainty: " + p.intendedWhy(text, f)})
			}
			anchors = kept
		}
		negated := false
		if c.checks.Negation {
			fc := at.Analyze(f.Text)
			if f.Experiencer != "" {
				fc.Other, fc.Cues = true, []string{"under a '" + f.Section + "' heading"}
			}
			if fc.Uncertain || fc.Unlikely {
				// A probable negation the concept-level check below does
				// not set aside ("unlikely" before a word the pack does
				// not name verbatim) is at least no confirmed fact.
				doubted[f.ID] = true
				for k := range p.undoubtedAt(at, f.Text, anchors) {
					undoubted[[2]string{f.ID, k}] = true
				}
			} else {
				for k := range p.doubtedAt(at, f.Text, anchors) {
					doubtedWords[[2]string{f.ID, k}] = true
				}
				for k := range p.doubtingGloss(text, ctext, f, covering, anchors) {
					doubtedWords[[2]string{f.ID, k}] = true
				}
			}
			if fc.Other && !p.cueInConcept(anchors, fc.Cues) {
				// A relative's finding says nothing about the patient,
				// neither present nor absent.
				tr.Rejected = append(tr.Rejected, Rejection{FindingID: f.ID, Check: consistency.CheckNegation, BeforeMatching: true,
					Reason: "negation: '" + strings.Join(fc.Cues, ", ") + "' makes this a relative's finding, not the patient's"})
				tr.Anchors = append(tr.Anchors, FindingAnchors{FindingID: f.ID, Query: f.Text})
				dropped = append(dropped, patient.Dropped{Text: f.Text, Reader: "text", Reason: "a relative's finding ('" + strings.Join(fc.Cues, ", ") + "'), not the patient's"})
				continue
			}
			negated = fc.Negated
		}
		if c.checks.Certainty {
			// "Low risk for CAD" speaks of CAD as a risk: judged at the
			// concept's words, not the finding's first one.
			kept, none, cues := p.spokenOfAsRisk(at, f.Text, anchors)
			if none && f.Intended && p.intentionCues(cues) {
				// "Planned ICA", "ICA is planned": the plan word is the
				// intention already read above, not a doubt.
				kept, none = anchors, false
			}
			if none {
				why := riskWhy(cues)
				tr.Rejected = append(tr.Rejected, Rejection{FindingID: f.ID, Check: consistency.CheckCertainty, BeforeMatching: true, Reason: "certainty: " + why})
				tr.Anchors = append(tr.Anchors, FindingAnchors{FindingID: f.ID, Query: f.Text})
				dropped = append(dropped, patient.Dropped{Text: f.Text, Reader: "text", Reason: why})
				continue
			}
			anchors = kept
		}
		if c.checks.Negation {
			// "… as a colleague had a heart attack": the heart attack is
			// the colleague's, judged at the concept's words.
			kept, none, cues := p.spokenOfOthers(at, f.Text, anchors)
			if none {
				why := "a finding of someone other than the patient ('" + strings.Join(cues, ", ") + "')"
				tr.Rejected = append(tr.Rejected, Rejection{FindingID: f.ID, Check: consistency.CheckNegation, BeforeMatching: true, Reason: "negation: " + why})
				tr.Anchors = append(tr.Anchors, FindingAnchors{FindingID: f.ID, Query: f.Text})
				dropped = append(dropped, patient.Dropped{Text: f.Text, Reader: "text", Reason: why})
				continue
			}
			anchors = kept
		}
		if negated {
			if anchors, err = p.orAnchors(ctx, c, f.Text, anchors); err != nil {
				return nil, stageErr(caseID, StageGround, err, "grounding %q", f.Text)
			}
		}
		var negatedAt map[string]bool // a named concept's own negation
		if c.checks.Negation {
			negatedAt = p.negationAt(at, f.Text, anchors)
		}
		for _, a := range p.antonymEvidence(f.ID, f.Text, negated) {
			antonyms = append(antonyms, a)
			byAntonym[[2]string{f.ID, a.ConceptKey}] = true
			keys[a.ConceptKey] = true
		}
		fa := FindingAnchors{FindingID: f.ID, Query: f.Text}
		p.read(rd, at, f.ID, f.Text, negated, anchors, c.checks)
		for i, a := range anchors {
			keys[a.ConceptKey] = true
			rank[[2]string{f.ID, a.ConceptKey}] = i + 1
			if i == 0 && p.titleRole(a.ConceptKey) {
				procedural[f.ID] = true
			}
			if p.cfg.trace { // the anchors' hits are for the trace only
				fa.Anchors = append(fa.Anchors, anchorInfo(a))
			}
			ph, cov := phrasesFor(a, p.phrases), p.coveringFor(a)
			if tok := codeWords[a.ConceptKey]; tok != "" {
				ph, cov = codePhrases(ph, tok), nil
			}
			if proc, ok := planned[[2]string{f.ID, a.ConceptKey}]; ok {
				ph, cov = phrasesFor(proc, p.phrases), p.coveringFor(proc)
				// "Heart Team recommends CABG" names the procedure word
				// for word: so it names the plan of it.
				k, pk := [2]string{f.ID, a.ConceptKey}, [2]string{f.ID, proc.ConceptKey}
				rd.named[k] = rd.named[k] || rd.named[pk]
				rd.narrowed[k] = rd.narrowed[k] || rd.narrowed[pk]
			}
			if doubted[f.ID] && p.doubtfulName(a.Concept) {
				ph, cov = p.undoubtedForms(ph), nil // the formatter reads ph itself
			}
			pairs = append(pairs, evidence.Pair{FindingID: f.ID, Text: f.Text, Negated: negatedOf(negatedAt, a.ConceptKey, negated), Clause: labelled(text, secs, f.Start, clause[f.ID]), Title: title,
				Anchor: evidence.Anchor{ConceptKey: a.ConceptKey, Concept: a.Concept, Units: p.units[a.ConceptKey], Phrases: ph, Names: p.rivals, Covering: cov, Scales: p.reading.scales[a.ConceptKey]}})
		}
		tr.Anchors = append(tr.Anchors, fa)
	}
	if err := ctx.Err(); err != nil {
		return nil, deadlineError(caseID, "step (iv) evidence", err)
	}
	items, err := p.cfg.formatter.FormatCase(ctx, text, pairs)
	if err != nil {
		return nil, stageErr(caseID, StageFormat, err, "evidence with %s", p.cfg.formatter.Name())
	}
	ev := make([]eval.Evidence, 0, len(items))
	intolerant, listedIntolerant := p.intoleranceDrops(text, findings, items)
	// overridden: items the formatter accepted and the engine then refused
	// (not tolerated, an antonym phrase), for the trace's what-if. The
	// formatter's own refusals are anchors the mention does not name: no
	// evidence to let through.
	var overridden []whatIf
	notTaken := map[[2]string]bool{} // (finding, drug key) stated in a sentence that does not take it
	begunKeys := map[string]bool{}   // drug keys the document begins or raises now (begunNow, upTitratedTo)
	var notTolerated []eval.Evidence // drugs the text states not tolerated: facts that bar, not evidence
	cut := p.cutWhen(text, findings, date)
	columns := p.columnDates(text, byIDOf(findings), items, date)
	stops := map[string]string{}     // drug key → the words ordering it stopped
	listStops := map[string]string{} // drug key → a medication list item stating it stopped
	stoppedAt := map[string][]int{}  // drug key → where the text states it stopped
	byID := make(map[string]extract.Finding, len(findings))
	for _, f := range findings {
		byID[f.ID] = f
	}
	deniedNarrower := p.deniedNarrower(items, pairs)
	sharedValue := sharedBareValues(items, pairs)
	for _, it := range items {
		override := func(reason string) {
			if c.trace && it.Rejected == "" {
				overridden = append(overridden, whatIf{len(tr.Rejected), eval.Evidence{ID: it.FindingID, ConceptKey: it.ConceptKey, Concept: it.Concept,
					Text: it.Text, Present: it.Present, Value: it.Value, Unit: it.Unit, Comparator: it.Comparator}})
			}
			tr.Rejected = append(tr.Rejected, Rejection{FindingID: it.FindingID, Check: "formatter", Reason: it.ConceptKey + ": " + reason})
		}
		if by, ok := intolerant[[2]string{it.FindingID, it.ConceptKey}]; ok && it.Rejected == "" {
			override("'" + by + "' states the drug is not tolerated, not taken")
			if it.Present && p.medications[it.ConceptKey] {
				notTolerated = append(notTolerated, eval.Evidence{ID: it.FindingID, ConceptKey: it.ConceptKey, Concept: it.Concept, Text: it.Text, Present: true, Via: by + " states it not tolerated"})
			}
			continue
		}
		if f, ok := byID[it.FindingID]; ok && it.Rejected == "" && it.Present && p.medications[it.ConceptKey] && p.stopOrder(text, f, clause[f.ID], date, append([]string{it.Concept}, p.phrases[it.ConceptKey]...)) {
			// The document orders the drug stopped: a stated absence now,
			// which supersedes the list's reading (stopSupersede).
			e := eval.Evidence{ID: it.FindingID, ConceptKey: it.ConceptKey, Concept: it.Concept, Text: it.Text}
			tr.Rejected = append(tr.Rejected, Rejection{FindingID: it.FindingID, Check: "formatter",
				Reason: it.ConceptKey + ": '" + p.stopOrderWords(text, f) + "' orders the drug stopped, so it is read as not taken now"})
			stops[it.ConceptKey] = it.Text
			stoppedAt[it.ConceptKey] = append(stoppedAt[it.ConceptKey], f.Start)
			ev = append(ev, e)
			e.AnchorRank = rank[[2]string{it.FindingID, it.ConceptKey}]
			res.Evidence = append(res.Evidence, e)
			continue
		}
		if f, ok := byID[it.FindingID]; ok && it.Rejected == "" && it.Present && p.medications[it.ConceptKey] && p.doc.IntolerantOf(it.Concept) == "" {
			if c := p.drugStatement(text, f, clause[f.ID]); c != "" {
				override("'" + c + "' speaks of the drug without stating that it is taken")
				if nt := p.doc.Cue(rules.CueNotTolerated, f.Text); nt != "" && !p.conditionalIntolerance(text, f, nt) {
					// "Aspirin allergy (urticaria)": the finding's own words.
					notTolerated = append(notTolerated, eval.Evidence{ID: it.FindingID, ConceptKey: it.ConceptKey, Concept: it.Concept, Text: it.Text, Present: true, Via: "'" + nt + "' states it not tolerated"})
				}
				continue
			}
		}
		if n, ok := deniedNarrower[[2]string{it.FindingID, it.ConceptKey}]; ok && it.Rejected == "" {
			// "No obstructive epicardial CAD" denies obstructive CAD, not
			// CAD: the negation falls on what the narrower name adds.
			override("the finding denies the narrower '" + n + "', which leaves this broader concept open")
			continue
		}
		if q := p.deniedQualified(ctext, byID, it); q != "" {
			// "No nocturnal symptoms" denies symptoms at night, not the
			// symptoms: the negation falls on the qualifier the mention
			// adds, as step (v) reads an ABSENT condition (extraQualifier).
			override("the finding denies only the " + q + " form, which leaves this concept open")
			continue
		}
		if sharedValue[[2]string{it.FindingID, it.ConceptKey}] && it.Rejected == "" {
			// "LDL 1.3": the bare number is the value of the measure the
			// finding names whole, not of a neighbour it names in part.
			override("the finding's number, written without a unit, is the value of the measure it names whole, not of this one")
			continue
		}
		if byAntonym[[2]string{it.FindingID, it.ConceptKey}] {
			// The finding names the concept only inside an antonym
			// phrase ("sparing the proximal LAD"): read as the antonym.
			override("the finding states an antonym phrase of the concept")
			continue
		}
		if it.Rejected != "" {
			tr.Rejected = append(tr.Rejected, Rejection{FindingID: it.FindingID, Check: "formatter", Reason: it.ConceptKey + ": " + it.Rejected})
			continue
		}
		e := eval.Evidence{ID: it.FindingID, ConceptKey: it.ConceptKey, Concept: it.Concept, Text: it.Text,
			Present: it.Present, Value: it.Value, Unit: it.Unit, Comparator: it.Comparator, When: p.whenOf(it.Text, date)}
		if e.When == nil {
			e.When = cut[it.FindingID]
		}
		if e.When == nil && it.Value != nil {
			e.When = columns[it.Value] // a results table's date column
		}
		p.flag(rd, &e)
		if f, ok := byID[it.FindingID]; ok && p.medications[e.ConceptKey] && f.Start >= 0 {
			// A drug in a sentence that stops, plans or refuses it is
			// planned, not taken. A medication list states each item on
			// its own: only the item's words count there.
			if k := p.doc.Kind(f); k != nil && k.Medication == rules.SectionTaking {
				item := listItem(text, f.Start, f.End)
				// "ticagrelor 90 mg bd (switched from clopidogrel)": the
				// item's switch names this drug the one taken now.
				notTaken[[2]string{e.ID, e.ConceptKey}] = p.reading.notTaken != nil && p.reading.notTakenIn(p.listItemAmong(text, f, findings)) && !p.stopLater(item, date) && p.switchRole(item, p.namesOf(e)) <= 0
			} else if p.notTakenAmong(text, f, findings) {
				notTaken[[2]string{e.ID, e.ConceptKey}] = true
			}
			if p.switchRole(it.Text, p.namesOf(e)) > 0 || current[e.ID] {
				// "switched ... to ticagrelor", "Plan: continue aspirin":
				// taken now
				notTaken[[2]string{e.ID, e.ConceptKey}] = false
			}
			if started[[2]string{e.ID, e.ConceptKey}] {
				notTaken[[2]string{e.ID, e.ConceptKey}] = true // "Plan: start bisoprolol": planned
			}
			// "Atorvastatin 80 mg - INCREASED from 40 mg": what the pack
			// names by the new dose is ordered, not yet taken.
			item := clause[f.ID]
			if k := p.doc.Kind(f); k != nil && k.Medication == rules.SectionTaking {
				item = listItem(text, f.Start, f.End)
			}
			if e.Present && !notTaken[[2]string{e.ID, e.ConceptKey}] {
				if w := p.upTitratedTo(item, e.ConceptKey); w != "" {
					notTaken[[2]string{e.ID, e.ConceptKey}] = true
					begunKeys[e.ConceptKey] = true
					tr.Rejected = append(tr.Rejected, Rejection{FindingID: it.FindingID, Check: "formatter",
						Reason: it.ConceptKey + ": '" + w + "' raises the dose now, so what is named by the raised dose is ordered, not yet taken"})
				} else if w := p.leftBehindOnly(item, e.ConceptKey); w != "" {
					notTaken[[2]string{e.ID, e.ConceptKey}] = true
					tr.Rejected = append(tr.Rejected, Rejection{FindingID: it.FindingID, Check: "formatter",
						Reason: it.ConceptKey + ": '" + w + "' is the dose left behind, and the item names the concept only by it"})
				}
			}
			if e.Present && !notTaken[[2]string{e.ID, e.ConceptKey}] {
				// "ezetimibe 10 mg added today": taken from now on, no
				// course yet whose result a row judges (begunNow).
				names := p.namesOf(e)
				e.Begun = p.begunNow(it.Text, names) != "" || item != it.Text && p.begunNow(item, names) != ""
				if e.Begun {
					begunKeys[e.ConceptKey] = true
				}
			}
		}
		// "LVEF 35% (2020), now 50%": a value its own words state now is
		// of the document's date; the clause's or label's date is another
		// value's (supersede reads the now word).
		nowValue := e.Value != nil && p.reading.now != nil && p.reading.now.MatchString(it.Text)
		if e.When == nil && !nowValue {
			// "PCI to the LAD (2019)": the date may sit in the clause.
			e.When = p.whenOf(arrowSide(clause[it.FindingID], it.Text), date)
		}
		if f, ok := byID[it.FindingID]; ok && e.When == nil && !nowValue {
			// "Operation 09/09/2025: CABG x2": the line's label dates it.
			if e.When = p.labelWhen(text, f, p.kindOf(e), findings, procedural, date); e.When == nil && e.Present && !e.Secondary {
				if e.When = p.titleWhen(text, f, e.ConceptKey, date); e.When == nil {
					e.When = p.reportProcedureWhen(text, f, e.ConceptKey, findings, procedural, date)
				}
			}
		}
		if e.When != nil && sinceStart(it.Text, e.When.Text, p.namesOf(e)) {
			e.When = nil // "Today: no angina since the PCI": today's state, the PCI before it
		}
		if f, ok := byID[it.FindingID]; ok && e.Present && !f.Intended && p.roles[e.ConceptKey] == rules.RoleProcedure && p.doneWords(clause[it.FindingID]) {
			e.Done = true // "CABG performed 20/11/2026": done, no plan
		}
		if e.Present && p.medications[e.ConceptKey] && (p.stoppedItem(text, byID[it.FindingID]) || p.stoppedListed(byID[it.FindingID]) && p.switchRole(it.Text, p.namesOf(e)) <= 0 || p.pastFor(it.Text, "", p.namesOf(e), true) || p.switchRole(it.Text, p.namesOf(e)) < 0) {
			// "aspirin stopped after 1 week": the drug was taken, and is
			// not now; a stated stop is a stated absence of the therapy,
			// and so is a past cue before the drug ("previous clopidogrel").
			e.Present = false
			tr.Rejected = append(tr.Rejected, Rejection{FindingID: it.FindingID, Check: "formatter",
				Reason: it.ConceptKey + ": '" + it.Text + "' states the drug was stopped, so it is read as not taken now"})
			if f := byID[it.FindingID]; p.listedStop(f) {
				listStops[e.ConceptKey] = it.Text
			} else if p.stoppedNow(text, f, p.namesOf(e)) || p.switchOrder(text, f, clause[f.ID], date) {
				// "Aspirin stopped today": the document's last word on
				// the drug, as an order to stop it now is (stopSupersede).
				stops[e.ConceptKey] = it.Text
			} else if p.statesStop(text, f, p.namesOf(e)) {
				stoppedAt[e.ConceptKey] = append(stoppedAt[e.ConceptKey], f.Start)
			}
		}
		ev = append(ev, e)
		if e.Present && notTaken[[2]string{e.ID, e.ConceptKey}] {
			continue // a planned drug: a model fact that asserts nothing now, no evidence
		}
		ei := e
		ei.AnchorRank = rank[[2]string{it.FindingID, it.ConceptKey}]
		res.Evidence = append(res.Evidence, ei)
	}
	// "Atorvastatin 80 mg - INCREASED from 40 mg" ... "Lipids in 3 months on
	// atorvastatin 80 mg": a drug the document begins now has no course of
	// it yet, and its other undated mentions are that same start; a value
	// measured so far was measured before it (rules.Window.Course).
	ev = begunThroughout(ev, begunKeys)
	res.Evidence = begunThroughout(res.Evidence, begunKeys)
	// "Admitted 16/04/2026 ... Reason for admission: elective PCI": done in the stay.
	p.stayDates(text, p.admissionStay(text, date), date, ev, res.Evidence, byID)
	ev, res.Evidence = stopSupersede(ev, res.Evidence, stops, tr, &dropped)
	ev, res.Evidence = p.historySupersede(ev, res.Evidence, listStops, byID, tr, &dropped)
	earlier := p.laterStopped(ev, stoppedAt, byID, current)
	ev, res.Evidence = p.plannedByName(ev, res.Evidence, byID, clause, tr, &dropped)
	for _, a := range append(antonyms, listedIntolerant...) {
		keys[a.ConceptKey] = true
		ev = append(ev, a)
		res.Evidence = append(res.Evidence, a)
	}
	ev, res.Evidence = p.plannedNotDone(ev, res.Evidence, tr, &dropped)
	for _, f := range p.readRounds(&read.Case{Text: text, Findings: findings, Date: date}, ev) {
		ev = append(ev, f.Evidence)
		keys[f.ConceptKey] = true
		res.Evidence = append(res.Evidence, f.Evidence)
	}
	// The patient model is complete: later stages read it, not the text.
	m := p.textModel(caseID, text, date, findings, ev, doubted, undoubted, doubtedWords, notTaken, inPlan, dropped)
	for i := range m.Facts {
		if f := &m.Facts[i]; f.Status == patient.StatusPlanned && started[[2]string{f.ID, f.ConceptKey}] {
			f.Started, f.Prescribed = true, prescribedIDs[f.ID]
		}
	}
	for i := range m.Facts {
		if f := &m.Facts[i]; f.Status == patient.StatusTaking && earlier[[2]string{f.ID, f.ConceptKey}] {
			f.Status = patient.StatusHistory // taken before a later stop (laterStopped)
		}
	}
	m.Facts = append(m.Facts, p.notToleratedFacts(m, notTolerated, findings, doubted)...)
	res.Patient = m
	// Step (v) runs inside evaluation, per condition: a mention is judged
	// against each condition's own wording and context; a composite
	// definition judges its members the same way.
	adm := p.newAdmitter(c, ctext, mention, clause, tr)
	adm.start, adm.undoubted, adm.doubtedWords = starts, undoubted, doubtedWords
	if err := p.decide(ctx, c, res, tr, m, adm.admit, adm.passes, overridden); err != nil {
		return nil, err
	}
	return res, nil
}

// decide is the stages after reading, shared by text and coded input:
// derive (the pack's definitions, facts added to the model), expand, check
// and evaluate over the model's evidence. admit is step (v) with its
// refusals traced, passes the same without the trace (for what-ifs).
func (p *Program) decide(ctx context.Context, c *call, res *Result, tr *Trace, m *patient.Model, admit, passes func(eval.Cond, eval.Evidence) bool, overridden []whatIf) error {
	date := noon(c.date)
	// Values are checked on every path: one no patient can have is a
	// misreading, one a later value supersedes is not the patient's now.
	res.Evidence = applyEdits(res.Evidence, append(append(append(p.plausible(m), p.supersede(m, date)...), p.stale(m, date)...), p.functionalCounts(m)...))
	ev := p.currentOnly(m, m.Evidence(), tr)
	keys := map[string]bool{}
	for _, e := range ev {
		keys[e.ConceptKey] = true
	}
	if c.tracing() {
		for _, f := range m.Facts {
			c.emit(Event{Stage: StageRead, Kind: EventRead, FactID: f.ID, Concept: f.ConceptKey, Detail: string(f.Kind) + " " + string(f.Status) + " by " + f.Reader})
		}
		for _, d := range m.Dropped {
			c.emit(Event{Stage: StageRead, Kind: EventDropped, Detail: d.Reason})
		}
	}
	// Conditions, definitions, composites and exceptions read the same
	// facts: an alternative reading ("fast irregular heart rate" for
	// "permanent AF", "obstructive CAD" for "non-obstructive CAD") is none
	// of them. Read by conditions only, it fired a class III row beside
	// the row whose exception ignored it.
	best := func(e eval.Evidence) bool { return !e.Secondary }
	premise := func(e eval.Evidence) bool { return !e.Secondary && !e.CoReading }
	// A composite whose own exception the final model holds is withdrawn:
	// unknown, traced.
	withdrawn := func(d eval.Evidence, why string) {
		tr.Rejected = append(tr.Rejected, Rejection{FindingID: d.ID, Check: "definition",
			Reason: d.Concept + ": derived, then set aside as unknown: " + why})
	}
	derived, calcs := p.deriveWithCalculated(ev, eval.Options{Admit: admit, Member: best, Premise: premise, CaseDate: date, Withdrawn: withdrawn, Past: p.statedPast(m), NameKeys: p.nameKeys}, passes)
	tr.Calculations = calcs
	// A broader concept drawn from a suspected fact is suspected too
	// ("?vasospastic angina" is a suspected angina), in the model as in
	// step (v), which judges it at the same words: an is-a fact keeps its
	// source's id.
	doubt := map[[2]string]bool{} // (fact id, concept key): a finding may state one concept in doubt and another not
	for _, f := range m.Facts {
		if f.Certainty == patient.Suspected {
			doubt[[2]string{f.ID, f.ConceptKey}] = true
		}
	}
	was := pastOf(m) // an is-a fact keeps its source's past status too
	for _, d := range derived {
		ev = append(ev, d)
		keys[d.ConceptKey] = true
		res.Evidence = append(res.Evidence, d)
		f := p.fact(d, "derive", nil)
		if d.DerivedBy == eval.ReaderIsA && doubt[[2]string{d.ID, d.From}] {
			f.Certainty = patient.Suspected
		}
		if st, ok := was[[2]string{d.ID, d.From}]; ok && d.DerivedBy == eval.ReaderIsA && d.Present {
			f.Status = st
		}
		m.Facts = append(m.Facts, f)
		c.emit(Event{Stage: StageDerive, Kind: EventDerived, FactID: d.ID, Concept: d.ConceptKey, Detail: d.Via})
	}
	if err := ctx.Err(); err != nil {
		return deadlineError(c.caseID, "step (iii) expansion", err)
	}
	judged := func(cd eval.Cond, e eval.Evidence) bool { return best(e) && (admit == nil || admit(cd, e)) }
	started := m.Started() // drugs the plan starts: read by rules that start nothing
	for _, e := range started {
		keys[e.ConceptKey] = true
	}
	prescribed := m.Prescribed() // of them, those prescribed with a regimen: read by every rule
	if err := p.evaluate(ctx, c, res, tr, sortedKeys(keys), ev, started, prescribed, passes, judged, overridden, date); err != nil {
		return err
	}
	if w := p.withhold(res, m); len(w) > 0 {
		res.Withheld = w
		still := map[string]bool{}
		for _, r := range res.Recommendations {
			still[r.RowID] = true
		}
		rows := res.PredictedRowIDs[:0]
		for _, id := range res.PredictedRowIDs {
			if still[id] {
				rows = append(rows, id)
			}
		}
		res.PredictedRowIDs = rows
		for _, x := range w {
			c.emit(Event{Stage: StageEvaluate, Kind: EventRejected, FactID: x.FactID, RowID: x.RowID, RuleID: x.RuleID, Detail: x.Reason})
		}
	}
	if c.tracing() {
		for _, r := range tr.Rejected {
			c.emit(Event{Stage: StageCheck, Kind: EventRejected, FactID: r.FindingID, DecisionID: r.DecisionID, Detail: r.Reason})
		}
		for _, r := range res.Recommendations {
			c.emit(Event{Stage: StageEvaluate, Kind: EventFired, RowID: r.RowID, RuleID: r.RuleID})
		}
		for _, n := range res.NearMisses {
			c.emit(Event{Stage: StageEvaluate, Kind: EventNearMiss, RowID: n.RowID, RuleID: n.RuleID, Detail: "missing " + strings.Join(n.Missing, ", ")})
		}
	}
	if c.trace {
		tr.Events = c.events
		res.Trace = tr
	}
	return nil
}

// deadlineError names the step at which ctx ended the case.
func deadlineError(caseID, step string, err error) error {
	return &LimitError{CaseID: caseID, Limit: "deadline", Detail: "stopped before " + step + ": " + err.Error(), Cause: err}
}

// doubtfulSynonym: the synonym, judged where the clause states it, is
// doubted or negated there ("for probable stable angina"), which the
// mention as a whole may hide when it shares no word with the condition.
func doubtfulSynonym(clause, syn string, cond consistency.Condition, checks consistency.Checks) bool {
	if !strings.Contains(strings.ToLower(clause), strings.ToLower(syn)) {
		return false
	}
	v := consistency.Check(clause, syn, cond, checks)
	return !v.Pass && (v.Check == consistency.CheckNegation ||
		v.Check == consistency.CheckCertainty && strings.HasPrefix(v.Reason, consistency.CheckCertainty+": the case is uncertain"))
}

func (p *Program) newTrace(c *call) *Trace {
	return &Trace{Checks: c.checks.String(), ClosedWorld: c.closedWorld, TopK: p.cfg.topK, Fractions: p.cfg.fraction,
		Pack: p.pack.Guideline.ID, PackVersion: p.pack.Guideline.Version, Settings: p.Settings()}
}

// evaluate is steps (iii) and (vi): expand concept keys to rule bundles and
// evaluate every rule.
// startsAny reports whether a rule's actions start a therapy.
func startsAny(b *graph.Bundle) bool {
	for _, a := range b.Actions {
		if a.Intent == rules.IntentStart {
			return true
		}
	}
	return false
}

// whatIf is evidence the engine refused after the formatter (rej indexes
// tr.Rejected), evaluated as if kept to tell whether the refusal changed an
// outcome.
type whatIf struct {
	rej int
	e   eval.Evidence
}

func (p *Program) evaluate(ctx context.Context, c *call, res *Result, tr *Trace, keys []string, ev, started, prescribed []eval.Evidence, passes, admit func(eval.Cond, eval.Evidence) bool, refused []whatIf, date time.Time) error {
	bundles, err := p.bundles(ctx, keys)
	if err != nil {
		return stageErr(c.caseID, StageExpand, err, "rule bundles of %d concept(s)", len(keys))
	}
	opt := eval.Options{ClosedWorld: c.closedWorld, AllowFraction: p.cfg.fraction, CaseDate: date}
	var blocked [][2]string // (decision, finding) refused by step (v) in the current rule
	if admit != nil {
		opt.Admit = func(c eval.Cond, e eval.Evidence) bool {
			if admit(c, e) {
				return true
			}
			blocked = append(blocked, [2]string{c.DecisionID, e.ID})
			return false
		}
	}
	changed := map[[2]string]bool{}
	changedRefusal := map[int]bool{}
	rowSeen := make(map[string]bool, len(bundles))
	fired := map[string]bool{}
	// Every rule reads the same evidence, indexed once by concept; the
	// few unknown rules a case reports (near misses, the trace) are told
	// what they miss.
	buf := eval.RuleBuffer{SkipMissing: true}
	buf.Index(ev)
	// The evidence with the drugs the plan starts, or prescribes, is the
	// same for every rule that reads it: built and indexed once, on first
	// use, not copied and scanned whole per rule (rules × evidence).
	var withStarted, withPrescribed *eval.RuleBuffer
	var evStarted, evPrescribed []eval.Evidence
	res.PredictedRowIDs = []string{}
	res.Recommendations = []Recommendation{}
	res.RetrievedRowIDs = make([]string, 0, len(bundles))
	res.RetrievedRules = make([]string, 0, len(bundles))
	if c.trace {
		tr.Rules = slices.Grow(tr.Rules, len(bundles))
	}
	for _, b := range bundles {
		res.RetrievedRules = append(res.RetrievedRules, b.RuleID)
		if !rowSeen[b.RowID] {
			rowSeen[b.RowID] = true
			res.RetrievedRowIDs = append(res.RetrievedRowIDs, b.RowID)
		}
		rule := p.rule(b)
		blocked = blocked[:0]
		ev, buf := ev, &buf
		if len(started) > 0 && !startsAny(b) {
			// "Plan: add ISMN" and "when long-acting nitrates are used,
			// consider a nitrate-free interval": a rule that starts
			// nothing reads the drugs the plan starts as taken; one that
			// starts a drug would build on a drug not yet tried.
			if withStarted == nil {
				evStarted = append(ev[:len(ev):len(ev)], started...)
				withStarted = &eval.RuleBuffer{SkipMissing: true}
				withStarted.Index(evStarted)
			}
			ev, buf = evStarted, withStarted
		} else if len(prescribed) > 0 {
			// "Plan: aspirin + clopidogrel 6 months" and "consider
			// adding a second antithrombotic drug to aspirin": a drug
			// the plan prescribes with its course is one the patient
			// is on, which a rule that starts another builds on.
			if withPrescribed == nil {
				evPrescribed = append(ev[:len(ev):len(ev)], prescribed...)
				withPrescribed = &eval.RuleBuffer{SkipMissing: true}
				withPrescribed.Index(evPrescribed)
			}
			ev, buf = evPrescribed, withPrescribed
		}
		rr := buf.Evaluate(rule, ev, opt) // kept only as copies (recommendation, ruleTrace)
		if rr.Truth == eval.Unknown && (c.trace || anyTrue(rr)) {
			rr.Missing = buf.Missing(rule, rr)
		}
		if c.trace {
			// What-if, for the trace only: would the rule's truth differ
			// had the blocked evidence been let through?
			if len(blocked) > 0 {
				all := opt
				all.Admit = nil
				if eval.EvaluateRule(rule, ev, all).Truth != rr.Truth {
					for _, k := range blocked {
						changed[k] = true
					}
				}
			}
			for _, w := range refused {
				if changedRefusal[w.rej] {
					continue
				}
				with := opt
				with.Admit = passes
				if eval.EvaluateRule(rule, append(ev[:len(ev):len(ev)], w.e), with).Truth != rr.Truth {
					changedRefusal[w.rej] = true
				}
			}
			tr.Rules = append(tr.Rules, ruleTrace(rr))
		}
		switch {
		case rr.Fired():
			res.Recommendations = append(res.Recommendations, p.recommendation(*b, rr))
			if !fired[b.RowID] {
				fired[b.RowID] = true
				res.PredictedRowIDs = append(res.PredictedRowIDs, b.RowID)
			}
		case rr.Truth == eval.Unknown && len(rr.Missing) > 0 && anyTrue(rr):
			res.NearMisses = append(res.NearMisses, NearMiss{RowID: b.RowID, RuleID: b.RuleID, Text: b.Recommendation.FullText,
				Class: b.Recommendation.Strength, Grade: p.gradeTerm(b.Recommendation.Strength, b.Recommendation.Level), Missing: rr.Missing})
		}
	}
	for i := range tr.Rejected {
		r := &tr.Rejected[i]
		r.ChangedOutcome = changed[[2]string{r.DecisionID, r.FindingID}] || changedRefusal[i]
	}
	sort.SliceStable(res.PredictedRowIDs, func(i, j int) bool { return graph.NaturalLess(res.PredictedRowIDs[i], res.PredictedRowIDs[j]) })
	return nil
}

// ruleOf converts a stored bundle to the evaluator's rule.
func ruleOf(b graph.Bundle) eval.Rule {
	r := eval.Rule{ID: b.RuleID, RowID: b.RowID, Conds: make([]eval.Cond, 0, len(b.Decisions))}
	for _, d := range b.Decisions {
		r.Conds = append(r.Conds, eval.Cond{
			DecisionID: d.DecisionID, GroupKey: d.LogicGroup, GroupType: d.LogicType, ConceptKey: d.ConceptKey,
			Concept: d.ConceptName, Wording: d.EntityOriginal, Context: d.Context, Role: d.Role,
			Operator: d.Operator, Threshold: d.Threshold, Unit: d.Unit, Window: decodeWindow(d.Window),
		})
	}
	return r
}

// decodeWindow reads a decision's stored time window ("" → none).
func decodeWindow(s string) *rules.Window {
	if s == "" {
		return nil
	}
	var w rules.Window
	if json.Unmarshal([]byte(s), &w) != nil {
		return nil
	}
	return &w
}

func (p *Program) recommendation(b graph.Bundle, rr eval.RuleResult) Recommendation {
	rec := Recommendation{
		RowID: b.RowID, RuleID: b.RuleID, Text: b.Recommendation.FullText, Class: b.Recommendation.Strength,
		Level: b.Recommendation.Level, Direction: b.Recommendation.Direction, Section: b.Recommendation.Section,
		Workflow: b.Recommendation.Workflow, Guideline: b.PackID, Grade: p.gradeTerm(b.Recommendation.Strength, b.Recommendation.Level),
		Source: Source{Guideline: p.pack.Guideline.Title, Version: b.PackVersion, DOI: b.Source.DOI,
			Table: fmt.Sprintf("Recommendation Table %d", b.Recommendation.Table), Row: b.Recommendation.Row},
	}
	if ri, ok := p.rows[b.RowID]; ok {
		rec.TableTopic = ri.table.Topic
		if ri.table.Source.Table != "" {
			rec.Source.Table = ri.table.Source.Table
		}
	}
	for _, a := range b.Actions {
		rec.Actions = append(rec.Actions, Action{Relation: a.Relation, Concept: a.ConceptName, Wording: a.Wording, Role: a.Role, Context: a.Context, Intent: a.Intent})
	}
	for _, c := range rr.Conditions {
		if c.Truth == eval.True {
			rec.FiredBy = append(rec.FiredBy, condTrace(c))
		}
	}
	return rec
}

func anyTrue(rr eval.RuleResult) bool {
	for _, c := range rr.Conditions {
		if c.Truth == eval.True {
			return true
		}
	}
	return false
}

// ruleTrace copies a rule's result for the trace: its conditions into one
// slice, and their matched evidence into one more (each condition's part
// capped, so an append to one copies), not a slice per condition grown
// one at a time.
func ruleTrace(rr eval.RuleResult) RuleTrace {
	t := RuleTrace{RuleID: rr.RuleID, RowID: rr.RowID, Truth: rr.Truth.String(), Missing: rr.Missing}
	if len(rr.Conditions) == 0 {
		return t
	}
	n := 0
	for _, c := range rr.Conditions {
		n += len(c.Evidence)
	}
	var evs []EvidenceItem
	if n > 0 {
		evs = make([]EvidenceItem, 0, n)
	}
	t.Conditions = make([]FiredCond, len(rr.Conditions))
	for i, c := range rr.Conditions {
		t.Conditions[i] = FiredCond{DecisionID: c.DecisionID, ConceptKey: c.ConceptKey, Concept: c.Concept, Operator: c.Operator, Threshold: c.Threshold,
			Unit: c.Unit, Truth: c.Truth.String(), Reason: c.Reason}
		if len(c.Evidence) > 0 {
			at := len(evs)
			evs = append(evs, c.Evidence...)
			t.Conditions[i].Evidence = evs[at:len(evs):len(evs)]
		}
	}
	return t
}

func condTrace(c eval.ConditionResult) FiredCond {
	fc := FiredCond{DecisionID: c.DecisionID, ConceptKey: c.ConceptKey, Concept: c.Concept, Operator: c.Operator, Threshold: c.Threshold,
		Unit: c.Unit, Truth: c.Truth.String(), Reason: c.Reason}
	fc.Evidence = append(fc.Evidence, c.Evidence...)
	return fc
}

func anchorInfo(a grounding.Anchor) AnchorInfo {
	ai := AnchorInfo{Rank: a.Rank, ConceptKey: a.ConceptKey, Concept: a.Concept, Score: a.Score, Channels: a.Channels}
	for _, h := range a.Hits {
		id := ""
		if len(h.DecisionIDs) > 0 {
			id = h.DecisionIDs[0]
		}
		ai.Hits = append(ai.Hits, Hit{DecisionID: id, Channel: h.Channel, Rank: h.Rank, Score: h.Score, Phrase: h.Phrase})
	}
	return ai
}

// phrasesFor returns the names the formatter checks a mention against; a
// demographic pattern ("78 yo") already names its concept by its shape.
func phrasesFor(a grounding.Anchor, phrases map[string][]string) []string {
	if patternOnly(a) {
		return nil
	}
	return phrases[a.ConceptKey]
}

// coveringFor is phrasesFor(a, p.phrases) read once for evidence.Covers.
func (p *Program) coveringFor(a grounding.Anchor) *evidence.Phrases {
	if patternOnly(a) {
		return nil
	}
	return p.covering[a.ConceptKey]
}

func patternOnly(a grounding.Anchor) bool { return len(a.Channels) == 1 && a.Channels[0] == "pattern" }

// commaClause returns the text around [start,end) up to the nearest comma,
// semicolon, colon or sentence end on each side ("" if unlocated).
func commaClause(text string, start, end int) string {
	if start < 0 || end > len(text) || start >= end {
		return ""
	}
	isStop := func(c byte) bool { return c == ',' || c == ';' || c == ':' || c == '\n' || c == '.' }
	// A finding inside parentheses is a detail of its own: its clause
	// ends at the closing parenthesis and does not borrow the words
	// before it ("Not HBR (PRECISE-DAPT 12)": the score does not say
	// HBR).
	s, depth, inside := start, 0, false
	for s > 0 && !isStop(text[s-1]) {
		if text[s-1] == ')' {
			depth++
		} else if text[s-1] == '(' {
			if depth == 0 {
				inside = true
				break
			}
			depth--
		}
		s--
	}
	// A list inside parentheses ("(female, 58, atypical symptoms, 2
	// risk factors) her pre-test likelihood ... is 9%") ends there too:
	// the parenthesis may open before the clause's comma.
	for k, d := s, depth; !inside && k > 0 && text[k-1] != '\n'; k-- {
		if text[k-1] == ')' {
			d++
		} else if text[k-1] == '(' {
			if d == 0 {
				inside = true
			}
			d--
		}
	}
	e := end
	for e < len(text) && !(isStop(text[e]) && (text[e] != '.' || e+1 >= len(text) || text[e+1] == ' ')) && !(inside && text[e] == ')') {
		e++
	}
	return strings.TrimSpace(text[s:e])
}

// labelled is a finding's clause as the cover check reads it: after a
// label the pack does not know as a heading, at the start of its line or
// sentence ("Stress echo (11/25): new hypokinesia in 3/16 segments", "…
// bd. Stress CMR 11/2025: inferior ischaemia 4/16 segments"), the label
// names what the finding is a result of, so its words count as stated.
// Other uses of the clause (dates, not-taken cues) keep it bare.
func labelled(text string, secs []extract.Section, pos int, clause string) string {
	if pos <= 0 || pos > len(text) {
		return clause
	}
	out := clause
	// Inside a section under a label the pack does not know.
	for _, sec := range secs {
		if sec.Kind == "" && sec.Heading != "" && pos >= sec.Start && pos < sec.End {
			out = sec.Heading + ": " + out
			break
		}
	}
	// A label at the start of the clause's line or sentence: it names
	// what every part of the sentence after it reports ("Stress CMR
	// 12/2025: possible small defect vs artefact; image quality degraded -
	// reported as non-diagnostic").
	s := pos
	for s > 0 && !strings.ContainsRune(":\n", rune(text[s-1])) && !(text[s-1] == '.' && s < len(text) && text[s] == ' ') {
		s--
	}
	if s == 0 || text[s-1] != ':' {
		return out
	}
	end := s - 1
	k := end
	for k > 0 && text[k-1] != '\n' && text[k-1] != ';' && !(k >= 2 && text[k-1] == ' ' && text[k-2] == '.') {
		k--
	}
	label := bulletTrimmed.ReplaceAllString(strings.TrimSpace(text[k:end]), "")
	if n := len(strings.Fields(label)); n == 0 || n > 6 || !unicode.IsLetter([]rune(label)[0]) || strings.HasPrefix(out, label+": ") {
		return out
	}
	for _, sec := range secs {
		if sec.Kind != "" && sec.HeadingStart >= k && sec.HeadingStart < end {
			return out // a pack heading: its kind already says what it means
		}
	}
	return label + ": " + out
}

// bulletTrimmed is a list item's marker opening a label ("- Stress CMR
// 04/2025:", "2) Stress echo:"): the label is the words after it.
var bulletTrimmed = regexp.MustCompile(`^(?:[-*•–·>]+|\(?\d{1,2}[.)])\s+`)

// titleLine is the document's first line when it is written as a title:
// no colon (a "Label: value" line is no title), at most 12 words, and its
// first two words in capitals ("DOBUTAMINE STRESS ECHOCARDIOGRAPHY",
// "CARDIAC MRI - STRESS PERFUSION + VIABILITY    21-Jul-2026"). A letter's
// "Cardiology Outpatient Clinic" or a note starting "58M chest pain" is
// none. The title names what a report is a report of (see Pair.Title).
func titleLine(text string) string {
	line := text
	for {
		i := strings.IndexByte(line, '\n')
		first := line
		if i >= 0 {
			first = line[:i]
		}
		if strings.TrimSpace(first) != "" || i < 0 {
			line = strings.TrimSpace(first)
			break
		}
		line = line[i+1:]
	}
	ws := strings.Fields(line)
	if line == "" || strings.ContainsRune(line, ':') || len(ws) > 12 || len(ws) < 2 {
		return ""
	}
	for _, w := range ws[:2] {
		letters := 0
		for _, r := range w {
			if unicode.IsLower(r) {
				return ""
			}
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if letters < 2 {
			return ""
		}
	}
	return line
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// demographicWords are the words the pack's demographics name a concept by
// ("woman", "F"): the extractor splits them off after an age.
func demographicWords(r *rules.Reading) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, d := range r.Demographics {
		out = append(out, d.Words...)
	}
	return out
}

// sharedBareValues: (finding, key) of the measures that read a number
// written without a unit which another measure of the same finding reads
// too, where the finding states that other's name whole and not theirs
// ("LDL 1.3" is an LDL-C level, not a 1.3 % reduction of it from
// baseline). One number is one measure's value; where no measure is
// named whole, or several are, every reading is kept.
func sharedBareValues(items []evidence.Item, pairs []evidence.Pair) map[[2]string]bool {
	anchor := map[[2]string]evidence.Anchor{}
	for _, pr := range pairs {
		anchor[[2]string{pr.FindingID, pr.Anchor.ConceptKey}] = pr.Anchor
	}
	whole := func(it evidence.Item) bool {
		a, ok := anchor[[2]string{it.FindingID, it.ConceptKey}]
		if !ok {
			return false
		}
		if a.Covering != nil {
			ok, _ = a.Covering.CoversAll(it.Text)
			return ok
		}
		ok, _ = evidence.CoversAll(it.Text, a.Phrases)
		return ok
	}
	type reading struct {
		key   string
		whole bool
	}
	by := map[[2]string][]reading{} // (finding, value) → the measures reading it bare
	for _, it := range items {
		if it.Rejected != "" || it.Value == nil || !strings.HasPrefix(it.Note, "unit not written") {
			continue
		}
		k := [2]string{it.FindingID, strconv.FormatFloat(*it.Value, 'g', -1, 64)}
		by[k] = append(by[k], reading{it.ConceptKey, whole(it)})
	}
	out := map[[2]string]bool{}
	for k, rs := range by {
		n := 0
		for _, r := range rs {
			if r.whole {
				n++
			}
		}
		if len(rs) < 2 || n == 0 || n == len(rs) {
			continue
		}
		for _, r := range rs {
			if !r.whole {
				out[[2]string{k[0], r.key}] = true
			}
		}
	}
	return out
}
