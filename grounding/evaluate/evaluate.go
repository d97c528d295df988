// Package evaluate measures grounding: for every lexicon synonym and every
// distinct input-node wording used as a finding, is the right concept the
// top anchor, among the top 3, and at which rank? It reports accuracy@1,
// accuracy@3, MRR and wrong anchors in the top 3 per channel and per
// fusion, with and without the full-text single-word guard, both
// in-index (the query's own phrase is indexed) and leave-one-out (every
// phrase equal to the query is hidden, so it must be found through the
// concept's other names).
package evaluate

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/executablekg/execkg/grounding"
	"github.com/executablekg/execkg/grounding/lexicon"
)

// Query kinds.
const (
	KindSynonym = "synonym"
	KindWording = "wording"
)

// Modes.
const (
	ModeInIndex     = "in-index"
	ModeLeaveOneOut = "leave-one-out"
)

// Query is one benchmark finding with the concepts that count as right.
type Query struct {
	Text    string
	Kind    string
	Targets []string // concept keys
	Concept string   // the concept it was written for (for reports)
}

// Queries builds the benchmark: every synonym of a lexicon concept that
// the records test (right answers: every concept whose entry lists the
// term, so a deliberately ambiguous term counts as right for each), and
// every distinct wording of the records (right answers: the concepts
// written with that wording). Lexicon concepts the records do not test
// are counted in skipped.
func Queries(records []grounding.Record, lex *lexicon.Lexicon) (qs []Query, skipped int) {
	keysByName := map[string][]string{}
	keysBySCT := map[string][]string{}
	addKey := func(m map[string][]string, k, v string) {
		for _, x := range m[k] {
			if x == v {
				return
			}
		}
		m[k] = append(m[k], v)
	}
	wordings := map[string][]string{}
	var wordOrder []string
	wordText := map[string]string{}
	wordConcept := map[string]string{}
	for _, r := range records {
		addKey(keysByName, lexicon.Key(r.Concept), r.ConceptKey)
		if strings.HasPrefix(r.ConceptKey, "sct:") {
			addKey(keysBySCT, strings.TrimPrefix(r.ConceptKey, "sct:"), r.ConceptKey)
		}
		w := lexicon.Key(r.Wording)
		if w == "" {
			continue
		}
		if _, ok := wordings[w]; !ok {
			wordOrder = append(wordOrder, w)
			wordText[w] = r.Wording
			wordConcept[w] = r.Concept
		}
		addKey(wordings, w, r.ConceptKey)
	}
	keysOf := func(c *lexicon.Concept) []string {
		out := append([]string(nil), keysByName[lexicon.Key(c.Concept)]...)
		if c.SnomedID != "" {
			for _, k := range keysBySCT[c.SnomedID] {
				if !has(out, k) {
					out = append(out, k)
				}
			}
		}
		return out
	}
	if lex != nil {
		for i := range lex.Concepts {
			c := &lex.Concepts[i]
			if len(keysOf(c)) == 0 {
				skipped++
				continue
			}
			for _, s := range c.Synonyms {
				var targets []string
				for _, o := range lex.Lookup(s) {
					for _, k := range keysOf(o) {
						if !has(targets, k) {
							targets = append(targets, k)
						}
					}
				}
				qs = append(qs, Query{Text: s, Kind: KindSynonym, Targets: targets, Concept: c.Concept})
			}
		}
	}
	for _, w := range wordOrder {
		qs = append(qs, Query{Text: wordText[w], Kind: KindWording, Targets: wordings[w], Concept: wordConcept[w]})
	}
	return qs, skipped
}

// Config selects what to measure.
type Config struct {
	// Thresholds are the vector cut-offs swept (with the grounder's guard
	// setting); the grounder's own threshold is always included.
	Thresholds []float64
	// Guards lists the guard settings measured (default: on and off).
	Guards []bool
	// RRFK, Anchors and MinRelative as in grounding.Fusion; MinRelative
	// applies to the score+cut rows (default grounding.DefaultMinRelative).
	RRFK        float64
	Anchors     int
	MinRelative float64
	// Workers run queries in parallel (default GOMAXPROCS).
	Workers int
	// Failures keeps up to this many wrong top-1 examples per method
	// (leave-one-out, the grounder's guard setting).
	Failures int
}

