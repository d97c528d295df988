package cdshooks

import "github.com/executablekg/execkg/engine"

// NewPack wires a compiled program into a Pack.
func NewPack(prog *engine.Program) Pack {
	return Pack{Program: prog}
}
