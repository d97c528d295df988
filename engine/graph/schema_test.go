package graph

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

// schemaDoc is the part of schema/graph.json the code must agree with.
type schemaDoc struct {
	Labels map[string]struct {
		Identity   []string `json:"identity"`
		Properties map[string]struct {
			Type     string `json:"type"`
			Required bool   `json:"required"`
		} `json:"properties"`
	} `json:"labels"`
	Relationships map[string]struct {
		From       []string                   `json:"from"`
		To         []string                   `json:"to"`
		Properties map[string]json.RawMessage `json:"properties"`
	} `json:"relationships"`
	Constraints []struct {
		Name   string   `json:"name"`
		Label  string   `json:"label"`
		Unique []string `json:"unique"`
	} `json:"constraints"`
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}

// schema/graph.json documents exactly what the stores write: labels,
// relationship types, every property (required ones on every node), the
// endpoints of every relationship and the uniqueness constraints.
func TestSchemaDocumentMatchesStores(t *testing.T) {
	data, err := os.ReadFile("../../schema/graph.json")
	require.NoError(t, err)
	var doc schemaDoc
	require.NoError(t, json.Unmarshal(data, &doc))

	assert.Equal(t, sorted(Labels), keysOf(doc.Labels))
	assert.Equal(t, sorted(RelTypes), keysOf(doc.Relationships))

	// The mini pack, and the USPSTF pack for what only its grading gives
	// (I statements: INSUFFICIENT_EVIDENCE).
	uspstf, err := rules.LoadFS(packs.FS(), "uspstf-cvd-prevention")
	require.NoError(t, err)
	var stores []*Memory
	for _, p := range []*rules.Pack{loadMini(t), uspstf} {
		m := NewMemory()
		_, err = m.Load(context.Background(), p, BuildOptions{Embedder: newTrigramEmbedder()})
		require.NoError(t, err)
		stores = append(stores, m)
	}
	seen := map[string]map[string]bool{}
	relProps := map[string]map[string]bool{}
	for _, m := range stores {
		schemaSeen(t, doc, m, seen, relProps)
	}
	for _, l := range Labels {
		assert.Equal(t, keysOf(doc.Labels[l].Properties), keysOf(seen[l]), "properties of %s", l)
	}
	for _, typ := range RelTypes {
		assert.Equal(t, keysOf(doc.Relationships[typ].Properties), keysOf(relProps[typ]), "properties of %s", typ)
	}
	schemaConstraints(t, doc)
}

// schemaSeen collects the properties a store wrote, per label and type,
// and checks required properties and endpoints against the document.
func schemaSeen(t *testing.T, doc schemaDoc, m *Memory, seen, relProps map[string]map[string]bool) {
	for k, props := range m.nodes {
		l := k.label
		if seen[l] == nil {
			seen[l] = map[string]bool{}
		}
		for p := range props {
			seen[l][p] = true
		}
		for name, spec := range doc.Labels[l].Properties {
			if spec.Required {
				assert.Contains(t, props, name, "%s %s lacks required property %s", l, k.id, name)
			}
		}
	}
	for k, props := range m.edges {
		if relProps[k.typ] == nil {
			relProps[k.typ] = map[string]bool{}
		}
		for p := range props {
			relProps[k.typ][p] = true
		}
		spec := doc.Relationships[k.typ]
		assert.Contains(t, spec.From, k.from.label, "%s from %s", k.typ, k.from.label)
		assert.Contains(t, spec.To, k.to.label, "%s to %s", k.typ, k.to.label)
	}
}

// schemaConstraints: the documented constraints are the ones Load creates.
func schemaConstraints(t *testing.T, doc schemaDoc) {

	// Constraints: the documented ones are the ones Load creates, and each
	// is on the label's identity.
	re := regexp.MustCompile(`^CREATE CONSTRAINT (\S+) IF NOT EXISTS FOR \(n:(\w+)\) REQUIRE \((.+)\) IS UNIQUE$`)
	var created []string
	for _, stmt := range schemaStatements() {
		if mm := re.FindStringSubmatch(stmt); mm != nil {
			props := strings.ReplaceAll(strings.ReplaceAll(mm[3], "n.", ""), " ", "")
			created = append(created, fmt.Sprintf("%s %s %s", mm[1], mm[2], props))
		}
	}
	var documented []string
	for _, c := range doc.Constraints {
		documented = append(documented, fmt.Sprintf("%s %s %s", c.Name, c.Label, strings.Join(c.Unique, ",")))
		assert.Equal(t, doc.Labels[c.Label].Identity, c.Unique, "constraint %s is on the identity of %s", c.Name, c.Label)
	}
	assert.Equal(t, sorted(documented), sorted(created))
	assert.Len(t, created, len(Labels), "one uniqueness constraint per label")
}
