package engine

import (
	"github.com/executablekg/execkg/engine/extract"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// site is one compiled meta/reading.json sites entry.
type site struct {
	words, others *regexp.Regexp
	// otherLower: the others' words lower-cased ("*" dropped), for a
	// cheap test that others cannot match an ASCII mention (none is a
	// substring of it lowered); nil where a word is not ASCII.
	otherLower []string
}

func compileSites(ss []rules.Site) []site {
	var out []site
	for _, s := range ss {
		// literal words only: always compiles
		out = append(out, site{
			words:      regexp.MustCompile(`(?i)\b(?:` + rules.WordsPattern(s.Words) + `)\b`),
			others:     regexp.MustCompile(`(?i)\b(?:` + rules.WordsPattern(s.Others) + `)\b`),
			otherLower: asciiLower(s.Others),
		})
	}
	return out
}

// asciiLower lowers ws with "*" dropped, or is nil when one is not ASCII.
func asciiLower(ws []string) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		if !isASCII(w) {
			return nil
		}
		out = append(out, strings.ToLower(strings.TrimSuffix(w, "*")))
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// mayMatchOthers: s.others may match mention. For an ASCII mention and
// ASCII words (?i) is ASCII case folding, so a match needs one of the
// words (its literal part) as a substring of the lowered mention; any
// other mention goes to the pattern.
func (s site) mayMatchOthers(mention string, lower *string) bool {
	if s.otherLower == nil || !isASCII(mention) {
		return true
	}
	if *lower == "" {
		*lower = strings.ToLower(mention)
	}
	for _, w := range s.otherLower {
		if strings.Contains(*lower, w) {
			return true
		}
	}
	return false
}

// withoutOtherSite drops the anchors of a site's concepts from a mention
// that names another site and none of this one ("peripheral artery
// disease", "cerebral small vessel disease", "carotid endarterectomy"):
// the grounder's partial cover leaves the organ word out, and the organ is
// what the concept is about. A name of the concept stated whole that holds
// the site ("PCI via the femoral artery" states percutaneous coronary
// intervention through its acronym) or the other site's word itself (a
// synonym naming that organ) keeps the anchor.
func (p *Program) withoutOtherSite(mention string, anchors []grounding.Anchor) []grounding.Anchor {
	lower := ""
	for _, s := range p.reading.sites {
		if !s.mayMatchOthers(mention, &lower) {
			continue // no other site named
		}
		others := s.others.FindAllString(mention, -1)
		if len(others) == 0 || s.words.MatchString(mention) {
			continue
		}
		kept := anchors[:0:0]
		for _, a := range anchors {
			if p.otherSite(mention, a, s, others) {
				continue
			}
			kept = append(kept, a)
		}
		anchors = kept
	}
	return anchors
}

// withoutSiteBefore reads a finding with the words before it in its
// clause ("PAD: L SFA stenosis, angioplasty + stent"): a procedure or
// lesion named after another site's word, with no vessel of the pack's
// anatomy and no word of its own site in between, is that site's
// (withoutOtherSite), not a coronary one. The clause stops at a full stop,
// a semicolon or a line break. A later "the <words>" ("quit at the time of
// the angioplasty") refers back to a finding so set aside (siteOf holds
// its words and clause) and is read with that clause.
func (p *Program) withoutSiteBefore(text string, f extract.Finding, anchors []grounding.Anchor, siteOf *[][2]string) []grounding.Anchor {
	if len(anchors) == 0 || f.Start <= 0 || f.End > len(text) || f.Start > f.End {
		return anchors
	}
	lower := strings.ToLower(f.Text)
	for _, wc := range *siteOf {
		words, clause := wc[0], wc[1]
		if i := strings.Index(lower, "the "+words); i >= 0 && (i+4+len(words) == len(lower) || !unicode.IsLetter(rune(lower[i+4+len(words)]))) {
			return p.withoutOtherSite(clause+" "+f.Text, anchors)
		}
	}
	lo := strings.LastIndexAny(text[:f.Start], ".;\n") + 1
	if lo >= f.Start {
		return anchors
	}
	if r := p.anatomy; r != nil && r.vesselRE != nil && r.vesselRE.MatchString(text[lo:f.End]) {
		return anchors // "SFA angioplasty 2019, LAD stent 2020"
	}
	kept := p.withoutOtherSite(text[lo:f.End], anchors)
	if len(kept) < len(anchors) {
		if w := strings.TrimSpace(strings.Trim(lower, " ,;:()+-")); w != "" {
			*siteOf = append(*siteOf, [2]string{w, text[lo:f.End]})
		}
	}
	return kept
}

// otherSite: a is a concept of site s, and the mention, which names the
// other sites others, states whole no name of a that holds s or all of
// others.
func (p *Program) otherSite(mention string, a grounding.Anchor, s site, others []string) bool {
	names := phrasesFor(a, p.phrases)
	ofSite := false
	for _, n := range names {
		ofSite = ofSite || s.words.MatchString(n)
	}
	if !ofSite {
		return false
	}
	for _, n := range names {
		holds := s.words.MatchString(n) || acronymName(n)
		if !holds {
			words := map[string]bool{}
			for _, w := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return !unicode.IsLetter(r) }) {
				words[w] = true
			}
			holds = true
			for _, o := range others {
				holds = holds && words[strings.ToLower(o)]
			}
		}
		if holds {
			if ok, _ := evidence.CoversAll(mention, []string{n}); ok {
				return false
			}
		}
	}
	return true
}

// acronymName: every word of the name is an acronym, two capitals or more
// and no lower-case letter ("RF-CL PTL"): stated whole it names its
// concept whatever organ the sentence names besides ("RF-CL PTL adjusted
// up for carotid plaque"), as no partial cover of ordinary words does.
func acronymName(n string) bool {
	ws := strings.Fields(n)
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		upper := 0
		for _, r := range w {
			if unicode.IsLower(r) {
				return false
			}
			if unicode.IsUpper(r) {
				upper++
			}
		}
		if upper < 2 {
			return false
		}
	}
	return true
}

// withoutOtherOrgan drops, from a finding that holds a coronary stenosis
// report, the anchors of concepts about another organ: a concept with a
// name that holds another site's word and none that holds a site's word
// ("severe disease in the <vessel>" is no severe renal failure).
func (p *Program) withoutOtherOrgan(anchors []grounding.Anchor) []grounding.Anchor {
	if len(p.reading.sites) == 0 {
		return anchors
	}
	kept := anchors[:0:0]
	for _, a := range anchors {
		if !patternOnly(a) && p.otherOrganKey(a.ConceptKey) {
			continue
		}
		kept = append(kept, a)
	}
	return kept
}

// otherOrganKey: the concept has a name that holds another site's word
// and none that holds a site's word. The names are pack data, the same in
// every case, so each concept is judged once per Program, when first met.
func (p *Program) otherOrganKey(key string) bool {
	if v, ok := p.otherOrgan.Load(key); ok {
		return v.(bool)
	}
	other, own := false, false
	for _, n := range p.phrases[key] {
		for _, s := range p.reading.sites {
			own = own || s.words.MatchString(n)
			other = other || s.others.MatchString(n)
		}
	}
	p.otherOrgan.Store(key, other && !own)
	return other && !own
}
