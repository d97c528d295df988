package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/executablekg/execkg/engine/graph"
	"github.com/executablekg/execkg/rules"
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
	var ef engineFlags
	ef.register(fl)
	in := fl.String("cases", "", `input JSON lines, one {"case_id","question","date"?} per line (required; date YYYY-MM-DD, default today; other fields are ignored)`)
	out := fl.String("out", "", "output JSON lines, one result per case; an existing file is resumed (required)")
	conc := fl.Int("concurrency", runtime.NumCPU(), "cases answered at once")
	progress := fl.String("progress", "auto", "progress bar on stderr: auto (only on a terminal), on, off")
	strict := fl.Bool("strict", false, "refuse input lines with fields other than case_id and question")
	prune := fl.Bool("prune", false, "remove records of cases no longer in the input from the output (else they are kept and listed on stderr)")
	maxBytes := fl.Int("max-bytes", defaultMaxBytes, "longest question answered, in bytes; a longer one is written as an error record (0: no limit)")
	caseTimeout := fl.Duration("case-timeout", time.Minute, "time one case may take; a slower one is written as an error record (0: no limit; with --llm the default is none, the LLM's own --llm-timeout and --llm-retries bound a case)")
	if code, ok := parseFlags(fl, args, stdout, stderr, "usage: execkg batch --cases IN.jsonl --out OUT.jsonl [flags]\n\n"+
		"Answers every case of IN and writes one JSON record per case to OUT, in input order.\n"+
		"A rerun resumes: a record is kept when its resume_key (case id, question hash,\n"+
		"settings, pack id, version and hash) is the case's key now; others are redone."); !ok {
		return code
	}
	if *in == "" || *out == "" || *conc < 1 || *maxBytes < 0 || *caseTimeout < 0 {
		fmt.Fprintln(stderr, "execkg batch: --cases and --out are required; --concurrency must be at least 1, --max-bytes and --case-timeout not negative")
		fl.Usage()
		return 2
	}
	if ef.llm && !flagSet(fl, "case-timeout") {
		*caseTimeout = 0 // one LLM attempt alone may take minutes
	}
	// Preflight: read and check every input line before any work.
	cases, err := readBatchCases(*in, *strict)
	if err != nil {
		fmt.Fprintln(stderr, "execkg batch:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ef.maxBytes = *maxBytes
	prog, err := ef.answerer(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "execkg batch:", err)
		return 1
	}
	defer prog.Close()
	defer ef.close()
	kr, err := newKeyer(&ef, ef.packs)
	if err != nil {
		fmt.Fprintln(stderr, "execkg batch:", err)
		return 1
	}
	keys := map[string]*resumeKey{}
	for _, c := range cases {
		keys[c.CaseID] = kr.key(c)
	}
	prev, err := resumeOutput(*out, keys, *prune)
	if err != nil {
		fmt.Fprintln(stderr, "execkg batch:", err)
		return 1
	}
	var todo []batchCase
	for _, c := range cases {
		if !prev.done[c.CaseID] {
			todo = append(todo, c)
		}
	}
	if len(prev.done) > 0 || len(prev.redo) > 0 {
		fmt.Fprintf(stderr, "resuming %s: %d of %d cases already answered\n", *out, len(prev.done), len(cases))
	}
	if len(prev.redo) > 0 {
		var why []string
		for _, c := range cases {
			if w, ok := prev.redo[c.CaseID]; ok {
				why = append(why, c.CaseID+" ("+w+")")
			}
		}
		fmt.Fprintf(stderr, "redoing %d case(s) whose resume key changed: %s\n", len(why), listed(why))
	}
	if len(prev.stale) > 0 {
		fmt.Fprintf(stderr, "%s keeps %d record(s) of cases not in %s: %s; --prune removes them\n", *out, len(prev.stale), *in, listed(prev.stale))
	}

	f, err := os.OpenFile(*out, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(stderr, "execkg batch:", err)
		return 1
	}
	defer f.Close()
	bar := newProgress(stderr, *progress, len(todo))
	b := &batcher{prog: prog, keys: keys, timeout: *caseTimeout, stderr: stderr}
	if ef.neo != nil {
		b.neo = ef.neo
	}
	failed, written, err := b.run(ctx, todo, *conc, f, bar)
	bar.finish()
	if err != nil {
		fmt.Fprintf(stderr, "execkg batch: %v (%d cases written to %s; rerun the same command to resume)\n", err, written, *out)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d cases answered (%d resumed, %d failed)\n", *out, written, len(prev.done), failed)
	if failed > 0 {
		return 1
	}
	return 0
}

// pinger is the Neo4j store's check that the server still answers.
type pinger interface {
	Ping(ctx context.Context, timeout time.Duration) error
	URI() string
}

// batcher answers the cases of one run.
type batcher struct {
	prog    answerer
	keys    map[string]*resumeKey
	timeout time.Duration
	neo     pinger // nil with the embedded store
	stderr  io.Writer

	mu     sync.Mutex
	fatal  error
	failed int
}

// pingTimeout bounds the one check of the server after a connectivity
// failure; retries is how often a case is tried again when the server
// still answers (after 250 ms, then 500 ms).
const (
	pingTimeout = 2 * time.Second
	retries     = 2
)

// answer returns the case's record, an error record for a failed case, or
// nil when the batch is stopping (the case is then not written, and a rerun
// does it).
func (b *batcher) answer(ctx context.Context, cancel context.CancelFunc, c batchCase) *engine.Result {
	for attempt := 0; ; attempt++ {
		cctx, done := ctx, context.CancelFunc(func() {})
		if b.timeout > 0 {
			cctx, done = context.WithTimeout(ctx, b.timeout)
		}
		date, _ := c.caseDate() // checked when the input was read
		res, err := b.prog.AskOn(cctx, c.CaseID, c.Question, date)
		done()
		if err == nil {
			return res
		}
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, graph.ErrUnavailable) && b.neo != nil {
			if perr := b.neo.Ping(ctx, pingTimeout); perr != nil {
				b.mu.Lock()
				if b.fatal == nil {
					b.fatal = fmt.Errorf("stopped: Neo4j at %s stopped answering during case %s (%v); start the server again", b.neo.URI(), c.CaseID, perr)
				}
				b.mu.Unlock()
				cancel()
				return nil
			}
			if attempt < retries {
				select {
				case <-time.After(250 * time.Millisecond << attempt):
					continue
				case <-ctx.Done():
					return nil
				}
			}
		}
		msg := err.Error()
		var le *engine.LimitError
		if errors.As(err, &le) {
			switch le.Limit {
			case "deadline":
				msg = fmt.Sprintf("case %s: over the --case-timeout limit of %s: %s", c.CaseID, b.timeout, le.Detail)
			case "max-bytes":
				msg = fmt.Sprintf("case %s: over the --max-bytes limit: %s", c.CaseID, le.Detail)
			}
		}
		b.mu.Lock()
		b.failed++
		if b.failed <= maxListed {
			fmt.Fprintln(b.stderr, "execkg batch:", msg)
		} else if b.failed == maxListed+1 {
			fmt.Fprintln(b.stderr, "execkg batch: more cases failed; their errors are only in the output")
		}
		b.mu.Unlock()
		return &engine.Result{CaseID: c.CaseID, Question: c.Question, PredictedRowIDs: []string{}, Error: msg}
	}
}

