package lexicon

import (
	"sort"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
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

// Every concept a definition reads (its members, exceptions and a
// calculator's inputs) must be one a case can state: a lexicon entry, a
// rule's concept, or one another definition or is-a relation makes.
// Otherwise the member is silently never met (the second pass found an
// exception naming "suspected acute coronary syndrome" while the lexicon
// reads such wordings as another concept).
func TestDefinitionMembersAreReadable(t *testing.T) {
	for _, id := range packs.IDs() {
		p, err := packs.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		lex, err := LoadBuiltin(id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Hierarchy == nil {
			continue
		}
		known := map[string]string{}
		for _, r := range p.Rules() {
			for _, c := range r.Conditions() {
				known[rules.NormalizeName(c.Entity.Concept())] = c.Entity.Concept()
			}
			// A drug a row gives is a rule concept too: an is-a relation
			// or an intolerance's barring may name it (MemberConcepts).
			for _, a := range r.Actions {
				known[rules.NormalizeName(a.Concept())] = a.Concept()
			}
		}
		made := map[string]bool{}
		for _, c := range p.Hierarchy.Composites {
			made[rules.NormalizeName(c.Concept)] = true
		}
		for _, d := range p.Hierarchy.Definitions {
			made[rules.NormalizeName(d.Concept)] = true
		}
		for _, r := range p.Hierarchy.Relations {
			made[rules.NormalizeName(r.Broader)] = true
		}
		for _, c := range p.Hierarchy.Calculated {
			made[rules.NormalizeName(c.Concept)] = true
		}
		names, _ := p.Hierarchy.MemberConcepts(known)
		for _, n := range names {
			if lex.Concept(Key(n)) == nil && !made[rules.NormalizeName(n)] {
				t.Errorf("%s: definition member %q is no lexicon concept, rule concept or defined concept, so no case can state it; add it to meta/lexicon.json or name the concept the lexicon reads", id, n)
			}
		}
	}
}
