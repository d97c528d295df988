package schema

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The committed schema must be what the Go types generate; regenerate with
// UPDATE_SCHEMA=1 go test ./schema/ (or execkg schema --write).
func TestCommittedSchemaIsFresh(t *testing.T) {
	gen, err := Generate()
	require.NoError(t, err)
	if os.Getenv("UPDATE_SCHEMA") == "1" {
		require.NoError(t, os.WriteFile("ruletable.schema.json", gen, 0o644))
		return
	}
	if !bytes.Equal(gen, committed) {
		t.Fatalf("schema/ruletable.schema.json is stale: regenerate with UPDATE_SCHEMA=1 go test ./schema/")
	}
}
