package evidence

import (
	"maps"
	"strings"
	"testing"

	"github.com/executablekg/execkg/grounding/textnorm"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/vignettes/documents"
)

// compoundOfOtherRef is compoundOfOther as it was before the mention's
// compounds were read once per mention (compoundsOf): the reference the
// speed-up must agree with.
func compoundOfOtherRef(mention string, m, pw, vocab []string) bool {
	if !strings.Contains(mention, "-") {
		return false
	}
	fields := strings.Fields(mention)
	for i := 0; i+1 < len(fields); i++ {
		f := fields[i]
		if !strings.Contains(f, "-") || strings.ContainsAny(f[len(f)-1:], ",;:.()[]/") {
			continue
		}
		cw := contentWords(f)
		if len(cw) != 2 || len(cw[0]) < 3 || len(cw[1]) < 3 {
			continue
		}
		if acr := acronyms(f); acr[cw[0]] || acr[cw[1]] {
			continue
		}
		if !hasWord(pw, cw[0]) || !hasWord(pw, cw[1]) {
			continue
		}
		nf := fields[i+1]
		if c := nf[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			continue
		}
		nw := contentWords(nf)
		if len(nw) == 0 || len(textnorm.Tokens(nf)) != len(nw) {
			continue
		}
		if at := wordAt(pw, cw[1]); at >= 0 && at+1 < len(pw) && !hasWord(m, pw[at+1]) {
			continue
		}
		next := nw[0]
		if hasWord(vocab, next) || isNum(next) || textnorm.GenericWords[next] || initialsOf(pw, next) {
			continue
		}
		return true
	}
	return false
}

// equivMentions: every dev document line and comma clause holding a
// hyphen, the mentions compoundOfOther reads.
func equivMentions(t *testing.T) []string {
	t.Helper()
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range docs {
		for _, line := range strings.Split(d.Text, "\n") {
			if !strings.Contains(line, "-") {
				continue
			}
			out = append(out, line)
			for _, cl := range strings.Split(line, ",") {
				if strings.Contains(cl, "-") {
					out = append(out, cl)
				}
			}
		}
	}
	return out
}

// equivPhrases: the pack's concept names and rule wordings, and for each
// mention compound phrases built from its own words (so that the test
// meets compounds that qualify a noun and ones that do not).
func equivPhrases(t *testing.T) []string {
	t.Helper()
	pack, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	names, _ := pack.ConceptIndex()
	for _, n := range names {
		add(n)
	}
	for _, r := range pack.Rules() {
		for _, c := range r.Rule.Conditions {
			add(c.EntityOriginal)
		}
	}
	return out
}

// TestCompoundOfOtherEquivalent: compoundOfOther, reading the mention's
// compounds once (compoundsOf, memoised), answers as the reference on
// every dev mention with a hyphen against every pack phrase sharing a
// word with it, and against phrases made of the mention's own compounds.
func TestCompoundOfOtherEquivalent(t *testing.T) {
	phrases := equivPhrases(t)
	byWord := map[string][]int{}
	for i, p := range phrases {
		for _, w := range phraseOf(p).words {
			byWord[w] = append(byWord[w], i)
		}
	}
	calls, trues := 0, 0
	check := func(mention string, m []string, p string, vocab []string) {
		pw := phraseOf(p).words
		want := compoundOfOtherRef(mention, m, pw, vocab)
		if got := compoundOfOther(mention, m, pw, vocab, nil); got != want {
			t.Errorf("compoundOfOther(%q, phrase %q) = %v, reference %v", mention, p, got, want)
		}
		calls++
		if want {
			trues++
		}
	}
	for _, mention := range equivMentions(t) {
		m := wordsOfMention(mention)
		cand := map[int]bool{}
		for _, w := range m {
			for _, i := range byWord[w] {
				cand[i] = true
			}
		}
		for i := range cand {
			check(mention, m, phrases[i], nil)
			check(mention, m, phrases[i], phraseOf(phrases[i]).words)
		}
		// Phrases of the mention's own hyphenated fields: "a-b", "a-b
		// next", "a b thing".
		fields := strings.Fields(mention)
		for i, f := range fields {
			if !strings.Contains(f, "-") {
				continue
			}
			bare := strings.Trim(f, ",;:.()[]/")
			check(mention, m, bare, nil)
			check(mention, m, bare+" patient", nil)
			check(mention, m, strings.ReplaceAll(bare, "-", " ")+" features", nil)
			if i+1 < len(fields) {
				check(mention, m, bare+" "+fields[i+1], nil)
			}
		}
	}
	if trues == 0 || trues == calls {
		t.Fatalf("the corpus tests one outcome only (%d of %d true)", trues, calls)
	}
	t.Logf("%d calls, %d true", calls, trues)
}