// Metrics of one ranking method over one query set.
type Metrics struct {
	N    int     `json:"n"`
	Acc1 float64 `json:"acc_at_1"`
	Acc3 float64 `json:"acc_at_3"`
	MRR  float64 `json:"mrr"`
	// Wrong3 is the number of wrong anchors among the top 3 over all
	// queries; WrongPerQuery is its mean.
	Wrong3        int     `json:"wrong_in_top3"`
	WrongPerQuery float64 `json:"wrong_in_top3_per_query"`
	// Empty counts queries with no anchor at all.
	Empty int `json:"no_anchor"`
}

// Row is one line of the report.
type Row struct {
	Kind      string  `json:"kind"`
	Mode      string  `json:"mode"`
	Guard     bool    `json:"guard"`
	Method    string  `json:"method"`
	Threshold float64 `json:"vector_threshold"`
	Metrics
}

// Failure is one query whose top anchor was wrong.
type Failure struct {
	Kind    string   `json:"kind"`
	Method  string   `json:"method"`
	Query   string   `json:"query"`
	Concept string   `json:"want"`
	Got     []string `json:"got"`
}

// Report is the benchmark result.
type Report struct {
	Embedder       string         `json:"embedder"`
	Phrases        int            `json:"phrases"`
	Records        int            `json:"records"`
	Concepts       int            `json:"concepts"`
	Queries        map[string]int `json:"queries"`
	SkippedLexicon int            `json:"lexicon_concepts_not_in_pack"`
	Threshold      float64        `json:"vector_threshold"`
	// Guard is the grounder's guard setting (the sweep and failures use it).
	Guard       bool      `json:"default_guard"`
	RRFK        float64   `json:"rrf_k"`
	MinRelative float64   `json:"score_cut_min_relative"`
	Anchors     int       `json:"anchors"`
	Rows        []Row     `json:"rows"`
	Failures    []Failure `json:"failures,omitempty"`
}

// MethodScoreCut labels score fusion with the relative anchor cut-off
// (Config.MinRelative) in reports.
const MethodScoreCut = "score+cut"

// methods measured in the main table: each channel alone, RRF, score
// fusion keeping 3 anchors like RRF, and score fusion with the cut-off.
var methods = []string{grounding.MethodFullText, grounding.MethodVector, grounding.MethodRRF, grounding.MethodScore, MethodScoreCut}

type acc struct {
	n, hit1, hit3, wrong3, empty int
	rr                           float64
}

func (a *acc) add(ranked []grounding.Anchor, targets []string, anchors int) {
	a.n++
	if len(ranked) == 0 {
		a.empty++
	}
	for i, an := range ranked {
		if has(targets, an.ConceptKey) {
			a.rr += 1 / float64(i+1)
			if i == 0 {
				a.hit1++
			}
			if i < anchors {
				a.hit3++
			}
			break
		}
	}
	for i := 0; i < len(ranked) && i < anchors; i++ {
		if !has(targets, ranked[i].ConceptKey) {
			a.wrong3++
		}
	}
}

func (a *acc) metrics() Metrics {
	m := Metrics{N: a.n, Wrong3: a.wrong3, Empty: a.empty}
	if a.n > 0 {
		n := float64(a.n)
		m.Acc1, m.Acc3, m.MRR, m.WrongPerQuery = float64(a.hit1)/n, float64(a.hit3)/n, a.rr/n, float64(a.wrong3)/n
	}
	return m
}

type cellKey struct {
	kind, mode string
	guard      bool
	method     string
	threshold  float64
}

