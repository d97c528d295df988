package graph

import (
	"context"
	"fmt"
	"math"
)

// embedState is what a store already holds for one DecisionNode.
type embedState struct {
	hash, embedder string
	has            bool
	dim            int
}

// embedPlan says, per decision id, which vector to write: a new one, the
// stored one (keep), or none.
type embedPlan struct {
	vectors map[string][]float32
	keep    map[string]bool
	model   string
	dim     int
}

// embedBatch is how many texts go to the embedder per call.
const embedBatch = 64

// planEmbeddings decides which DecisionNodes need a new vector and embeds
// their texts (each distinct text once). A stored vector is kept when its
// text hash and embedder are unchanged (and RefreshAll is off); without an
// embedder a stored vector survives only while its text is unchanged, so a
// vector never describes a text other than the node's.
func planEmbeddings(ctx context.Context, pl *plan, existing map[string]embedState, opt BuildOptions, st *BuildStats) (*embedPlan, error) {
	ep := &embedPlan{vectors: map[string][]float32{}, keep: map[string]bool{}}
	var model string
	if opt.Embedder != nil {
		model = opt.Embedder.Name()
		ep.model = model
	}
	want := 0
	if opt.Embedder != nil {
		want = opt.Embedder.Dim()
	}
	need := map[string][]string{} // text -> decision ids
	var texts []string
	for _, n := range pl.nodes {
		if n.label != LabelDecisionNode {
			continue
		}
		hash := pString(n.props, "grounding_hash")
		ex := existing[n.id]
		switch {
		case opt.Embedder == nil:
			if ex.has && ex.hash == hash {
				ep.keep[n.id] = true
				st.EmbeddingsKept++
			} else if ex.has {
				st.EmbeddingsDropped++
			}
		case !opt.RefreshAll && ex.has && ex.hash == hash && ex.embedder == model && (want == 0 || ex.dim == want):
			ep.keep[n.id] = true
			st.EmbeddingsKept++
		default:
			t := pString(n.props, "grounding_text")
			if _, ok := need[t]; !ok {
				texts = append(texts, t)
			}
			need[t] = append(need[t], n.id)
		}
	}
	if len(texts) == 0 {
		return ep, nil
	}
	for start := 0; start < len(texts); start += embedBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+embedBatch, len(texts))
		vecs, err := opt.Embedder.Embed(ctx, texts[start:end])
		if err != nil {
			return nil, fmt.Errorf("graph: embed grounding texts with %s: %w", model, err)
		}
		if len(vecs) != end-start {
			return nil, fmt.Errorf("graph: embedder %s returned %d vectors for %d texts", model, len(vecs), end-start)
		}
		for i, v := range vecs {
			if err := checkVector(v, want, &ep.dim); err != nil {
				return nil, fmt.Errorf("graph: embedder %s, text %q: %w", model, texts[start+i], err)
			}
			for _, id := range need[texts[start+i]] {
				ep.vectors[id] = v
			}
		}
	}
	st.EmbeddedTexts = len(texts)
	st.Embedded = len(ep.vectors)
	st.Embedder = model
	st.Dim = ep.dim
	return ep, nil
}

// checkVector rejects vectors a cosine index cannot use.
func checkVector(v []float32, want int, dim *int) error {
	if len(v) == 0 {
		return fmt.Errorf("empty vector")
	}
	if want > 0 && len(v) != want {
		return fmt.Errorf("vector has %d dimensions, the embedder's Dim() says %d", len(v), want)
	}
	if *dim == 0 {
		*dim = len(v)
	} else if len(v) != *dim {
		return fmt.Errorf("vector has %d dimensions, earlier ones %d", len(v), *dim)
	}
	var norm float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("vector holds NaN or Inf")
		}
		norm += float64(x) * float64(x)
	}
	if norm == 0 {
		return fmt.Errorf("zero vector (cosine similarity is undefined)")
	}
	return nil
}
