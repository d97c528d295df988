package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/vignettes"
	"github.com/executablekg/execkg/vignettes/documents"
)

func init() {
	register(command{name: "bench", summary: "speed of the pipeline: vignettes (median latency, cases/s on 1 and N workers, build time) and documents (ms per KB by length, documents/s)", run: runBench})
}

// runBench measures what a batch user feels: compile time, then the 100
// vignettes answered repeatedly, one worker and then N, reported as medians
// over rounds and as ratios measured in the same run. Later rounds find
// the findings of earlier ones in the grounding cache, as a batch whose
// findings repeat does; --grounding-cache 0 measures every finding
// grounded afresh.
func runBench(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var ef engineFlags
	ef.register(fl)
	rounds := fl.Int("rounds", 5, "passes over the vignettes per setting")
	workers := fl.Int("workers", runtime.NumCPU(), "workers of the concurrent setting")
	split := fl.String("documents", documents.Dev, "document benchmark split for the length and document figures, or none")
	excerpts := fl.Int("excerpts", 8, "excerpts per input length (1, 10, 40, 200 lines) cut from the documents")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg bench [flags]\n\nSpeed of the pipeline: median latency per case on the shipped vignettes,\ncases/s on 1 and N workers, build time, ms per KB for 1-, 10-, 40- and\n200-line inputs cut from the documents, and documents/s."); !ok {
		return code
	}
	vs, err := vignettes.Default()
	if err != nil {
		fmt.Fprintln(stderr, "execkg bench:", err)
		return 1
	}
	var docs []documents.Document
	if *split != "none" {
		if docs, err = documents.Load(*split); err != nil {
			fmt.Fprintln(stderr, "execkg bench:", err)
			return 1
		}
	}
	ctx := context.Background()
	if os.Getenv("GOGC") == "" {
		// The figures are what a batch costs, so bench collects as
		// execkg batch does.
		defer debug.SetGCPercent(debug.SetGCPercent(batchGCPercent))
	}
	t0 := time.Now()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	prog, err := ef.program(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "execkg bench:", err)
		return 1
	}
	defer prog.Close()
	defer ef.close()
	build := time.Since(t0)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)

	lat := make([]time.Duration, 0, len(vs)**rounds)
	var single, multi []float64
	for r := 0; r < *rounds; r++ {
		start := time.Now()
		for _, v := range vs {
			t := time.Now()
			if _, err := prog.Ask(ctx, v.CaseID, v.Question); err != nil {
				fmt.Fprintln(stderr, "execkg bench:", err)
				return 1
			}
			lat = append(lat, time.Since(t))
		}
		single = append(single, float64(len(vs))/time.Since(start).Seconds())
		multi = append(multi, runParallel(ctx, prog, vs, *workers))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := func(q float64) time.Duration { return lat[int(q*float64(len(lat)-1))] }
	ms, mm := median(single), median(multi)
	fmt.Fprintf(stdout, "settings: %s grounding_cache=%d\n", prog.Settings(), ef.groundCache)
	fmt.Fprintf(stdout, "compile (pack → graph store, grounding indexes): %v, heap held %.1f MiB\n", build.Round(time.Millisecond), float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))
	fmt.Fprintf(stdout, "latency per case over %d answers: median %v, p90 %v, max %v\n", len(lat), p(0.5).Round(10*time.Microsecond), p(0.9).Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond))
	fmt.Fprintf(stdout, "throughput, median of %d rounds: 1 worker %.1f cases/s; %d workers %.1f cases/s (ratio %.2f); first round, 1 worker (grounding cache filling): %.1f cases/s\n", *rounds, ms, *workers, mm, mm/ms, single[0])
	if docs != nil {
		if err := benchDocuments(ctx, stdout, prog, *split, docs, *rounds, *workers, *excerpts); err != nil {
			fmt.Fprintln(stderr, "execkg bench:", err)
			return 1
		}
	}
	return 0
}

// benchLengths are the input lengths, in lines, of the length figures.
var benchLengths = []int{1, 10, 40, 200}

// benchDocuments reports cost against document length, one worker: for
// excerpts of 1, 10, 40 and 200 lines cut from the documents, the median
// latency and the median over rounds of ms per KB, with each length's ms
// per KB as a ratio to the 10-line figure (linear cost keeps it near 1 or
// below as the fixed cost per case spreads; it grows when cost grows faster
// than length); then whole documents per second on 1 and N workers.
func benchDocuments(ctx context.Context, stdout io.Writer, prog *engine.Program, split string, docs []documents.Document, rounds, workers, n int) error {
	type row struct {
		lines, inputs int
		kb            float64
		lat           time.Duration
		msPerKB       float64
	}
	var rows []row
	for _, lines := range benchLengths {
		ex := documents.Excerpts(docs, lines, n)
		if len(ex) == 0 {
			continue
		}
		r := row{lines: lines, inputs: len(ex)}
		bytes := 0
		for _, t := range ex {
			bytes += len(t)
		}
		r.kb = float64(bytes) / 1024 / float64(len(ex))
		var lat []time.Duration
		var perKB []float64
		for k := 0; k < rounds; k++ {
			start := time.Now()
			for _, t := range ex {
				t0 := time.Now()
				if _, err := prog.Ask(ctx, fmt.Sprintf("bench-%d-lines", lines), t); err != nil {
					return fmt.Errorf("%d-line excerpt: %w", lines, err)
				}
				lat = append(lat, time.Since(t0))
			}
			perKB = append(perKB, time.Since(start).Seconds()*1000/(float64(bytes)/1024))
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		r.lat, r.msPerKB = lat[len(lat)/2], median(perKB)
		rows = append(rows, r)
	}
	base := 0.0
	for _, r := range rows {
		if r.lines == 10 {
			base = r.msPerKB
		}
	}
	fmt.Fprintf(stdout, "document length, 1 worker, %s excerpts, median of %d rounds:\n", split, rounds)
	for _, r := range rows {
		ratio := ""
		if base > 0 {
			ratio = fmt.Sprintf(", ratio to 10 lines %.2f", r.msPerKB/base)
		}
		fmt.Fprintf(stdout, "  %3d lines (%d inputs, %.2f KB each): median %v per input, %.2f ms/KB%s\n",
			r.lines, r.inputs, r.kb, r.lat.Round(10*time.Microsecond), r.msPerKB, ratio)
	}
	cases := make([]vignettes.Vignette, len(docs))
	for i, d := range docs {
		cases[i] = vignettes.Vignette{CaseID: d.DocID, Question: d.Text}
	}
	var single, multi []float64
	for k := 0; k < rounds; k++ {
		start := time.Now()
		for _, c := range cases {
			if _, err := prog.Ask(ctx, c.CaseID, c.Question); err != nil {
				return fmt.Errorf("document %s: %w", c.CaseID, err)
			}
		}
		single = append(single, float64(len(cases))/time.Since(start).Seconds())
		multi = append(multi, runParallel(ctx, prog, cases, workers))
	}
	ms, mm := median(single), median(multi)
	fmt.Fprintf(stdout, "%s documents (%d), median of %d rounds: 1 worker %.1f documents/s (%.1f ms each); %d workers %.1f documents/s (ratio %.2f)\n",
		split, len(cases), rounds, ms, 1000/ms, workers, mm, mm/ms)
	return nil
}

func runParallel(ctx context.Context, prog *engine.Program, vs []vignettes.Vignette, workers int) float64 {
	start := time.Now()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				_, _ = prog.Ask(ctx, vs[i].CaseID, vs[i].Question)
			}
		}()
	}
	for i := range vs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return float64(len(vs)) / time.Since(start).Seconds()
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
