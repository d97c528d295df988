package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// One offline `execkg reproduce` on the embedded store, with every output
// file, shared by the tests that read it (TestReproduceOffline checks the
// command's output and files, TestReadmeFigures the README's numbers): it
// answers the vignettes and the dev documents and was this package's
// longest step, run twice.
var offline struct {
	once           sync.Once
	dir            string
	stdout, stderr string
	code           int
}

func offlineReproduce(t *testing.T) (dir, stdout string) {
	t.Helper()
	offline.once.Do(func() {
		d, err := os.MkdirTemp("", "execkg-reproduce-")
		if err != nil {
			offline.code, offline.stderr = -1, err.Error()
			return
		}
		offline.dir = d
		// Offline means the embedded store, whatever NEO4J_URI says.
		if old, had := os.LookupEnv("NEO4J_URI"); had {
			os.Unsetenv("NEO4J_URI")
			defer os.Setenv("NEO4J_URI", old)
		}
		var so, se bytes.Buffer
		offline.code = run([]string{"reproduce",
			"--numbers", filepath.Join(d, "paper_numbers.json"),
			"--errors", filepath.Join(d, "errors.csv"),
			"--predictions-out", filepath.Join(d, "preds"),
			"--documents-errors", filepath.Join(d, "documents_errors.csv")}, &so, &se)
		offline.stdout, offline.stderr = so.String(), se.String()
	})
	if offline.code != 0 {
		t.Fatalf("reproduce: exit %d:\n%s%s", offline.code, offline.stdout, offline.stderr)
	}
	return offline.dir, offline.stdout
}

// removeOffline: TestMain's clean-up of the shared run's files.
func removeOffline() {
	if offline.dir != "" {
		os.RemoveAll(offline.dir)
	}
}
