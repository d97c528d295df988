// Package jsonl reads and writes JSON lines, the format of every data file
// of the project (vignettes, reference, predictions, snapshots): one value
// per line, blank lines skipped, errors naming file and line.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Options of Read.
type Options struct {
	// Strict refuses fields the type does not have (a misspelt key).
	Strict bool
	// Want describes one line for error messages, e.g. `{"case_id","row_ids":[…]}`.
	Want string
}

// Read decodes one T per non-blank line. each, when set, checks a value
// (its error is reported with file and line) before it is kept.
func Read[T any](name string, r io.Reader, o Options, each func(line int, v *T) error) ([]T, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var out []T
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var v T
		dec := json.NewDecoder(bytes.NewReader(b))
		if o.Strict {
			dec.DisallowUnknownFields()
		}
		if err := dec.Decode(&v); err != nil {
			if o.Want != "" {
				return nil, fmt.Errorf("%s:%d: %v (want %s)", name, line, err, o.Want)
			}
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if each != nil {
			if err := each(line, &v); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: after line %d: %w", name, line, err)
	}
	return out, nil
}

// Marshal encodes one value per line, in order, without HTML escaping, so
// regenerated files are byte-identical.
func Marshal[T any](vs []T) ([]byte, error) {
	var b bytes.Buffer
	if err := Write(&b, vs); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Write encodes one value per line to w.
func Write[T any](w io.Writer, vs []T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range vs {
		if err := enc.Encode(&vs[i]); err != nil {
			return fmt.Errorf("encode line %d: %w", i+1, err)
		}
	}
	return nil
}
