// Package graph stores a guideline pack as the executable knowledge graph
// described in schema/graph.md and expands concept anchors to complete rule
// bundles.
//
// Two stores implement Store with identical results: Memory (embedded,
// in-process, deterministic, no set-up; the default) and Neo4j (a Neo4j 5
// server over Bolt). Both write the same plan, computed from the pack before
// anything is written, so an unmappable pack writes nothing.
//
// Several packs and versions can share one graph: every node carries pack_id
// and pack_version, and a store reads only the pack it loaded (or the one
// named in its configuration).
package graph

import (
	"context"
	"time"

	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/rules"
)

// Node labels. The role "Qualifier Value" is stored under the label
// QualifierValue: Neo4j labels with a space need back-quotes in every query.
const (
	LabelClinicalCondition  = "ClinicalCondition"
	LabelClinicalParameter  = "ClinicalParameter"
	LabelMedication         = "Medication"
	LabelProcedure          = "Procedure"
	LabelQualifierValue     = "QualifierValue"
	LabelUnresolvedConcept  = "UnresolvedConcept"
	LabelDecisionNode       = "DecisionNode"
	LabelRecommendationNode = "RecommendationNode"
	LabelGuidelineSource    = "GuidelineSource"
)

// Relationship types.
const (
	RelChecksFor           = "CHECKS_FOR"
	RelEvaluates           = "EVALUATES"
	RelLeadsTo             = "LEADS_TO"
	RelResultsIn           = "RESULTS_IN"
	RelRecommendsUsage     = "RECOMMENDS_USAGE"
	RelRecommendsProcedure = "RECOMMENDS_PROCEDURE"
	RelContraindicates     = "CONTRAINDICATES"
	// RelInsufficientEvidence links a statement that takes no side (a
	// USPSTF I statement) to the service it weighs: neither a
	// recommendation for it nor one against.
	RelInsufficientEvidence = "INSUFFICIENT_EVIDENCE"
	RelMentionedIn          = "MENTIONED_IN"
)

// Labels lists every node label of the schema, semantic layer first.
var Labels = []string{
	LabelClinicalCondition, LabelClinicalParameter, LabelMedication, LabelProcedure, LabelQualifierValue,
	LabelUnresolvedConcept, LabelDecisionNode, LabelRecommendationNode, LabelGuidelineSource,
}

// ConceptLabels are the labels of coded concepts (merged by snomed_id).
var ConceptLabels = []string{LabelClinicalCondition, LabelClinicalParameter, LabelMedication, LabelProcedure, LabelQualifierValue}

// RelTypes lists every relationship type of the schema.
var RelTypes = []string{
	RelChecksFor, RelEvaluates, RelLeadsTo, RelResultsIn,
	RelRecommendsUsage, RelRecommendsProcedure, RelContraindicates, RelInsufficientEvidence, RelMentionedIn,
}

// Index names, as in the reference system.
const (
	FulltextIndex = "decisionnode_grounding_fulltext_idx"
	VectorIndex   = "decisionnode_grounding_vector_idx"
)

// Recommendation types.
const (
	TypePrescription = "PRESCRIPTION" // the rule recommends a medication
	TypeProcedure    = "PROCEDURE"    // the rule's actions are procedures only
)

// Store is the graph the engine expands anchors in.
type Store interface {
	// Load writes the pack (idempotent: loading twice changes nothing) and
	// makes it the pack later reads refer to.
	Load(ctx context.Context, pack *rules.Pack, opt BuildOptions) (BuildStats, error)
	// Bundles returns every rule that has a DecisionNode on one of the
	// concept keys, each complete, sorted by rule id (natural order).
	Bundles(ctx context.Context, conceptKeys []string) ([]Bundle, error)
	// GroundingRecords returns every DecisionNode's grounding data, sorted
	// by decision id (natural order).
	GroundingRecords(ctx context.Context) ([]GroundingRecord, error)
	// Counts returns nodes per label and relationships per type of the pack.
	Counts(ctx context.Context) (Counts, error)
	// Close releases the store.
	Close() error
}

