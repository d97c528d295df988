package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// A denied shared head distributes over an "or" list; a stated one does
// not.
func TestOrListDistributesNegatedHead(t *testing.T) {
	prog := program(t)
	const dhp = "contraindication to dihydropyridine calcium channel blocker"
	for _, tc := range []struct {
		text        string
		absent, any bool
	}{
		{"Angina on bisoprolol; no contraindication to beta-blocker or DHP CCB.", true, true},
		{"Angina on bisoprolol; contraindication to beta-blocker or DHP CCB.", false, false},
	} {
		res, err := prog.Ask(context.Background(), "t", tc.text)
		require.NoError(t, err)
		found, absent := false, false
		for _, e := range res.Evidence {
			if e.Concept == dhp {
				found = true
				absent = absent || !e.Present
			}
		}
		require.Equalf(t, tc.any, found, "%q", tc.text)
		require.Equalf(t, tc.absent, absent, "%q", tc.text)
	}
}
