package engine

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/rules"
)

// verbatimAnchors returns the concepts one of whose phrases (name, row
// wording, lexicon synonym) the finding states word for word, leaving out
// a phrase that lies inside a longer stated phrase of another concept
// ("beta-blocker" inside "contraindication to beta-blocker", "beta-blocker
// intolerance") unless the longer phrase only puts adjectives before it
// ("exertional chest discomfort" is still chest discomfort). Short
// phrases (three letters or fewer, mostly acronyms) must match case.
func (p *Program) verbatimAnchors(finding string) []grounding.Anchor {
	out, _ := p.verbatimRead(finding)
	return out
}

// verbatimRead is verbatimAnchors plus the concepts the finding names only
// inside another concept's compound word: every occurrence lies within a
// longer phrase of another concept that joins it without a space
// ("DAPT" of "PRECISE-DAPT 14", a score's name, is no therapy).
func (p *Program) verbatimRead(finding string) ([]grounding.Anchor, map[string]bool) {
	out, compound, _ := p.verbatimIn(&p.verbatim, finding, false)
	return out, compound
}

// verbatimNamed is verbatimAnchors over the concepts' names and lexicon
// synonyms only (a row's wording "symptoms" names no concept), leaving
// out a phrase inside a longer one whose concept is an intention ("PCI"
// in "planned PCI"): the concepts the finding states the patient has.
// A phrase only narrowed by the longer one carries channelNarrowed.
func (p *Program) verbatimNamed(finding string) []grounding.Anchor {
	out, _, _ := p.verbatimIn(&p.naming, finding, true)
	return out
}

func (p *Program) verbatimIn(set *verbatimSet, finding string, strict bool) (out []grounding.Anchor, compound, inside map[string]bool) {
	type hit struct {
		key        string
		start, end int
	}
	// Double quotation marks set off the patient's own word ('central
	// chest "tightness"'); they are no word of the phrase, so a name is
	// stated across them. (Offsets below are of this unquoted text; they
	// stay inside this function.)
	finding = unquote.Replace(finding)
	// A line break or tab inside a finding wraps its prose ("CT
	// coronary\nangiogram"): a space there, so a name is stated across it
	// and its words are not read as a shorter name after the break.
	finding = wrapSpace.Replace(finding)
	lower := strings.ToLower(finding)
	var hits []hit
	// Every occurrence starting at a word start: only the phrases whose
	// first two bytes are there are compared (verbatimSet.start).
	for _, hay := range []struct {
		text  string
		exact bool
	}{{lower, false}, {finding, true}} {
		h := hay.text
		for i := 0; i+1 < len(h); i++ {
			if i > 0 && isWordByte(h[i-1]) {
				continue
			}
			for _, vi := range set.start[startKey(h[i], h[i+1], hay.exact)] {
				v := &set.phrases[vi]
				j := i + len(v.needle)
				if !strings.HasPrefix(h[i:], v.needle) {
					continue
				}
				if j == len(h) || !isWordByte(h[j]) {
					hits = append(hits, hit{v.key, i, j})
				} else if v.acronym && h[j] == 's' && (j+1 == len(h) || !isWordByte(h[j+1])) {
					// An acronym's plural ("MIs", "PCIs") names it too.
					hits = append(hits, hit{v.key, i, j + 1})
				}
			}
		}
	}
	seen := map[string]bool{}
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].start != hits[b].start {
			return hits[a].start < hits[b].start
		}
		if hits[a].end != hits[b].end {
			return hits[a].end > hits[b].end
		}
		return hits[a].key < hits[b].key
	})
	free := map[string]bool{}    // the concept has an occurrence outside any compound
	compound = map[string]bool{} // the concept has an occurrence glued into a compound
	inside = map[string]bool{}   // the concept has an occurrence inside another's longer phrase
	for _, h := range hits {
		in, narrowed, glued := false, false, false
		for _, o := range hits {
			if o.key != h.key && o.start <= h.start && o.end >= h.end && o.end-o.start > h.end-h.start {
				narrows := narrowedBy(lower[o.start:h.start], o.end == h.end) || strict && o.start == h.start && postNarrowedBy(lower[h.end:o.end]) ||
					// Words before that narrow it and a preposition after:
					// "recurrent chest pain at rest" is still chest pain.
					o.start < h.start && narrowedBy(lower[o.start:h.start], true) && postNarrowedBy(lower[h.end:o.end])
				// The pack may say the longer concept is not the shorter one
				// (hierarchy "distinct"): then its words do not narrow it.
				narrows = narrows && !p.hierarchy.IsDistinct(p.names[o.key], p.names[h.key])
				if !narrows || strict && p.doc.PlannedConcept(p.names[o.key]) {
					in = true
					glued = glued || o.start < h.start && !strings.ContainsAny(lower[o.start:h.start], " \t\n")
					continue
				}
				narrowed = true
			}
		}
		if glued {
			compound[h.key] = true
		} else {
			free[h.key] = true
		}
		if in {
			inside[h.key] = true
		}
		if in || seen[h.key] {
			continue
		}
		seen[h.key] = true
		ch := []string{"phrase"}
		if strict && narrowed {
			ch = append(ch, channelNarrowed)
		}
		out = append(out, grounding.Anchor{ConceptKey: h.key, Concept: p.names[h.key], Score: 1, Channels: ch})
	}
	for k := range free {
		delete(compound, k)
	}
	for k := range seen {
		delete(inside, k) // stated on its own somewhere too
	}
	return out, compound, inside
}

