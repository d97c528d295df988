package vignettes

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strings"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
)

// Inputs are everything the generator reads. The same inputs always give
// byte-identical output: no randomness beyond hashes of case ids.
type Inputs struct {
	Pack    *rules.Pack
	Clauses *ClauseTable
	// Lexicon supplies the synonyms of the synonym vignettes.
	Lexicon *lexicon.Lexicon
	// Paraphrases are the hand-written vignettes (data/paraphrases.json).
	Paraphrases *ParaphraseFile
}

// Set is the generated vignette set.
type Set struct {
	Vignettes []Vignette
	Excluded  []Exclusion
}

// hubRules: a concept tested by more rules than this (the CCS populations,
// PCI, OAC) says little about which other findings belong with it, so it
// does not pull fillers into a vignette.
const hubRules = 15

// hubBudget caps how many near vignettes may state one hub concept. A
// vignette stating a population such as chronic coronary syndrome puts
// every population-only row into its reference, so without a cap those
// rows would dominate the pairs; past the cap a rule needing the hub is
// stated without it (a near miss).
const hubBudget = 8

// Generate builds the 100 vignettes:
//
//   - near_001…near_070 state concepts in the clause table's wording. Each
//     starts from the first rule (pack order) that still tests an uncovered
//     concept and states everything that rule needs, so the rule holds,
//     when that fits in 4 findings (else only its uncovered concepts); the
//     remaining slots take uncovered concepts tested together with the ones
//     already chosen. Once every usable concept is covered, the rest start
//     from rules no vignette has started from yet, with the other member of
//     each OR group and values at the band's edge.
//   - syn_001…syn_020 copy near vignettes spread over the set and replace
//     one concept's term by a lexicon synonym.
//   - para_001…para_010 are the hand-written paraphrases.
//
// Values are chosen on the clause's grid inside the band of the conditions
// they address; about one in three values with an inclusive bound sits
// exactly on it.
func Generate(in Inputs) (*Set, error) {
	if in.Pack == nil || in.Clauses == nil {
		return nil, errors.New("generate: pack and clause table are required")
	}
	g := &gen{ix: buildIndex(in.Pack), cl: in.Clauses, covered: map[string]bool{}, seeded: map[int]bool{}, stated: map[string]int{}}
	if err := g.checkClauses(); err != nil {
		return nil, err
	}
	near, err := g.near()
	if err != nil {
		return nil, err
	}
	syn, err := synonyms(near, in.Clauses, in.Lexicon)
	if err != nil {
		return nil, err
	}
	if in.Paraphrases == nil {
		return nil, errors.New("generate: the paraphrase file is required (vignettes/data/paraphrases.json)")
	}
	para, err := in.Paraphrases.resolve(g.ix)
	if err != nil {
		return nil, err
	}
	set := &Set{Excluded: Exclusions(in.Pack)}
	set.Vignettes = append(append(append(set.Vignettes, near...), syn...), para...)
	return set, nil
}

type gen struct {
	ix      *index
	cl      *ClauseTable
	covered map[string]bool
	seeded  map[int]bool
	stated  map[string]int // near vignettes stating each concept
	numbers int            // numeric findings so far, for the edge rhythm
}

// checkClauses names every usable concept without wording at once, so one
// edit of clauses.json fixes them all.
func (g *gen) checkClauses() error {
	var missing []string
	for _, c := range g.ix.concepts {
		if c.Usable && g.cl.Lookup(c.Name) == nil {
			missing = append(missing, fmt.Sprintf("%q (rows %s)", c.Name, strings.Join(c.Rows, ", ")))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s has no wording for %d usable concept(s); add an entry for each:\n  %s",
			g.cl.name, len(missing), strings.Join(missing, "\n  "))
	}
	return nil
}

// finding is one concept a draft vignette will state.
type finding struct {
	c      *Concept
	absent bool
	// conds are the conditions on the concept a value must satisfy.
	conds []rules.Condition
}

func (f finding) numeric() bool {
	for _, c := range f.conds {
		if rules.IsNumeric(rules.NormalizeOperator(c.Entity.LogicStructured.Operator)) {
			return true
		}
	}
	return false
}

