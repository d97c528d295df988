package analysis

import (
	"compress/gzip"
	"fmt"
	"github.com/executablekg/execkg/internal/jsonl"
	"io"
	"os"
	"strings"

	"github.com/executablekg/execkg/engine"
)

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
	seen := map[string]int{}
	return jsonl.Read(name, r, jsonl.Options{Want: "one JSON object with case_id and predicted_row_ids"}, func(line int, res *engine.Result) error {
		if res.CaseID == "" {
			return fmt.Errorf("case_id is missing or empty")
		}
		if prev, dup := seen[res.CaseID]; dup {
			return fmt.Errorf("case %s was already given on line %d; keep one line per case", res.CaseID, prev)
		}
		seen[res.CaseID] = line
		return nil
	})
}

// WritePredictions encodes results as JSON lines (one per result, in
// order), the format ReadPredictions reads.
func WritePredictions(w io.Writer, results []engine.Result) error { return jsonl.Write(w, results) }
