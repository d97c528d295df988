package vignettes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/executablekg/execkg/rules"
)

// ClauseTable is the curated wording of every input concept
// (data/clauses.json): how a clinician would state it, negate it or give
// its value inside "Patient with …".
type ClauseTable struct {
	Version   int         `json:"version"`
	Note      string      `json:"note,omitempty"`
	Clauses   []Clause    `json:"clauses"`
	Exclusive []Exclusive `json:"exclusive,omitempty"`

	name   string
	byName map[string]int
}

// Clause is the wording of one concept.
type Clause struct {
	Concept string `json:"concept"`
	// Present and Absent are the clauses for a stated and a negated finding.
	Present string `json:"present,omitempty"`
	Absent  string `json:"absent,omitempty"`
	// Value is a clause template for a measurement; {v} is replaced by the
	// value. Unit is the unit as printed ("" for unitless); Min, Max and
	// Step bound the values the generator may choose.
	Value  string   `json:"value,omitempty"`
	Unit   string   `json:"unit,omitempty"`
	Min    *float64 `json:"min,omitempty"`
	Max    *float64 `json:"max,omitempty"`
	Step   *float64 `json:"step,omitempty"`
	Format string   `json:"format,omitempty"` // "roman" prints 2 as II
	// Term names the concept inside the clause; synonym vignettes replace
	// it. Default: Present without a leading article.
	Term string `json:"term,omitempty"`
	// Conflicts are concepts a vignette must not state together with this.
	Conflicts []string `json:"conflicts,omitempty"`
	// KeepTerm, when set, says why synonym vignettes must not replace this
	// clause's term.
	KeepTerm string `json:"keep_term,omitempty"`
}

// Exclusive is a set of concepts of which a vignette states at most one.
type Exclusive struct {
	Concepts []string `json:"concepts"`
	Reason   string   `json:"reason"`
}

const valueSlot = "{v}"

// ParseClauses decodes and checks a clause table; name is used in errors.
func ParseClauses(name string, data []byte) (*ClauseTable, error) {
	var t ClauseTable
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	t.name = name
	if t.Version != 1 {
		return nil, fmt.Errorf("%s: version %d, want 1", name, t.Version)
	}
	var errs []string
	t.byName = map[string]int{}
	for i, c := range t.Clauses {
		at := fmt.Sprintf("%s: clauses[%d] (%q)", name, i, c.Concept)
		k := rules.NormalizeName(c.Concept)
		if k == "" {
			errs = append(errs, at+": concept is empty")
			continue
		}
		if j, dup := t.byName[k]; dup {
			errs = append(errs, fmt.Sprintf("%s: listed again (first at clauses[%d]); keep one entry", at, j))
			continue
		}
		t.byName[k] = i
		errs = append(errs, c.check(at)...)
	}
	for i, e := range t.Exclusive {
		if len(e.Concepts) < 2 {
			errs = append(errs, fmt.Sprintf("%s: exclusive[%d]: list at least two concepts", name, i))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return &t, nil
}

func (c Clause) check(at string) []string {
	var errs []string
	if c.Present == "" && c.Absent == "" && c.Value == "" {
		errs = append(errs, at+": give present, absent or value wording")
	}
	if c.Value != "" {
		if strings.Count(c.Value, valueSlot) != 1 {
			errs = append(errs, at+": value must hold {v} exactly once")
		}
		if c.Min == nil || c.Max == nil || c.Step == nil {
			errs = append(errs, at+": value needs min, max and step")
		} else if !(*c.Min < *c.Max) || *c.Step <= 0 {
			errs = append(errs, fmt.Sprintf("%s: want min < max and step > 0 (got %g, %g, %g)", at, *c.Min, *c.Max, *c.Step))
		}
		if c.Format != "" && c.Format != "roman" {
			errs = append(errs, at+": format must be \"roman\" or empty")
		}
	}
	term := c.TermText()
	if term == "" {
		errs = append(errs, at+": set term (the words naming the concept)")
	} else if !c.hasTerm(c.Present) && !c.hasTerm(c.Absent) && !c.hasTerm(c.Value) {
		errs = append(errs, fmt.Sprintf("%s: term %q occurs in none of the clauses; set term to words the clause contains", at, term))
	}
	return errs
}

// TermText is the words naming the concept.
func (c Clause) TermText() string {
	if c.Term != "" {
		return c.Term
	}
	return stripArticle(c.Present)
}

func (c Clause) hasTerm(s string) bool { return s != "" && strings.Contains(s, c.TermText()) }

func stripArticle(s string) string {
	for _, a := range []string{"a ", "an ", "the "} {
		if strings.HasPrefix(s, a) {
			return s[len(a):]
		}
	}
	return s
}

// Lookup returns the clause of a concept name, or nil.
func (t *ClauseTable) Lookup(concept string) *Clause {
	if i, ok := t.byName[rules.NormalizeName(concept)]; ok {
		return &t.Clauses[i]
	}
	return nil
}

// FormatValue prints a value on the clause's grid: as many decimals as
// the step has, or as a Roman numeral.
func (c Clause) FormatValue(v float64) string {
	if c.Format == "roman" {
		if r := roman(int(math.Round(v))); r != "" {
			return r
		}
	}
	dec := 0
	if c.Step != nil {
		s := strconv.FormatFloat(*c.Step, 'f', -1, 64)
		if i := strings.IndexByte(s, '.'); i >= 0 {
			dec = len(s) - i - 1
		}
	}
	return strconv.FormatFloat(roundTo(v, dec), 'f', -1, 64)
}

// Render fills the value template.
func (c Clause) Render(v float64) string {
	return strings.Replace(c.Value, valueSlot, c.FormatValue(v), 1)
}

func roundTo(v float64, dec int) float64 {
	p := math.Pow(10, float64(dec))
	return math.Round(v*p) / p
}

func roman(n int) string {
	names := map[int]string{1: "I", 2: "II", 3: "III", 4: "IV", 5: "V"}
	return names[n]
}

// conflicts reports whether two concepts must not share a vignette, and
// why: listed conflicts, exclusive sets, a suspected form beside the
// established one, and a negated finding beside a present one that names
// it ("no diabetes" beside "type 2 diabetes").
func (t *ClauseTable) conflicts(a, b string, aAbsent, bAbsent bool) string {
	na, nb := rules.NormalizeName(a), rules.NormalizeName(b)
	if na == nb {
		return "same concept twice"
	}
	for _, p := range [][2]string{{a, b}, {b, a}} {
		if c := t.Lookup(p[0]); c != nil {
			for _, x := range c.Conflicts {
				if rules.NormalizeName(x) == rules.NormalizeName(p[1]) {
					return fmt.Sprintf("%q lists %q as a conflict", p[0], p[1])
				}
			}
		}
	}
	for _, e := range t.Exclusive {
		ia, ib := false, false
		for _, x := range e.Concepts {
			n := rules.NormalizeName(x)
			ia = ia || n == na
			ib = ib || n == nb
		}
		if ia && ib {
			return e.Reason
		}
	}
	if na == "suspected "+nb || nb == "suspected "+na {
		return "suspected and established forms exclude each other"
	}
	if aAbsent && !bAbsent && strings.Contains(nb, na) {
		return fmt.Sprintf("%q is negated but %q is stated", a, b)
	}
	if bAbsent && !aAbsent && strings.Contains(na, nb) {
		return fmt.Sprintf("%q is negated but %q is stated", b, a)
	}
	return ""
}
