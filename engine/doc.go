// Package engine answers patient cases with guideline recommendations:
// build a Program once from a pack and options, then Ask many cases,
// concurrently. Each Result carries its trace back to the source rows.
//
// The pipeline follows the reference system's steps: (i) findings from the
// case text, (ii) grounding of each finding onto concept anchors,
// (iii) expansion to rule bundles through a graph store, (iv) structured
// evidence, (v) a deterministic consistency check, (vi) three-valued rule
// evaluation. An LLM may only read text (steps i and iv); code decides.
package engine
