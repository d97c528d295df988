package vignettes

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
)

// Data holds the shipped files: the curated clause table, the paraphrases,
// and the generated vignettes and exclusion list, so every command works
// from the binary alone.
//
//go:embed data
var Data embed.FS

// Paths of the shipped files, inside Data and relative to this package's
// directory in the repository.
const (
	ClausesFile     = "data/clauses.json"
	ParaphrasesFile = "data/paraphrases.json"
	VignettesFile   = "data/vignettes.jsonl"
	ExcludedFile    = "data/excluded.json"
)

// RepoDir is the package directory relative to the repository root, where
// `execkg vignettes generate` writes by default.
const RepoDir = "vignettes"

// DefaultClauses parses the shipped clause table.
func DefaultClauses() (*ClauseTable, error) {
	b, err := Data.ReadFile(ClausesFile)
	if err != nil {
		return nil, err
	}
	return ParseClauses(filepath.Join(RepoDir, ClausesFile), b)
}

// DefaultParaphrases parses the shipped paraphrase file.
func DefaultParaphrases() (*ParaphraseFile, error) {
	b, err := Data.ReadFile(ParaphrasesFile)
	if err != nil {
		return nil, err
	}
	return ParseParaphrases(filepath.Join(RepoDir, ParaphrasesFile), b)
}

// Default returns the shipped vignettes.
func Default() ([]Vignette, error) {
	b, err := Data.ReadFile(VignettesFile)
	if err != nil {
		return nil, fmt.Errorf("shipped vignettes: %w (run `execkg vignettes generate` and rebuild)", err)
	}
	return Decode(filepath.Join(RepoDir, VignettesFile), bytes.NewReader(b))
}

// Load reads vignettes from a JSON-lines file, or the shipped ones when
// path is "".
func Load(path string) ([]Vignette, error) {
	if path == "" {
		return Default()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read vignettes: %w", err)
	}
	defer f.Close()
	return Decode(path, f)
}

// Files renders the generated files, keyed by their path relative to the
// package directory (VignettesFile, ExcludedFile).
func (s *Set) Files() (map[string][]byte, error) {
	v, err := Marshal(s.Vignettes)
	if err != nil {
		return nil, err
	}
	ex, err := marshalExcluded(s.Excluded)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{VignettesFile: v, ExcludedFile: ex}, nil
}
