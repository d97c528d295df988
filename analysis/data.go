package analysis

import (
	"bytes"
	"embed"
	"path/filepath"
)

// Data holds the frozen baseline retrieval snapshot.
//
//go:embed data
var Data embed.FS

// SnapshotFile is the snapshot's path inside Data and relative to this
// package's directory (analysis/).
const SnapshotFile = "data/baseline_snapshot.jsonl"

// RepoDir is this package's directory relative to the repository root.
const RepoDir = "analysis"

// DefaultSnapshot returns the shipped snapshot bytes and its repository
// path; nil bytes when none is shipped yet.
func DefaultSnapshot() ([]byte, string) {
	b, err := Data.ReadFile(SnapshotFile)
	if err != nil {
		return nil, filepath.Join(RepoDir, SnapshotFile)
	}
	return bytes.Clone(b), filepath.Join(RepoDir, SnapshotFile)
}
