package graph

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEquivalentSchemaIsSuccess(t *testing.T) {
	eq := fmt.Errorf("graph: query: %w", &neo4j.Neo4jError{Code: "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"})
	assert.True(t, equivalentSchema(eq))
	// Another index under the same name is a real conflict.
	assert.False(t, equivalentSchema(&neo4j.Neo4jError{Code: "Neo.ClientError.Schema.IndexAlreadyExists"}))
	assert.False(t, equivalentSchema(nil))
}

// Several builders creating the same index at once: every one succeeds (CI
// runs the Neo4j test packages in parallel against one server, and two
// `execkg build`s may run at once). The index name is the test's own, so the
// race is real each run and no other test's index is touched.
func TestNeo4jSchemaConcurrentCreate(t *testing.T) {
	s := openNeo4j(t)
	ctx := context.Background()
	name := fmt.Sprintf("execkg_test_concurrent_%d", time.Now().UnixNano())
	stmt := fmt.Sprintf("CREATE INDEX %s IF NOT EXISTS FOR (n:ExecKGTestOnly) ON (n.k)", name)
	t.Cleanup(func() { _, _ = s.query(ctx, "DROP INDEX "+name+" IF EXISTS", nil, true) })
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = s.schema(ctx, stmt) }()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "builder %d", i)
	}
	rows := cypher(t, s, "SHOW INDEXES YIELD name WHERE name = $name RETURN name", map[string]any{"name": name})
	assert.Len(t, rows, 1)
}
