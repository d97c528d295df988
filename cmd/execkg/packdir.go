package main

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules/packs"
	"github.com/executablekg/execkg/rules/preflight"
)

// allPacks is the --pack value that selects every built-in pack.
const allPacks = "all"

// packUsage is the --pack flag's help, shared by every command that reads
// a pack.
func packUsage() string {
	return fmt.Sprintf("built-in pack to use: %s, or %q for every one (default %s); --dir reads a directory instead",
		strings.Join(packs.IDs(), ", "), allPacks, packs.DefaultDir)
}

// registerPackFlags adds --pack and --dir to a command (ask, batch,
// validate, stats, build, explain, serve): resolvePacks turns them into the
// packs to read.
func registerPackFlags(fl *flag.FlagSet, pack, dir *string) {
	fl.StringVar(pack, "pack", "", packUsage())
	fl.StringVar(dir, "dir", "", "rule-table directory: a pack of your own, with its meta/ (default: the built-in pack --pack names)")
}

// packSrc is one pack a command reads: a built-in one or a directory.
type packSrc struct {
	// ID is the pack id: the built-in directory name, or the base name of
	// the --dir directory. A multi-pack answer prefixes row ids with it.
	ID    string
	FS    fs.FS
	Sub   string // the pack's directory inside FS
	Label string // for messages: "built-in pack esc-ccs-2024" or the path
}

// resolvePacks returns the packs --pack and --dir select: a directory, one
// built-in pack (the default when both are empty), or every built-in pack
// for --pack all.
func resolvePacks(pack, dir string) ([]packSrc, error) {
	if dir != "" {
		if pack != "" {
			return nil, fmt.Errorf("--pack %s and --dir %s both name a pack: give one of them", pack, dir)
		}
		fsys, sub, label, err := packSource(dir)
		if err != nil {
			return nil, err
		}
		return []packSrc{{ID: filepath.Base(filepath.Clean(dir)), FS: fsys, Sub: sub, Label: label}}, nil
	}
	ids := []string{pack}
	switch pack {
	case "":
		ids = []string{packs.DefaultDir}
	case allPacks:
		ids = packs.IDs()
	}
	out := make([]packSrc, 0, len(ids))
	for _, id := range ids {
		if !packs.Has(id) {
			return nil, &packs.UnknownError{ID: id}
		}
		out = append(out, packSrc{ID: id, FS: packs.FS(), Sub: id, Label: "built-in pack " + id})
	}
	return out, nil
}

// onePack is resolvePacks for a command that reads exactly one pack.
func onePack(cmd, pack, dir string) (packSrc, error) {
	srcs, err := resolvePacks(pack, dir)
	if err != nil {
		return packSrc{}, err
	}
	if len(srcs) != 1 {
		return packSrc{}, fmt.Errorf("%s reads one pack; --pack %s names %d (pick one of %s)", cmd, pack, len(srcs), strings.Join(packs.IDs(), ", "))
	}
	return srcs[0], nil
}

// lexicon loads the pack's own concept lexicon (meta/lexicon.json; nil
// when it has none), or the file override names.
func (s packSrc) lexicon(override string) (*lexicon.Lexicon, error) {
	if override != "" {
		return lexicon.Load(override)
	}
	return lexicon.LoadPackFS(s.FS, s.Sub)
}

// preflight runs the preflight on the pack.
func (s packSrc) preflight() (*preflight.Report, error) { return preflight.Check(s.FS, s.Sub) }

// packSource resolves a rule directory argument: empty means the built-in
// default pack embedded in the binary, so commands work on a fresh clone.
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

// dirLexicon loads the lexicon for a --dir argument: override when given,
// else that directory's own (the built-in default pack's for ""), never
// another pack's.
func dirLexicon(dir, override string) (*lexicon.Lexicon, error) {
	if override != "" {
		return lexicon.Load(override)
	}
	fsys, sub, _, err := packSource(dir)
	if err != nil {
		return nil, err
	}
	return lexicon.LoadPackFS(fsys, sub)
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
