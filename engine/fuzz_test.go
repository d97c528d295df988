package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/grounding"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzAsk: Program.Ask never panics, and whatever it answers is valid
// UTF-8 with each finding located in the (repaired) question. Seeds are in
// testdata/fuzz/FuzzAsk.
func FuzzAsk(f *testing.F) {
	f.Add("Patient with chronic coronary syndrome and an LDL-C of 2.1 mmol/L on maximum tolerated statin therapy.")
	p := program(f)
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return // time grows faster than length; sizes are bounded by WithMaxBytes
		}
		res, err := p.Ask(context.Background(), "fuzz", text)
		if err != nil {
			return
		}
		if !utf8.ValidString(res.Question) {
			t.Fatalf("question not repaired: %q", res.Question)
		}
		if res.PredictedRowIDs == nil {
			t.Fatal("nil predicted_row_ids")
		}
		for _, fd := range res.Findings {
			if fd.Start >= 0 && res.Question[fd.Start:fd.End] != fd.Text {
				t.Fatalf("finding %q is not at [%d,%d)", fd.Text, fd.Start, fd.End)
			}
		}
	})
}

// Invalid UTF-8 is repaired at the boundary, and the repair is traced.
func TestAskRepairsInvalidUTF8(t *testing.T) {
	p := program(t)
	res, err := p.Ask(context.Background(), "bad", "\xc1\x8f\xf8 And ")
	require.NoError(t, err)
	assert.True(t, utf8.ValidString(res.Question))
	require.NotNil(t, res.Trace)
	require.Len(t, res.Trace.Repairs, 1)
	assert.Contains(t, res.Trace.Repairs[0], "3 byte(s)")

	res, err = p.Ask(context.Background(), "ok", "Patient with diabetes.")
	require.NoError(t, err)
	assert.Empty(t, res.Trace.Repairs, "valid text is not repaired")
}

// A question over WithMaxBytes is refused with a LimitError naming the
// limit; a done context stops the case with one naming the deadline.
func TestAskLimits(t *testing.T) {
	p := program(t)
	small, err := engine.New(context.Background(), p.Pack(), engine.WithMaxBytes(64))
	require.NoError(t, err)
	defer small.Close()
	_, err = small.Ask(context.Background(), "big", strings.Repeat("Patient with diabetes. ", 10))
	var le *engine.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "max-bytes", le.Limit)
	assert.Contains(t, err.Error(), "230 bytes, the limit is 64")

	// Without the grounding cache, so the repeated sentences cost their
	// full work each and outlast the deadline (2000 sentences: some
	// hundred milliseconds, whatever the machine).
	uncached, err := engine.New(context.Background(), p.Pack(), engine.WithGroundingOptions(grounding.WithCacheSize(0)))
	require.NoError(t, err)
	defer uncached.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err = uncached.Ask(ctx, "slow", strings.Repeat("Patient with chronic coronary syndrome, an LDL-C of 2.1 mmol/L and no diabetes. ", 2000))
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "deadline", le.Limit)
	assert.True(t, errors.Is(err, context.DeadlineExceeded))
	assert.Less(t, time.Since(t0), 2*time.Second, "the deadline stops the case within one finding's work")
}
