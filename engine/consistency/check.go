package consistency

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/executablekg/execkg/internal/memo"
	"github.com/executablekg/execkg/rules"
)

// Check names.
const (
	CheckCertainty = "certainty"
	CheckNegation  = "negation"
	CheckQualifier = "qualifier"
	CheckAbsence   = "absence"
)

// EnvFilters is the environment variable selecting the checks, as in the
// reference system.
const EnvFilters = "KG_FILTERS"

// Checks selects which checks run.
type Checks struct {
	Certainty, Negation, Qualifier bool
	// Absence makes an ABSENT condition need a stated absence. Evaluate
	// such rules open-world (eval.Options{ClosedWorld: false}); otherwise
	// an unmentioned finding still counts as absent.
	Absence bool
}

// DefaultChecks are the checks of the paper run.
var DefaultChecks = Checks{Certainty: true, Negation: true, Qualifier: true}

// ParseChecks reads a comma (or space or plus) separated list:
// "certainty,negation,qualifier" (also "default" or ""), "none", and
// "absence" added to either list ("default,absence").
func ParseChecks(s string) (Checks, error) {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ',' || r == '+' || r == ' ' || r == ';' })
	if len(fields) == 0 {
		return DefaultChecks, nil
	}
	var c Checks
	none := false
	for _, f := range fields {
		switch f {
		case CheckCertainty:
			c.Certainty = true
		case CheckNegation:
			c.Negation = true
		case CheckQualifier:
			c.Qualifier = true
		case CheckAbsence:
			c.Absence = true
		case "default":
			c.Certainty, c.Negation, c.Qualifier = true, true, true
		case "all":
			c = Checks{true, true, true, true}
		case "none":
			none = true
		default:
			return Checks{}, fmt.Errorf("checks %q: unknown check %q; use a comma list of certainty, negation, qualifier, absence, or default, all, none", s, f)
		}
	}
	if none {
		if c != (Checks{}) {
			return Checks{}, fmt.Errorf("checks %q: none cannot be combined with other checks", s)
		}
		return Checks{}, nil
	}
	return c, nil
}

// ChecksFromEnv reads KG_FILTERS; unset or empty gives the default.
func ChecksFromEnv() (Checks, error) {
	c, err := ParseChecks(os.Getenv(EnvFilters))
	if err != nil {
		return Checks{}, fmt.Errorf("%s: %w", EnvFilters, err)
	}
	return c, nil
}

// String lists the selected checks ("none" when empty); ParseChecks reads
// it back. Every verdict's reason names them, so the 16 lists are spelled
// once.
func (c Checks) String() string { return checksNames[c.bits()] }

func (c Checks) bits() int {
	b := 0
	for i, on := range [...]bool{c.Certainty, c.Negation, c.Qualifier, c.Absence} {
		if on {
			b |= 1 << i
		}
	}
	return b
}

var checksNames = func() (out [16]string) {
	for b := range out {
		out[b] = Checks{Certainty: b&1 != 0, Negation: b&2 != 0, Qualifier: b&4 != 0, Absence: b&8 != 0}.spell()
	}
	return out
}()

func (c Checks) spell() string {
	var out []string
	if c.Certainty {
		out = append(out, CheckCertainty)
	}
	if c.Negation {
		out = append(out, CheckNegation)
	}
	if c.Qualifier {
		out = append(out, CheckQualifier)
	}
	if c.Absence {
		out = append(out, CheckAbsence)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ",")
}

