package analysis

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/executablekg/execkg/engine"
)

// maxLine bounds one JSON line; a full trace of a vignette with many
// retrieved rules runs to a few MB.
const maxLine = 64 << 20

// ReadPredictions reads a prediction file: JSON lines of engine.Result
// (only case_id, predicted_row_ids and error are needed for scoring; the
// trace is used by the error analysis and re-scoring). A name ending in .gz
// is decompressed. Blank lines are skipped; a duplicate case id is an error
// because the score would depend on which line wins.
func ReadPredictions(path string) ([]engine.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read predictions: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: not a gzip file: %w (drop the .gz suffix for plain JSON lines)", path, err)
		}
		defer gz.Close()
		r = gz
	}
	return DecodePredictions(path, r)
}

// DecodePredictions parses JSON lines of engine.Result from r; name is
// used in errors.
func DecodePredictions(name string, r io.Reader) ([]engine.Result, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), maxLine)
	var out []engine.Result
	seen := map[string]int{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var res engine.Result
		if err := json.Unmarshal(b, &res); err != nil {
			return nil, fmt.Errorf("%s:%d: %v (each line must be one JSON object with case_id and predicted_row_ids)", name, line, err)
		}
		if res.CaseID == "" {
			return nil, fmt.Errorf("%s:%d: case_id is missing or empty", name, line)
		}
		if prev, dup := seen[res.CaseID]; dup {
			return nil, fmt.Errorf("%s:%d: case %s was already given on line %d; keep one line per case", name, line, res.CaseID, prev)
		}
		seen[res.CaseID] = line
		out = append(out, res)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: after line %d: %w", name, line, err)
	}
	return out, nil
}

// WritePredictions encodes results as JSON lines (one per result, in
// order), the format ReadPredictions reads.
func WritePredictions(w io.Writer, results []engine.Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range results {
		if err := enc.Encode(&results[i]); err != nil {
			return fmt.Errorf("encode case %s: %w", results[i].CaseID, err)
		}
	}
	return nil
}
