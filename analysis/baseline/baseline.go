// Package baseline is the VectorRAG comparison arm: every table row (with
// its table topic, population, section, class and level) is one chunk,
// embedded with the pipeline's embedder; each vignette retrieves the 12
// most similar rows by exact cosine; the retrieval is frozen to a snapshot
// so every generator sees identical rows; one generator step then selects
// retrieved row ids (or none) and can name nothing else.
package baseline

import (
	"context"
	"fmt"
	"github.com/executablekg/execkg/internal/jsonl"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/vignettes"
)

// DefaultK is the number of rows retrieved per vignette.
const DefaultK = 12

// Chunk is one table row as the baseline indexes it.
type Chunk struct {
	RowID string
	Text  string
	Class string
	Level string
}

// Chunks renders every row of the pack, in pack order, with its inherited
// headings: table number and topic, population, section, the row text,
// class and level.
func Chunks(p *rules.Pack) []Chunk {
	var out []Chunk
	for _, t := range p.Tables {
		for i := range t.Rows {
			r := &t.Rows[i]
			var b strings.Builder
			fmt.Fprintf(&b, "Recommendation Table %d: %s.", t.Table, strings.TrimSuffix(t.Topic, "."))
			if t.Population != "" {
				fmt.Fprintf(&b, " Population: %s.", strings.TrimSuffix(t.Population, "."))
			}
			if r.Section != "" {
				fmt.Fprintf(&b, " Section: %s.", strings.TrimSuffix(r.Section, "."))
			}
			fmt.Fprintf(&b, " %s Class %s, level %s.", strings.TrimSpace(r.Text), r.Class, r.Level)
			out = append(out, Chunk{RowID: rules.RowID(t.File, r.Row), Text: b.String(), Class: r.Class, Level: r.Level})
		}
	}
	return out
}

// Retrieved is one line of the snapshot: a vignette's top-k rows, best
// first, with their cosine similarity (rounded to 6 decimals so the file
// is stable across platforms).
type Retrieved struct {
	CaseID   string    `json:"case_id"`
	Embedder string    `json:"embedder"`
	RowIDs   []string  `json:"row_ids"`
	Scores   []float64 `json:"scores"`
}

// Retrieve embeds the chunks and the vignette questions and returns, per
// vignette, the k rows of highest cosine; ties keep pack order.
func Retrieve(ctx context.Context, emb embed.Embedder, chunks []Chunk, vs []vignettes.Vignette, k int) ([]Retrieved, error) {
	if k < 1 {
		return nil, fmt.Errorf("baseline: k must be at least 1, got %d", k)
	}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = c.Text
	}
	cv, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("baseline: embed %d row chunks with %s: %w", len(texts), emb.Name(), err)
	}
	qs := make([]string, len(vs))
	for i, v := range vs {
		qs[i] = v.Question
	}
	qv, err := emb.Embed(ctx, qs)
	if err != nil {
		return nil, fmt.Errorf("baseline: embed %d questions with %s: %w", len(qs), emb.Name(), err)
	}
	if len(cv) != len(chunks) || len(qv) != len(vs) {
		return nil, fmt.Errorf("baseline: embedder %s returned %d+%d vectors for %d+%d texts", emb.Name(), len(cv), len(qv), len(chunks), len(vs))
	}
	norm(cv)
	norm(qv)
	out := make([]Retrieved, len(vs))
	idx := make([]int, len(chunks))
	scores := make([]float64, len(chunks))
	for i, q := range qv {
		for j, c := range cv {
			if len(c) != len(q) {
				return nil, fmt.Errorf("baseline: embedder %s gave vectors of %d and %d dimensions", emb.Name(), len(c), len(q))
			}
			scores[j] = round6(dot(q, c))
			idx[j] = j
		}
		sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
		n := min(k, len(idx))
		r := Retrieved{CaseID: vs[i].CaseID, Embedder: emb.Name(), RowIDs: make([]string, n), Scores: make([]float64, n)}
		for a := 0; a < n; a++ {
			r.RowIDs[a] = chunks[idx[a]].RowID
			r.Scores[a] = scores[idx[a]]
		}
		out[i] = r
	}
	return out, nil
}

