package rules

import "sort"

// Stats are the pack's counts, as printed by `execkg stats` and written by
// `--report`.
type Stats struct {
	Files                int            `json:"files"`
	Tables               int            `json:"tables"`
	Rows                 int            `json:"rows"`
	Rules                int            `json:"rules"`
	ClassSplit           map[string]int `json:"class_split"`
	LevelSplit           map[string]int `json:"level_split"`
	DirectionSplit       map[string]int `json:"direction_split"`
	ConditionOccurrences int            `json:"condition_occurrences"`
	UniqueInputNodes     int            `json:"unique_input_nodes"`
	UniqueConcepts       int            `json:"unique_concepts"`
	Operators            OperatorCounts `json:"operators"`
	Actions              int            `json:"actions"`
	// IntentSplit counts actions by intent (start, stop, avoid, …).
	IntentSplit map[string]int `json:"intent_split"`
	// Windows counts conditions dated relative to the case date.
	Windows int `json:"windows"`
	// Definitions counts meta/hierarchy.json: is-a relations, numeric
	// bands, composites, and composite members with a window.
	Definitions          DefinitionCounts `json:"definitions"`
	UniqueOutputNodes    int              `json:"unique_output_nodes"`
	SingleConditionRules int              `json:"single_condition_rules"`
	RulesWithORGroup     int              `json:"rules_with_or_group"`
	WorkflowRows         int              `json:"workflow_rows"`
	CodedInputNodes      int              `json:"coded_input_nodes"`
	UncodedInputNodes    int              `json:"uncoded_input_nodes"`
	CodedOccurrences     int              `json:"coded_condition_occurrences"`
	UncodedOccurrences   int              `json:"uncoded_condition_occurrences"`
	CodedActions         int              `json:"coded_actions"`
	DistinctCodes        int              `json:"distinct_codes"`
	// CodeSystems counts the value sets' codes per code system
	// (meta/valuesets.json); CodedConcepts counts the concepts rules test
	// that have a code of any system there.
	CodeSystems   map[string]CodeSystemCoverage `json:"code_systems,omitempty"`
	CodedConcepts int                           `json:"value_set_coded_concepts"`
}

// DefinitionCounts are the kinds of definition of a pack.
type DefinitionCounts struct {
	IsA        int `json:"is_a"`
	Bands      int `json:"numeric_bands"`
	Composites int `json:"composites"`
	Windows    int `json:"composite_windows"`
	Values     int `json:"implied_values"`
}

// OperatorCounts splits condition occurrences by operator kind.
type OperatorCounts struct {
	Present int `json:"present"`
	Absent  int `json:"absent"`
	Numeric int `json:"numeric"`
	// Unless counts exception conditions ("unless X is known").
	Unless int `json:"unless"`
}

// NodeKey identifies a unique input or output node: wording, context, role
// (the reference system's annotation-index key).
type NodeKey struct {
	Wording string `json:"entity_original"`
	Context string `json:"context"`
	Role    string `json:"role"`
}

// KeyOf returns an entity's node key.
func KeyOf(e Entity) NodeKey {
	return NodeKey{Wording: e.EntityOriginal, Context: e.Context, Role: e.Role}
}