// BuildOptions control Load.
type BuildOptions struct {
	// Grounding returns the base grounding text of a condition (phrases
	// separated by newlines or "; ") and its aliases (lexicon synonyms,
	// appended as further lines). Nil means DefaultGrounding: wording and
	// standardized name. grounding.Record's Text and Aliases fit as they are.
	Grounding func(c rules.Condition) (text string, aliases []string)
	// Embedder, when set, embeds the grounding texts; nodes whose text hash
	// and embedder are unchanged keep their vector.
	Embedder embed.Embedder
	// IncludeContext adds the guideline context as a grounding line.
	IncludeContext bool
	// RefreshAll re-embeds every node even when its text is unchanged.
	RefreshAll bool
	// ClearGraph deletes this pack's nodes (same pack_id and pack_version)
	// before writing; other packs are left alone.
	ClearGraph bool
}

// BuildStats reports what Load did.
type BuildStats struct {
	PackID      string `json:"pack_id"`
	PackVersion string `json:"pack_version"`
	Rules       int    `json:"rules"`
	Nodes       int    `json:"nodes"`
	Edges       int    `json:"edges"`
	// Cleared is the number of nodes ClearGraph deleted.
	Cleared int `json:"cleared"`
	// PrunedNodes/PrunedEdges were in the graph for this pack but are no
	// longer in it (a rule or condition was removed or changed).
	PrunedNodes int `json:"pruned_nodes"`
	PrunedEdges int `json:"pruned_edges"`
	// Embedded is the number of DecisionNodes that got a new vector;
	// EmbeddedTexts the number of distinct texts sent to the embedder;
	// EmbeddingsKept the nodes whose vector was reused; EmbeddingsDropped the
	// vectors removed because the text changed and no embedder was given.
	Embedded          int    `json:"embedded"`
	EmbeddedTexts     int    `json:"embedded_texts"`
	EmbeddingsKept    int    `json:"embeddings_kept"`
	EmbeddingsDropped int    `json:"embeddings_dropped"`
	Embedder          string `json:"embedder,omitempty"`
	Dim               int    `json:"dim,omitempty"`
	// Batches is the number of write transactions (Neo4j) or 1 (memory).
	Batches  int           `json:"batches"`
	Duration time.Duration `json:"duration_ns"`
}

// Bundle is one complete rule as stored: every DecisionNode (also those not
// matched by any anchor), its paths, the recommendation, source and actions.
type Bundle struct {
	RuleID         string         `json:"rule_id"`
	RowID          string         `json:"row_id"`
	PackID         string         `json:"pack_id"`
	PackVersion    string         `json:"pack_version"`
	Recommendation Recommendation `json:"recommendation"`
	Source         Source         `json:"source"`
	// Decisions sorted by group, then step.
	Decisions []Decision `json:"decisions"`
	// LeadsTo edges sorted by (from, to) in natural order.
	LeadsTo []Edge `json:"leads_to"`
	// ResultsIn lists the decision ids with a RESULTS_IN edge, sorted.
	ResultsIn []string `json:"results_in"`
	// Actions sorted by their position in the rule's action list.
	Actions []Action `json:"actions"`
}

