package evidence

import (
	"context"
	"regexp"
	"strings"

	"github.com/executablekg/execkg/rules/units"
)

// Anchor is what the formatter needs to know about a concept anchor: its
// concept and the units its numeric conditions use.
type Anchor struct {
	ConceptKey string
	Concept    string
	// Units of the anchor's numeric conditions (canonical); empty when the
	// concept is only tested for presence.
	Units []string
	// Phrases name the concept (name, guideline wordings, lexicon
	// synonyms). When set, the deterministic formatter accepts the pair
	// only if the mention covers one of them (see Covers).
	Phrases []string
}

// Item is one piece of structured evidence (the reference system's
// {original_text, standardized_concept, present, value, unit, comparator}).
type Item struct {
	FindingID  string
	Text       string
	ConceptKey string
	Concept    string
	Present    bool
	Value      *float64
	Unit       string
	Comparator string
	// Note says how the item was read when it needed a decision, e.g.
	// "unit assumed from the guideline condition".
	Note string
	// Rejected, when set, says why the mention does not express the
	// anchor's concept; such an item is not evidence.
	Rejected string
}

// Format turns one finding–anchor pair into evidence. negated says whether
// the finding's clause in the case text is under a negation cue; a negated
// mention yields evidence of absence, never affirmative evidence.
//
// For a concept with numeric conditions the formatter picks the numbers of
// the mention whose unit is the anchor's unit (or converts to it); a bare
// number takes the anchor's unit when the anchor uses exactly one; a
// mention with no number is presence without a value, which the evaluator
// reads as unknown for thresholds.
func Format(findingID, text string, a Anchor, negated bool) []Item {
	base := Item{FindingID: findingID, Text: text, ConceptKey: a.ConceptKey, Concept: a.Concept, Present: !negated}
	if negated || len(a.Units) == 0 {
		return []Item{base}
	}
	ms := ParseMeasures(text)
	var picked []Item
	for _, m := range ms {
		if u, ok := compatible(m, a); ok {
			it := base
			v := m.Value
			it.Value, it.Unit, it.Comparator = &v, u, m.Comparator
			if m.Canon == "" {
				it.Note = "unit not written; assumed " + u + " from the guideline condition"
			}
			picked = append(picked, it)
		}
	}
	if len(picked) > 0 {
		return picked
	}
	// A number in a unit we cannot compare is kept as written: the
	// evaluator then reports the two units instead of a silent false.
	for _, m := range ms {
		if m.Canon != "" {
			it := base
			v := m.Value
			it.Value, it.Unit, it.Comparator = &v, m.Canon, m.Comparator
			return []Item{it}
		}
	}
	return []Item{base}
}

func compatible(m Measure, a Anchor) (string, bool) {
	if m.Canon == "" {
		if len(a.Units) == 1 {
			return a.Units[0], true
		}
		return "", false
	}
	for _, u := range a.Units {
		if units.Same(m.Canon, u) {
			return m.Canon, true
		}
		if _, err := units.Convert(m.Value, m.Canon, u, a.Concept); err == nil {
			return m.Canon, true
		}
	}
	return "", false
}

// Pair is one finding–anchor pair of a case.
type Pair struct {
	FindingID string
	Text      string // the finding as extracted
	Anchor    Anchor
	// Negated: the finding's clause in the case text is under a negation
	// cue (from the consistency check's analysis).
	Negated bool
	// Clause is the stretch of the case text around the finding up to the
	// nearest comma, semicolon or sentence end; the extractor splits finer
	// ("achievable with PCI"), so the concept's words are looked for here.
	Clause string
}

// Formatter is step (iv) for a whole case: one call serves every pair, so
// an LLM formatter makes one request per case, not one per pair.
type Formatter interface {
	FormatCase(ctx context.Context, caseText string, pairs []Pair) ([]Item, error)
	Name() string
}

// Deterministic is the default formatter: number, unit and comparator
// parsed from the mention, presence from the negation analysis.
type Deterministic struct{}

// Name identifies the formatter in caches and traces.
func (Deterministic) Name() string { return "deterministic-v1" }

// FormatCase formats every pair with Format.
func (Deterministic) FormatCase(_ context.Context, _ string, pairs []Pair) ([]Item, error) {
	var out []Item
	for _, p := range pairs {
		if len(p.Anchor.Phrases) > 0 {
			mention := p.Text
			if p.Clause != "" {
				mention = p.Clause
			}
			if ok, _ := Covers(mention, p.Anchor.Phrases); !ok {
				out = append(out, Item{FindingID: p.FindingID, Text: p.Text, ConceptKey: p.Anchor.ConceptKey, Concept: p.Anchor.Concept,
					Rejected: "the mention does not state every word of any name of '" + p.Anchor.Concept + "'"})
				continue
			}
			if recentConcept(p.Anchor.Concept) && datedLongAgo(mention) {
				out = append(out, Item{FindingID: p.FindingID, Text: p.Text, ConceptKey: p.Anchor.ConceptKey, Concept: p.Anchor.Concept,
					Rejected: "the mention dates the event years ago, so it cannot support '" + p.Anchor.Concept + "'"})
				continue
			}
		}
		out = append(out, Format(p.FindingID, p.Text, p.Anchor, p.Negated)...)
	}
	return out, nil
}

// recentConcept: the concept is an event in a recent window ("recent
// PCI", "MI within the previous 40 days").
func recentConcept(concept string) bool {
	c := strings.ToLower(concept)
	return strings.Contains(c, "recent") || strings.Contains(c, "within the previous")
}

// longAgo: a calendar year ("in 2019") or "N years ago" dates an event
// outside any recent window.
var longAgo = regexp.MustCompile(`(?i)\b(?:19|20)\d\d\b|\b(?:\d+|a|two|three|four|five|several|many)\s*(?:years?|yrs?)\s+ago\b|\bremote\b`)

func datedLongAgo(mention string) bool { return longAgo.MatchString(mention) }