// Set makes *Checks a flag.Value.
func (c *Checks) Set(s string) error {
	v, err := ParseChecks(s)
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Condition holds the fields of a rule condition the checks read.
type Condition struct {
	Concept  string `json:"concept"`
	Wording  string `json:"wording,omitempty"`
	Context  string `json:"context,omitempty"`
	Operator string `json:"operator"`
}

// Verdict says whether a mention may support a condition and, if not,
// which check blocked it and why.
type Verdict struct {
	Pass   bool   `json:"pass"`
	Check  string `json:"check,omitempty"`
	Reason string `json:"reason"`
	// Context is the mention's context in the case, judged at the words
	// it shares with the condition.
	Context Context `json:"context"`
}

// Check decides whether mention (a finding extracted from caseText) may be
// used as evidence for cond. Cues are judged at the words the mention
// shares with the condition (similar words or acronyms), negation at the
// first of them.
//
//   - negation: a mention a negation cue scopes over never supports a
//     PRESENT or numeric condition, even if the extractor dropped the cue,
//     unless the condition's own wording is negative in the same way
//     ("not amenable to PCI").
//   - absence (optional): an ABSENT condition is supported only by a
//     mention whose absence the case states; an affirmed mention is then
//     blocked too, so evaluate open-world and the condition stays unknown.
//   - certainty: an uncertainty cue scoping over the shared words must be
//     on both sides or on neither (condition side: wording, concept or
//     context); a "documented or suspected" phrase on either side accepts
//     both.
//   - qualifier: every qualifier of the condition's wording or concept
//     (chronic, acute, stable, severe, …) must occur in the mention's
//     clause, spelled out or described ("despite therapy" for refractory)
//     or abbreviated ("CCS" states "chronic"), so a more specific mention
//     satisfies a general condition but not the reverse. For a stated
//     absence against an ABSENT condition the direction flips: "no heart
//     failure" supports "chronic heart failure absent", "no chronic heart
//     failure" does not support "heart failure absent". Certainty words
//     (established, known) are left to the certainty check, and numeric
//     conditions are skipped: their threshold states the band that words
//     like "moderate" restate.
//
// A mention not found in the case text is judged on its own wording.
//
// To judge many mentions of one case, build a Text once and call its
// Check; Check itself reuses a recently read long text (see Analyze).
func Check(caseText, mention string, cond Condition, checks Checks) Verdict {
	return recentText(caseText).Check(mention, cond, checks)
}

// Check is the package-level Check on the case text t holds; the verdict
// is the same, without reading the case again.
func (t *Text) Check(mention string, cond Condition, checks Checks) Verdict {
	return t.checkCompiled(mention, Compile(cond), checks, false)
}

// Compiled is a condition read once: its wording, concept and context
// tokenised, scanned for cues and located in themselves, so that judging
// it against many mentions and cases does not read the condition again.
// A Compiled is never changed after Compile and is safe for concurrent
// use.
type Compiled struct {
	cond Condition
	op   string
	toks []token // wording ; concept
	// content: the positions of toks' content words (contentAt).
	content []int
	// wording and concept, each located in itself; context with the
	// wording (or, without one, the concept) located in it.
	wording, concept, context analysis
	// wordingQuals, conceptQuals: the qualifiers of wording and concept
	// as missingQualifier meets them, read once (qualifierRuns).
	wordingQuals, conceptQuals []qualifierRun
}

// qualifierRun is one qualifier of a phrase: its name, first token and
// number of tokens (qualifierAt).
type qualifierRun struct {
	q    string
	i, n int
}

// qualifierRuns lists the qualifiers of ts in the order a scan meets
// them: at each token the longest qualifier there (qualifierAt), the scan
// going on after it. The tokens are the condition's own, so the list is
// the same in every verdict.
func qualifierRuns(ts []token) []qualifierRun {
	var out []qualifierRun
	for i := 0; i < len(ts); i++ {
		q, n := qualifierAt(ts, i, false)
		if n == 0 {
			continue
		}
		out = append(out, qualifierRun{q: q, i: i, n: n})
		i += n - 1
	}
	return out
}

// Compile reads a condition for CheckCompiled.
func Compile(cond Condition) *Compiled {
	c := &Compiled{cond: cond, op: rules.NormalizeOperator(cond.Operator), toks: tokenize(cond.Wording + " ; " + cond.Concept)}
	c.content = contentAt(c.toks)
	c.wording = analyse(cond.Wording, cond.Wording)
	c.concept = analyse(cond.Concept, cond.Concept)
	c.wordingQuals, c.conceptQuals = qualifierRuns(c.wording.toks), qualifierRuns(c.concept.toks)
	target := cond.Wording
	if target == "" {
		target = cond.Concept
	}
	c.context = analyse(cond.Context, target)
	return c
}

// Condition returns the condition c was compiled from.
func (c *Compiled) Condition() Condition { return c.cond }

// CheckCompiled is Check with the condition compiled once (Compile).
func (t *Text) CheckCompiled(mention string, cc *Compiled, checks Checks) Verdict {
	return t.checkCompiled(mention, cc, checks, true)
}

// checkCompiled is CheckCompiled; shared says cc is compiled once and
// judged again (so its certainty readings are worth keeping), not compiled
// for this one verdict.
func (t *Text) checkCompiled(mention string, cc *Compiled, checks Checks, shared bool) Verdict {
	cond := cc.cond
	r := t.reading(mention)
	a, inCase := r.a, r.inCase
	note := ""
	if !inCase {
		note = " (mention not found in the case text; judged on the mention alone)"
		if !a.found {
			// No word in the mention (empty, punctuation, invalid bytes):
			// no cue can qualify it, so nothing blocks.
			return Verdict{Pass: true, Context: Context{Target: mention, Qualifiers: []string{}, Cues: []string{}}}
		}
	}
	op := cc.op
	focus := []int{a.head()}
	if a.found {
		if l := linkedAt(a.toks, a.from, a.to, cc.toks, cc.content); len(l) > 0 {
			focus = l
		}
	}
	ctx := a.context(mention, focus)
	ctx.Found = inCase
	v := Verdict{Pass: true, Context: ctx}
	block := func(check, reason string) Verdict {
		v.Pass, v.Check, v.Reason = false, check, check+": "+reason+note
		return v
	}
	if !a.found {
		// Cannot happen for a non-empty mention, but an empty one has no
		// words to judge; let it through unjudged rather than invent.
		v.Reason = "mention is empty; nothing to check"
		return v
	}
	clause := quote(ctx.Clause)

	mentionToks := r.toks
	if checks.Negation && ctx.Other {
		return block(CheckNegation, fmt.Sprintf("%s in %s: the finding is a relative's, not the patient's, so it cannot support %s %s",
			quote(strings.Join(ctx.Cues, ", ")), clause, name(cond), op))
	}
	// A negated mention supports a stated absence, which both ABSENT and
	// the exception operator UNLESS accept.
	if checks.Negation && op != rules.OpAbsent && op != rules.OpUnless && ctx.Negated && !conditionNegated(cc, mentionToks, a.toks[focus[0]]) {
		return block(CheckNegation, fmt.Sprintf("%s negates the mention in %s, so it cannot support %s %s",
			quote(strings.Join(ctx.Cues, ", ")), clause, name(cond), op))
	}
	if checks.Absence && op == rules.OpAbsent && !ctx.Negated {
		return block(CheckAbsence, fmt.Sprintf("the case does not state that %s is absent (%s); an ABSENT condition needs a stated absence",
			name(cond), clause))
	}
	if checks.Certainty && ctx.Unlikely && !ctx.Negated {
		// A probable negation reaching the condition's words from outside
		// the mention ("ACS (type 1 MI) felt unlikely"): as where the cue
		// is the mention's own, neither present nor stated absent.
		return block(CheckCertainty, fmt.Sprintf("%s in %s speaks of it as probably absent, which is neither present nor stated absent, so it cannot support %s %s",
			quote(strings.Join(ctx.Cues, ", ")), clause, name(cond), op))
	}
	if checks.Certainty {
		cu, ce, where := certaintyOf(cc, r, shared)
		if !ctx.Either && !ce && ctx.Uncertain != cu {
			if ctx.Uncertain {
				return block(CheckCertainty, fmt.Sprintf("the case is uncertain (%s in %s) but the condition %s is not",
					quote(strings.Join(ctx.Cues, ", ")), clause, quote(name(cond))))
			}
			return block(CheckCertainty, fmt.Sprintf("the condition is uncertain (%s) but the case states %s without doubt",
				where, clause))
		}
	}
	// Numeric conditions are checked too: "resting ST-segment depression
	// >= 0.1 mV" is not met by ST depression during exercise.
	if checks.Qualifier {
		if op == rules.OpAbsent && ctx.Negated {
			// A stated absence reads the other way round: "no heart
			// failure" shows chronic heart failure is absent, but "no
			// chronic heart failure" does not show heart failure is.
			if q := extraQualifier(cc, a); q != "" {
				return block(CheckQualifier, fmt.Sprintf("the case negates only the %s form (%s), which does not show that %s is absent",
					quote(q), clause, name(cond)))
			}
		} else if q, phrase := missingQualifier(cc, a, ctx.Qualifiers, rules.IsNumeric(op)); q != "" {
			return block(CheckQualifier, fmt.Sprintf("the condition says %s (%s) but the case clause %s does not",
				quote(q), quote(phrase), clause))
		}
	}
	if checks == (Checks{}) {
		v.Reason = "no checks selected"
	} else {
		v.Reason = "passed " + checks.String() + note
	}
	return v
}

// certainties memoises conditionCertainty across cases: a condition is
// judged against the same mention words in case after case (bounded; the
// mention's words are its key, as nothing else of them is read).
var certainties = memo.New[certaintyKey, certainty](16384)

type certaintyKey struct {
	cc  *Compiled
	sig uint64 // sigID of the mention's tokenSig
}

// sigs numbers the token signatures the certainty memo is keyed by. A
// number is never given to two signatures (the counter only rises), so a
// signature dropped from this bounded memo and numbered again only misses
// the certainties kept under its old number.
var (
	sigs    = memo.New[string, uint64](16384)
	lastSig atomic.Uint64
)

// sigID is the number of token signature sig.
func sigID(sig string) uint64 {
	if id, ok := sigs.Get(sig); ok {
		return id
	}
	id := lastSig.Add(1)
	sigs.Put(sig, id)
	return id
}

type certainty struct {
	uncertain, either bool
	where             string
}

func certaintyOf(cc *Compiled, r *mentionReading, shared bool) (uncertain, either bool, where string) {
	if !shared {
		return conditionCertainty(cc, r.toks)
	}
	k := certaintyKey{cc, r.sigID}
	if c, ok := certainties.Get(k); ok {
		return c.uncertain, c.either, c.where
	}
	u, e, w := conditionCertainty(cc, r.toks)
	certainties.Put(k, certainty{u, e, w})
	return u, e, w
}

// tokenSig spells tokens by text and kind (word or not): everything a
// token's other fields (lower case, spelling, initials, number, content,
// acronym shape) are derived from.
func tokenSig(ts []token) string {
	n := 0
	for i := range ts {
		n += len(ts[i].raw) + 2
	}
	b := make([]byte, 0, n)
	for i := range ts {
		b = append(b, ts[i].raw...)
		if ts[i].word {
			b = append(b, 1)
		} else {
			b = append(b, 2)
		}
		b = append(b, 0)
	}
	return string(b)
}

// conditionCertainty reads the condition's wording, concept and context
// for uncertainty over the words it shares with the mention. where names
// the cue and phrase for the verdict.
func conditionCertainty(cc *Compiled, mention []token) (uncertain, either bool, where string) {
	cond := cc.cond
	judge := func(text, target string, a analysis) {
		if text == "" || target == "" || uncertain && either {
			return
		}
		var focus []int
		if a.found {
			focus = linked(a.toks, a.from, a.to, mention)
			if len(focus) == 0 {
				focus = []int{a.head()}
			}
		} else if len(a.toks) > 0 {
			// Wording not in its context: look at context words the
			// mention shares, and at nothing if there are none.
			focus = linked(a.toks, 0, len(a.toks)-1, mention)
		}
		if e, _ := a.under(kindEither, focus); e {
			either = true
		}
		if u, cs := a.under(kindUncertainty, focus); u && !uncertain {
			uncertain = true
			where = quote(strings.Join(cs, ", ")) + " in " + quote(text)
		}
	}
	judge(cond.Wording, cond.Wording, cc.wording)
	judge(cond.Concept, cond.Concept, cc.concept)
	target := cond.Wording
	if target == "" {
		target = cond.Concept
	}
	judge(cond.Context, target, cc.context)
	return uncertain, either, where
}

// conditionNegated reports whether the condition's own wording or concept
// is negative over the words it shares with the mention ("no imaging test
// is available", "not amenable to PCI"): then a negated mention matches
// it rather than contradicting it. The mention is judged negated at its
// first focus word (at), so the condition is judged at the same word too
// where it has it: in "non-obstructive coronary arteries (suspected
// ANOCA)" for "suspected angina ... with non-obstructive coronary
// arteries" the mention's first shared word is "obstructive", under the
// condition's own "non-", though the condition's first shared word is
// "suspected".
func conditionNegated(cc *Compiled, mention []token, at token) bool {
	for _, a := range []analysis{cc.wording, cc.concept} {
		if strings.TrimSpace(a.text) == "" {
			continue
		}
		if !a.found {
			continue
		}
		if same := linked(a.toks, a.from, a.to, []token{at}); len(same) > 0 {
			if neg, _ := a.under(kindNegation, same); neg {
				return true
			}
		}
		focus := linked(a.toks, a.from, a.to, mention)
		if len(focus) == 0 {
			focus = []int{a.head()}
		}
		if neg, _ := a.under(kindNegation, focus[:1]); neg {
			return true
		}
	}
	return false
}

// extraQualifier returns a course or severity qualifier that the negated
// mention carries (in its clause up to the mention's end) and the
// condition does not.
func extraQualifier(cc *Compiled, a analysis) string {
	want := map[string]bool{}
	for _, ts := range [][]token{cc.wording.toks, cc.concept.toks} {
		for i := 0; i < len(ts); i++ {
			if q, n := qualifierAt(ts, i, false); n > 0 {
				want[q] = true
				i += n - 1
			}
		}
	}
	for _, q := range a.qualifiersIn(a.cFrom, a.to) {
		if qualifiers[q] != qualCertainty && !want[q] {
			return q
		}
	}
	return ""
}

// missingQualifier returns the first qualifier of the condition's wording
// or concept that the mention's clause lacks, with the phrase it came from.
//
// For a numeric condition only the concept name counts and severity words
// are skipped: "moderate pre-test likelihood > 15 %" names a band the
// value states, while "resting ST-segment depression" names a kind of
// finding the value does not.
func missingQualifier(cc *Compiled, a analysis, have []string, numeric bool) (string, string) {
	type phrase struct {
		pa    *analysis
		quals []qualifierRun
	}
	phrases := []phrase{{&cc.wording, cc.wordingQuals}, {&cc.concept, cc.conceptQuals}}
	if numeric {
		phrases = phrases[1:]
	}
	for _, p := range phrases {
		for _, r := range p.quals {
			q := r.q
			if numeric && qualifiers[q] == qualSeverity {
				continue
			}
			if qualifiers[q] == qualCertainty || slices.Contains(have, q) || acronymInClause(p.pa.toks[r.i:], a) {
				continue
			}
			return q, p.pa.text
		}
	}
	return "", ""
}

// acronymInClause: the clause abbreviates a phrase starting with the
// qualifier ("CCS" for "chronic coronary syndrome"), which states it.
func acronymInClause(phrase []token, a analysis) bool {
	for n := 2; n <= len(phrase) && n <= 8; n++ {
		ini := initials(phrase[:n])
		if len(ini) < 2 {
			continue
		}
		for i := a.cFrom; i <= a.cTo; i++ {
			if acronymCandidate(&a.toks[i]) && a.toks[i].low == ini {
				return true
			}
		}
	}
	return false
}

func name(c Condition) string {
	if c.Concept != "" {
		return c.Concept
	}
	return c.Wording
}

func quote(s string) string { return "'" + s + "'" }