// TestMayCoverNecessary: mayCover is a necessary condition of
// coversPhrase, so the phrases it skips change no answer. Dev mentions
// (lines and comma clauses of a twelfth of the documents, every style)
// against every pack phrase: wherever coversPhrase (either allowance)
// holds, or any word pair is sameWord, or coverAcronyms covers a word,
// mayCover holds; and it rejects some pairs, or it would speed nothing.
func TestMayCoverNecessary(t *testing.T) {
	phrases := equivPhrases(t)
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		t.Fatal(err)
	}
	var mentions []string
	every := 12 // every style, a twelfth of the documents: the test stays short
	if testing.Short() {
		every = 48 // the race step of .ci/run: sequential code, a sample is enough
	}
	for i, d := range docs {
		if i%every != 0 {
			continue
		}
		for _, line := range strings.Split(d.Text, "\n") {
			mentions = append(mentions, line)
			mentions = append(mentions, strings.Split(line, ",")...)
		}
	}
	pairs, rejected := 0, 0
	for _, mention := range mentions {
		m := wordsOfMention(mention)
		mk := keysOf(m)
		for _, p := range phrases {
			pi := phraseOf(p)
			pairs++
			may := mayCover(mk, pi)
			if !may {
				rejected++
			}
			if may {
				continue
			}
			for _, x := range m {
				for _, w := range pi.words {
					if sameWord(x, w) {
						t.Fatalf("mayCover(%q, %q) false, but sameWord(%q, %q)", mention, p, x, w)
					}
				}
			}
			covered := make([]bool, len(pi.words))
			coverAcronyms(m, pi.words, pi.gap, pi.acr, covered, titleWords(mention))
			for i, c := range covered {
				if c {
					t.Fatalf("mayCover(%q, %q) false, but an acronym covers %q", mention, p, pi.words[i])
				}
			}
			if coversPhrase(m, titleWords(mention), pi, false, mention, "", nil, pi.words) || coversPhrase(m, titleWords(mention), pi, true, mention, "", nil, pi.words) {
				t.Fatalf("mayCover(%q, %q) false, but coversPhrase holds", mention, p)
			}
		}
	}
	if rejected == 0 || rejected == pairs {
		t.Fatalf("mayCover rejects %d of %d pairs: the test meets one outcome only", rejected, pairs)
	}
	t.Logf("%d pairs, %d rejected by mayCover", pairs, rejected)
}

// TestUnitStatedNeedsUnits: FormatCase skips parsing a mention for a value
// in the concept's unit when the anchor has no units; that is the same
// answer only while unitStated is false for every measure without them.
func TestUnitStatedNeedsUnits(t *testing.T) {
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range docs {
		for _, line := range strings.Split(d.Text, "\n") {
			ms := ParseMeasures(line)
			n += len(ms)
			if unitStated(ms, Anchor{Concept: "x"}) {
				t.Fatalf("unitStated(%q) holds for an anchor without units", line)
			}
			if len(ms) > 0 && !unitStated(ms, Anchor{Concept: "x", Units: []string{ms[0].Canon}}) && ms[0].Canon != "" {
				t.Fatalf("unitStated(%q) fails for the anchor in its first measure's unit %q", line, ms[0].Canon)
			}
		}
	}
	if n == 0 {
		t.Fatal("no measures in the dev documents")
	}
}

// TestCandidatesIndexed: the index of a long phrase list (byKey, byPair)
// marks exactly the phrases mayCover holds for, on dev mentions against
// the pack's phrases (one list, indexed) and against short lists of them
// (not indexed).
func TestCandidatesIndexed(t *testing.T) {
	phrases := equivPhrases(t)
	long := NewPhrases(phrases)
	if long.byKey == nil {
		t.Fatal("a list of the pack's phrases is not indexed")
	}
	short := NewPhrases(phrases[:indexFrom-1])
	if short.byKey != nil {
		t.Fatal("a short list is indexed")
	}
	// Lists of a few phrases, indexed, read through the index for a long
	// mention and phrase by phrase for a short one.
	var few []*Phrases
	for i := 0; i+3 <= len(phrases); i += 97 {
		few = append(few, NewPhrases(phrases[i:i+3]))
	}
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		t.Fatal(err)
	}
	marked := 0
	for i, d := range docs {
		if i%9 != 0 {
			continue // a ninth of the documents: the test stays short
		}
		for _, line := range strings.Split(d.Text, "\n") {
			for _, mention := range append([]string{line}, strings.Split(line, ",")...) {
				mk := keysOf(wordsOfMention(mention))
				for _, ps := range append([]*Phrases{long, short}, few...) {
					c := ps.candidates(mk, nil)
					for j := range ps.infos {
						if want := mayCover(mk, ps.infos[j]); c[j] != want {
							t.Fatalf("candidates(%q)[%q] = %v, mayCover %v", mention, ps.texts[j], c[j], want)
						}
						if c[j] {
							marked++
						}
					}
				}
			}
		}
	}
	if marked == 0 {
		t.Fatal("no phrase marked")
	}
}

// TestMentionKeysTitle: the title words coversPhrase reads from the
// mention's memoised keys are titleWords of that mention, which it used
// to read again for every phrase; checked on the dev mentions, some of
// which hold title-case words and some none.
func TestMentionKeysTitle(t *testing.T) {
	withTitle := 0
	for _, mention := range equivMentions(t) {
		want := titleWords(mention)
		if got := keysOfMention(mention).title; !maps.Equal(got, want) {
			t.Fatalf("keysOfMention(%q).title = %v, titleWords %v", mention, got, want)
		}
		if len(want) > 0 {
			withTitle++
		}
	}
	if withTitle == 0 {
		t.Fatal("no mention holds a title-case word: the test compares nothing")
	}
}
