package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A date the splitter cut off at "with" dates the event before it, and
// only then.
func TestCutDateEvidence(t *testing.T) {
	prog := program(t)
	const recent = "recent percutaneous coronary intervention"
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"CCS. Complex LM bifurcation PCI with two-stent technique 6 weeks ago; on DAPT.", true},
		{"CCS. PCI to LAD with DES 2 weeks ago.", true},
		{"CCS. PCI to LAD in 2019 with two-stent technique 2 weeks ago.", false},
		{"CCS. No PCI with two-stent technique 6 weeks ago.", false},
		{"CCS. PCI to LAD and CABG 6 weeks ago.", false},
		{"CCS. PCI with two-stent technique 6 months ago.", false},
		{"CCS. Plan: PCI with two-stent technique 2 weeks ago.", false},
	} {
		res, err := prog.Ask(context.Background(), "t", tc.text)
		require.NoError(t, err)
		got := false
		for _, e := range res.Evidence {
			if strings.HasPrefix(e.Via, "recency: ") && e.Concept == recent && e.Present {
				got = true
			}
		}
		require.Equalf(t, tc.want, got, "%q", tc.text)
	}
}
