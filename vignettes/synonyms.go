package vignettes

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/executablekg/execkg/grounding/lexicon"
)

// synonyms builds the synonym vignettes: SynonymCount near vignettes spread
// evenly over the set (near_001, near_004, near_008, …; a vignette with no
// replaceable term passes its turn to the next one), each with the first
// replaceable clause's term swapped for a lexicon synonym. A synonym is
// usable when it differs from the term, names only this concept in the
// lexicon and is not listed as ambiguous.
func synonyms(near []Vignette, cl *ClauseTable, lex *lexicon.Lexicon) ([]Vignette, error) {
	if lex == nil {
		return nil, errors.New("synonym vignettes need the concept lexicon (rules/packs/esc-ccs-2024/meta/lexicon.json, or --lexicon)")
	}
	var out []Vignette
	next := 0
	for k := 0; k < SynonymCount; k++ {
		start := k * len(near) / SynonymCount
		if next < start {
			next = start
		}
		var made *Vignette
		for ; next < len(near) && made == nil; next++ {
			made = substitute(near[next], cl, lex)
		}
		if made == nil {
			return nil, fmt.Errorf("only %d of %d synonym vignettes could be made: the remaining near vignettes have no clause whose concept has a usable lexicon synonym; add synonyms to the lexicon", k, SynonymCount)
		}
		made.CaseID = fmt.Sprintf("syn_%03d", k+1)
		out = append(out, *made)
	}
	return out, nil
}

// substitute returns v with one term replaced, or nil.
func substitute(v Vignette, cl *ClauseTable, lex *lexicon.Lexicon) *Vignette {
	for i, n := range v.Intended {
		c := cl.Lookup(n.Concept)
		if c == nil || c.KeepTerm != "" {
			continue
		}
		term := c.TermText()
		at := strings.Index(n.Text, term)
		if at < 0 {
			continue
		}
		sct := ""
		if strings.HasPrefix(n.ConceptKey, "sct:") {
			sct = strings.TrimPrefix(n.ConceptKey, "sct:")
		}
		for _, syn := range lex.Synonyms(n.Concept, sct) {
			if !usableSynonym(syn, term, n.Concept, v.Question, lex) {
				continue
			}
			text := fixArticle(n.Text[:at], syn) + syn + n.Text[at+len(term):]
			q := strings.Replace(v.Question, n.Text, text, 1)
			if q == v.Question || Words(q) < MinWords || Words(q) > MaxWords {
				continue
			}
			out := v
			out.Category = Synonym
			out.Base = v.CaseID
			out.Question = q
			out.Intended = append([]Node(nil), v.Intended...)
			out.Intended[i].Text = text
			out.Substitution = &Substitution{Concept: n.Concept, From: term, To: syn}
			return &out
		}
	}
	return nil
}

func usableSynonym(syn, term, concept, question string, lex *lexicon.Lexicon) bool {
	if strings.TrimSpace(syn) == "" || lexicon.Key(syn) == lexicon.Key(term) || lex.IsAmbiguous(syn) {
		return false
	}
	// The synonym must not name another concept, or the vignette would
	// state something other than its intended nodes.
	for _, c := range lex.Lookup(syn) {
		if lexicon.Key(c.Concept) != lexicon.Key(concept) {
			return false
		}
	}
	return !strings.Contains(strings.ToLower(question), strings.ToLower(syn))
}

// fixArticle rewrites a trailing "a "/"an " of prefix to suit the word
// that now follows it.
func fixArticle(prefix, next string) string {
	var art string
	switch {
	case strings.HasSuffix(prefix, "an "):
		art = "an "
	case strings.HasSuffix(prefix, "a "):
		art = "a "
	default:
		return prefix
	}
	// Only a standalone article: "a " at the start or after a space.
	head := prefix[:len(prefix)-len(art)]
	if head != "" && !strings.HasSuffix(head, " ") {
		return prefix
	}
	return head + article(next) + " "
}

// article chooses "a" or "an" by sound: vowels, and abbreviations spoken
// from a letter name starting with a vowel sound (F, H, L, M, N, R, S, X).
func article(word string) string {
	w := strings.Fields(word)
	if len(w) == 0 {
		return "a"
	}
	first := w[0]
	r := []rune(first)
	upper := len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsUpper(r[1])
	if upper {
		if strings.ContainsRune("AEFHILMNORSX", r[0]) {
			return "an"
		}
		return "a"
	}
	if strings.ContainsRune("aeiouAEIOU", r[0]) {
		return "an"
	}
	return "a"
}
