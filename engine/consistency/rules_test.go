package consistency

import (
	"sort"
	"testing"
)

// ruleCase is one row of testdata/context_rules.jsonl: a rule of the cue
// data (list scope, backward cues, governors, …) and what it must give.
// A guard row shows the rule held back where it must not reach ("no
// diabetes, obesity and multivessel CAD" asserts obesity).
type ruleCase struct {
	Rule         string `json:"rule"`
	Guard        bool   `json:"guard"`
	Text         string `json:"text"`
	Target       string `json:"target"`
	Negated      bool   `json:"negated"`
	Uncertain    bool   `json:"uncertain"`
	Hypothetical bool   `json:"hypothetical"`
	Experiencer  string `json:"experiencer"`
}

func TestContextRules(t *testing.T) {
	cases := readJSONL[ruleCase](t, "testdata/context_rules.jsonl")
	fires, guards := map[string]int{}, map[string]int{}
	for _, c := range cases {
		name := c.Rule + ": " + c.Target + " in " + c.Text
		t.Run(name, func(t *testing.T) {
			got := Analyze(c.Text, c.Target)
			if !got.Found {
				t.Fatalf("target %q not found in %q", c.Target, c.Text)
			}
			exp := "patient"
			if got.Other {
				exp = "other"
			}
			if got.Negated != c.Negated || got.Uncertain != c.Uncertain || got.Hypothetical != c.Hypothetical || exp != c.Experiencer {
				t.Errorf("got negated=%v uncertain=%v hypothetical=%v experiencer=%s (cues %q, clause %q)\nwant negated=%v uncertain=%v hypothetical=%v experiencer=%s",
					got.Negated, got.Uncertain, got.Hypothetical, exp, got.Cues, got.Clause, c.Negated, c.Uncertain, c.Hypothetical, c.Experiencer)
			}
		})
		if c.Guard {
			guards[c.Rule]++
		} else {
			fires[c.Rule]++
		}
	}
	// Every rule is shown both firing and held back, except those
	// whose point is to hold back (verb scope keeps a cue off the object).
	var rules []string
	for r := range fires {
		rules = append(rules, r)
	}
	for r := range guards {
		if fires[r] == 0 {
			rules = append(rules, r)
		}
	}
	sort.Strings(rules)
	for _, r := range rules {
		if fires[r] == 0 || guards[r] == 0 {
			t.Errorf("rule %s: %d firing and %d guard rows; give it both", r, fires[r], guards[r])
		}
	}
}
