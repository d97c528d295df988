package engine

import (
	"regexp"
	"strings"
)

// Antithrombotic regimens (DAPT, ticagrelor-based DAPT, combination
// antithrombotic therapy) are pack data now: composites over the drug
// concepts in meta/hierarchy.json, drug and brand names in the lexicon.
// What stays here is generic: a sentence that stops, plans or refuses a
// drug does not state that it is taken.

// notTakenRE: cues of a sentence that stops, ends, plans, considers or
// refuses a drug rather than stating it is being taken.
var notTakenRE = regexp.MustCompile(`(?i)\b(?:stop(?:ped|s)?|discontinu\w*|complet\w*|ceased|held|withheld|withdrawn|previously|formerly|prior|was on|until|to start|will|plan\w*|consider\w*|recommend\w*|should|would|candidate|intoleran\w*|allerg\w*|contraindicat\w*|declined|refused|not tolerated|avoid\w*|switch\w*|instead)\b`)

// sentenceAround: the sentence (or semicolon clause) around offset i
// matches re.
func sentenceAround(text string, i int, re *regexp.Regexp) bool {
	lo := strings.LastIndexAny(text[:i], ".;") + 1
	hi := strings.IndexAny(text[i:], ".;")
	if hi < 0 {
		hi = len(text)
	} else {
		hi += i
	}
	return re.MatchString(text[lo:hi])
}
