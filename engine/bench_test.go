package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/vignettes"
	"github.com/executablekg/execkg/vignettes/documents"
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

var (
	batchOnce sync.Once
	batchProg *engine.Program
	batchErr  error
)

// batchProgram is the program `execkg batch` runs by default: built-in
// pack and lexicon, no trace.
func batchProgram(b *testing.B) *engine.Program {
	batchOnce.Do(func() {
		pack, err := packs.Default()
		if err != nil {
			batchErr = err
			return
		}
		lex, err := lexicon.Load("")
		if err != nil {
			batchErr = err
			return
		}
		batchProg, batchErr = engine.New(context.Background(), pack, engine.WithLexicon(lex))
	})
	if batchErr != nil {
		b.Fatal(batchErr)
	}
	return batchProg
}

// BenchmarkAskLines: cost against document length, on excerpts of 1, 10,
// 40 and 200 lines cut from the dev documents (documents.Excerpts).
// Linear cost keeps ms/KB flat (or falling, as the fixed cost per case
// spreads) from 10 to 200 lines. Run with -cpu 1 for one core.
func BenchmarkAskLines(b *testing.B) {
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		b.Fatal(err)
	}
	p := batchProgram(b)
	ctx := context.Background()
	for _, lines := range []int{1, 10, 40, 200} {
		ex := documents.Excerpts(docs, lines, 24)
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			b.ReportAllocs()
			bytes := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := ex[i%len(ex)]
				bytes += len(t)
				if _, err := p.Ask(ctx, "bench", t); err != nil {
					b.Fatal(err)
				}
			}
			ms := b.Elapsed().Seconds() * 1000
			b.ReportMetric(ms/(float64(bytes)/1024), "ms/KB")
			b.ReportMetric(ms/float64(b.N), "ms/case")
		})
	}
}

// BenchmarkAskDocuments: whole dev documents (5 to 40 lines), one after
// another, on one core (-cpu 1).
func BenchmarkAskDocuments(b *testing.B) {
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		b.Fatal(err)
	}
	p := batchProgram(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := docs[i%len(docs)]
		if _, err := p.Ask(ctx, d.DocID, d.Text); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkAskShortParallel: short-case throughput, the shipped vignettes
// answered by GOMAXPROCS workers (-cpu 2 for the 2-core figure).
func BenchmarkAskShortParallel(b *testing.B) {
	vs, err := vignettes.Default()
	if err != nil {
		b.Fatal(err)
	}
	p := batchProgram(b)
	ctx := context.Background()
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			v := vs[int(next.Add(1))%len(vs)]
			if _, err := p.Ask(ctx, v.CaseID, v.Question); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}
