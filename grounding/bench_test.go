package grounding

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/executablekg/execkg/grounding/fulltext"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules/packs"
)

// benchFindings are findings as the extraction step writes them (the
// reference README's worked examples and clinician phrasings).
var benchFindings = []string{
	"decompensated heart failure", "fast irregular heart rate", "ST-segment depression 0.2 mV",
	"clinical likelihood of obstructive CAD 90%", "severe obesity", "BMI of 42 kg/m²",
	"severe renal failure", "eGFR of 24 mL/min/1.73 m²", "suspected chronic coronary syndrome",
	"maximum tolerated statin therapy with ezetimibe", "LVEF of 37%", "rapid AF",
	"no history of myocardial infarction", "type 2 diabetes", "prior PCI with drug-eluting stent",
	"stable angina despite beta-blocker",
}

func packRecords(b testing.TB) []Record {
	pack, err := packs.Default()
	if err != nil {
		b.Fatal(err)
	}
	lex, err := lexicon.Load("")
	if err != nil {
		b.Fatal(err)
	}
	return Records(pack, lex, false)
}

func median(ds []time.Duration) float64 {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return float64(ds[len(ds)/2].Microseconds()) / 1000
}

// BenchmarkGround grounds findings against the shipped pack (embedded,
// builtin embedder) and reports the median latency per finding.
func BenchmarkGround(b *testing.B) {
	g, err := New(packRecords(b))
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	ctx := context.Background()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := g.Ground(ctx, benchFindings[i%len(benchFindings)]); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	b.ReportMetric(median(ds), "ms-median/finding")
}

// BenchmarkNew builds both indexes over the shipped pack (in memory,
// builtin embedder, no cache) and reports the median build time.
func BenchmarkNew(b *testing.B) {
	recs := packRecords(b)
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		g, err := New(recs)
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
		g.Close()
	}
	b.ReportMetric(median(ds), "ms-median/build")
}

// BenchmarkGroundFresh grounds every finding of testdata/findings.txt
// afresh (no anchors cache), as a batch of new wordings does, on the
// sorted full-text store and on Bleve's gtreap in one run: compare them by
// cpu-µs/finding (process CPU, which moves far less than wall time on a
// shared machine).
func BenchmarkGroundFresh(b *testing.B) {
	recs := packRecords(b)
	fs := corpusFindings(b)
	ctx := context.Background()
	for _, st := range []struct{ name, store string }{{"store=sorted", ""}, {"store=gtreap", fulltext.GtreapStore}} {
		b.Run(st.name, func(b *testing.B) {
			g, err := New(recs, WithCacheSize(0), WithFullTextStore(st.store))
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				if _, err := g.Ground(ctx, fs[i%len(fs)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/1e3/float64(b.N), "cpu-µs/finding")
		})
	}
}

// BenchmarkVectorSearch: the vector channel alone (sparse posting-list
// search of the built-in embedder's vectors) over the findings corpus,
// queries embedded beforehand.
func BenchmarkVectorSearch(b *testing.B) {
	g, err := New(packRecords(b), WithCacheSize(0))
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	qs, err := g.cfg.embedder.Embed(context.Background(), corpusFindings(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		if _, err := g.vec.Search(qs[i%len(qs)], g.cfg.k, g.cfg.threshold, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/1e3/float64(b.N), "cpu-µs/search")
}
