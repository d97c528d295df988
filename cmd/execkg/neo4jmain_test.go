package main

import (
	"os"
	"testing"

	"github.com/executablekg/execkg/internal/neo4jtest"
)

// With NEO4J_URI set, this package's tests write to that server; they take
// turns with the other packages that do (see internal/neo4jtest).
func TestMain(m *testing.M) {
	code := neo4jtest.Main(m, nil)
	removeOffline()
	os.Exit(code)
}
