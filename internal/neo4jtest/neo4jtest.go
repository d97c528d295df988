// Package neo4jtest serialises the test packages that write to one Neo4j
// server. `go test ./...` runs packages as parallel processes; against one
// server they would see each other's half-built test packs and embedding
// dimensions. Each such package's TestMain calls Main, which holds a lock
// file named after NEO4J_URI for the whole package run, so the Neo4j tests
// of different packages take turns while everything else stays parallel.
package neo4jtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

var unsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// LockPath is the lock file for the server at uri.
func LockPath(uri string) string {
	return filepath.Join(os.TempDir(), "execkg-neo4j-"+unsafe.ReplaceAllString(uri, "_")+".lock")
}

// Main runs the package's tests, holding the server's lock when NEO4J_URI
// is set, and returns m.Run's exit code. after, when not nil, runs before
// the lock is released (a package's clean-up of what its tests wrote).
func Main(m *testing.M, after func()) int {
	uri := os.Getenv("NEO4J_URI")
	if uri == "" || fuzzWorker(os.Args[1:]) {
		// A fuzz worker is a child of the process that already holds
		// the lock (go test -fuzz runs TestMain in both): waiting for it
		// would stall every worker until -fuzztime ran out, with the
		// baseline never gathered.
		return m.Run()
	}
	unlock, err := Lock(uri)
	if err != nil {
		fmt.Fprintf(os.Stderr, "neo4jtest: %v\n", err)
		return 1
	}
	defer unlock()
	code := m.Run()
	if after != nil {
		after()
	}
	return code
}

// fuzzWorker reports whether the arguments are those go test gives a fuzz
// worker process (-test.fuzzworker).
func fuzzWorker(args []string) bool {
	for _, a := range args {
		switch a {
		case "-test.fuzzworker", "--test.fuzzworker", "-test.fuzzworker=true", "--test.fuzzworker=true":
			return true
		}
	}
	return false
}

// Lock blocks until this process holds the lock for the server at uri.
func Lock(uri string) (unlock func(), err error) {
	p := LockPath(uri)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: %w (set TMPDIR to a writable folder)", p, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	return func() { _ = unlockFile(f); _ = f.Close() }, nil
}