// wrapSpace turns the line breaks and tabs of a finding into spaces.
var wrapSpace = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ")

// unquote drops double quotation marks, straight and curly.
var unquote = strings.NewReplacer("\"", "", "\u201c", "", "\u201d", "")

// channelNarrowed marks a verbatimNamed phrase that lies inside a longer
// stated phrase whose words before it only narrow it ("chest discomfort"
// in "exertional chest discomfort").
const channelNarrowed = "narrowed"

// verbatimPhrase is a pack phrase as verbatimAnchors looks for it,
// prepared once when the program is built rather than for every finding:
// lower-cased, or as written when short (exact: must match case).
type verbatimPhrase struct {
	key, needle string
	exact       bool
	// acronym: the phrase is written in capitals ("MI", "CABG"), so a
	// plural "s" may follow it.
	acronym bool
}

// verbatimSet is the prepared phrases, indexed by their first two bytes
// (and whether they match case) so that a finding is compared only with
// the phrases that can start at each of its word starts.
type verbatimSet struct {
	phrases []verbatimPhrase
	start   map[uint32][]int32 // by startKey
}

// startKey packs a phrase's first two bytes and whether it matches case
// into one integer map key (cheaper to hash than a struct, at every word
// start of every finding).
func startKey(a, b byte, exact bool) uint32 {
	k := uint32(a)<<9 | uint32(b)<<1
	if exact {
		k |= 1
	}
	return k
}

// verbatimPhrases prepares the phrases of every concept, by concept key
// and then in the pack's order, leaving out those too short to match.
func verbatimPhrases(phrases map[string][]string) verbatimSet {
	keys := make([]string, 0, len(phrases))
	for k := range phrases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []verbatimPhrase
	for _, k := range keys {
		for _, ph := range phrases[k] {
			v := verbatimPhrase{key: k, needle: strings.ToLower(ph), acronym: isAcronym(ph)}
			if len(ph) <= 3 {
				v.needle, v.exact = ph, true
			}
			if len(v.needle) >= 2 {
				out = append(out, v)
			}
		}
	}
	set := verbatimSet{phrases: out, start: map[uint32][]int32{}}
	for i, v := range out {
		k := startKey(v.needle[0], v.needle[1], v.exact)
		set.start[k] = append(set.start[k], int32(i))
	}
	return set
}

// postNarrowedBy: the words after a nested phrase that starts where the
// longer one starts only narrow it when they open with a preposition
// ("chest tightness on exertion" is chest tightness); a noun there is the
// longer phrase's head ("beta-blocker intolerance").
func postNarrowedBy(after string) bool {
	w := strings.Fields(after)
	if len(w) < 2 {
		return false
	}
	switch w[0] {
	case "on", "with", "at", "during", "after", "since", "in", "of", "to", "for", "from", "when", "while":
		return true
	}
	return false
}

