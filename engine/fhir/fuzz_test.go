package fhir_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/executablekg/execkg/engine/fhir"
	"github.com/executablekg/execkg/rules/packs"
)

// FuzzRead: no input makes the reader panic, and whatever it returns is a
// valid patient model or an error.
func FuzzRead(f *testing.F) {
	names, _ := filepath.Glob("testdata/*.json")
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"resourceType":"Bundle","type":"collection","entry":[{"resource":null},{}]}`))
	p, err := packs.Default()
	if err != nil {
		f.Fatal(err)
	}
	date := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := fhir.Read(b, p.ValueSets, fhir.Options{Date: date})
		if err != nil {
			return
		}
		if verr := m.Validate(); verr != nil {
			t.Fatalf("invalid model: %v", verr)
		}
	})
}