// findingIn builds the finding for concept c from rule ri's conditions on
// it; ok is false when they cannot be stated together (PRESENT and ABSENT).
func (g *gen) findingIn(c *Concept, ri int) (finding, bool) {
	f := finding{c: c}
	hasAbsent, hasOther := false, false
	for _, cd := range g.ix.conds[ri] {
		if cd.Entity.Workflow != "" || rules.ConceptKey(cd.Entity) != c.Key {
			continue
		}
		f.conds = append(f.conds, cd)
		// An exception (UNLESS) holds when the case states the absence
		// too; the vignette says so, as a clinician writing it would.
		if op := rules.NormalizeOperator(cd.Entity.LogicStructured.Operator); op == rules.OpAbsent || op == rules.OpUnless {
			hasAbsent = true
		} else {
			hasOther = true
		}
	}
	if len(f.conds) == 0 || (hasAbsent && hasOther) {
		return f, false
	}
	f.absent = hasAbsent
	return f, true
}

// need lists the findings that make rule ri hold: every AND member and
// one member per OR group (an uncovered one when prefer says so, the
// second usable one when alt). ok is false when a required member is a
// workflow node or the findings contradict each other.
func (g *gen) need(ri int, alt bool) ([]finding, bool) {
	r := g.ix.rules[ri]
	var picked []*Concept
	add := func(c *Concept) {
		for _, p := range picked {
			if p == c {
				return
			}
		}
		picked = append(picked, c)
	}
	for _, grp := range r.Rule.Groups() {
		var members []*Concept
		for _, idx := range grp.Members {
			e := r.Rule.Conditions[idx]
			if e.Workflow != "" {
				if grp.Type != rules.LogicOR {
					return nil, false
				}
				continue
			}
			members = append(members, g.ix.byKey[rules.ConceptKey(e)])
		}
		if len(members) == 0 {
			return nil, false
		}
		if grp.Type != rules.LogicOR {
			for _, m := range members {
				add(m)
			}
			continue
		}
		choice := members[0]
		switch {
		case alt && len(members) > 1:
			choice = members[1]
		default:
			for _, m := range members {
				if !g.covered[m.Key] {
					choice = m
					break
				}
			}
		}
		add(choice)
	}
	var out []finding
	for _, c := range picked {
		f, ok := g.findingIn(c, ri)
		if !ok {
			return nil, false
		}
		for _, o := range out {
			if g.cl.conflicts(o.c.Name, f.c.Name, o.absent, f.absent) != "" {
				return nil, false
			}
		}
		out = append(out, f)
	}
	return out, true
}

// draft is a vignette under construction.
type draft struct {
	caseID   string
	findings []finding
	nodes    []Node
	clauses  []string
}

// add renders f and appends it when it does not conflict with the draft
// and the sentence stays within MaxWords.
func (g *gen) add(d *draft, f finding, edge bool) (bool, error) {
	if len(d.findings) >= MaxFindings {
		return false, nil
	}
	for _, o := range d.findings {
		if g.cl.conflicts(o.c.Name, f.c.Name, o.absent, f.absent) != "" {
			return false, nil
		}
	}
	n, err := g.render(d.caseID, f, edge)
	if err != nil {
		return false, err
	}
	if Words(Sentence(append(append([]string{}, d.clauses...), n.Text))) > MaxWords {
		return false, nil
	}
	d.findings = append(d.findings, f)
	d.nodes = append(d.nodes, n)
	d.clauses = append(d.clauses, n.Text)
	return true, nil
}

// render turns a finding into its clause and intended node.
func (g *gen) render(caseID string, f finding, edge bool) (Node, error) {
	cl := g.cl.Lookup(f.c.Name)
	n := Node{ConceptKey: f.c.Key, Concept: f.c.Name}
	rowOf := func() string { return f.conds[0].RuleID }
	switch {
	case f.absent:
		if cl.Absent == "" {
			return n, fmt.Errorf("%s: %q has no absent wording, but %s tests it ABSENT; add \"absent\" to its entry", g.cl.name, f.c.Name, rowOf())
		}
		n.Operator, n.Present, n.Text = rules.OpAbsent, false, cl.Absent
	case f.numeric():
		if cl.Value == "" {
			return n, fmt.Errorf("%s: %q has no value wording, but %s tests a threshold; add \"value\", \"unit\", \"min\", \"max\", \"step\"", g.cl.name, f.c.Name, rowOf())
		}
		g.numbers++
		v, targets, err := chooseValue(cl, f, hash(caseID, f.c.Name), edge || g.numbers%3 == 0)
		if err != nil {
			return n, err
		}
		n.Operator, n.Present, n.Value, n.Unit, n.Targets = rules.OpEQ, true, &v, cl.Unit, targets
		n.Text = cl.Render(v)
	default:
		if cl.Present == "" {
			return n, fmt.Errorf("%s: %q has no present wording, but %s tests it PRESENT; add \"present\"", g.cl.name, f.c.Name, rowOf())
		}
		n.Operator, n.Present, n.Text = rules.OpPresent, true, cl.Present
		for _, c := range f.conds {
			if w := c.Entity.LogicStructured.Window; w != nil && w.Bounded() && rules.NormalizeOperator(c.Entity.LogicStructured.Operator) == rules.OpPresent {
				phrase, days := datedInside(*w)
				n.Text += " " + phrase
				n.DaysAgo = &days
				break
			}
		}
	}
	return n, nil
}

