package main

import (
	"github.com/executablekg/execkg/cdshooks"
	"github.com/executablekg/execkg/engine"
)

// servePack wires a compiled program into the CDS Hooks server.
func servePack(prog *engine.Program) cdshooks.Pack {
	return cdshooks.Pack{Program: prog}
}