// Run evaluates g on qs.
func Run(ctx context.Context, g *grounding.Grounder, qs []Query, cfg Config) (*Report, error) {
	if cfg.RRFK == 0 {
		cfg.RRFK = grounding.DefaultRRFK
	}
	if cfg.Anchors == 0 {
		cfg.Anchors = grounding.DefaultAnchors
	}
	if len(cfg.Guards) == 0 {
		cfg.Guards = []bool{true, false}
	}
	if cfg.MinRelative == 0 {
		cfg.MinRelative = grounding.DefaultMinRelative
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	thr := g.Threshold()
	defGuard := g.RetrieveDefaults().Guard
	ths := append([]float64{thr}, cfg.Thresholds...)
	sort.Float64s(ths)
	ths = uniq(ths)
	floor := ths[0]

	rep := &Report{Embedder: g.Embedder().Name(), Phrases: g.Phrases(), Records: len(g.Records()), Threshold: thr, Guard: defGuard, RRFK: cfg.RRFK, Anchors: cfg.Anchors, MinRelative: cfg.MinRelative, Queries: map[string]int{}}
	concepts := map[string]bool{}
	for _, r := range g.Records() {
		concepts[r.ConceptKey] = true
	}
	rep.Concepts = len(concepts)
	for _, q := range qs {
		rep.Queries[q.Kind]++
	}

	type job struct {
		q     Query
		mode  string
		guard bool
	}
	var jobs []job
	for _, q := range qs {
		for _, mode := range []string{ModeInIndex, ModeLeaveOneOut} {
			for _, guard := range cfg.Guards {
				jobs = append(jobs, job{q, mode, guard})
			}
		}
	}

	var mu sync.Mutex
	cells := map[cellKey]*acc{}
	var failures []Failure
	var firstErr error
	work := make(chan job)
	var wg sync.WaitGroup
	for w := 0; w < cfg.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				o := g.RetrieveDefaults()
				o.Guard = j.guard
				o.Threshold = floor
				if j.mode == ModeLeaveOneOut {
					o.Hide = j.q.Text
				}
				c, err := g.Retrieve(ctx, j.q.Text, o)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					continue
				}
				type result struct {
					k      cellKey
					ranked []grounding.Anchor
				}
				var res []result
				for _, m := range methods {
					for _, t := range ths {
						if m == grounding.MethodFullText && t != thr {
							continue // the vector threshold does not touch full text
						}
						if t != thr && j.guard != defGuard {
							continue // sweep with the grounder's guard setting only
						}
						f := grounding.Fusion{Method: m, RRFK: cfg.RRFK, Threshold: t}
						if m == MethodScoreCut {
							f.Method, f.MinRelative = grounding.MethodScore, cfg.MinRelative
						}
						ranked := g.Fuse(c, f)
						res = append(res, result{cellKey{j.q.Kind, j.mode, j.guard, m, t}, ranked})
					}
				}
				mu.Lock()
				for _, r := range res {
					a := cells[r.k]
					if a == nil {
						a = &acc{}
						cells[r.k] = a
					}
					a.add(r.ranked, j.q.Targets, cfg.Anchors)
					if cfg.Failures > 0 && r.k.mode == ModeLeaveOneOut && r.k.guard == defGuard && r.k.threshold == thr &&
						(len(r.ranked) == 0 || !has(j.q.Targets, r.ranked[0].ConceptKey)) {
						f := Failure{Kind: j.q.Kind, Method: r.k.method, Query: j.q.Text, Concept: j.q.Concept}
						for i := 0; i < len(r.ranked) && i < cfg.Anchors; i++ {
							f.Got = append(f.Got, r.ranked[i].Concept)
						}
						failures = append(failures, f)
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		work <- j
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	for k, a := range cells {
		rep.Rows = append(rep.Rows, Row{Kind: k.kind, Mode: k.mode, Guard: k.guard, Method: k.method, Threshold: k.threshold, Metrics: a.metrics()})
	}
	order := map[string]int{}
	for i, m := range methods {
		order[m] = i
	}
	sort.Slice(rep.Rows, func(i, j int) bool {
		a, b := rep.Rows[i], rep.Rows[j]
		switch {
		case a.Kind != b.Kind:
			return a.Kind < b.Kind
		case a.Mode != b.Mode:
			return a.Mode < b.Mode
		case a.Guard != b.Guard:
			return a.Guard
		case a.Threshold != b.Threshold:
			return a.Threshold < b.Threshold
		}
		return order[a.Method] < order[b.Method]
	})
	sort.SliceStable(failures, func(i, j int) bool {
		if failures[i].Method != failures[j].Method {
			return order[failures[i].Method] < order[failures[j].Method]
		}
		return failures[i].Query < failures[j].Query
	})
	rep.Failures = trimFailures(failures, cfg.Failures)
	return rep, nil
}

func trimFailures(fs []Failure, per int) []Failure {
	count := map[string]int{}
	var out []Failure
	for _, f := range fs {
		k := f.Method + "/" + f.Kind
		if count[k] < per {
			count[k]++
			out = append(out, f)
		}
	}
	return out
}

// Find returns the row for the given cell, or nil.
func (r *Report) Find(kind, mode string, guard bool, method string, threshold float64) *Row {
	for i := range r.Rows {
		x := &r.Rows[i]
		if x.Kind == kind && x.Mode == mode && x.Guard == guard && x.Method == method && math.Abs(x.Threshold-threshold) < 1e-9 {
			return x
		}
	}
	return nil
}

// Print writes the report as tables: the main table at the grounder's
// threshold, then the threshold sweep (at the grounder's guard setting).
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "grounding benchmark: embedder %s, %d records, %d concepts, %d distinct phrases\n", r.Embedder, r.Records, r.Concepts, r.Phrases)
	fmt.Fprintf(w, "queries: %d lexicon synonyms, %d input-node wordings; vector threshold %.2f, RRF k %.0f, top %d anchors\n",
		r.Queries[KindSynonym], r.Queries[KindWording], r.Threshold, r.RRFK, r.Anchors)
	fmt.Fprintf(w, "score+cut: score fusion keeping only anchors with at least %.2f of the best anchor's fused score\n", r.MinRelative)
	if r.SkippedLexicon > 0 {
		fmt.Fprintf(w, "(%d lexicon concepts are not tested by any rule and were skipped)\n", r.SkippedLexicon)
	}
	fmt.Fprintln(w, "in-index: the query's own phrase is indexed; leave-one-out: every phrase equal to the query is hidden")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "queries\tmode\tguard\tmethod\tn\tacc@1\tacc@3\tMRR\twrong in top3\twrong/query\tno anchor\t")
	for _, x := range r.Rows {
		if math.Abs(x.Threshold-r.Threshold) > 1e-9 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%d\t%.2f\t%d\t\n", x.Kind, x.Mode, onOff(x.Guard), x.Method, x.N, x.Acc1, x.Acc3, x.MRR, x.Wrong3, x.WrongPerQuery, x.Empty)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nvector threshold sweep (guard %s): acc@1 / acc@3 / wrong in top3\n", onOff(r.Guard))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "queries\tmode\tthreshold\tvector\trrf\tscore\tscore+cut\t")
	type k struct {
		kind, mode string
		t          float64
	}
	var keys []k
	seen := map[k]bool{}
	for _, x := range r.Rows {
		kk := k{x.Kind, x.Mode, x.Threshold}
		if x.Guard == r.Guard && x.Method == grounding.MethodVector && !seen[kk] {
			seen[kk] = true
			keys = append(keys, kk)
		}
	}
	for _, kk := range keys {
		cell := func(m string) string {
			x := r.Find(kk.kind, kk.mode, r.Guard, m, kk.t)
			if x == nil {
				return "-"
			}
			return fmt.Sprintf("%.3f / %.3f / %d", x.Acc1, x.Acc3, x.Wrong3)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%s\t%s\t%s\t\n", kk.kind, kk.mode, kk.t, cell(grounding.MethodVector), cell(grounding.MethodRRF), cell(grounding.MethodScore), cell(MethodScoreCut))
	}
	tw.Flush()
	if len(r.Failures) > 0 {
		fmt.Fprintf(w, "\nwrong top-1 examples (leave-one-out, guard %s): query → want | got top 3\n", onOff(r.Guard))
		for _, f := range r.Failures {
			fmt.Fprintf(w, "  [%s %s] %q → %s | %s\n", f.Method, f.Kind, f.Query, f.Concept, strings.Join(f.Got, "; "))
		}
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func has(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func uniq(xs []float64) []float64 {
	var out []float64
	for i, x := range xs {
		if i == 0 || math.Abs(x-xs[i-1]) > 1e-9 {
			out = append(out, x)
		}
	}
	return out
}