// run answers cases concurrently and writes results in input order, one
// fsynced line each, so an interrupted run loses at most the cases in
// flight.
func (b *batcher) run(parent context.Context, todo []batchCase, conc int, w *os.File, bar *progressBar) (failed, written int, err error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
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
				results <- item{i, b.answer(ctx, cancel, todo[i])}
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
			if !ok || r == nil {
				break // a stopped case: nothing after it is written
			}
			delete(pending, next)
			next++
			if err == nil {
				bs, e := json.Marshal(batchRecord{Result: r, ResumeKey: b.keys[r.CaseID]})
				if e == nil {
					_, e = w.Write(append(bs, '\n'))
				}
				if e == nil {
					e = w.Sync()
				}
				if e != nil {
					err = fmt.Errorf("write %s: %w", w.Name(), e)
					cancel()
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
	switch {
	case err != nil:
	case b.fatal != nil:
		err = b.fatal
	case parent.Err() != nil:
		err = errors.New("interrupted")
	}
	return failed, written, err
}

// batchCase is one input line. Other fields (a vignette's "category",
// "intended", ...) are ignored unless --strict.
// maxListed caps the problems listed for one input file.
const maxListed = 20

// defaultMaxBytes is --max-bytes' default: Ask's time grows somewhat faster
// than the text (about 1 s for 15 KB and 5 s for 60 KB on one core), the
// longest case of the project's data sets is under 1 KB, and a long clinic
// letter fits in 64 KiB.
const defaultMaxBytes = 64 << 10

// resumeKey is what a case's answer depends on, stored with each record
// (field "resume_key"): a record is resumed only when its key equals the
// key of the case now, so an edited question, other settings or another
// pack recompute the case.
type resumeKey struct {
	Key            string `json:"key"`
	QuestionSHA256 string `json:"question_sha256"`
	Date           string `json:"date,omitempty"`
	Settings       string `json:"settings"`
	Pack           string `json:"pack"`
	PackVersion    string `json:"pack_version"`
	PackSHA256     string `json:"pack_sha256"`
}

// batchRecord is one output line: the result and its key.
type batchRecord struct {
	*engine.Result
	ResumeKey *resumeKey `json:"resume_key"`
}

// keyer makes the resume keys of one run.
type keyer struct{ settings, pack, version, packHash string }

func newKeyer(ef *engineFlags, packs []*rules.Pack) (keyer, error) {
	lex := "pack"
	if ef.lexicon != "" {
		b, err := os.ReadFile(ef.lexicon)
		if err != nil {
			return keyer{}, err
		}
		lex = shortHash(b)
	}
	llmOn := "off"
	if ef.llm {
		llmOn = fmt.Sprintf("%s(mode=%s,seed=%d,think=%v,num_ctx=%d)", ef.llmCfg.Model, ef.llmCfg.Mode, ef.llmCfg.Seed, ef.llmCfg.Think, ef.llmCfg.NumCtx)
	}
	emb := ef.embedder
	if emb == "ollama" {
		emb += "/" + ef.embedModel
	}
	settings := fmt.Sprintf("checks=%s closed_world=%v topk=%d fractions=%v debug=%v llm=%s embedder=%s lexicon=%s",
		ef.checks, ef.closedWorld, ef.topK, ef.fractions, ef.debug, llmOn, emb, lex)
	// Several packs (--pack all) key as one: ids, versions and hashes joined.
	var ids, versions, hashes []string
	for _, pk := range packs {
		b, err := json.Marshal(pk)
		if err != nil {
			return keyer{}, fmt.Errorf("hash the pack: %w", err)
		}
		ids, versions, hashes = append(ids, pk.Guideline.ID), append(versions, pk.Guideline.Version), append(hashes, shortHash(b))
	}
	return keyer{settings: settings, pack: strings.Join(ids, "+"), version: strings.Join(versions, "+"), packHash: strings.Join(hashes, "+")}, nil
}

func (k keyer) key(c batchCase) *resumeKey {
	// An undated case is answered as of today, so the day is part of its key.
	date := c.Date
	if date == "" {
		date = time.Now().UTC().Format("2006-01-02") + " (today)"
	}
	r := &resumeKey{QuestionSHA256: shortHash([]byte(c.Question)), Date: date, Settings: k.settings, Pack: k.pack, PackVersion: k.version, PackSHA256: k.packHash}
	r.Key = shortHash([]byte(strings.Join([]string{c.CaseID, r.QuestionSHA256, r.Date, r.Settings, r.Pack, r.PackVersion, r.PackSHA256}, "\x00")))
	return r
}

func shortHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// why says which part of the key changed.
func (r *resumeKey) why(old *resumeKey) string {
	switch {
	case old == nil:
		return "the record has no resume key"
	case old.QuestionSHA256 != r.QuestionSHA256:
		return "the question changed"
	case old.Date != r.Date:
		return "the case date changed (" + old.Date + " → " + r.Date + ")"
	case old.Settings != r.Settings:
		return "the settings changed (" + old.Settings + " → " + r.Settings + ")"
	case old.Pack != r.Pack || old.PackVersion != r.PackVersion:
		return "the pack changed (" + old.Pack + " " + old.PackVersion + " → " + r.Pack + " " + r.PackVersion + ")"
	case old.PackSHA256 != r.PackSHA256:
		return "the pack's rules changed"
	}
	return "the key changed"
}

func readBatchCases(path string, strict bool) ([]batchCase, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []batchCase
	seen := map[string]int{}
	var problems []string
	nprob := 0
	add := func(s string) {
		nprob++
		if len(problems) < maxListed {
			problems = append(problems, s)
		}
	}
	want := `{"case_id","question"}`
	if strict {
		want += "; --strict refuses other fields"
	}
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var c batchCase
		dec := json.NewDecoder(bytes.NewReader(line))
		if strict {
			dec.DisallowUnknownFields()
		}
		if err := dec.Decode(&c); err != nil {
			add(fmt.Sprintf("%s:%d: %v (want %s)", path, n+1, err, want))
			continue
		}
		switch {
		case strings.TrimSpace(c.CaseID) == "":
			add(fmt.Sprintf("%s:%d: case_id is empty", path, n+1))
		case strings.TrimSpace(c.Question) == "":
			add(fmt.Sprintf("%s:%d: question of %s is empty", path, n+1, c.CaseID))
		case c.Date != "" && !validDate(c):
			add(fmt.Sprintf("%s:%d: date %q of %s: want YYYY-MM-DD, e.g. 2026-03-15", path, n+1, c.Date, c.CaseID))
		case seen[c.CaseID] > 0:
			add(fmt.Sprintf("%s:%d: case_id %s repeats line %d", path, n+1, c.CaseID, seen[c.CaseID]))
		default:
			seen[c.CaseID] = n + 1
			out = append(out, c)
		}
	}
	if nprob > 0 {
		more := ""
		if nprob > len(problems) {
			more = fmt.Sprintf("\n  ... and %d more", nprob-len(problems))
		}
		return nil, fmt.Errorf("%d bad input line(s); nothing was run:\n  %s%s", nprob, strings.Join(problems, "\n  "), more)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no cases", path)
	}
	return out, nil
}

// resumed is what an existing output file holds for this run.
type resumed struct {
	done  map[string]bool   // case ids answered under their current key
	redo  map[string]string // case id → why its record is redone
	stale []string          // case ids of records not in the input
}

// resumeOutput reads an existing output file and keeps its complete,
// successful records whose resume key is the case's key now; a truncated
// last line, a failed case or a changed key is dropped and redone. Records
// of cases no longer in the input are kept and listed in stale, unless
// prune, which drops them. The file is rewritten atomically when something
// was dropped.
func resumeOutput(path string, keys map[string]*resumeKey, prune bool) (resumed, error) {
	r := resumed{done: map[string]bool{}, redo: map[string]string{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, err
	}
	var keep bytes.Buffer
	dropped := 0
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var rec struct {
			CaseID    string     `json:"case_id"`
			Error     string     `json:"error"`
			ResumeKey *resumeKey `json:"resume_key"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.CaseID == "" || rec.Error != "" || seen[rec.CaseID] {
			dropped++
			continue
		}
		seen[rec.CaseID] = true
		want, ok := keys[rec.CaseID]
		switch {
		case !ok && prune:
			dropped++
			continue
		case !ok:
			r.stale = append(r.stale, rec.CaseID)
		case rec.ResumeKey == nil || rec.ResumeKey.Key != want.Key:
			r.redo[rec.CaseID] = want.why(rec.ResumeKey)
			dropped++
			continue
		default:
			r.done[rec.CaseID] = true
		}
		keep.Write(line)
		keep.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return r, fmt.Errorf("read %s: %w", path, err)
	}
	if dropped > 0 || (len(data) > 0 && data[len(data)-1] != '\n') {
		if err := writeFileAtomic(filepath.Clean(path), keep.Bytes()); err != nil {
			return r, err
		}
	}
	return r, nil
}

// listed joins up to maxListed items and says how many more there are.
func listed(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:maxListed], ", ") + fmt.Sprintf(" and %d more", len(items)-maxListed)
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
