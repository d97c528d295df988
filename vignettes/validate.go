package vignettes

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/rules"
)

// Problem is one validation finding; Error says where and how to fix it.
type Problem struct {
	CaseID  string `json:"case_id,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

func (p Problem) Error() string {
	var at []string
	if p.CaseID != "" {
		at = append(at, p.CaseID)
	}
	if p.Field != "" {
		at = append(at, p.Field)
	}
	if len(at) == 0 {
		return p.Message
	}
	return strings.Join(at, ": ") + ": " + p.Message
}

// Report is the outcome of Validate.
type Report struct {
	Problems []Problem `json:"problems"`
	// Counts per category; Usable/Covered count the pack's usable concepts
	// and those stated by at least one near vignette.
	Counts  map[string]int `json:"counts"`
	Usable  int            `json:"usable_concepts"`
	Covered int            `json:"covered_concepts"`
	// ExcludedConcepts counts workflow-only concepts.
	ExcludedConcepts int `json:"excluded_concepts"`
	// Findings and Words summarise the style.
	MeanFindings float64 `json:"mean_findings"`
	MinWords     int     `json:"min_words"`
	MaxWords     int     `json:"max_words"`
}

// OK reports whether no problem was found.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

var idPattern = map[string]*regexp.Regexp{
	Near:       regexp.MustCompile(`^near_\d{3}$`),
	Synonym:    regexp.MustCompile(`^syn_\d{3}$`),
	Paraphrase: regexp.MustCompile(`^para_\d{3}$`),
}

var wantCount = map[string]int{Near: NearCount, Synonym: SynonymCount, Paraphrase: ParaphraseCount}

// Validate checks a vignette set against the pack: ids and category
// counts; style (opening, 3–4 findings, 9–39 words); every intended node
// names a concept the pack tests under its current concept key, is stated
// by a clause of the question, and its value satisfies the conditions it
// targets; no vignette states one concept twice; synonym vignettes differ
// from their base in the one substituted term; and the near vignettes
// cover every usable concept (excluded holds the workflow-only ones; pass
// nil to skip comparing it with the pack).
func Validate(p *rules.Pack, vs []Vignette, excluded []Exclusion) *Report {
	ix := buildIndex(p)
	rep := &Report{Counts: map[string]int{}, MinWords: -1}
	add := func(id, field, format string, a ...any) {
		rep.Problems = append(rep.Problems, Problem{CaseID: id, Field: field, Message: fmt.Sprintf(format, a...)})
	}
	const regen = "regenerate with `execkg vignettes generate`"
	byID := map[string]*Vignette{}
	covered := map[string]bool{}
	findings := 0
	for i := range vs {
		v := &vs[i]
		if _, dup := byID[v.CaseID]; dup {
			add(v.CaseID, "case_id", "listed twice")
		}
		byID[v.CaseID] = v
		re, ok := idPattern[v.Category]
		if !ok {
			add(v.CaseID, "category", "%q is not one of near, synonym, paraphrase", v.Category)
		} else if !re.MatchString(v.CaseID) {
			add(v.CaseID, "case_id", "does not match %s for category %s", re, v.Category)
		}
		rep.Counts[v.Category]++

		// Style.
		if !strings.HasPrefix(v.Question, Opening) {
			add(v.CaseID, "question", "must start with %q", Opening)
		}
		if !strings.HasSuffix(v.Question, ".") {
			add(v.CaseID, "question", "must end with a full stop")
		}
		w := Words(v.Question)
		if w < MinWords || w > MaxWords {
			add(v.CaseID, "question", "%d words, want %d–%d", w, MinWords, MaxWords)
		}
		if rep.MinWords < 0 || w < rep.MinWords {
			rep.MinWords = w
		}
		rep.MaxWords = max(rep.MaxWords, w)
		if n := len(v.Intended); n < MinFindings || n > MaxFindings {
			add(v.CaseID, "intended", "%d findings, want %d–%d", n, MinFindings, MaxFindings)
		}
		findings += len(v.Intended)

		// Nodes.
		seen := map[string]int{}
		for j, n := range v.Intended {
			field := fmt.Sprintf("intended[%d] (%s)", j, n.Concept)
			c := ix.byKey[n.ConceptKey]
			switch {
			case c == nil:
				hint := ""
				if byName := ix.byName[rules.NormalizeName(n.Concept)]; byName != nil {
					hint = fmt.Sprintf(" (the pack now keys %q as %s)", n.Concept, byName.Key)
				}
				add(v.CaseID, field, "concept key %s is not tested by any rule%s; %s", n.ConceptKey, hint, regen)
			case !c.Usable:
				add(v.CaseID, field, "concept is a workflow node only; vignettes must not state it")
			case v.Category == Near:
				covered[c.Key] = true
			}
			if k, dup := seen[n.ConceptKey]; dup {
				add(v.CaseID, field, "concept already stated by intended[%d]", k)
			}
			seen[n.ConceptKey] = j
			if n.Text == "" || !strings.Contains(v.Question, n.Text) {
				add(v.CaseID, field, "text %q does not occur in the question", n.Text)
			}
			checkNode(n, func(format string, a ...any) { add(v.CaseID, field, format, a...) })
		}
	}
	for cat, want := range wantCount {
		if rep.Counts[cat] != want {
			add("", "category", "%d %s vignettes, want %d", rep.Counts[cat], cat, want)
		}
	}
	if len(vs) > 0 {
		rep.MeanFindings = float64(findings) / float64(len(vs))
	}

	// Synonym vignettes rewrite exactly one term of their base.
	for _, v := range vs {
		if v.Category != Synonym {
			continue
		}
		checkSynonym(v, byID[v.Base], func(format string, a ...any) { add(v.CaseID, "substitution", format, a...) })
	}

	// Coverage.
	var missing []string
	for _, c := range ix.concepts {
		if !c.Usable {
			rep.ExcludedConcepts++
			continue
		}
		rep.Usable++
		if covered[c.Key] {
			rep.Covered++
		} else {
			missing = append(missing, c.Name)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		add("", "coverage", "%d usable concept(s) stated by no near vignette: %s; %s", len(missing), strings.Join(missing, "; "), regen)
	}
	if excluded != nil {
		want := Exclusions(p)
		if !sameExclusions(want, excluded) {
			add("", "excluded", "the exclusion list differs from the pack's workflow-only concepts (%d listed, %d now); %s", len(excluded), len(want), regen)
		}
	}
	return rep
}

// checkNode checks one node's internal consistency and, for a value, that
// it satisfies each condition it targets.
func checkNode(n Node, bad func(string, ...any)) {
	switch n.Operator {
	case rules.OpPresent:
		if !n.Present || n.Value != nil {
			bad("operator PRESENT needs present true and no value")
		}
	case rules.OpAbsent:
		if n.Present || n.Value != nil {
			bad("operator ABSENT needs present false and no value")
		}
	case rules.OpEQ, rules.OpLT, rules.OpLE, rules.OpGT, rules.OpGE:
		if n.Value == nil {
			bad("operator %s needs a value", n.Operator)
			return
		}
		if !n.Present {
			bad("a stated value is present: set present true")
		}
		for _, t := range n.Targets {
			c, err := parseTarget(n, t)
			if err != nil {
				bad("target %q: %v", t, err)
				continue
			}
			v := *n.Value
			r := eval.EvaluateCond(c, []eval.Evidence{{ConceptKey: n.ConceptKey, Present: true, Value: &v, Unit: n.Unit, Comparator: n.Operator}}, eval.Options{})
			if r.Truth != eval.True {
				bad("value %g %s does not satisfy %s (%s)", v, n.Unit, t, r.Reason)
			}
		}
	default:
		bad("operator %q: want PRESENT, ABSENT or a comparator (=, <, <=, >, >=)", n.Operator)
	}
}

// parseTarget reads "<= 35 %" / ">= 2" back into a condition.
func parseTarget(n Node, t string) (eval.Cond, error) {
	f := strings.Fields(t)
	if len(f) < 2 {
		return eval.Cond{}, fmt.Errorf("want \"<operator> <threshold> [unit]\"")
	}
	op := rules.NormalizeOperator(f[0])
	if !rules.IsNumeric(op) {
		return eval.Cond{}, fmt.Errorf("operator %q is not a comparison", f[0])
	}
	if _, err := rules.Threshold(f[1]).Float(); err != nil {
		return eval.Cond{}, fmt.Errorf("threshold %q is not a number", f[1])
	}
	return eval.Cond{ConceptKey: n.ConceptKey, Concept: n.Concept, Operator: op, Threshold: f[1], Unit: strings.Join(f[2:], " ")}, nil
}

func checkSynonym(v Vignette, base *Vignette, bad func(string, ...any)) {
	s := v.Substitution
	switch {
	case base == nil:
		bad("base %q is not in the set", v.Base)
		return
	case base.Category != Near:
		bad("base %s is a %s vignette, want near", base.CaseID, base.Category)
		return
	case s == nil || s.From == "" || s.To == "":
		bad("substitution (from, to) is missing")
		return
	}
	if len(v.Intended) != len(base.Intended) {
		bad("states %d nodes, base %s states %d", len(v.Intended), base.CaseID, len(base.Intended))
		return
	}
	changed := 0
	for i := range v.Intended {
		a, b := v.Intended[i], base.Intended[i]
		if a.ConceptKey != b.ConceptKey || a.Operator != b.Operator || a.Present != b.Present || !sameValue(a.Value, b.Value) {
			bad("intended[%d] differs from the base beyond its wording", i)
		}
		if a.Text != b.Text {
			changed++
			if !strings.Contains(b.Text, s.From) || !strings.Contains(a.Text, s.To) {
				bad("intended[%d]: %q → %q is not the substitution %q → %q", i, b.Text, a.Text, s.From, s.To)
			}
			if strings.Replace(v.Question, a.Text, b.Text, 1) != base.Question {
				bad("question differs from base %s beyond the substituted clause", base.CaseID)
			}
		}
	}
	if changed != 1 {
		bad("%d clauses differ from base %s, want exactly 1", changed, base.CaseID)
	}
}

func sameValue(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func sameExclusions(a, b []Exclusion) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ConceptKey != b[i].ConceptKey || a[i].Reason != b[i].Reason || strings.Join(a[i].Rows, ",") != strings.Join(b[i].Rows, ",") {
			return false
		}
	}
	return true
}