// datedInside says in words a date well inside a window ("today", "3
// weeks ago", "2 years ago") and how many days before the case date it is.
func datedInside(w rules.Window) (string, float64) {
	lo, hi := w.Days()
	var d float64
	switch {
	case lo != nil && hi != nil:
		d = (*lo + *hi) / 2
	case lo != nil:
		d = *lo * 2
	default:
		d = *hi / 2
	}
	inside := func(x float64) bool { return (lo == nil || x >= *lo) && (hi == nil || x <= *hi) }
	for _, u := range []struct {
		name string
		days float64
		from float64
	}{{"years", 365.25, 730}, {"months", 30.4375, 120}, {"weeks", 7, 28}, {"days", 1, 1}} {
		if d < u.from {
			continue
		}
		n := math.Round(d / u.days)
		if x := n * u.days; n >= 1 && inside(x) {
			return fmt.Sprintf("%g %s ago", n, u.name), x
		}
	}
	return "today", 0
}

// chooseValue picks a value on the clause grid that satisfies every
// numeric condition of f. With edge, an inclusive bound itself is taken
// when there is one; otherwise a grid point strictly inside the band,
// picked by h.
func chooseValue(cl *Clause, f finding, h uint64, edge bool) (float64, []string, error) {
	var conds []eval.Cond
	var targets []string
	var edges []float64
	for _, c := range f.conds {
		op := rules.NormalizeOperator(c.Entity.LogicStructured.Operator)
		if !rules.IsNumeric(op) {
			continue
		}
		ls := c.Entity.LogicStructured
		conds = append(conds, eval.Cond{ConceptKey: f.c.Key, Concept: f.c.Name, Operator: op, Threshold: string(ls.Threshold), Unit: ls.Unit})
		targets = append(targets, strings.TrimSpace(fmt.Sprintf("%s %s %s", op, ls.Threshold, unitLabel(ls.Unit))))
		if op == rules.OpLE || op == rules.OpGE || op == rules.OpEQ {
			if t, err := ls.Threshold.Float(); err == nil {
				if tv, err := units.Convert(t, ls.Unit, cl.Unit, f.c.Name); err == nil {
					edges = append(edges, tv)
				}
			}
		}
	}
	var inside, onEdge []float64
	dec := decimals(*cl.Step)
	for i := 0; ; i++ {
		v := roundTo(*cl.Min+float64(i)*(*cl.Step), dec)
		if v > *cl.Max+1e-9 {
			break
		}
		if !Satisfies(conds, v, cl.Unit) {
			continue
		}
		isEdge := false
		for _, e := range edges {
			if math.Abs(e-v) < 1e-9 {
				isEdge = true
			}
		}
		if isEdge {
			onEdge = append(onEdge, v)
		} else {
			inside = append(inside, v)
		}
	}
	switch {
	case edge && len(onEdge) > 0:
		return onEdge[0], targets, nil
	case len(inside) > 0:
		return inside[h%uint64(len(inside))], targets, nil
	case len(onEdge) > 0:
		return onEdge[0], targets, nil
	}
	return 0, nil, fmt.Errorf("clauses: no value of %q between %g and %g (step %g) satisfies %s; widen min/max",
		f.c.Name, *cl.Min, *cl.Max, *cl.Step, strings.Join(targets, " and "))
}