// Decision is a DecisionNode: one condition occurrence.
type Decision struct {
	DecisionID                  string   `json:"decision_id"`
	RuleID                      string   `json:"rule_unique_id"`
	RowID                       string   `json:"source_row_id"`
	GroupIndex                  int      `json:"group_index"`
	Step                        int      `json:"step"`
	LogicGroup                  string   `json:"logic_group"`
	LogicType                   string   `json:"logic_type"`
	Operator                    string   `json:"operator"`
	Threshold                   string   `json:"threshold"`
	Unit                        string   `json:"unit"`
	Window                      string   `json:"window"` // rules.Window as JSON, "" when none
	Context                     string   `json:"context"`
	EntityOriginal              string   `json:"entity_original"`
	EntityStandardizedCandidate string   `json:"entity_standardized_candidate"`
	ConceptName                 string   `json:"concept_name"`
	ConceptKey                  string   `json:"concept_key"`
	SnomedID                    string   `json:"snomed_id"`
	Role                        string   `json:"role"`
	TargetLabel                 string   `json:"target_label"`
	Workflow                    string   `json:"workflow"`
	GroundingText               string   `json:"grounding_text"`
	GroundingAliases            []string `json:"grounding_aliases"`
	GroundingHash               string   `json:"grounding_hash"`
}

// Recommendation is a RecommendationNode: one rule's conclusion.
type Recommendation struct {
	RuleID                string `json:"rule_unique_id"`
	RowID                 string `json:"source_row_id"`
	Table                 int    `json:"table"`
	Row                   int    `json:"row"`
	RuleIndex             int    `json:"rule_index"`
	Section               string `json:"section"`
	Strength              string `json:"strength"`
	Level                 string `json:"level"`
	Direction             string `json:"direction"`
	FullText              string `json:"full_text"`
	InputSummary          string `json:"input_summary"`
	RecommendationSummary string `json:"recommendation_summary"`
	RecommendationType    string `json:"recommendation_type"`
	Workflow              string `json:"workflow"`
	Source                string `json:"source"`
}

// Source is a GuidelineSource: one recommendation table of a guideline.
type Source struct {
	SourceID string `json:"source_id"`
	Title    string `json:"title"`
	Year     int    `json:"year"`
	Section  string `json:"section"`
	DOI      string `json:"doi"`
	Pages    string `json:"pages"`
	Table    int    `json:"table"`
	File     string `json:"file"`
}

// Edge is a LEADS_TO edge between two decision ids.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Action is one action of a rule: the relationship from the
// RecommendationNode to the action's concept, with the rule's own wording.
type Action struct {
	Relation    string `json:"relation_type"`
	Position    int    `json:"position"`
	ConceptName string `json:"concept_name"`
	ConceptKey  string `json:"concept_key"`
	SnomedID    string `json:"snomed_id"`
	Label       string `json:"label"`
	TargetLabel string `json:"target_label"`
	Wording     string `json:"entity_original"`
	Role        string `json:"role"`
	Context     string `json:"context"`
	Direction   string `json:"direction"`
	// Intent says what to do with the concept (rules.Intents).
	Intent string `json:"intent"`
}

// GroundingRecord is the retrieval view of one DecisionNode.
type GroundingRecord struct {
	DecisionID  string    `json:"decision_id"`
	RuleID      string    `json:"rule_unique_id"`
	RowID       string    `json:"source_row_id"`
	ConceptKey  string    `json:"concept_key"`
	ConceptName string    `json:"concept_name"`
	SnomedID    string    `json:"snomed_id"`
	Wording     string    `json:"entity_original"`
	Role        string    `json:"role"`
	TargetLabel string    `json:"target_label"`
	Context     string    `json:"context"`
	Operator    string    `json:"operator"`
	Text        string    `json:"grounding_text"`
	Aliases     []string  `json:"grounding_aliases"`
	Hash        string    `json:"grounding_hash"`
	Embedding   []float32 `json:"grounding_embedding,omitempty"`
	Embedder    string    `json:"grounding_embedder,omitempty"`
}

// Hit is one search result over DecisionNodes.
type Hit struct {
	DecisionID  string  `json:"decision_id"`
	RuleID      string  `json:"rule_unique_id"`
	ConceptKey  string  `json:"concept_key"`
	ConceptName string  `json:"concept_name"`
	Score       float64 `json:"score"`
}

var (
	_ Store = (*Memory)(nil)
	_ Store = (*Neo4j)(nil)
)
