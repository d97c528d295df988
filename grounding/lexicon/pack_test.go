package lexicon

import (
	"sort"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules/packs"
)

// TestPackLexicon checks the shipped lexicon against the shipped pack:
// every input concept has an entry, and no lexicon term (name or synonym)
// names two concepts, counting the rule tables' own wordings as terms of
// their concepts, unless the term is listed as deliberately ambiguous.
func TestPackLexicon(t *testing.T) {
	pack, err := packs.Default()
	if err != nil {
		t.Fatal(err)
	}
	lex, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	concepts := map[string]string{}    // key → concept name as written
	wordingOf := map[string][]string{} // wording key → concept keys
	for _, r := range pack.Rules() {
		for _, c := range r.Conditions() {
			name := c.Entity.Concept()
			k := Key(name)
			concepts[k] = name
			w := Key(c.Entity.EntityOriginal)
			if !contains(wordingOf[w], k) {
				wordingOf[w] = append(wordingOf[w], k)
			}
		}
	}
	var missing []string
	for k, name := range concepts {
		if lex.Concept(k) == nil {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d input concepts of the pack have no entry in %s; add {\"concept\": …, \"synonyms\": […]} for:\n  %s",
			len(missing), DefaultPath, strings.Join(missing, "\n  "))
	}

	for _, c := range lex.Conflicts() {
		t.Errorf("lexicon term %q names %d concepts (%s); remove it from all but one or list it under \"ambiguous\" with a reason",
			c.Term, len(c.Concepts), strings.Join(c.Concepts, "; "))
	}
	for _, c := range lex.Concepts {
		own := Key(c.Concept)
		for _, s := range append([]string{c.Concept}, c.Synonyms...) {
			k := Key(s)
			for _, other := range wordingOf[k] {
				if other != own && !lex.IsAmbiguous(k) {
					t.Errorf("lexicon term %q of %q is the rule tables' wording of another concept, %q", s, c.Concept, concepts[other])
				}
			}
		}
	}
	for w, ks := range wordingOf {
		if len(ks) > 1 {
			t.Logf("note: the rule tables use the wording %q for %d concepts (%s); not a lexicon problem", w, len(ks), strings.Join(ks, "; "))
		}
	}
	// Concepts in the lexicon but tested by no rule are allowed (tables may
	// drop a condition) but worth knowing.
	for _, c := range lex.Concepts {
		if _, ok := concepts[Key(c.Concept)]; !ok {
			t.Logf("note: lexicon concept %q is not tested by any rule", c.Concept)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