// Satisfies reports whether value (in unit) makes every condition true,
// using the pipeline's own evaluator so units convert the same way.
func Satisfies(conds []eval.Cond, value float64, unit string) bool {
	for _, c := range conds {
		v := value
		r := eval.EvaluateCond(c, []eval.Evidence{{ConceptKey: c.ConceptKey, Concept: c.Concept, Present: true, Value: &v, Unit: unit}}, eval.Options{})
		if r.Truth != eval.True {
			return false
		}
	}
	return true
}

func unitLabel(u string) string {
	if units.Canonical(u) == units.Unitless {
		return ""
	}
	return u
}

func decimals(step float64) int {
	for d := 0; d < 6; d++ {
		if math.Abs(roundTo(step, d)-step) < 1e-12 {
			return d
		}
	}
	return 6
}

func hash(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// ordered lists the clauses with stated absences last: in "no diabetes,
// obesity and hypertension" the negation may scope over the whole list (a
// reader of clinical text rightly takes it so), while "obesity,
// hypertension and no diabetes" says one thing only.
func (d *draft) ordered() []string {
	var present, absent []string
	for i, c := range d.clauses {
		if d.findings[i].absent {
			absent = append(absent, c)
		} else {
			present = append(present, c)
		}
	}
	return append(present, absent...)
}

// near builds the 70 near vignettes.
func (g *gen) near() ([]Vignette, error) {
	var out []Vignette
	seen := map[string]bool{}
	for i := 0; i < NearCount; i++ {
		d := &draft{caseID: fmt.Sprintf("near_%03d", i+1)}
		var err error
		if g.uncovered() > 0 {
			err = g.coverDraft(d, NearCount-i)
		} else {
			err = g.revisitDraft(d, seen)
		}
		if err != nil {
			return nil, err
		}
		if len(d.findings) < MinFindings {
			return nil, fmt.Errorf("%s: only %d finding(s) fit (%s); check clause lengths and conflicts", d.caseID, len(d.findings), strings.Join(d.clauses, "; "))
		}
		for _, f := range d.findings {
			g.covered[f.c.Key] = true
			g.stated[f.c.Key]++
		}
		v := Vignette{CaseID: d.caseID, Category: Near, Question: Sentence(d.ordered()), Intended: d.nodes}
		seen[v.Question] = true
		out = append(out, v)
	}
	if n := g.uncovered(); n > 0 {
		var names []string
		for _, c := range g.ix.concepts {
			if c.Usable && !g.covered[c.Key] {
				names = append(names, c.Name)
			}
		}
		return nil, fmt.Errorf("%d usable concept(s) left uncovered by %d near vignettes: %s; shorten clauses or resolve conflicts",
			n, NearCount, strings.Join(names, "; "))
	}
	return out, nil
}

func (g *gen) uncovered() int {
	n := 0
	for _, c := range g.ix.concepts {
		if c.Usable && !g.covered[c.Key] {
			n++
		}
	}
	return n
}

// coverDraft fills a draft while usable concepts remain uncovered. left is
// the number of near vignettes still to write, this one included.
func (g *gen) coverDraft(d *draft, left int) error {
	slack := MaxFindings*left - g.uncovered()
	seed := -1
	for ri := range g.ix.rules {
		if g.seeded[ri] || !g.hasUncovered(ri) {
			continue
		}
		seed = ri
		break
	}
	if seed < 0 {
		return fmt.Errorf("%s: no rule tests an uncovered concept, but %d remain uncovered", d.caseID, g.uncovered())
	}
	g.seeded[seed] = true
	taken := false
	if need, ok := g.need(seed, false); ok && len(need) <= MaxFindings && g.withinBudget(need) {
		repeats := 0
		for _, f := range need {
			if g.covered[f.c.Key] {
				repeats++
			}
		}
		if repeats <= slack {
			all := true
			for _, f := range need {
				ok, err := g.add(d, f, false)
				if err != nil {
					return err
				}
				all = all && ok
			}
			taken = all
			if !all { // start over with the uncovered part only
				*d = draft{caseID: d.caseID}
			}
		}
	}
	if !taken {
		for _, c := range g.conceptsOf(seed) {
			if g.covered[c.Key] {
				continue
			}
			f, ok := g.findingIn(c, seed)
			if !ok {
				continue
			}
			if _, err := g.add(d, f, false); err != nil {
				return err
			}
		}
	}
	return g.fill(d, seed, false)
}

// revisitDraft writes a vignette once everything is covered: the next
// rule no vignette started from whose needs fit, stated with the other OR
// member and edge values.
func (g *gen) revisitDraft(d *draft, seen map[string]bool) error {
	for ri := range g.ix.rules {
		if g.seeded[ri] {
			continue
		}
		g.seeded[ri] = true
		need, ok := g.need(ri, true)
		if !ok || len(need) > MaxFindings || !g.withinBudget(need) {
			continue
		}
		*d = draft{caseID: d.caseID}
		all := true
		for _, f := range need {
			ok, err := g.add(d, f, true)
			if err != nil {
				return err
			}
			all = all && ok
		}
		if !all {
			continue
		}
		if err := g.fill(d, ri, true); err != nil {
			return err
		}
		if len(d.findings) >= MinFindings && !seen[Sentence(d.clauses)] {
			return nil
		}
	}
	return fmt.Errorf("%s: every rule has been used as a seed; lower NearCount or add rules", d.caseID)
}

// fill adds findings up to MaxFindings (uncovered concepts first) while
// uncovered ones remain; when revisiting, or when the draft is still short
// of MinFindings, covered concepts tested together with the draft's may
// complete it.
func (g *gen) fill(d *draft, seed int, revisit bool) error {
	for pass := 0; pass < 2; pass++ {
		wantCovered := pass == 1
		if wantCovered && len(d.findings) >= MinFindings {
			return nil
		}
		if !wantCovered && revisit {
			continue
		}
		for _, cand := range g.candidates(d, seed) {
			if len(d.findings) >= MaxFindings || (wantCovered && len(d.findings) >= MinFindings) {
				break
			}
			if g.covered[cand.c.Key] != wantCovered || g.inDraft(d, cand.c) {
				continue
			}
			if _, err := g.add(d, cand, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// candidates orders the concepts a draft may add: first those tested in
// one rule with a non-hub finding of the draft (with that rule's
// conditions), then those of the seed's table, then the rest, each tier in
// pack order.
func (g *gen) candidates(d *draft, seed int) []finding {
	type cand struct {
		f    finding
		tier int
	}
	var out []cand
	seedTable := g.ix.rules[seed].Table
	for _, c := range g.ix.concepts {
		if !c.Usable || g.inDraft(d, c) {
			continue
		}
		tier, ri := 2, c.rules[0]
		for _, r := range c.rules {
			if g.sharesNonHub(d, r) {
				tier, ri = 0, r
				break
			}
		}
		if tier == 2 {
			for _, r := range c.rules {
				if g.ix.rules[r].Table == seedTable {
					tier, ri = 1, r
					break
				}
			}
		}
		f, ok := g.findingIn(c, ri)
		if !ok {
			continue
		}
		out = append(out, cand{f, tier})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].tier < out[j].tier })
	fs := make([]finding, len(out))
	for i, c := range out {
		fs[i] = c.f
	}
	return fs
}

// withinBudget reports whether stating the findings keeps every hub
// concept within hubBudget near vignettes.
func (g *gen) withinBudget(fs []finding) bool {
	for _, f := range fs {
		if len(f.c.rules) > hubRules && g.stated[f.c.Key] >= hubBudget {
			return false
		}
	}
	return true
}

func (g *gen) sharesNonHub(d *draft, ri int) bool {
	for _, f := range d.findings {
		if len(f.c.rules) > hubRules {
			continue
		}
		for _, r := range f.c.rules {
			if r == ri {
				return true
			}
		}
	}
	return false
}

func (g *gen) inDraft(d *draft, c *Concept) bool {
	for _, f := range d.findings {
		if f.c == c {
			return true
		}
	}
	return false
}

func (g *gen) hasUncovered(ri int) bool {
	for _, c := range g.conceptsOf(ri) {
		if !g.covered[c.Key] {
			return true
		}
	}
	return false
}

// conceptsOf lists the usable concepts of a rule's non-workflow
// conditions, in condition order.
func (g *gen) conceptsOf(ri int) []*Concept {
	var out []*Concept
	for _, cd := range g.ix.conds[ri] {
		if cd.Entity.Workflow != "" {
			continue
		}
		c := g.ix.byKey[rules.ConceptKey(cd.Entity)]
		if !contains2(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func contains2(list []*Concept, c *Concept) bool {
	for _, x := range list {
		if x == c {
			return true
		}
	}
	return false
}
