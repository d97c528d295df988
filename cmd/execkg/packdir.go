package main

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/rules/preflight"
)

// packSource resolves a rule directory argument: empty means the built-in
// pack embedded in the binary, so commands work on a fresh clone.
func packSource(dir string) (fsys fs.FS, sub, label string, err error) {
	if dir == "" {
		return packs.FS(), packs.DefaultDir, "built-in pack " + packs.DefaultDir, nil
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, "", "", fmt.Errorf("rule directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, "", "", fmt.Errorf("%s is not a directory (pass the folder holding table_NN.json files)", dir)
	}
	return os.DirFS(dir), ".", dir, nil
}

// preflightDir runs the preflight on a directory argument.
func preflightDir(dir string) (*preflight.Report, string, error) {
	fsys, sub, label, err := packSource(dir)
	if err != nil {
		return nil, "", err
	}
	rep, err := preflight.Check(fsys, sub)
	return rep, label, err
}
