package engine

import (
	"strings"

	"github.com/executablekg/execkg/grounding"
)

// Codes written in a document's text: a problem list writes a diagnosis
// with its classification code ("I25.2 Old MI", "CAD (I25.10)", a code
// alone in its column). The pack's value sets (meta/valuesets.json, the
// systems marked text) map codes to concepts for coded records; the text
// reader grounds a code token they list to the same concepts, a
// combination code to the further concepts it states, and the code's
// words are the mention step (iv) reads (codeAnchors). Only a listed code
// is read: the token's shape alone ("T18.0-1", a catalogue reference; a
// dose or a date) names nothing, and an unlisted code ("I10") adds no
// anchor.

// codeHit is one code token of a finding and the concepts it names.
type codeHit struct {
	token string
	keys  []string // the value set's concept key, then its also concepts
	names []string
}

// codeTokens returns the code-shaped tokens of s that a text system's
// value set lists, in order: a capital letter and two digits, optionally
// a dot and one to four digits or capitals, standing alone (not glued to
// another word, a decimal or a range: "T18.0-1", "I25.2/3").
func (p *Program) codeTokens(s string) []codeHit {
	vs := p.pack.ValueSets
	if vs == nil || len(s) < 3 {
		return nil
	}
	var out []codeHit
	for i := 0; i+2 < len(s); i++ {
		if !(s[i] >= 'A' && s[i] <= 'Z' && isDigitByte(s[i+1]) && isDigitByte(s[i+2])) {
			continue
		}
		if i > 0 && codeGlue(s[i-1]) {
			continue
		}
		j := i + 3
		if j+1 < len(s) && s[j] == '.' && codeChar(s[j+1]) {
			k := j + 1
			for k < len(s) && k-j-1 < 4 && codeChar(s[k]) {
				k++
			}
			j = k
		}
		if j < len(s) && (codeChar(s[j]) || s[j] >= 'a' && s[j] <= 'z' || s[j] == '-' || s[j] == '/' || s[j] == '.' && j+1 < len(s) && isDigitByte(s[j+1])) {
			i = j
			continue
		}
		tok := s[i:j]
		i = j
		m, ok := vs.LookupText(tok)
		if !ok || m.Set == nil || m.Set.Key == "" {
			continue
		}
		h := codeHit{token: tok, keys: []string{m.Set.Key}, names: []string{m.Set.Concept}}
		for _, a := range m.Also {
			if a.Key != "" && !containsStr(h.keys, a.Key) {
				h.keys, h.names = append(h.keys, a.Key), append(h.names, a.Concept)
			}
		}
		out = append(out, h)
	}
	return out
}

// codeGlue: a byte before a code that makes the token part of another
// word or number ("3I25", "x.I25", "-I25").
func codeGlue(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || isDigitByte(c) || c == '.' || c == '-' || c == '/' || c == '_'
}

func codeChar(c byte) bool { return c >= 'A' && c <= 'Z' || isDigitByte(c) }

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// withCodes puts the concepts a finding's listed codes name first among
// its anchors (an anchor the grounder found for the same concept moves
// there), and returns, by concept key, the code tokens that state each:
// step (iv) reads them as the concept's words in this finding.
func (p *Program) withCodes(finding string, anchors []grounding.Anchor) ([]grounding.Anchor, map[string]string) {
	hits := p.codeTokens(finding)
	if len(hits) == 0 {
		return anchors, nil
	}
	tokens := map[string]string{}
	var first []grounding.Anchor
	for _, h := range hits {
		for i, k := range h.keys {
			if _, ok := tokens[k]; ok {
				continue
			}
			tokens[k] = h.token
			first = append(first, grounding.Anchor{ConceptKey: k, Concept: h.names[i], Score: 1, Channels: []string{"code"}})
		}
	}
	out := make([]grounding.Anchor, 0, len(first)+len(anchors))
	out = append(out, first...)
	for _, a := range anchors {
		if _, ok := tokens[a.ConceptKey]; !ok {
			out = append(out, a)
		}
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out, tokens
}

// codePhrases are the names step (iv) checks a finding's mention of a
// concept against: a code the finding writes for it is one (withCodes).
func codePhrases(ph []string, token string) []string {
	if token == "" {
		return ph
	}
	return append(append(make([]string, 0, len(ph)+1), ph...), strings.TrimSpace(token))
}
