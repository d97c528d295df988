// Package packs embeds the guideline packs shipped with ExecutableKG, so the
// tool works on a fresh clone with no files to point at.
package packs

import (
	"embed"
	"io/fs"

	"github.com/executablekg/execkg/rules"
)

//go:embed esc-ccs-2024/*.json esc-ccs-2024/meta
var files embed.FS

// DefaultDir is the directory of the default pack inside FS.
const DefaultDir = "esc-ccs-2024"

// DefaultID is the guideline id of the default pack.
const DefaultID = "ESC_CCS_2024"

// FS returns the embedded pack files.
func FS() fs.FS { return files }

// Default loads the built-in 2024 ESC chronic coronary syndromes pack.
func Default() (*rules.Pack, error) { return rules.LoadFS(files, DefaultDir) }

// DefaultHierarchy loads the built-in pack's is-a relations.
func DefaultHierarchy() (*rules.Hierarchy, error) { return rules.LoadHierarchyFS(files, DefaultDir) }

// DefaultReading loads the built-in pack's reading vocabulary.
func DefaultReading() (*rules.Reading, error) { return rules.LoadReadingFS(files, DefaultDir) }
