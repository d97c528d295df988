package reproduce

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/executablekg/execkg/analysis/baseline"
	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/vignettes"
)

// BaselineConfig sets up the VectorRAG arm.
type BaselineConfig struct {
	Name      string
	Embedder  embed.Embedder
	K         int
	Generator baseline.Generator
	// Snapshot is the frozen retrieval (JSON lines) and where it lives.
	Snapshot     []byte
	SnapshotPath string
	// Refresh recomputes the retrieval and returns it for writing instead
	// of checking the stored snapshot.
	Refresh bool
}

// BuildBaseline returns the baseline arm over the frozen retrieval. With
// Refresh the retrieval is recomputed and returned as the new snapshot.
// Otherwise the stored snapshot is used; when it was made by the
// configured embedder it is recomputed and must agree, so a changed pack,
// vignette set or embedder cannot silently change the baseline's rows.
// A snapshot made by another embedder (an Ollama model, offline) is used
// as frozen, and the returned note says it was not recomputed.
func BuildBaseline(ctx context.Context, p *rules.Pack, vs []vignettes.Vignette, bc BaselineConfig) (*baseline.Arm, *BaselineNumbers, []byte, error) {
	if bc.K == 0 {
		bc.K = baseline.DefaultK
	}
	chunks := baseline.Chunks(p)
	num := &BaselineNumbers{Embedder: bc.Embedder.Name(), K: bc.K, Generator: bc.Generator.Name(), Snapshot: bc.SnapshotPath}
	var snap []baseline.Retrieved
	var fresh []byte
	if bc.Refresh {
		rs, err := baseline.Retrieve(ctx, bc.Embedder, chunks, vs, bc.K)
		if err != nil {
			return nil, nil, nil, err
		}
		if fresh, err = baseline.MarshalSnapshot(rs); err != nil {
			return nil, nil, nil, err
		}
		snap = rs
		num.Refreshed = true
	} else {
		if len(bc.Snapshot) == 0 {
			return nil, nil, nil, fmt.Errorf("no baseline snapshot at %s; create it with `execkg reproduce --refresh-snapshot`", bc.SnapshotPath)
		}
		stored, err := baseline.DecodeSnapshot(bc.SnapshotPath, bytes.NewReader(bc.Snapshot))
		if err != nil {
			return nil, nil, nil, err
		}
		if len(stored) > 0 && stored[0].Embedder == bc.Embedder.Name() {
			rs, err := baseline.Retrieve(ctx, bc.Embedder, chunks, vs, bc.K)
			if err != nil {
				return nil, nil, nil, err
			}
			if d := baseline.DiffSnapshot(stored, rs); len(d) > 0 {
				return nil, nil, nil, fmt.Errorf("baseline snapshot %s is stale (%d difference(s), first: %s); refresh it with `execkg reproduce --refresh-snapshot`",
					bc.SnapshotPath, len(d), d[0])
			}
		} else if len(stored) > 0 {
			num.Embedder = stored[0].Embedder
			num.Snapshot += fmt.Sprintf(" (frozen by %s; not recomputed with %s)", stored[0].Embedder, bc.Embedder.Name())
		}
		snap = stored
	}
	name := bc.Name
	if name == "" {
		name = "vectorrag+" + strings.SplitN(bc.Generator.Name(), "(", 2)[0]
	}
	return &baseline.Arm{ArmName: name, Snapshot: snap, Chunks: chunks, Generator: bc.Generator}, num, fresh, nil
}