// ComputeStats counts the pack. files is the number of files read (may
// differ from tables when a file failed to parse).
func ComputeStats(p *Pack) Stats {
	s := Stats{
		Files:          len(p.Tables),
		Tables:         len(p.Tables),
		ClassSplit:     map[string]int{},
		LevelSplit:     map[string]int{},
		DirectionSplit: map[string]int{},
		IntentSplit:    map[string]int{},
	}
	inputs := map[NodeKey]bool{}
	coded := map[NodeKey]bool{}
	outputs := map[NodeKey]bool{}
	concepts := map[string]bool{}
	codes := map[string]bool{}
	for _, t := range p.Tables {
		for ri := range t.Rows {
			row := &t.Rows[ri]
			s.Rows++
			s.ClassSplit[row.Class]++
			s.LevelSplit[row.Level]++
			dir := row.Direction
			if dir == "" {
				dir = DirectionPositive
			}
			s.DirectionSplit[dir]++
			if row.Workflow != "" {
				s.WorkflowRows++
			}
			for k, ru := range row.Rules {
				s.Rules++
				if len(ru.Conditions) == 1 {
					s.SingleConditionRules++
				}
				for _, g := range ru.Groups() {
					if g.Type == LogicOR && len(g.Members) > 1 {
						s.RulesWithORGroup++
						break
					}
				}
				for _, c := range ru.Conditions {
					s.ConditionOccurrences++
					switch op := c.LogicStructured.Operator; {
					case op == OpPresent:
						s.Operators.Present++
					case op == OpAbsent:
						s.Operators.Absent++
					case NormalizeOperator(op) == OpUnless:
						s.Operators.Unless++
					case IsNumeric(op):
						s.Operators.Numeric++
					}
					if w := c.LogicStructured.Window; w != nil && w.Bounded() {
						s.Windows++
					}
					key := KeyOf(c)
					inputs[key] = true
					concepts[ConceptKey(c)] = true
					if id := c.SnomedID(); id != "" {
						coded[key] = true
						codes[id] = true
						s.CodedOccurrences++
					} else {
						s.UncodedOccurrences++
					}
				}
				for _, a := range row.RuleActions(k) {
					s.Actions++
					s.IntentSplit[a.LogicStructured.Intent]++
					outputs[KeyOf(a)] = true
					if a.SnomedID() != "" {
						s.CodedActions++
					}
				}
			}
		}
	}
	if h := p.Hierarchy; h != nil {
		s.Definitions = DefinitionCounts{IsA: len(h.Relations), Bands: len(h.Definitions), Composites: len(h.Composites), Values: len(h.Values)}
		for _, c := range h.Composites {
			for _, l := range c.Leaves() {
				if l.Window != nil {
					s.Definitions.Windows++
				}
			}
		}
	}
	s.UniqueInputNodes = len(inputs)
	s.CodedInputNodes = len(coded)
	s.UncodedInputNodes = len(inputs) - len(coded)
	s.UniqueOutputNodes = len(outputs)
	s.UniqueConcepts = len(concepts)
	s.DistinctCodes = len(codes)
	if p.ValueSets != nil {
		s.CodeSystems, s.CodedConcepts = p.ValueSets.Coverage(p)
	}
	return s
}

// InputNodes lists the unique input nodes in a stable order.
func InputNodes(p *Pack) []NodeKey { return nodes(p, true) }

// OutputNodes lists the unique output (action) nodes in a stable order.
func OutputNodes(p *Pack) []NodeKey { return nodes(p, false) }

func nodes(p *Pack, inputs bool) []NodeKey {
	seen := map[NodeKey]bool{}
	var out []NodeKey
	for _, r := range p.Rules() {
		list := r.Actions
		if inputs {
			list = r.Rule.Conditions
		}
		for _, e := range list {
			k := KeyOf(e)
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Wording != b.Wording {
			return a.Wording < b.Wording
		}
		if a.Role != b.Role {
			return a.Role < b.Role
		}
		return a.Context < b.Context
	})
	return out
}

// ReferenceStats are the reference system's published figures, printed
// beside ours wherever the same figure exists.
var ReferenceStats = map[string]int{
	"rules":                  196,
	"condition_occurrences":  534,
	"unique_input_nodes":     277,
	"present":                458,
	"absent":                 23,
	"numeric":                53,
	"actions":                280,
	"single_condition_rules": 48,
	"coded_input_nodes":      177,
	"class_I":                123,
	"class_IIa":              40,
	"class_IIb":              23,
	"class_III":              10,
}

// PublishedClassSplit is the guideline's own class split (196 rows).
var PublishedClassSplit = map[string]int{"I": 125, "IIa": 37, "IIb": 24, "III": 10}
