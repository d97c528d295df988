package lexicon

import (
	"errors"
	"io/fs"
	"path"

	"github.com/executablekg/execkg/rules/packs"
)

// LoadPackFS reads the lexicon of the pack in dir of fsys
// (dir/meta/lexicon.json). A pack without one has no lexicon: nil, no
// error. Never another pack's lexicon: a pack loaded from a directory
// grounds with its own words only.
func LoadPackFS(fsys fs.FS, dir string) (*Lexicon, error) {
	p := path.Join(dir, packs.LexiconFile)
	if _, err := fs.Stat(fsys, p); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return LoadFS(fsys, p)
}

// LoadBuiltin reads the lexicon of the built-in pack id (nil when it has
// none).
func LoadBuiltin(id string) (*Lexicon, error) {
	if !packs.Has(id) {
		return nil, &packs.UnknownError{ID: id}
	}
	return LoadPackFS(packs.FS(), id)
}
