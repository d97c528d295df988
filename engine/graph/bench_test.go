package graph

import (
	"context"
	"os"
	"sort"
	"testing"

	"github.com/executablekg/execkg/rules"
)

// Benchmarks on the embedded pack. The Neo4j ones need NEO4J_URI and write
// the pack under version "test-bench", deleted afterwards:
//
//	NEO4J_URI=bolt://127.0.0.1:7687 go test ./engine/graph -run '^$' -bench . -benchtime 10x

func benchNeo4j(b *testing.B, pack *rules.Pack) *Neo4j {
	b.Helper()
	if os.Getenv("NEO4J_URI") == "" {
		b.Skip(skipNeo4j)
	}
	s, err := OpenNeo4j(context.Background(), Neo4jConfigFromEnv())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_, _ = s.DeletePack(context.Background(), pack.Guideline.ID, pack.Guideline.Version)
		_ = s.Close()
	})
	return s
}

func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	pack := withVersion(loadDefault(b), "test-bench")
	b.Run("memory", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewMemory().Load(ctx, pack, BuildOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("neo4j-fresh", func(b *testing.B) {
		s := benchNeo4j(b, pack)
		for b.Loop() {
			if _, err := s.Load(ctx, pack, BuildOptions{ClearGraph: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("neo4j-rebuild", func(b *testing.B) {
		s := benchNeo4j(b, pack)
		if _, err := s.Load(ctx, pack, BuildOptions{ClearGraph: true}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := s.Load(ctx, pack, BuildOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchAnchors are two anchor sets: the concept most rules test, and the
// concepts of the CCTA contraindication row (table 8 row 2) or, if the pack
// lacks it, of its first rule.
func benchAnchors(pack *rules.Pack) (top []string, row []string) {
	rulesPer := map[string]map[string]bool{}
	for _, r := range pack.Rules() {
		for _, c := range r.Conditions() {
			k := rules.ConceptKey(c.Entity)
			if rulesPer[k] == nil {
				rulesPer[k] = map[string]bool{}
			}
			rulesPer[k][r.ID] = true
		}
	}
	keys := make([]string, 0, len(rulesPer))
	for k := range rulesPer {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(rulesPer[keys[i]]) != len(rulesPer[keys[j]]) {
			return len(rulesPer[keys[i]]) > len(rulesPer[keys[j]])
		}
		return keys[i] < keys[j]
	})
	all := pack.Rules()
	target := all[0]
	for _, r := range all {
		if r.RowID == "table_08.json::row_2" {
			target = r
			break
		}
	}
	for _, c := range target.Conditions() {
		row = append(row, rules.ConceptKey(c.Entity))
	}
	return keys[:1], row
}

func BenchmarkBundles(b *testing.B) {
	ctx := context.Background()
	pack := withVersion(loadDefault(b), "test-bench")
	top, row := benchAnchors(pack)
	run := func(b *testing.B, s Store, keys []string) {
		n := 0
		for b.Loop() {
			bs, err := s.Bundles(ctx, keys)
			if err != nil {
				b.Fatal(err)
			}
			n = len(bs)
		}
		b.ReportMetric(float64(n), "rules/op")
	}
	mem := NewMemory()
	if _, err := mem.Load(ctx, pack, BuildOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Run("memory/top-concept", func(b *testing.B) { run(b, mem, top) })
	b.Run("memory/row-concepts", func(b *testing.B) { run(b, mem, row) })
	b.Run("neo4j", func(b *testing.B) {
		s := benchNeo4j(b, pack)
		if _, err := s.Load(ctx, pack, BuildOptions{ClearGraph: true}); err != nil {
			b.Fatal(err)
		}
		b.Run("top-concept", func(b *testing.B) { run(b, s, top) })
		b.Run("row-concepts", func(b *testing.B) { run(b, s, row) })
	})
}
