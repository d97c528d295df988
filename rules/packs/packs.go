// Package packs embeds the guideline packs shipped with ExecutableKG, so the
// tool works on a fresh clone with no files to point at. Every directory
// here that holds rule tables is a built-in pack, selectable by its
// directory name (its pack id): adding a pack is adding a directory, with
// no Go code of its own.
package packs

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/executablekg/execkg/rules"
)

//go:embed */*.json */meta
var files embed.FS

// DefaultDir is the directory (the pack id) of the default pack inside FS.
const DefaultDir = "esc-ccs-2024"

// DefaultID is the guideline id of the default pack.
const DefaultID = "ESC_CCS_2024"

// LexiconFile is where a pack keeps its concept lexicon, relative to its
// directory.
const LexiconFile = "meta/lexicon.json"

// FS returns the embedded pack files; each pack is the directory named by
// its id.
func FS() fs.FS { return files }

// IDs lists the built-in packs by id (directory name), sorted: every
// directory holding at least one rule-table file (*.json directly in it),
// testdata aside.
func IDs() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil // the embedded root always reads
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" && holdsTables(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func holdsTables(dir string) bool {
	entries, _ := fs.ReadDir(files, dir)
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ".json") && !strings.HasPrefix(n, "_") && !strings.HasPrefix(n, ".") {
			return true
		}
	}
	return false
}

// Has reports whether id names a built-in pack.
func Has(id string) bool {
	for _, x := range IDs() {
		if x == id {
			return true
		}
	}
	return false
}

// UnknownError names a pack id that is not built in, with the ids that are.
type UnknownError struct{ ID string }

func (e *UnknownError) Error() string {
	return fmt.Sprintf("no built-in pack %q: the built-in packs are %s (or pass a rule directory with --dir)", e.ID, strings.Join(IDs(), ", "))
}

// Load loads a built-in pack by id, without validating it (use
// preflight.Check(FS(), id) for the full check).
func Load(id string) (*rules.Pack, error) {
	if !Has(id) {
		return nil, &UnknownError{ID: id}
	}
	return rules.LoadFS(files, id)
}

// LexiconPath is the path of a built-in pack's lexicon inside FS, or ""
// when the pack has none.
func LexiconPath(id string) string {
	p := path.Join(id, LexiconFile)
	if _, err := fs.Stat(files, p); err != nil {
		return ""
	}
	return p
}

// Default loads the built-in 2024 ESC chronic coronary syndromes pack.
func Default() (*rules.Pack, error) { return rules.LoadFS(files, DefaultDir) }

// DefaultHierarchy loads the built-in pack's is-a relations.
func DefaultHierarchy() (*rules.Hierarchy, error) { return rules.LoadHierarchyFS(files, DefaultDir) }

// DefaultReading loads the built-in pack's reading vocabulary.
func DefaultReading() (*rules.Reading, error) { return rules.LoadReadingFS(files, DefaultDir) }
