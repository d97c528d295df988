package engine

import (
	"sort"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/rules"
)

// ViaAntonym starts the Via (trace text) of an evidence item read from an
// antonym phrase of the lexicon ("surgical candidate" states that
// ineligibility for cardiac surgery is absent).
const ViaAntonym = "antonym: "

// antonymStage reads, in one finding, an antonym phrase of a concept (the
// lexicon's "antonyms"): the concept stated absent, or present when the
// finding is negated.
type antonymStage struct{}

func (antonymStage) Name() string          { return "antonym" }
func (antonymStage) Reads() read.Input     { return read.Finding }
func (antonymStage) Emits() []patient.Kind { return []patient.Kind{patient.KindOther} }

// Satisfies: an antonym phrase carries its own polarity ("not a surgical
// candidate") and names the concept in other words, so the negation,
// qualifier and absence checks have nothing to find in the condition's
// wording.
func (antonymStage) Satisfies(eval.Cond) consistency.Checks {
	return consistency.Checks{Negation: true, Qualifier: true, Absence: true}
}

type antonym struct {
	key, phrase, norm string
	// selfNegated: the phrase carries its own negation cue ("non-…",
	// "not on …"), so a finding read as negated because of it is the
	// antonym itself, not its denial.
	selfNegated bool
}

// antonymsOf indexes the lexicon's antonym phrases by the pack's concept
// keys; concepts the pack does not test are left out. Longer phrases come
// first so that the reported phrase is the most specific one.
func antonymsOf(lex *lexicon.Lexicon, keys map[string]string) []antonym {
	if lex == nil {
		return nil
	}
	var out []antonym
	for _, c := range lex.Concepts {
		k, ok := keys[rules.NormalizeName(c.Concept)]
		if !ok {
			continue
		}
		for _, a := range c.Antonyms {
			if n := textnorm.Normalize(a); n != "" {
				out = append(out, antonym{k, a, n, consistency.Analyze(a, a).Negated})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].norm) > len(out[j].norm) })
	return out
}

// antonymEvidence returns, for each concept one of whose antonym phrases
// the finding states word for word, an evidence item: absent, or present
// when the finding is negated ("not a surgical candidate").
func (p *Program) antonymEvidence(id, finding string, negated bool) []eval.Evidence {
	if len(p.antonyms) == 0 {
		return nil
	}
	hay := " " + textnorm.Normalize(finding) + " "
	var out []eval.Evidence
	seen := map[string]bool{}
	for _, a := range p.antonyms {
		if seen[a.key] || !containsWords(hay, a.norm) || p.antonymInWording(hay, a) {
			continue
		}
		seen[a.key] = true
		out = append(out, eval.Evidence{ID: id, ConceptKey: a.key, Concept: p.names[a.key], Text: finding, Present: negated && !a.selfNegated,
			Via: ViaAntonym + "'" + a.phrase + "'", DerivedBy: antonymStage{}.Name()})
	}
	return out
}

// antonymInWording reports whether every occurrence of an antonym phrase
// in hay (a normalised finding) lies inside a phrase naming the same
// concept that hay states: in "angina poorly controlled on bisoprolol"
// the antonym "controlled on" is a word of the concept's own wording
// "poorly controlled on", which states the concept, not its absence.
func (p *Program) antonymInWording(hay string, a antonym) bool {
	var spans [][2]int
	for _, n := range append(p.refractoryLinks(a.key), p.phrases[a.key]...) {
		w := textnorm.Normalize(n)
		if len(w) <= len(a.norm) || !strings.Contains(w, a.norm) {
			continue
		}
		for from := 0; ; {
			i := strings.Index(hay[from:], w)
			if i < 0 {
				break
			}
			i += from
			j := i + len(w)
			if (i == 0 || !isWordByte(hay[i-1])) && (j == len(hay) || !isWordByte(hay[j])) {
				spans = append(spans, [2]int{i, j})
			}
			from = i + 1
		}
	}
	if len(spans) == 0 {
		return false
	}
	for from := 0; ; {
		i := strings.Index(hay[from:], a.norm)
		if i < 0 {
			return true
		}
		i += from
		j := i + len(a.norm)
		if (i == 0 || !isWordByte(hay[i-1])) && (j == len(hay) || !isWordByte(hay[j])) {
			inside := false
			for _, sp := range spans {
				if sp[0] <= i && j <= sp[1] {
					inside = true
					break
				}
			}
			if !inside {
				return false
			}
		}
		from = i + 1
	}
}

// refractoryLinks are the pack's refractory links (meta/reading.json
// refractory.links: "poorly controlled on", "not controlled on") when the
// refractory reader gives the concept: they word its presence.
func (p *Program) refractoryLinks(key string) []string {
	r := p.pack.Reading
	if r == nil || r.Refractory == nil {
		return nil
	}
	for _, g := range r.Refractory.Symptoms {
		for _, c := range g.Concepts {
			if k, ok := p.keys[rules.NormalizeName(c)]; ok && k == key {
				return r.Refractory.Links
			}
		}
	}
	return nil
}

// containsWords reports whether needle occurs in hay at word boundaries.
func containsWords(hay, needle string) bool {
	for from := 0; ; {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(needle)
		if (i == 0 || !isWordByte(hay[i-1])) && (j == len(hay) || !isWordByte(hay[j])) {
			return true
		}
		from = i + 1
	}
}
