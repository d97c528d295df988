package fulltext

import (
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Why a token memo: the analyser's filters (lower case, stop words, the
// Snowball stemmer) each read one token alone, so a token's term (or its
// removal) is a function of the token's text; case words repeat across
// findings and cases, and stemming them again was half of a full-text
// search. The tokenizer still runs on every text, so positions are
// Bleve's; TestQueryTermsMatchAnalyzer holds the terms to Analyze's.

// tokenMemoSize bounds the memo; it is emptied when full (case text is
// unbounded, the words in use are a few thousand).
const tokenMemoSize = 1 << 15

// tokenMemo maps a token's text to its analysed term.
type tokenMemo struct {
	mu sync.RWMutex
	m  map[string]memoTerm
}

type memoTerm struct {
	term string
	keep bool // false: a stop word, no term
}

// queryTerms returns the analysed terms of an already normalised text and
// their positions, as Analyze gives them; ok is false when the analyser is
// not a tokenizer followed by one-token filters (then use Analyze).
func (ix *Index) queryTerms(text string) (terms []string, pos []int, ok bool) {
	da, isDefault := ix.analyzer.(*analysis.DefaultAnalyzer)
	if !isDefault || da.CharFilters != nil {
		return nil, nil, false
	}
	if terms, pos, ok := ix.plainTerms(text); ok {
		return terms, pos, true
	}
	toks := da.Tokenizer.Tokenize([]byte(text))
	for _, tok := range toks {
		ix.tokens.mu.RLock()
		t, hit := ix.tokens.m[string(tok.Term)]
		ix.tokens.mu.RUnlock()
		if !hit {
			one := analysis.TokenStream{&analysis.Token{Term: append([]byte(nil), tok.Term...), Start: tok.Start, End: tok.End, Position: tok.Position, Type: tok.Type}}
			for _, f := range da.TokenFilters {
				one = f.Filter(one)
			}
			switch len(one) {
			case 0:
			case 1:
				t = memoTerm{term: string(one[0].Term), keep: true}
			default:
				return nil, nil, false // a filter that splits tokens
			}
			ix.tokens.mu.Lock()
			if ix.tokens.m == nil || len(ix.tokens.m) >= tokenMemoSize {
				ix.tokens.m = make(map[string]memoTerm)
			}
			ix.tokens.m[string(tok.Term)] = t
			ix.tokens.mu.Unlock()
		}
		if t.keep {
			terms = append(terms, t.term)
			pos = append(pos, tok.Position)
		}
	}
	return terms, pos, true
}

// plainTerms is queryTerms for a text of lower-case ASCII letters, digits
// and spaces (a normalised ASCII text), whose every word is in the memo:
// the unicode tokenizer's tokens of such a text are its space-separated
// words (letters and digits do not break a word, UAX #29 WB5, WB8-WB10),
// at positions 1, 2, ..., so the words are read without it. ok is false
// for any other text, or a word the memo lacks (the tokenizer then runs).
func (ix *Index) plainTerms(text string) (terms []string, pos []int, ok bool) {
	for i := 0; i < len(text); i++ {
		if c := text[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == ' ') {
			return nil, nil, false
		}
	}
	ix.tokens.mu.RLock()
	defer ix.tokens.mu.RUnlock()
	n := 0 // the word's position
	for i := 0; i < len(text); {
		if text[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(text) && text[j] != ' ' {
			j++
		}
		n++
		t, hit := ix.tokens.m[text[i:j]]
		if !hit {
			return nil, nil, false
		}
		if t.keep {
			terms = append(terms, t.term)
			pos = append(pos, n)
		}
		i = j
	}
	return terms, pos, true
}

// analyzeTerms is queryTerms, through Analyze when it must.
func (ix *Index) analyzeTerms(text string) ([]string, []int) {
	if terms, pos, ok := ix.queryTerms(text); ok {
		return terms, pos
	}
	toks := ix.analyzer.Analyze([]byte(text))
	terms := make([]string, len(toks))
	pos := make([]int, len(toks))
	for j, tok := range toks {
		terms[j], pos[j] = string(tok.Term), tok.Position
	}
	return terms, pos
}
