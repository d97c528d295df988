package graph

import (
	"sort"
	"strings"
)

// Both stores decode node and edge properties through these functions: the
// memory store holds Go values (string, int64, []string, []float32), Neo4j
// returns its own (string, int64, []any of string or float64). Decoding both
// the same way is what makes their results comparable.

func pString(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func pInt(m map[string]any, k string) int {
	switch v := m[k].(type) {
	case int64:
		return int(v)
	case int:
		return v
	case float64:
		return int(v)
	}
	return 0
}

// pStrings returns nil for absent and empty lists alike.
func pStrings(m map[string]any, k string) []string {
	switch v := m[k].(type) {
	case []string:
		if len(v) == 0 {
			return nil
		}
		return append([]string(nil), v...)
	case []any:
		if len(v) == 0 {
			return nil
		}
		out := make([]string, 0, len(v))
		for _, x := range v {
			s, _ := x.(string)
			out = append(out, s)
		}
		return out
	}
	return nil
}

func pFloats(m map[string]any, k string) []float32 {
	switch v := m[k].(type) {
	case []float32:
		return append([]float32(nil), v...)
	case []float64:
		out := make([]float32, len(v))
		for i, x := range v {
			out[i] = float32(x)
		}
		return out
	case []any:
		if len(v) == 0 {
			return nil
		}
		out := make([]float32, len(v))
		for i, x := range v {
			f, _ := x.(float64)
			out[i] = float32(f)
		}
		return out
	}
	return nil
}

func decodeDecision(m map[string]any) Decision {
	return Decision{
		DecisionID:                  pString(m, "decision_id"),
		RuleID:                      pString(m, "rule_unique_id"),
		RowID:                       pString(m, "source_row_id"),
		GroupIndex:                  pInt(m, "group_index"),
		Step:                        pInt(m, "step"),
		LogicGroup:                  pString(m, "logic_group"),
		LogicType:                   pString(m, "logic_type"),
		Operator:                    pString(m, "operator"),
		Threshold:                   pString(m, "threshold"),
		Unit:                        pString(m, "unit"),
		Window:                      pString(m, "window"),
		Context:                     pString(m, "context"),
		EntityOriginal:              pString(m, "entity_original"),
		EntityStandardizedCandidate: pString(m, "entity_standardized_candidate"),
		ConceptName:                 pString(m, "concept_name"),
		ConceptKey:                  pString(m, "concept_key"),
		SnomedID:                    pString(m, "snomed_id"),
		Role:                        pString(m, "role"),
		TargetLabel:                 pString(m, "target_label"),
		Workflow:                    pString(m, "workflow"),
		GroundingText:               pString(m, "grounding_text"),
		GroundingAliases:            pStrings(m, "grounding_aliases"),
		GroundingHash:               pString(m, "grounding_hash"),
	}
}

func decodeRecommendation(m map[string]any) Recommendation {
	return Recommendation{
		RuleID:                pString(m, "rule_unique_id"),
		RowID:                 pString(m, "source_row_id"),
		Table:                 pInt(m, "table"),
		Row:                   pInt(m, "row"),
		RuleIndex:             pInt(m, "rule_index"),
		Section:               pString(m, "section"),
		Strength:              pString(m, "strength"),
		Level:                 pString(m, "level"),
		Direction:             pString(m, "direction"),
		FullText:              pString(m, "full_text"),
		InputSummary:          pString(m, "input_summary"),
		RecommendationSummary: pString(m, "recommendation_summary"),
		RecommendationType:    pString(m, "recommendation_type"),
		Workflow:              pString(m, "workflow"),
		Source:                pString(m, "source"),
	}
}

func decodeSource(m map[string]any) Source {
	return Source{
		SourceID: pString(m, "source_id"),
		Title:    pString(m, "title"),
		Year:     pInt(m, "year"),
		Section:  pString(m, "section"),
		DOI:      pString(m, "doi"),
		Pages:    pString(m, "pages"),
		Table:    pInt(m, "table"),
		File:     pString(m, "file"),
	}
}

// decodeAction combines an action edge's properties with its concept node.
func decodeAction(rel string, edge map[string]any, label string, concept map[string]any) Action {
	a := Action{
		Relation:    rel,
		Position:    pInt(edge, "position"),
		ConceptKey:  pString(concept, "concept_key"),
		SnomedID:    pString(concept, "snomed_id"),
		Label:       label,
		TargetLabel: pString(concept, "target_label"),
		Wording:     pString(edge, "entity_original"),
		Role:        pString(edge, "role"),
		Context:     pString(edge, "context"),
		Direction:   pString(edge, "direction"),
		Intent:      pString(edge, "intent"),
	}
	if a.TargetLabel == "" {
		a.TargetLabel = label
	}
	a.ConceptName = pString(concept, "name")
	if a.SnomedID != "" {
		a.ConceptName = pString(concept, "preferred_term")
	}
	return a
}

func decodeGrounding(m map[string]any) GroundingRecord {
	return GroundingRecord{
		DecisionID:  pString(m, "decision_id"),
		RuleID:      pString(m, "rule_unique_id"),
		RowID:       pString(m, "source_row_id"),
		ConceptKey:  pString(m, "concept_key"),
		ConceptName: pString(m, "concept_name"),
		SnomedID:    pString(m, "snomed_id"),
		Wording:     pString(m, "entity_original"),
		Role:        pString(m, "role"),
		TargetLabel: pString(m, "target_label"),
		Context:     pString(m, "context"),
		Operator:    pString(m, "operator"),
		Text:        pString(m, "grounding_text"),
		Aliases:     pStrings(m, "grounding_aliases"),
		Hash:        pString(m, "grounding_hash"),
		Embedding:   pFloats(m, "grounding_embedding"),
		Embedder:    pString(m, "grounding_embedder"),
	}
}

// sortBundle puts a bundle's parts in their documented order.
func sortBundle(b *Bundle) {
	sort.Slice(b.Decisions, func(i, j int) bool {
		x, y := b.Decisions[i], b.Decisions[j]
		if x.GroupIndex != y.GroupIndex {
			return x.GroupIndex < y.GroupIndex
		}
		if x.Step != y.Step {
			return x.Step < y.Step
		}
		return NaturalLess(x.DecisionID, y.DecisionID)
	})
	sort.Slice(b.LeadsTo, func(i, j int) bool {
		x, y := b.LeadsTo[i], b.LeadsTo[j]
		if x.From != y.From {
			return NaturalLess(x.From, y.From)
		}
		return NaturalLess(x.To, y.To)
	})
	sort.Slice(b.ResultsIn, func(i, j int) bool { return NaturalLess(b.ResultsIn[i], b.ResultsIn[j]) })
	sort.Slice(b.Actions, func(i, j int) bool {
		if b.Actions[i].Position != b.Actions[j].Position {
			return b.Actions[i].Position < b.Actions[j].Position
		}
		return b.Actions[i].Relation < b.Actions[j].Relation
	})
	if b.LeadsTo == nil {
		b.LeadsTo = []Edge{}
	}
	if b.ResultsIn == nil {
		b.ResultsIn = []string{}
	}
	if b.Actions == nil {
		b.Actions = []Action{}
	}
	if b.Decisions == nil {
		b.Decisions = []Decision{}
	}
}

// NaturalLess orders ids with digit runs compared as numbers, so
// "table_08.json::row_2" sorts before "table_08.json::row_10" and "s2"
// before "s10". Ties fall back to plain string order.
func NaturalLess(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si := i
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			sj := j
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na := strings.TrimLeft(a[si:i], "0")
			nb := strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			continue
		}
		if ca != cb {
			return ca < cb
		}
		i++
		j++
	}
	if len(a)-i != len(b)-j {
		return len(a)-i < len(b)-j
	}
	return a < b
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
