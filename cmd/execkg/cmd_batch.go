package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/executablekg/execkg/engine"
)

func init() {
	register(command{name: "batch", summary: "answer many cases: --cases IN.jsonl --out OUT.jsonl (resumable, concurrent)", run: runBatch})
}

// batchCase is one input line.
type batchCase struct {
	CaseID   string `json:"case_id"`
	Question string `json:"question"`
	// Date (YYYY-MM-DD, optional) is the case date time windows count
	// from; default today.
	Date string `json:"date,omitempty"`
}

func validDate(c batchCase) bool { _, err := c.caseDate(); return err == nil }

// caseDate parses a case's date; the zero time when none is given.
func (c batchCase) caseDate() (time.Time, error) {
	if c.Date == "" {
		return time.Time{}, nil
	}
	return time.Parse("2006-01-02", c.Date)
}

func runBatch(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("batch", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var ef engineFlags
	ef.register(fl)
	in := fl.String("cases", "", `input JSON lines, one {"case_id","question","date"?} per line (required; date YYYY-MM-DD, default today)`)
	out := fl.String("out", "", "output JSON lines, one result per case; an existing file is resumed (required)")
	conc := fl.Int("concurrency", runtime.NumCPU(), "cases answered at once")
	progress := fl.String("progress", "auto", "progress bar on stderr: auto (only on a terminal), on, off")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: execkg batch --cases IN.jsonl --out OUT.jsonl [flags]")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *in == "" || *out == "" || *conc < 1 {
		fl.Usage()
		return 2
	}
	// Preflight: read and check every input line before any work.
	cases, err := readBatchCases(*in)
	if err != nil {
		fmt.Fprintln(stderr, "execkg batch:", err)
		return 2
	}
	done, err := resumeOutput(*out)
	if err != nil {
		fmt.Fprintln(stderr, "execkg batch:", err)
		return 1
	}
	var todo []batchCase
	for _, c := range cases {
		if !done[c.CaseID] {
			todo = append(todo, c)
		}
	}
	if len(done) > 0 {
		fmt.Fprintf(stderr, "resuming %s: %d of %d cases already answered\n", *out, len(cases)-len(todo), len(cases))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	prog, err := ef.program(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "execkg batch:", err)
		return 1
	}
	defer prog.Close()
	defer ef.close()

	f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(stderr, "execkg batch:", err)
		return 1
	}
	defer f.Close()
	bar := newProgress(stderr, *progress, len(todo))
	failed, written, err := runCases(ctx, prog, todo, *conc, f, bar)
	bar.finish()
	if err != nil {
		fmt.Fprintf(stderr, "execkg batch: %v (%d cases written; rerun the same command to resume)\n", err, written)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d cases answered (%d resumed, %d failed)\n", *out, written, len(cases)-len(todo), failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// runCases answers cases concurrently and writes results in input order,
// one fsynced line each, so an interrupted run loses at most the cases in
// flight.
func runCases(ctx context.Context, prog *engine.Program, todo []batchCase, conc int, w *os.File, bar *progressBar) (failed, written int, err error) {
	type item struct {
		i   int
		res *engine.Result
	}
	jobs := make(chan int)
	results := make(chan item)
	var wg sync.WaitGroup
	for k := 0; k < conc; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				c := todo[i]
				date, _ := c.caseDate() // checked when the input was read
				res, err := prog.AskOn(ctx, c.CaseID, c.Question, date)
				if err != nil {
					res = &engine.Result{CaseID: c.CaseID, Question: c.Question, PredictedRowIDs: []string{}, Error: err.Error()}
				}
				results <- item{i, res}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range todo {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	pending := map[int]*engine.Result{}
	next := 0
	for it := range results {
		pending[it.i] = it.res
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if err == nil {
				b, e := json.Marshal(r)
				if e == nil {
					_, e = w.Write(append(b, '\n'))
				}
				if e == nil {
					e = w.Sync()
				}
				if e != nil {
					err = fmt.Errorf("write %s: %w", w.Name(), e)
					continue
				}
				written++
				if r.Error != "" {
					failed++
				}
				bar.step()
			}
		}
	}
	if err == nil && ctx.Err() != nil {
		err = errors.New("interrupted")
	}
	return failed, written, err
}

func readBatchCases(path string) ([]batchCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []batchCase
	seen := map[string]int{}
	var problems []string
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var c batchCase
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: %v (want {\"case_id\",\"question\"})", path, n+1, err))
			continue
		}
		switch {
		case strings.TrimSpace(c.CaseID) == "":
			problems = append(problems, fmt.Sprintf("%s:%d: case_id is empty", path, n+1))
		case strings.TrimSpace(c.Question) == "":
			problems = append(problems, fmt.Sprintf("%s:%d: question of %s is empty", path, n+1, c.CaseID))
		case c.Date != "" && !validDate(c):
			problems = append(problems, fmt.Sprintf("%s:%d: date %q of %s: want YYYY-MM-DD, e.g. 2026-03-15", path, n+1, c.Date, c.CaseID))
		case seen[c.CaseID] > 0:
			problems = append(problems, fmt.Sprintf("%s:%d: case_id %s repeats line %d", path, n+1, c.CaseID, seen[c.CaseID]))
		default:
			seen[c.CaseID] = n + 1
			out = append(out, c)
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%d bad input line(s); nothing was run:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no cases", path)
	}
	return out, nil
}

// resumeOutput reads an existing output file, keeps its complete,
// successful records (a truncated last line or a failed case is dropped
// and redone) and rewrites it atomically when something was dropped.
func resumeOutput(path string) (map[string]bool, error) {
	done := map[string]bool{}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return done, nil
	}
	if err != nil {
		return nil, err
	}
	var keep bytes.Buffer
	dropped := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var r struct {
			CaseID string `json:"case_id"`
			Error  string `json:"error"`
		}
		if json.Unmarshal(line, &r) != nil || r.CaseID == "" || r.Error != "" || done[r.CaseID] {
			dropped++
			continue
		}
		done[r.CaseID] = true
		keep.Write(line)
		keep.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if dropped > 0 || (len(data) > 0 && data[len(data)-1] != '\n') {
		if err := writeFileAtomic(filepath.Clean(path), keep.Bytes()); err != nil {
			return nil, err
		}
	}
	return done, nil
}

// progressBar draws "[====>   ] 45/100 3.1 cases/s ETA 18s" on a terminal.
type progressBar struct {
	w     io.Writer
	on    bool
	total int
	n     int
	start time.Time
	mu    sync.Mutex
}

func newProgress(w io.Writer, mode string, total int) *progressBar {
	on := mode == "on"
	if mode == "auto" {
		if f, ok := w.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				on = true
			}
		}
	}
	return &progressBar{w: w, on: on && total > 0, total: total, start: time.Now()}
}

func (p *progressBar) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if !p.on {
		return
	}
	const width = 30
	fill := width * p.n / p.total
	el := time.Since(p.start).Seconds()
	rate := float64(p.n) / el
	eta := 0.0
	if rate > 0 {
		eta = float64(p.total-p.n) / rate
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d %.1f cases/s ETA %.0fs ", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), p.n, p.total, rate, eta)
}

func (p *progressBar) finish() {
	if p.on {
		fmt.Fprintln(p.w)
	}
}
