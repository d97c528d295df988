package extract

import (
	"strings"
	"unicode"

	"github.com/executablekg/execkg/rules"
)

// Cues matches a pack's status words (rules.Sections.Cues) in text, word by
// word, ignoring case: "*" ending a cue word matches any word it starts,
// "#" matches a number, a leading "^" ties the cue to the text's start.
type Cues struct {
	phrases []cuePhrase
}

type cuePhrase struct {
	text  string
	words []string
	start bool
}

// NewCues compiles cue phrases.
func NewCues(list []string) Cues {
	var c Cues
	for _, p := range list {
		start := strings.HasPrefix(p, "^")
		if w := rules.CueWords(strings.TrimPrefix(p, "^")); len(w) > 0 {
			c.phrases = append(c.phrases, cuePhrase{text: strings.TrimPrefix(p, "^"), words: w, start: start})
		}
	}
	return c
}

// Empty reports whether there is no cue to match.
func (c Cues) Empty() bool { return len(c.phrases) == 0 }

// Find returns the first cue the text states, or "".
func (c Cues) Find(text string) string {
	if len(c.phrases) == 0 {
		return ""
	}
	return c.FindWords(Words(text))
}

// FindWords is Find over text already split by Words.
func (c Cues) FindWords(words []string) string {
	for _, p := range c.phrases {
		last := len(words) - len(p.words)
		if p.start && last > 0 {
			last = 0
		}
		for i := 0; i <= last; i++ {
			if matchAt(words[i:], p.words) {
				return p.text
			}
		}
	}
	return ""
}

func matchAt(words, cue []string) bool {
	for j, w := range cue {
		t := words[j]
		switch {
		case w == "#":
			if !isNumber(t) {
				return false
			}
		case strings.HasSuffix(w, "*"):
			if !strings.HasPrefix(t, w[:len(w)-1]) {
				return false
			}
		case t != w:
			return false
		}
	}
	return true
}

func isNumber(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

// Words splits text into lower-case words as cues are split.
func Words(text string) []string { return rules.CueWords(text) }
