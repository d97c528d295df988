package consistency

import (
	"reflect"
	"testing"
)

type analyzeAtCase struct {
	Text    string `json:"text"`
	Mention string `json:"mention"`
	Phrase  string `json:"phrase"`
	Hypo    bool   `json:"hypothetical"`
	// Unlikely: a probable negation reaches the phrase.
	Unlikely bool `json:"unlikely"`
	// Negated, when given: a negation cue reaches the phrase.
	Negated *bool    `json:"negated"`
	Cues    []string `json:"cues"`
	Note    string   `json:"note"`
	// CueIn: a hypothetical or probable-negation cue starts among the
	// mention's words (HypotheticalIn, UnlikelyIn), judged at the phrase
	// or not.
	CueIn bool `json:"cue_in_mention"`
}

// TestAnalyzeAt: cues judged at a phrase's words inside the mention
// (testdata/analyze_at_cases.jsonl).
func TestAnalyzeAt(t *testing.T) {
	for _, c := range readJSONL[analyzeAtCase](t, "testdata/analyze_at_cases.jsonl") {
		t.Run(c.Phrase+" in "+c.Mention, func(t *testing.T) {
			got := NewText(c.Text).AnalyzeAt(c.Mention, c.Phrase)
			if !got.Found {
				t.Fatalf("AnalyzeAt(%q, %q): mention not found in %q", c.Mention, c.Phrase, c.Text)
			}
			tx := NewText(c.Text)
			if in := tx.HypotheticalIn(c.Mention) || tx.UnlikelyIn(c.Mention); in != c.CueIn {
				t.Errorf("HypotheticalIn || UnlikelyIn(%q) in %q = %v, want %v", c.Mention, c.Text, in, c.CueIn)
			}
			want := c.Cues
			if want == nil {
				want = []string{}
			}
			if c.Negated != nil && got.Negated != *c.Negated {
				t.Errorf("AnalyzeAt(%q, %q) in %q: negated %v (cues %q), want %v", c.Mention, c.Phrase, c.Text, got.Negated, got.Cues, *c.Negated)
			}
			if c.Negated != nil {
				return // a negation case lists no hypothetical cues
			}
			if got.Hypothetical != c.Hypo || got.Unlikely != c.Unlikely || !reflect.DeepEqual(got.Cues, want) {
				t.Errorf("AnalyzeAt(%q, %q) in %q: hypothetical %v unlikely %v cues %q, want %v %v %q", c.Mention, c.Phrase, c.Text,
					got.Hypothetical, got.Unlikely, got.Cues, c.Hypo, c.Unlikely, want)
			}
		})
	}
}

// TestUnlikelyCue: the cue kind is read from the cue files, so a cue
// moved between them changes the answer.
func TestUnlikelyCue(t *testing.T) {
	for cue, want := range map[string]bool{"unlikely": true, "is unlikely": true, "not unlikely": false, "risk of": false, "no such cue": false} {
		if got := UnlikelyCue(cue); got != want {
			t.Errorf("UnlikelyCue(%q) = %v, want %v", cue, got, want)
		}
	}
}
