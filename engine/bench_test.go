package engine_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/grounding"
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
// The cpu-ms metrics of the benchmarks below are process CPU time per
// case (garbage collection included): on a shared machine they move far
// less than the wall-time figures, so compare runs by them.
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

// lazyProgram builds a benchmark's program once per test binary.
type lazyProgram struct {
	once sync.Once
	prog *engine.Program
	err  error
	opts []engine.Option
}

func (l *lazyProgram) get(b *testing.B) *engine.Program {
	l.once.Do(func() {
		pack, err := packs.Default()
		if err != nil {
			l.err = err
			return
		}
		lex, err := lexicon.Load("")
		if err != nil {
			l.err = err
			return
		}
		l.prog, l.err = engine.New(context.Background(), pack, append([]engine.Option{engine.WithLexicon(lex)}, l.opts...)...)
	})
	if l.err != nil {
		b.Fatal(l.err)
	}
	return l.prog
}

var (
	batchProg = &lazyProgram{}
	coldProg  = &lazyProgram{opts: []engine.Option{engine.WithGroundingOptions(grounding.WithCacheSize(0))}}
)

// batchProgram is the program `execkg batch` runs by default: built-in
// pack and lexicon, no trace. Its grounding cache warms as a benchmark
// repeats its inputs, as it does over a batch whose findings repeat.
func batchProgram(b *testing.B) *engine.Program { return batchProg.get(b) }

// groundings are the two settings each throughput benchmark runs under:
// the batch program (grounding cache on, warm after the first pass over
// the inputs) and the same program without the cache, where every finding
// is grounded afresh as in a batch of all-new wordings.
var groundings = []struct {
	name string
	prog *lazyProgram
}{{"grounding=cached", batchProg}, {"grounding=uncached", coldProg}}

// BenchmarkAskLines: cost against document length, on excerpts of 1, 10,
// 40 and 200 lines cut from the dev documents (documents.Excerpts).
// Linear cost keeps ms/KB flat (or falling, as the fixed cost per case
// spreads) from 10 to 200 lines. Run with -cpu 1 for one core.
func BenchmarkAskLines(b *testing.B) {
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, g := range groundings {
		for _, lines := range []int{1, 10, 40, 200} {
			ex := documents.Excerpts(docs, lines, 24)
			b.Run(fmt.Sprintf("%s/lines=%d", g.name, lines), func(b *testing.B) {
				p := g.prog.get(b)
				b.ReportAllocs()
				bytes := 0
				b.ResetTimer()
				cpu0 := processCPU()
				for i := 0; i < b.N; i++ {
					t := ex[i%len(ex)]
					bytes += len(t)
					if _, err := p.Ask(ctx, "bench", t); err != nil {
						b.Fatal(err)
					}
				}
				ms := b.Elapsed().Seconds() * 1000
				cpu := float64(processCPU()-cpu0) / 1e6
				b.ReportMetric(ms/(float64(bytes)/1024), "ms/KB")
				b.ReportMetric(ms/float64(b.N), "ms/case")
				b.ReportMetric(cpu/(float64(bytes)/1024), "cpu-ms/KB")
				b.ReportMetric(cpu/float64(b.N), "cpu-ms/case")
			})
		}
	}
}

// BenchmarkAskDocuments: whole dev documents (5 to 40 lines), one after
// another, on one core (-cpu 1).
func BenchmarkAskDocuments(b *testing.B) {
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, g := range groundings {
		b.Run(g.name, func(b *testing.B) {
			p := g.prog.get(b)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				d := docs[i%len(docs)]
				if _, err := p.Ask(ctx, d.DocID, d.Text); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
			b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/doc")
		})
	}
}

// BenchmarkAskDocumentsParallel: whole dev documents answered by
// GOMAXPROCS workers (-cpu 2 for the 2-core figure).
func BenchmarkAskDocumentsParallel(b *testing.B) {
	docs, err := documents.Load(documents.Dev)
	if err != nil {
		b.Fatal(err)
	}
	cases := make([][2]string, len(docs))
	for i, d := range docs {
		cases[i] = [2]string{d.DocID, d.Text}
	}
	benchParallel(b, cases, "doc")
}

// BenchmarkAskShortParallel: short-case throughput, the shipped vignettes
// answered by GOMAXPROCS workers (-cpu 2 for the 2-core figure).
func BenchmarkAskShortParallel(b *testing.B) {
	vs, err := vignettes.Default()
	if err != nil {
		b.Fatal(err)
	}
	cases := make([][2]string, len(vs))
	for i, v := range vs {
		cases[i] = [2]string{v.CaseID, v.Question}
	}
	benchParallel(b, cases, "case")
}

// benchParallel answers (id, text) cases round-robin on GOMAXPROCS
// workers, cached and uncached grounding, reporting throughput and
// process CPU per case under the unit's name.
func benchParallel(b *testing.B, cases [][2]string, unit string) {
	ctx := context.Background()
	for _, g := range groundings {
		b.Run(g.name, func(b *testing.B) {
			p := g.prog.get(b)
			var next atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					c := cases[int(next.Add(1))%len(cases)]
					if _, err := p.Ask(ctx, c[0], c[1]); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), unit+"s/s")
			b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/"+unit)
		})
	}
}
