// Package textnorm holds the text normalisation shared by both grounding
// channels, so a finding and a rule's wording meet in the same spelling
// before any matching: lower case, folded accents and superscripts, British
// spellings mapped to American ones, punctuation turned into spaces.
package textnorm

import (
	"strings"
	"unicode"
)

// fold maps characters that clinicians type in several ways to one form.
var fold = map[rune]string{
	'²': "2", '³': "3", '¹': "1", '⁰': "0",
	'é': "e", 'è': "e", 'ê': "e", 'ë': "e", 'á': "a", 'à': "a", 'â': "a", 'ä': "a",
	'í': "i", 'ï': "i", 'î': "i", 'ó': "o", 'ö': "o", 'ô': "o", 'ú': "u", 'ü': "u", 'û': "u",
	'ç': "c", 'ñ': "n", 'µ': "u", 'μ': "u", 'ß': "ss", 'æ': "e", 'œ': "e",
	'–': "-", '—': "-", '‐': "-", '‑': "-", '−': "-",
	'’': "'", '‘': "'", '´': "'", '`': "'",
	'≥': ">=", '≤': "<=", '≠': "!=", '×': "x",
}

// Fold lower-cases s and folds accents, superscripts, dashes and quotes; it
// keeps punctuation, so QueryText can still see units and comparators.
func Fold(s string) string {
	if ascii, lower := asciiLower(s); ascii {
		if lower {
			return s
		}
		// ASCII folds only by case and the backtick (fold's one ASCII
		// key).
		b := []byte(s)
		for i, c := range b {
			switch {
			case 'A' <= c && c <= 'Z':
				b[i] = c + ('a' - 'A')
			case c == '`':
				b[i] = '\''
			}
		}
		return string(b)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if f, ok := fold[unicode.ToLower(r)]; ok {
			b.WriteString(f)
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// asciiLower reports whether s is all ASCII, and then whether Fold leaves
// it as it is (no upper-case letter, no backtick).
func asciiLower(s string) (ascii, lower bool) {
	lower = true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false, false
		}
		if 'A' <= c && c <= 'Z' || c == '`' {
			lower = false
		}
	}
	return true, lower
}

// Normalize returns the matching form of s: Fold, British spellings
// (ischaemia, oedema, haemorrhage, dyspnoea) mapped to American ones,
// number words one to ten mapped to digits,
// possessives dropped, every character that is not a letter or digit turned
// into a space, white space collapsed. Both index texts and queries go
// through it, so a spelling mapping can only merge words, never split them.
func Normalize(s string) string {
	s = Fold(s)
	s = strings.ReplaceAll(s, "'s ", " ")
	if strings.HasSuffix(s, "'s") {
		s = s[:len(s)-2]
	}
	if ascii, _ := asciiLower(s); ascii {
		// After Fold, ASCII letters are a to z.
		return normalizeASCII(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	words := strings.Fields(b.String())
	for i, w := range words {
		if d, ok := numberWords[w]; ok {
			words[i] = d
			continue
		}
		words[i] = americanise(w)
	}
	return strings.Join(words, " ")
}

// normalizeASCII is Normalize's word step for folded ASCII text (letters a
// to z): the runs of letters and digits, each mapped (numberWord,
// americanise), joined by single spaces. Text already in that form, as
// most queries and phrases are, is returned as it is, with no allocation;
// otherwise the words are written into one buffer (mapping never
// lengthens a word, so len(s) bytes suffice).
func normalizeASCII(s string) string {
	same := true
	n := 0 // words seen
	for i := 0; i < len(s) && same; {
		if !isAlnum(s[i]) {
			// a separator other than one space between two words
			if s[i] != ' ' || n == 0 || i+1 >= len(s) || !isAlnum(s[i+1]) {
				same = false
			}
			i++
			continue
		}
		j := i
		for j < len(s) && isAlnum(s[j]) {
			j++
		}
		if w := s[i:j]; mapWord(w) != w {
			same = false
		}
		n++
		i = j
	}
	if same {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if !isAlnum(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isAlnum(s[j]) {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(mapWord(s[i:j]))
		i = j
	}
	return b.String()
}

func isAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// mapWord is Normalize's mapping of one word: a number word to its digits,
// else americanise.
func mapWord(w string) string {
	if len(w) >= 3 && len(w) <= 5 { // the lengths of numberWords' keys
		if d, ok := numberWords[w]; ok {
			return d
		}
	}
	return americanise(w)
}

// numberWords are spelled-out small numbers, mapped to digits so that
// "one-vessel disease" and "1-vessel disease" meet.
var numberWords = map[string]string{
	"one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
	"six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
}

// americanise maps the British digraphs ae/oe to e inside a word (anaemia,
// oesophagus, coeliac, dyspnoea). Short words and a digraph at the word's end
// (toe) are left alone, and so is "aer" (aerobic).
func americanise(w string) string {
	if len(w) < 5 || (!strings.Contains(w, "ae") && !strings.Contains(w, "oe")) {
		return w
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if i+2 < len(w) && (w[i] == 'a' || w[i] == 'o') && w[i+1] == 'e' && !strings.HasPrefix(w[i:], "aer") {
			b.WriteByte('e')
			i++
			continue
		}
		b.WriteByte(w[i])
	}
	return b.String()
}

// Tokens splits a normalised text into words.
func Tokens(s string) []string { return strings.Fields(Normalize(s)) }

// StopWords are function words with no bearing on which concept a phrase
// names. The list is short on purpose: before/after, above/below and
// more/less change clinical meaning and stay.
var StopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true,
	"by": true, "for": true, "from": true, "in": true, "is": true, "it": true, "of": true,
	"on": true, "or": true, "that": true, "the": true, "their": true, "this": true,
	"to": true, "was": true, "were": true, "with": true, "has": true, "had": true,
	"have": true, "its": true, "who": true, "which": true, "into": true,
}

// Pronouns are the personal and possessive pronouns: a closed class of
// English words, so never an abbreviation even where their letters spell
// the initials of an indexed phrase ("her" is no "high event risk", "his"
// no "history of ..."). StopWords keeps its own short list for the
// full-text analyzer.
var Pronouns = map[string]bool{
	"i": true, "me": true, "my": true, "mine": true, "we": true, "us": true, "our": true, "ours": true,
	"you": true, "your": true, "yours": true, "he": true, "him": true, "his": true, "she": true,
	"her": true, "hers": true, "it": true, "its": true, "they": true, "them": true, "their": true,
	"theirs": true, "himself": true, "herself": true, "themselves": true, "myself": true, "yourself": true,
}

// StopWordList returns StopWords as a slice, in no particular order (for
// analyzers that take a list).
func StopWordList() []string {
	out := make([]string, 0, len(StopWords))
	for w := range StopWords {
		out = append(out, w)
	}
	return out
}

// GenericWords are words that occur in many unrelated concept names and
// name no concept on their own: "rate" (heart rate, glomerular filtration
// rate), "risk" (bleeding, surgical risk), "disease", "patient", and
// qualifiers such as "severe" or "chronic". A full-text hit that shares only
// one of them with a finding is dropped by the guard, and the built-in
// embedder down-weights them. Organ and vessel words (heart, coronary,
// artery) are not listed: "cardiac failure" → "heart failure" is a real
// match, and their low IDF already keeps them from deciding alone.
var GenericWords = map[string]bool{
	"rate": true, "risk": true, "disease": true, "diseases": true, "disorder": true,
	"patient": true, "patients": true, "individual": true, "individuals": true,
	"person": true, "people": true, "history": true, "level": true, "levels": true,
	"test": true, "tests": true, "testing": true, "score": true, "therapy": true,
	"treatment": true, "condition": true, "conditions": true, "finding": true,
	"findings": true, "value": true, "status": true, "sign": true, "signs": true,
	"symptom": true, "symptoms": true, "factor": true, "factors": true, "type": true,
	"class": true, "use": true, "presence": true, "evidence": true, "clinical": true,
	"result": true, "results": true, "other": true, "any": true, "known": true,
	"new": true, "prior": true, "previous": true, "severe": true, "chronic": true,
	"acute": true, "suspected": true, "possible": true, "high": true, "low": true,
	"moderate": true, "significant": true, "increased": true, "reduced": true,
	"normal": true, "abnormal": true, "documented": true, "established": true,
	"stable": true, "onset": true, "available": true, "availability": true,
}
