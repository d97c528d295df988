// Package contextbench reads the annotated ConText corpus
// (engine/consistency/testdata/corpus) and scores a system's labels on it:
// per label precision, recall and F1, and per phenomenon (kind) recall.
// `execkg context-bench` runs execkg's analyser and medspaCy's ConText on
// the same rows with it; the corpus tests hold floors with it.
package contextbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
)

// Row is one annotated sentence: the target mention and its gold labels.
type Row struct {
	ID           string `json:"id"`
	Genre        string `json:"genre"`
	Text         string `json:"text"`
	Target       string `json:"target"`
	Negated      bool   `json:"negated"`
	Uncertain    bool   `json:"uncertain"`
	Hypothetical bool   `json:"hypothetical"`
	Experiencer  string `json:"experiencer"` // "patient" or "other"
	Kind         string `json:"kind"`        // the phenomenon the row tests (list_negation, …)
}

// Labels are one system's answer for a row.
type Labels struct {
	Found        bool   `json:"found"`
	Negated      bool   `json:"negated"`
	Uncertain    bool   `json:"uncertain"`
	Hypothetical bool   `json:"hypothetical"`
	Experiencer  string `json:"experiencer"`
}

// Gold is the row's labels.
func (r Row) Gold() Labels {
	return Labels{Found: true, Negated: r.Negated, Uncertain: r.Uncertain, Hypothetical: r.Hypothetical, Experiencer: r.Experiencer}
}

// LabelNames are the scored labels, in report order.
var LabelNames = []string{"negated", "uncertain", "hypothetical", "experiencer"}

// positive reports whether a label is set (experiencer: someone other than
// the patient).
func (l Labels) positive(name string) bool {
	switch name {
	case "negated":
		return l.Negated
	case "uncertain":
		return l.Uncertain
	case "hypothetical":
		return l.Hypothetical
	case "experiencer":
		return l.Experiencer == "other"
	}
	panic("contextbench: unknown label " + name)
}

// Read loads a corpus file strictly: every field present and known,
// experiencer "patient" or "other", text holding the target. Errors name
// the file, line and field.
func Read(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode reads corpus rows from r; name is used in errors.
func Decode(r io.Reader, name string) ([]Row, error) {
	var rows []Row
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(line, &raw); err != nil {
			return nil, fmt.Errorf("%s line %d: not a JSON object: %v", name, n, err)
		}
		for _, k := range []string{"id", "text", "target", "negated", "uncertain", "hypothetical", "experiencer", "kind"} {
			if _, ok := raw[k]; !ok {
				return nil, fmt.Errorf("%s line %d: field %q is missing; every row needs id, genre, text, target, negated, uncertain, hypothetical, experiencer, kind", name, n, k)
			}
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var row Row
		if err := dec.Decode(&row); err != nil {
			return nil, fmt.Errorf("%s line %d: %v", name, n, err)
		}
		switch {
		case row.Experiencer != "patient" && row.Experiencer != "other":
			return nil, fmt.Errorf("%s line %d (%s): experiencer %q must be \"patient\" or \"other\"", name, n, row.ID, row.Experiencer)
		case strings.TrimSpace(row.Target) == "":
			return nil, fmt.Errorf("%s line %d (%s): target is empty", name, n, row.ID)
		}
		if prev, ok := seen[row.ID]; ok {
			return nil, fmt.Errorf("%s line %d: id %q already used on line %d", name, n, row.ID, prev)
		}
		seen[row.ID] = n
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s after line %d: %v", name, n, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows", name)
	}
	return rows, nil
}

// Execkg labels a row with execkg's analyser.
func Execkg(r Row) Labels {
	c := consistency.Analyze(r.Text, r.Target)
	exp := "patient"
	if c.Other {
		exp = "other"
	}
	// The corpus has ConText's four labels: a probable negation
	// ("unlikely to be cellulitis") is annotated uncertain there.
	return Labels{Found: c.Found, Negated: c.Negated, Uncertain: c.Uncertain || c.Unlikely, Hypothetical: c.Hypothetical, Experiencer: exp}
}

// Score is one label's confusion counts.
type Score struct {
	TP, FP, FN, TN int
}

// Precision, Recall and F1 are 0 when undefined (no predicted or no
// gold positives), as is usual for a class that never occurs.
func (s Score) Precision() float64 { return ratio(s.TP, s.TP+s.FP) }
func (s Score) Recall() float64    { return ratio(s.TP, s.TP+s.FN) }
func (s Score) F1() float64        { return ratio(2*s.TP, 2*s.TP+s.FP+s.FN) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Result scores one system on a corpus.
type Result struct {
	Rows   int              `json:"rows"`
	Found  int              `json:"found"`
	Labels map[string]Score `json:"labels"`
	// Kinds: per phenomenon, the rows and how many the system got right
	// on every label.
	Kinds map[string]KindScore `json:"kinds"`
}

// KindScore is one phenomenon's rows and the rows fully right.
type KindScore struct {
	Rows, Right int
}

// Evaluate scores predictions (one per row, same order) against the gold.
func Evaluate(rows []Row, pred []Labels) Result {
	if len(pred) != len(rows) {
		panic(fmt.Sprintf("contextbench: %d predictions for %d rows", len(pred), len(rows)))
	}
	res := Result{Rows: len(rows), Labels: map[string]Score{}, Kinds: map[string]KindScore{}}
	for i, r := range rows {
		g, p := r.Gold(), pred[i]
		if p.Found {
			res.Found++
		}
		right := true
		for _, name := range LabelNames {
			s := res.Labels[name]
			gp, pp := g.positive(name), p.positive(name)
			switch {
			case gp && pp:
				s.TP++
			case pp:
				s.FP++
			case gp:
				s.FN++
			default:
				s.TN++
			}
			if gp != pp {
				right = false
			}
			res.Labels[name] = s
		}
		k := res.Kinds[r.Kind]
		k.Rows++
		if right {
			k.Right++
		}
		res.Kinds[r.Kind] = k
	}
	return res
}

// KindNames lists the kinds of rows, sorted.
func KindNames(rows []Row) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range rows {
		if !seen[r.Kind] {
			seen[r.Kind] = true
			out = append(out, r.Kind)
		}
	}
	sort.Strings(out)
	return out
}

// LabelRecall is the recall of one label over the rows keep selects:
// of their gold positives, how many the system labels (found, total).
func LabelRecall(rows []Row, pred []Labels, label string, keep func(Row) bool) (found, total int) {
	for i, r := range rows {
		if !keep(r) || !r.Gold().positive(label) {
			continue
		}
		total++
		if pred[i].positive(label) {
			found++
		}
	}
	return found, total
}
