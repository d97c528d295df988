package engine

import (
	"regexp"
	"slices"
	"strings"

	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// sense is one compiled meta/reading.json senses entry: where the
// abbreviation stands graded (re's group 1), it names none of not.
type sense struct {
	re  []*regexp.Regexp
	not map[string]bool // normalised concept names
	// words: the abbreviations as mayHold reads them; every match of re
	// holds one (nil: always run).
	words []string
}

// compileSenses: the abbreviation, then the grade past any between words
// ("CCS angina class III"), a between word and the grade before it
// ("class II (CCS)"), or a before word right before it ("left ICA").
func compileSenses(ss []rules.Sense) []sense {
	var out []sense
	for _, s := range ss {
		abbr, grade := rules.WordsPattern(s.Abbreviation), rules.WordsPattern(s.Grades)
		if s.Exact {
			// Only the abbreviation as written; every other word in any case.
			abbr = `(?-i:` + abbr + `)`
		}
		gap := `[\s:,(/-]+`
		between := ""
		if len(s.Between) > 0 {
			between = `(?:` + gap + `(?:` + rules.WordsPattern(s.Between) + `)\b)*`
		}
		// literal words only: always compiles
		var res []*regexp.Regexp
		if len(s.Grades) > 0 {
			res = append(res, regexp.MustCompile(`(?i)\b(`+abbr+`)\b`+between+gap+`(?:`+grade+`)\b`))
		}
		if len(s.Between) > 0 && len(s.Grades) > 0 {
			res = append(res, regexp.MustCompile(`(?i)\b(?:`+rules.WordsPattern(s.Between)+`)\s+(?:`+grade+`)\s*[(,]?\s*(`+abbr+`)\b`))
		}
		if len(s.Before) > 0 {
			res = append(res, regexp.MustCompile(`(?i)\b(?:`+rules.WordsPattern(s.Before)+`)[\s-]+(`+abbr+`)\b`))
		}
		not := map[string]bool{}
		for _, c := range s.Not {
			not[rules.NormalizeName(c)] = true
		}
		out = append(out, sense{re: res, not: not, words: literalWords(s.Abbreviation)})
	}
	return out
}

// withoutGradedSense drops the anchors of a concept that the finding names
// only through an abbreviation a grade gives another sense: "CCS angina
// class III" is the angina grade, not chronic coronary syndrome, while
// "known CCS, CCS class II" still names the syndrome.
func (p *Program) withoutGradedSense(text string, anchors []grounding.Anchor) []grounding.Anchor {
	for _, s := range p.reading.senses {
		// Only an anchor of a concept in s.not is ever dropped, and only
		// where the text holds the abbreviation: the patterns run for those.
		if !mayMatch(text, s.words) || !slices.ContainsFunc(anchors, func(a grounding.Anchor) bool { return s.not[rules.NormalizeName(a.Concept)] }) {
			continue
		}
		masked, hit := text, false
		for _, re := range s.re {
			for _, m := range re.FindAllStringSubmatchIndex(masked, -1) {
				masked = masked[:m[2]] + strings.Repeat(" ", m[3]-m[2]) + masked[m[3]:]
				hit = true
			}
		}
		if !hit {
			continue
		}
		kept := anchors[:0:0]
		for _, a := range anchors {
			if s.not[rules.NormalizeName(a.Concept)] && !p.statesWhole(masked, a) {
				continue
			}
			kept = append(kept, a)
		}
		anchors = kept
	}
	return anchors
}

// statesWhole: the text states one of the anchor's names whole.
func (p *Program) statesWhole(text string, a grounding.Anchor) bool {
	if c := p.coveringFor(a); c != nil {
		ok, _ := c.CoversAll(text)
		return ok
	}
	ok, _ := evidence.CoversAll(text, phrasesFor(a, p.phrases))
	return ok
}
