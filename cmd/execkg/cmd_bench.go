package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/vignettes"
)

func init() {
	register(command{name: "bench", summary: "speed of the pipeline on the shipped vignettes: median latency per case, cases/s on 1 and N workers, build time", run: runBench})
}

// runBench measures what a batch user feels: compile time, then the 100
// vignettes answered repeatedly, one worker and then N, reported as medians
// over rounds and as ratios measured in the same run.
func runBench(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var ef engineFlags
	ef.register(fl)
	rounds := fl.Int("rounds", 5, "passes over the vignettes per setting")
	workers := fl.Int("workers", runtime.NumCPU(), "workers of the concurrent setting")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg bench [flags]\n\nSpeed of the pipeline on the shipped vignettes: median latency per case,\ncases/s on 1 and N workers, build time."); !ok {
		return code
	}
	vs, err := vignettes.Default()
	if err != nil {
		fmt.Fprintln(stderr, "execkg bench:", err)
		return 1
	}
	ctx := context.Background()
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
	fmt.Fprintf(stdout, "settings: %s\n", prog.Settings())
	fmt.Fprintf(stdout, "compile (pack → graph store, grounding indexes): %v, heap held %.1f MiB\n", build.Round(time.Millisecond), float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))
	fmt.Fprintf(stdout, "latency per case over %d answers: median %v, p90 %v, max %v\n", len(lat), p(0.5).Round(10*time.Microsecond), p(0.9).Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond))
	fmt.Fprintf(stdout, "throughput, median of %d rounds: 1 worker %.1f cases/s; %d workers %.1f cases/s (ratio %.2f)\n", *rounds, ms, *workers, mm, mm/ms)
	return 0
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