func norm(vs [][]float32) {
	for _, v := range vs {
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		if s == 0 {
			continue
		}
		inv := 1 / math.Sqrt(s)
		for i := range v {
			v[i] = float32(float64(v[i]) * inv)
		}
	}
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// MarshalSnapshot writes the snapshot as JSON lines.
func MarshalSnapshot(rs []Retrieved) ([]byte, error) { return jsonl.Marshal(rs) }

// DecodeSnapshot reads a snapshot; name is used in errors.
func DecodeSnapshot(name string, r io.Reader) ([]Retrieved, error) {
	return jsonl.Read(name, r, jsonl.Options{}, func(_ int, x *Retrieved) error {
		if len(x.RowIDs) != len(x.Scores) {
			return fmt.Errorf("%d row ids but %d scores", len(x.RowIDs), len(x.Scores))
		}
		return nil
	})
}

// DiffSnapshot compares a stored snapshot with a fresh retrieval; empty
// when they agree (same vignettes, embedder, rows and order).
func DiffSnapshot(stored, fresh []Retrieved) []string {
	var out []string
	s := map[string]Retrieved{}
	for _, r := range stored {
		s[r.CaseID] = r
	}
	for _, f := range fresh {
		o, ok := s[f.CaseID]
		switch {
		case !ok:
			out = append(out, f.CaseID+": not in the snapshot")
		case o.Embedder != f.Embedder:
			out = append(out, fmt.Sprintf("%s: snapshot embedder %s, now %s", f.CaseID, o.Embedder, f.Embedder))
		case strings.Join(o.RowIDs, ",") != strings.Join(f.RowIDs, ","):
			out = append(out, fmt.Sprintf("%s: snapshot rows %v, now %v", f.CaseID, o.RowIDs, f.RowIDs))
		}
		delete(s, f.CaseID)
	}
	for id := range s {
		out = append(out, id+": in the snapshot but not among the vignettes")
	}
	sort.Strings(out)
	return out
}

// Candidate is one retrieved row shown to the generator.
type Candidate struct {
	RowID string
	Text  string
	Score float64
}

// Generator selects, from the retrieved rows, those that apply.
type Generator interface {
	Name() string
	// Select returns a subset of the candidates' row ids (possibly none).
	Select(ctx context.Context, question string, cands []Candidate) ([]string, error)
}

// Arm is the VectorRAG arm over a frozen snapshot.
type Arm struct {
	ArmName   string
	Snapshot  []Retrieved
	Chunks    []Chunk
	Generator Generator
}

// Name is the arm's label in tables.
func (a *Arm) Name() string { return a.ArmName }

// Predict runs the generator on every vignette's frozen rows. A generator
// error fails that case only (empty output, error recorded), as the
// reference system scores a failed vignette; a case missing from the
// snapshot is an error of the whole run, because the snapshot must match
// the vignettes.
func (a *Arm) Predict(ctx context.Context, vs []vignettes.Vignette) ([]engine.Result, error) {
	snap := map[string]Retrieved{}
	for _, r := range a.Snapshot {
		snap[r.CaseID] = r
	}
	text := map[string]string{}
	for _, c := range a.Chunks {
		text[c.RowID] = c.Text
	}
	out := make([]engine.Result, 0, len(vs))
	for _, v := range vs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, ok := snap[v.CaseID]
		if !ok {
			return nil, fmt.Errorf("baseline: case %s is not in the retrieval snapshot; refresh it (execkg reproduce --refresh-snapshot)", v.CaseID)
		}
		cands := make([]Candidate, len(r.RowIDs))
		for i, id := range r.RowIDs {
			t, ok := text[id]
			if !ok {
				return nil, fmt.Errorf("baseline: snapshot row %s (case %s) is not in the pack; refresh the snapshot", id, v.CaseID)
			}
			cands[i] = Candidate{RowID: id, Text: t, Score: r.Scores[i]}
		}
		res := engine.Result{CaseID: v.CaseID, Question: v.Question, RetrievedRowIDs: append([]string(nil), r.RowIDs...), PredictedRowIDs: []string{}}
		sel, err := a.Generator.Select(ctx, v.Question, cands)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.Error = fmt.Sprintf("generator %s: %v", a.Generator.Name(), err)
		} else {
			allowed := map[string]bool{}
			for _, c := range cands {
				allowed[c.RowID] = true
			}
			for _, id := range sel {
				if !allowed[id] {
					return nil, fmt.Errorf("baseline: generator %s selected %s, which was not retrieved for %s", a.Generator.Name(), id, v.CaseID)
				}
				res.PredictedRowIDs = append(res.PredictedRowIDs, id)
			}
		}
		out = append(out, res)
	}
	return out, nil
}

// Margin is the offline, deterministic generator: it selects the retrieved
// rows whose cosine is within Margin of the best one and at least Floor.
// It reads no text; it stands in for the LLM generator so the arm runs
// offline, and scores on exactly the same units.
type Margin struct {
	Margin float64
	Floor  float64
}

// DefaultMargin is the offline generator's setting, fixed before any
// scoring: near-ties with the top row, above a similarity floor.
var DefaultMargin = Margin{Margin: 0.02, Floor: 0.2}

// Name includes the settings.
func (m Margin) Name() string {
	return fmt.Sprintf("margin-selector(margin=%g,floor=%g)", m.Margin, m.Floor)
}

// Select keeps the candidates close to the best score.
func (m Margin) Select(_ context.Context, _ string, cands []Candidate) ([]string, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	top := cands[0].Score
	for _, c := range cands {
		top = math.Max(top, c.Score)
	}
	var out []string
	for _, c := range cands {
		if c.Score >= top-m.Margin-1e-12 && c.Score >= m.Floor {
			out = append(out, c.RowID)
		}
	}
	return out, nil
}
