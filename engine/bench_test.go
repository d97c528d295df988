package engine_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules/packs"
)

var benchCases = []string{
	"Patient with severe obesity with a BMI of 42 kg/m², severe renal failure, a pre-test likelihood of obstructive CAD of 35% and an eGFR of 24 mL/min/1.73 m².",
	"Patient with suspected chronic coronary syndrome, a pre-test likelihood of obstructive CAD of 65% and maximum tolerated statin therapy with ezetimibe.",
	"Patient with decompensated heart failure, fast irregular heart rate, 0.2 mV ST-segment depression on the resting ECG and a clinical likelihood of obstructive CAD of 90%.",
	"Patient with chronic coronary syndrome on maximum tolerated statin therapy with ezetimibe and an LDL-C of 85 mg/dL.",
}

// BenchmarkAsk: one case through steps (i)-(vi), deterministic pipeline.
// Run with -cpu 1 for the single-core figure: cases/s = 1e9 / ns/op.
func BenchmarkAsk(b *testing.B) {
	p := program(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Ask(ctx, "bench", benchCases[i%len(benchCases)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNew: compile the pack (graph store load, grounding indexes).
// Reports the heap the compiled program holds.
func BenchmarkNew(b *testing.B) {
	pack, err := packs.Default()
	if err != nil {
		b.Fatal(err)
	}
	lex, err := lexicon.Load("")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var held float64
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p, err := engine.New(context.Background(), pack, engine.WithLexicon(lex))
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		p.Close()
	}
	b.ReportMetric(held, "heap-MiB")
}
