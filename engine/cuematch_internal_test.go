package engine

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/executablekg/execkg/rules"
)

// TestCueMatcherAgreesWithRegexp: the quick test of cueMatcher only skips
// texts the regexp cannot match, so every answer is the regexp's, in any
// case, across a "*" cue, in non-ASCII text (where case folding is
// Unicode's: the test is off) and for a cue list with a non-ASCII cue.
func TestCueMatcherAgreesWithRegexp(t *testing.T) {
	lists := [][]string{
		{"zorble", "quan*", "flim flam"},
		{"ab", "ſnark"}, // a non-ASCII cue: the quick test is off
	}
	texts := []string{
		"", "nothing here", "ZORBLE now", "the Quantic wave", "a zorbles day",
		"flim  flam", "Flim Flam!", "xzorble", "quan", "sub-quanta", "ſnark", "SNARK",
		"zorble and quanta and flim flam", "über zorble", "ab", "an ab-like", "K-zorble",
		"long " + string(make([]byte, 300)) + " zorble", "zorble" + string(make([]byte, 300)), "quantum leap", "Flim flam, zorble",
	}
	for _, l := range lists {
		m := newCueMatcher(l)
		re := regexp.MustCompile(`(?i)\b(?:` + rules.WordsPattern(l) + `)\b`)
		for _, s := range texts {
			if got, want := m.MatchString(s), re.MatchString(s); got != want {
				t.Errorf("%v MatchString(%q) = %v, regexp %v", l, s, got, want)
			}
			if got, want := m.FindStringIndex(s), re.FindStringIndex(s); !reflect.DeepEqual(got, want) {
				t.Errorf("%v FindStringIndex(%q) = %v, regexp %v", l, s, got, want)
			}
			if got, want := m.FindAllStringIndex(s, -1), re.FindAllStringIndex(s, -1); !reflect.DeepEqual(got, want) {
				t.Errorf("%v FindAllStringIndex(%q) = %v, regexp %v", l, s, got, want)
			}
			if got, want := m.FindAllString(s, -1), re.FindAllString(s, -1); !reflect.DeepEqual(got, want) {
				t.Errorf("%v FindAllString(%q) = %v, regexp %v", l, s, got, want)
			}
			loc := re.FindStringIndex(s)
			if got, want := m.OpensString(s), loc != nil && loc[0] == 0; got != want {
				t.Errorf("%v OpensString(%q) = %v, regexp's leftmost match at 0 %v", l, s, got, want)
			}
		}
	}
	if m := newCueMatcher([]string{"ab", "ſnark"}); m.lits != nil {
		t.Errorf("a non-ASCII cue must turn the quick test off")
	}
}
