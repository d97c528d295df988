package consistency

import (
	"reflect"
	"testing"
)

type analyzeAtCase struct {
	Text    string   `json:"text"`
	Mention string   `json:"mention"`
	Phrase  string   `json:"phrase"`
	Hypo    bool     `json:"hypothetical"`
	Cues    []string `json:"cues"`
	Note    string   `json:"note"`
	// CueIn: a hypothetical cue starts among the mention's words
	// (HypotheticalIn), judged at the phrase or not.
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
			if in := NewText(c.Text).HypotheticalIn(c.Mention); in != c.CueIn {
				t.Errorf("HypotheticalIn(%q) in %q = %v, want %v", c.Mention, c.Text, in, c.CueIn)
			}
			want := c.Cues
			if want == nil {
				want = []string{}
			}
			if got.Hypothetical != c.Hypo || !reflect.DeepEqual(got.Cues, want) {
				t.Errorf("AnalyzeAt(%q, %q) in %q: hypothetical %v cues %q, want %v %q", c.Mention, c.Phrase, c.Text, got.Hypothetical, got.Cues, c.Hypo, want)
			}
		})
	}
}
