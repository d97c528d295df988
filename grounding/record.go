package grounding

import (
	"strings"

	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
)

// Sources of a grounding phrase: the three channels of the grounding text,
// plus the guideline context when asked for.
const (
	SourceWording = "wording" // entity_original
	SourceConcept = "concept" // standardized concept name
	SourceSynonym = "synonym" // lexicon synonym of the concept
	SourceContext = "context" // guideline phrase around the condition
)

// Record is the grounding text of one DecisionNode (one condition
// occurrence of one rule).
type Record struct {
	DecisionID string
	RuleID     string
	// ConceptKey is rules.ConceptKey: "sct:<id>" or "name:<normalised name>".
	ConceptKey string
	Concept    string // standardized concept name
	Wording    string // entity_original
	Role       string
	Context    string
	// Text is the grounding text: the phrases joined by "; ".
	Text string
	// Aliases are the lexicon synonyms of the concept in Text.
	Aliases []string
	// Phrases are the parts of Text with the channel each came from; the
	// indexes search phrase by phrase.
	Phrases []Phrase
	// WordingSynonym: the wording is also a lexicon synonym of the concept
	// (its phrase keeps SourceWording, the first to name it), so it names
	// the concept as a synonym does, whichever row words it so.
	WordingSynonym bool
}

// Phrase is one part of a grounding text.
type Phrase struct {
	Text   string
	Source string // SourceWording, SourceConcept, SourceSynonym, SourceContext
}

// Records builds one Record per condition of every rule of the pack. The
// grounding text holds the wording, the concept name (when it differs) and
// the lexicon synonyms of the concept (looked up by SNOMED CT id and by
// name; lex may be nil); the guideline context only with includeContext,
// because context phrases name other findings too ("patients with severe
// renal failure (eGFR <30)") and pull unrelated hits.
func Records(pack *rules.Pack, lex *lexicon.Lexicon, includeContext bool) []Record {
	var out []Record
	for _, r := range pack.Rules() {
		for _, c := range r.Conditions() {
			out = append(out, recordOf(c, lex, includeContext))
		}
	}
	return out
}

// ConceptRecords builds one record per concept name that no condition
// names (the members of a pack's composite definitions), so a finding can
// be grounded on it; the decision id "definition::<name>" belongs to no
// rule.
func ConceptRecords(names []string, lex *lexicon.Lexicon) []Record {
	out := make([]Record, 0, len(names))
	for _, n := range names {
		e := rules.Entity{EntityOriginal: n, EntityStandardizedList: []rules.Standardized{{Candidate: n}}, Role: rules.RoleClinicalCondition}
		r := recordOf(rules.Condition{DecisionID: "definition::" + rules.NormalizeName(n), Entity: e}, lex, false)
		r.ConceptKey = "name:" + rules.NormalizeName(n)
		out = append(out, r)
	}
	return out
}

// TextFunc returns the grounding text and aliases of a condition exactly as
// Records builds them, for graph builds that store the text on their
// DecisionNodes (engine/graph BuildOptions.Grounding).
func TextFunc(lex *lexicon.Lexicon, includeContext bool) func(rules.Condition) (text string, aliases []string) {
	return func(c rules.Condition) (string, []string) {
		r := recordOf(c, lex, includeContext)
		return r.Text, r.Aliases
	}
}

func recordOf(c rules.Condition, lex *lexicon.Lexicon, includeContext bool) Record {
	e := c.Entity
	rec := Record{
		DecisionID: c.DecisionID,
		RuleID:     c.RuleID,
		ConceptKey: rules.ConceptKey(e),
		Concept:    e.Concept(),
		Wording:    e.EntityOriginal,
		Role:       e.Role,
		Context:    e.Context,
	}
	seen := map[string]bool{}
	add := func(text, source string) bool {
		k := lexicon.Key(text)
		if k == "" || seen[k] {
			return false
		}
		seen[k] = true
		rec.Phrases = append(rec.Phrases, Phrase{Text: strings.TrimSpace(text), Source: source})
		return true
	}
	add(rec.Wording, SourceWording)
	add(rec.Concept, SourceConcept)
	for _, s := range lex.Synonyms(rec.Concept, e.SnomedID()) {
		if add(s, SourceSynonym) {
			rec.Aliases = append(rec.Aliases, s)
		} else if k := lexicon.Key(s); k != "" && k == lexicon.Key(rec.Wording) {
			rec.WordingSynonym = true
		}
	}
	if includeContext {
		add(rec.Context, SourceContext)
	}
	texts := make([]string, len(rec.Phrases))
	for i, p := range rec.Phrases {
		texts[i] = p.Text
	}
	rec.Text = strings.Join(texts, "; ")
	return rec
}

// phrases returns the record's phrases, or for a hand-built record without
// them its wording, concept and aliases.
func (r *Record) phrases() []Phrase {
	if len(r.Phrases) > 0 {
		return r.Phrases
	}
	var out []Phrase
	if r.Wording != "" {
		out = append(out, Phrase{r.Wording, SourceWording})
	}
	if r.Concept != "" {
		out = append(out, Phrase{r.Concept, SourceConcept})
	}
	for _, a := range r.Aliases {
		out = append(out, Phrase{a, SourceSynonym})
	}
	return out
}
