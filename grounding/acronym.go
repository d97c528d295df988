package grounding

import (
	"sort"
	"strings"
	"unicode"

	"github.com/executablekg/execkg/grounding/textnorm"
)

// acronyms expands abbreviations in a finding with long forms found in the
// index itself: every noun-phrase-like run of 2-6 words in a grounding
// phrase contributes its initials (stop words skipped: "heart failure with
// reduced ejection fraction" → hfref). A query word that looks like an
// abbreviation and equals such initials gets a query variant with the long
// form. Because the long forms come from the indexed phrases, this needs no
// dictionary and works for abbreviations the lexicon does not list; in
// leave-one-out evaluation the held-out phrase's runs are not used.
//
// A run must start at the phrase start or after a stop word and end at the
// phrase end or before one, so "mass index" (inside body mass index) and
// "directed medical" (inside guideline-directed medical therapy) do not
// become long forms of MI and DM. Long forms that are a whole phrase
// somewhere weigh more, and only those with at least half the best weight
// are used.
type acronyms struct {
	// byInitials: initials → long form → elements holding it.
	byInitials map[string]map[string][]occurrence
	// words lists each element's distinct words; vocab counts the
	// elements holding a word; whole maps a one-word element's text to it.
	words [][]string
	vocab map[string]int
	whole map[string]int
}

type occurrence struct {
	element int
	whole   bool // the long form is the element's whole text
}

const (
	minAcronym = 2
	maxAcronym = 6
	// maxLongForms caps the long forms tried per abbreviation.
	maxLongForms = 3
	// maxVariants caps the query variants of one finding.
	maxVariants = 5
)

func newAcronyms(elems []element) *acronyms {
	a := &acronyms{byInitials: map[string]map[string][]occurrence{}, vocab: map[string]int{}, whole: map[string]int{}, words: make([][]string, len(elems))}
	for id, e := range elems {
		words := strings.Fields(e.norm)
		if len(words) == 1 {
			a.whole[words[0]] = id
		}
		seen := map[string]bool{}
		for _, w := range words {
			if !seen[w] {
				seen[w] = true
				a.vocab[w]++
				a.words[id] = append(a.words[id], w)
			}
		}
		for i := range words {
			if textnorm.StopWords[words[i]] || !isAlpha(words[i]) || (i > 0 && !textnorm.StopWords[words[i-1]]) {
				continue
			}
			var initials strings.Builder
			content := 0
			for j := i; j < len(words) && j-i < maxAcronym+2; j++ {
				w := words[j]
				if textnorm.StopWords[w] {
					continue
				}
				if !isAlpha(w) {
					break
				}
				initials.WriteByte(w[0])
				content++
				atEnd := j == len(words)-1 || textnorm.StopWords[words[j+1]]
				if content >= minAcronym && content <= maxAcronym && atEnd {
					ini := initials.String()
					long := strings.Join(words[i:j+1], " ")
					if a.byInitials[ini] == nil {
						a.byInitials[ini] = map[string][]occurrence{}
					}
					a.byInitials[ini][long] = append(a.byInitials[ini][long], occurrence{id, i == 0 && j == len(words)-1})
				}
			}
		}
	}
	return a
}

// variants returns the query text plus variants with abbreviations
// replaced by long forms. raw is the finding as written. A query word of
// 2-6 letters (no stop word) counts as an abbreviation when it is written
// with two or more capitals (eGFR, LVEF, CCS) or occurs in no visible
// grounding phrase. A finding that is nothing but an abbreviation the index
// lists on its own ("ICA") is not expanded: the phrase already names its
// concept, and the expansion would add long forms that merely share its
// initials ("inadequately controlled angina"); in a longer finding the
// other words decide between the long forms. Hidden elements
// (leave-one-out) neither count as holding a word nor contribute long
// forms.
func (a *acronyms) variants(raw, query string, hidden map[int]bool) []string {
	out := []string{query}
	if a == nil || query == "" {
		return out
	}
	var isHidden func(int) bool
	if len(hidden) > 0 {
		isHidden = func(id int) bool { return hidden[id] }
	}
	upper := map[string]bool{}
	for _, w := range strings.FieldsFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		caps := 0
		for _, r := range w {
			if unicode.IsUpper(r) {
				caps++
			}
		}
		if caps >= 2 {
			upper[strings.ToLower(w)] = true
		}
	}
	words := strings.Fields(textnorm.Normalize(query))
	all := append([]string(nil), words...)
	changed := false
	for i, w := range words {
		if len(w) < minAcronym || len(w) > maxAcronym || textnorm.StopWords[w] || !isAlpha(w) || textnorm.Pronouns[w] && !upper[w] {
			continue
		}
		if id, ok := a.whole[w]; ok && !hidden[id] && len(words) == 1 {
			continue
		}
		if !upper[w] && a.visible(w, hidden) {
			continue
		}
		longs := a.longForms(w, isHidden)
		for k, l := range longs {
			if len(out) >= maxVariants {
				break
			}
			v := append(append(append([]string(nil), words[:i]...), l), words[i+1:]...)
			out = append(out, strings.Join(v, " "))
			if k == 0 {
				all[i] = l
				changed = true
			}
		}
	}
	if changed && len(out) > 2 && len(out) < maxVariants {
		out = append(out, strings.Join(all, " "))
	}
	return dedupe(out)
}

// visible reports whether a visible element holds word w.
func (a *acronyms) visible(w string, hidden map[int]bool) bool {
	n := a.vocab[w]
	for id := range hidden {
		for _, x := range a.words[id] {
			if x == w {
				n--
			}
		}
	}
	return n > 0
}

// longForms lists the visible long forms of initials, heaviest first
// (a phrase that is the long form counts 3, one that contains it 1; ties
// alphabetically), keeping those with at least half the best weight, at
// most maxLongForms.
func (a *acronyms) longForms(ini string, hidden func(id int) bool) []string {
	type lf struct {
		text string
		w    int
	}
	var cands []lf
	for long, occs := range a.byInitials[ini] {
		w := 0
		for _, o := range occs {
			if hidden != nil && hidden(o.element) {
				continue
			}
			if o.whole {
				w += 3
			} else {
				w++
			}
		}
		if w > 0 {
			cands = append(cands, lf{long, w})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].w != cands[j].w {
			return cands[i].w > cands[j].w
		}
		return cands[i].text < cands[j].text
	})
	var out []string
	for i := 0; i < len(cands) && i < maxLongForms && 2*cands[i].w >= cands[0].w; i++ {
		out = append(out, cands[i].text)
	}
	return out
}

func isAlpha(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return w != ""
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		k := textnorm.Normalize(s)
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, s)
	}
	return out
}
