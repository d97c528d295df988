package reference

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
)

// Data holds the shipped reference and the equivalence judgements.
//
//go:embed data
var Data embed.FS

// Paths inside Data and relative to this package's directory.
const (
	ReferenceFile    = "data/reference.jsonl"
	MergedFile       = "data/reference_merged.jsonl"
	EquivalencesFile = "data/equivalences.json"
)

// RepoDir is the package directory relative to the repository root.
const RepoDir = "reference"

// Default returns the shipped reference.
func Default() ([]Case, error) {
	b, err := Data.ReadFile(ReferenceFile)
	if err != nil {
		return nil, fmt.Errorf("shipped reference: %w (run `execkg vignettes generate` and rebuild)", err)
	}
	return Decode(filepath.Join(RepoDir, ReferenceFile), bytes.NewReader(b))
}

// DefaultMerged returns the shipped merged-concept reference, or nil when
// no concepts are merged (no file is shipped then).
func DefaultMerged() ([]Case, error) {
	b, err := Data.ReadFile(MergedFile)
	if err != nil {
		return nil, nil
	}
	return Decode(filepath.Join(RepoDir, MergedFile), bytes.NewReader(b))
}

// DefaultEquivalences parses the shipped equivalence judgements.
func DefaultEquivalences() (*Equivalences, error) {
	b, err := Data.ReadFile(EquivalencesFile)
	if err != nil {
		return nil, err
	}
	return ParseEquivalences(filepath.Join(RepoDir, EquivalencesFile), b)
}

// Load reads a reference file, or the shipped one when path is "".
func Load(path string) ([]Case, error) {
	if path == "" {
		return Default()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read reference: %w", err)
	}
	defer f.Close()
	return Decode(path, f)
}