// narrowedBy: the words before a nested phrase that ends where the longer
// one ends only narrow it (no preposition, negation or relation word).
func narrowedBy(before string, sameEnd bool) bool {
	// A phrase glued into a longer one's word by a hyphen or slash is part
	// of a compound name ("PRECISE-DAPT"), not narrowed by an adjective.
	if !sameEnd || before != "" && !strings.ContainsAny(before, " \t\n") {
		return false
	}
	for _, w := range strings.Fields(before) {
		switch strings.Trim(w, "-/,") {
		case "to", "of", "for", "with", "without", "on", "in", "after", "before", "no", "not", "non", "against", "from", "by", "despite":
			return false
		}
	}
	return true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// withVerbatim keeps at most k anchors: first those of the grounder's
// list whose names the clause states (in their order), then concepts the
// finding states word for word, then the rest. A candidate the cover check
// of step (iv) would reject no longer takes the place of a concept the
// finding names outright.
func (p *Program) withVerbatim(finding, clause string, anchors []grounding.Anchor, k int) []grounding.Anchor {
	mention := finding
	if clause != "" {
		mention = clause
	}
	verb, compound, inside := p.verbatimIn(&p.verbatim, finding, false)
	// A drug the finding names word for word keeps a place among the k
	// (keepNamed), unless the finding dates an episode: the drug of "GI
	// bleed 2022 on aspirin" is that episode's, not stated taken now.
	named := map[string]bool{}
	dated := whenOf(finding, time.Now(), p.reading.recentDays) != nil
	for _, v := range verb {
		// A procedure named word for word keeps its place too, dated or
		// not (the date is the procedure's): "s/p PCI of the proximal LAD
		// in 2019" is a PCI, though three readings of the vessel outrank it.
		named[v.ConceptKey] = p.medications[v.ConceptKey] && !dated || p.roles[v.ConceptKey] == rules.RoleProcedure
	}
	var covered, rest []grounding.Anchor
	have := map[string]bool{}
	for _, a := range anchors {
		if compound[a.ConceptKey] {
			continue // named only inside another concept's compound word
		}
		if inside[a.ConceptKey] {
			// Named only inside a longer name of another concept that does
			// not merely narrow it: "CT coronary angiography" is CCTA, and
			// its "coronary angiography" states no invasive angiogram.
			continue
		}
		have[a.ConceptKey] = true
		ph := p.coveringFor(a)
		if ok, _ := ph.Covers(mention); ok || ph.Len() == 0 {
			covered = append(covered, a)
		} else {
			rest = append(rest, a)
		}
	}
	out := covered
	for _, v := range verb {
		if !have[v.ConceptKey] {
			have[v.ConceptKey] = true
			out = append(out, v)
		}
	}
	out = append(out, rest...)
	if len(out) > k {
		out = keepNamed(out, named, k)
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// keepNamed cuts anchors to k, in order, but a named concept keeps its
// place before a candidate that is not named: "atrial fibrillation on
// apixaban" names both, and the drug is not cut for a looser reading of
// the rhythm. The cut candidates are the last unnamed ones before the cut;
// the first anchor stays.
func keepNamed(out []grounding.Anchor, named map[string]bool, k int) []grounding.Anchor {
	need := 0
	for _, a := range out[k:] {
		if named[a.ConceptKey] {
			need++
		}
	}
	drop := map[int]bool{}
	for i := k - 1; i >= 0 && len(drop) < need; i-- {
		if !named[out[i].ConceptKey] && i > 0 {
			drop[i] = true
		}
	}
	kept := make([]grounding.Anchor, 0, k)
	for i, a := range out {
		if len(kept) == k {
			break
		}
		if drop[i] || i >= k && !named[a.ConceptKey] && len(drop) > 0 {
			continue
		}
		kept = append(kept, a)
	}
	return kept
}

// acronymOf: ph is one word whose letters are the initials of name's
// words, all of them or its content words ("ICA", "LVEF", "eGFR").
func acronymOf(ph, name string) bool {
	if len(ph) < 2 || strings.ContainsAny(ph, " ") {
		return false
	}
	letters := strings.ToLower(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, ph))
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return r == ' ' || r == '-' || r == '/' })
	var all, content []byte
	for _, w := range words {
		if w == "" || !(w[0] >= 'a' && w[0] <= 'z') {
			continue
		}
		all = append(all, w[0])
		switch w {
		case "of", "to", "for", "with", "and", "or", "the", "in", "on", "a", "an", "by":
		default:
			content = append(content, w[0])
		}
	}
	return len(letters) >= 2 && (letters == string(all) || letters == string(content))
}

// isAcronym: a single word of capitals and digits, two capitals at least
// ("MI", "CABG", "NSTEMI"; not "Mg" or "2D").
func isAcronym(ph string) bool {
	caps := 0
	for i := 0; i < len(ph); i++ {
		switch c := ph[i]; {
		case c >= 'A' && c <= 'Z':
			caps++
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return caps >= 2
}

// distinctNested checks the pack's "distinct" pairs against the phrases
// that name each concept (names, lexicon synonyms): a pair says a phrase
// of From inside a phrase of Concept is no From, so some phrase of
// Concept must hold one of From's as whole words, or the entry can never
// apply.
func distinctNested(h *rules.Hierarchy, keys map[string]string, names map[string][]string) error {
	if h == nil {
		return nil
	}
	for i, d := range h.Distinct {
		long, short := names[keys[rules.NormalizeName(d.Concept)]], names[keys[rules.NormalizeName(d.From)]]
		if len(long) == 0 || len(short) == 0 {
			return fmt.Errorf("engine: %s: distinct[%d] (%s, from %s): names a concept the pack does not have; name both exactly as the tables do", rules.HierarchyFile, i, d.Concept, d.From)
		}
		if !anyHolds(long, short) {
			return fmt.Errorf("engine: %s: distinct[%d] (%s): no name or lexicon synonym of it holds one of %q's, so no phrase of one lies inside the other; remove the entry or add the synonym", rules.HierarchyFile, i, d.Concept, d.From)
		}
	}
	return nil
}

// anyHolds: some phrase of long holds some phrase of short as whole
// words, case aside.
func anyHolds(long, short []string) bool {
	for _, l := range long {
		ll := " " + strings.Join(strings.Fields(strings.ToLower(l)), " ") + " "
		for _, s := range short {
			ss := strings.Join(strings.Fields(strings.ToLower(s)), " ")
			if ss != "" && len(ss) < len(ll)-2 && strings.Contains(ll, " "+ss+" ") {
				return true
			}
		}
	}
	return false
}
