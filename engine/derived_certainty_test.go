package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/patient"
)

// A broader concept drawn (is-a) from a suspected fact is suspected in the
// patient model too; from a confirmed one it stays confirmed. (Only is-a
// derivations are judged: a definition may read a member's doubt as its
// own wording, as angina pectoris reads a suspected vasospastic angina.)
func TestIsAFromSuspectedFactIsSuspected(t *testing.T) {
	p := program(t)
	certainty := func(text, concept string) []patient.Certainty {
		res, err := p.Ask(context.Background(), "c", text)
		require.NoError(t, err)
		var out []patient.Certainty
		for _, f := range res.Patient.Facts {
			if f.Reader == "derive" && f.Concept == concept && f.DerivedBy == eval.ReaderIsA {
				out = append(out, f.Certainty)
			}
		}
		require.NotEmpty(t, out, "%q derives %s", text, concept)
		return out
	}
	for _, c := range certainty("?Vasospastic angina - early morning rest pain.", "angina pectoris") {
		assert.Equal(t, patient.Suspected, c)
	}
	for _, c := range certainty("Vasospastic angina on provocation testing, early morning rest pain.", "angina pectoris") {
		assert.NotEqual(t, patient.Suspected, c)
	}
}
