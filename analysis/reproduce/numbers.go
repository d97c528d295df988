package reproduce

import (
	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/analysis/docbench"
	"github.com/executablekg/execkg/reference"
)

// Numbers is paper_numbers.json: every figure the results section quotes.
type Numbers struct {
	Pack      PackNumbers        `json:"pack"`
	Vignettes VignetteNumbers    `json:"vignettes"`
	Reference ReferenceNumbers   `json:"reference"`
	Arms      []ArmNumbers       `json:"arms"`
	McNemar   []analysis.McNemar `json:"mcnemar"`
	Retrieval []RetrievalNumbers `json:"retrieval"`
	Ours      *OursNumbers       `json:"ours,omitempty"`
	Baseline  *BaselineNumbers   `json:"baseline,omitempty"`
	// Documents is the real-world document benchmark's split, when scored.
	Documents *docbench.Score `json:"documents,omitempty"`
}

// PackNumbers are the encoded guideline's counts.
type PackNumbers struct {
	Tables               int `json:"tables"`
	Rows                 int `json:"rows"`
	Rules                int `json:"rules"`
	ConditionOccurrences int `json:"condition_occurrences"`
	UniqueInputNodes     int `json:"unique_input_nodes"`
	UniqueConcepts       int `json:"unique_concepts"`
}

// VignetteNumbers describe the vignette set.
type VignetteNumbers struct {
	Total            int            `json:"total"`
	ByCategory       map[string]int `json:"by_category"`
	UsableConcepts   int            `json:"usable_concepts"`
	CoveredConcepts  int            `json:"covered_concepts"`
	ExcludedConcepts int            `json:"excluded_concepts"`
	MeanFindings     float64        `json:"mean_findings"`
	MinWords         int            `json:"min_words"`
	MaxWords         int            `json:"max_words"`
	Valid            bool           `json:"valid"`
}

// ReferenceNumbers describe the reference standard.
type ReferenceNumbers struct {
	Checked             bool                  `json:"recomputed_equals_stored"`
	Pairs               int                   `json:"pairs"`
	EmptyVignettes      int                   `json:"empty_vignettes"`
	PopulationVignettes int                   `json:"population_vignettes"`
	PopulationPairs     int                   `json:"population_pairs"`
	MergedPairs         *int                  `json:"merged_pairs,omitempty"`
	MergedNote          string                `json:"merged_note,omitempty"`
	Candidates          []reference.Candidate `json:"merge_candidates"`
}

// ArmNumbers is one arm's line of the results table.
type ArmNumbers struct {
	Arm    string `json:"arm"`
	Config string `json:"config,omitempty"`
	analysis.Totals
	F1Merged    *float64 `json:"f1_merged,omitempty"`
	MergedPairs int      `json:"merged_pairs,omitempty"`
}

// RetrievalNumbers count reference pairs inside an arm's retrieval.
type RetrievalNumbers struct {
	Arm                     string `json:"arm,omitempty"`
	RetrievedRows           int    `json:"retrieved_rows"`
	ReferencePairs          int    `json:"reference_pairs"`
	ReferencePairsRetrieved int    `json:"reference_pairs_retrieved"`
	// Budget is how many reference pairs the retrieval could have held at
	// most: Σ min(|reference|, rows retrieved) per vignette.
	Budget int `json:"budget"`
}

// OursNumbers are the traced arm's analyses.
type OursNumbers struct {
	Arm         string               `json:"arm"`
	TracedCases int                  `json:"traced_cases"`
	Errors      *ErrorNumbers        `json:"errors,omitempty"`
	StepV       *analysis.StepVStats `json:"step_v,omitempty"`
	Coverage    *CoverageNumbers     `json:"condition_coverage,omitempty"`
	Retrieval   *RetrievalNumbers    `json:"retrieval,omitempty"`
	TopK        []TopKNumbers        `json:"topk,omitempty"`
	TopKNote    string               `json:"topk_note,omitempty"`
}

// ErrorNumbers count errors by kind and category.
type ErrorNumbers struct {
	FP               int                       `json:"fp"`
	FN               int                       `json:"fn"`
	ByKind           map[string]map[string]int `json:"by_kind"`
	FPTop10Vignettes int                       `json:"fp_in_top10_vignettes"`
}

// CoverageNumbers summarise condition coverage.
type CoverageNumbers struct {
	Rules          int `json:"rules"`
	RulesEvaluated int `json:"rules_evaluated"`
	RulesFired     int `json:"rules_fired"`
	Conditions     int `json:"conditions"`
	EverEvaluated  int `json:"ever_evaluated"`
	EverTrue       int `json:"ever_true"`
	EverFalse      int `json:"ever_false"`
	BothWays       int `json:"true_and_false"`
}

// TopKNumbers is one re-scoring setting.
type TopKNumbers struct {
	K     int                   `json:"k"`
	Score ArmNumbers            `json:"score"`
	Stats analysis.RescoreStats `json:"stats"`
}

// BaselineNumbers describe the baseline's configuration.
type BaselineNumbers struct {
	Embedder  string `json:"embedder"`
	K         int    `json:"k"`
	Generator string `json:"generator"`
	Snapshot  string `json:"snapshot"`
	Refreshed bool   `json:"snapshot_refreshed"`
}
