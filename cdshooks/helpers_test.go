package cdshooks_test

import (
	"github.com/executablekg/execkg/cdshooks"
	"github.com/executablekg/execkg/engine"
)

func testPack(p *engine.Program) cdshooks.Pack { return cdshooks.NewPack(p) }
