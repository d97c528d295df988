//go:build !unix

package neo4jtest

import "os"

// Elsewhere packages are not serialised: run the Neo4j tests with -p 1.
func lockFile(*os.File) error   { return nil }
func unlockFile(*os.File) error { return nil }
