package engine

import (
	"context"
	"strings"
	"testing"
)

// An antonym phrase states the concept absent; negated, present.
func TestAntonymEvidence(t *testing.T) {
	p, err := NewDefault(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for _, tc := range []struct {
		text, concept string
		present       bool
	}{
		{"CCS with 3VD, LVEF 30%; surgical candidate.", "ineligibility for cardiac surgery", false},
		{"CCS with 3VD, LVEF 30%; not a surgical candidate.", "ineligibility for cardiac surgery", true},
		{"CCS, one-vessel disease sparing the proximal LAD.", "proximal left anterior descending coronary artery stenosis", false},
		{"CCS after PCI, low bleeding risk.", "high bleeding risk", false},
	} {
		res, err := p.Ask(context.Background(), "t", tc.text)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range res.Evidence {
			if e.Concept == tc.concept {
				if e.Present != tc.present {
					t.Errorf("%q: %s present=%v (via %q), want %v", tc.text, tc.concept, e.Present, e.Via, tc.present)
				}
				if strings.HasPrefix(e.Via, ViaAntonym) {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("%q: no antonym evidence for %s: %+v", tc.text, tc.concept, res.Evidence)
		}
	}
}
