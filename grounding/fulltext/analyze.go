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
