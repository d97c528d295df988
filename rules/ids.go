package rules

import (
	"fmt"
	"strings"
)

// RowID is the stable row identifier used everywhere (graph, indexes,
// predictions, reference): "<table file>::row_<n>", e.g. "table_08.json::row_2".
func RowID(file string, row int) string { return fmt.Sprintf("%s::row_%d", file, row) }

// RuleID is "<guideline id>::<row id>::rule_<k>".
func RuleID(guideline, rowID string, k int) string {
	return fmt.Sprintf("%s::%s::rule_%d", guideline, rowID, k)
}

// DecisionID is "<rule id>::g<group>::s<step>", group and step from 1.
func DecisionID(ruleID string, group, step int) string {
	return fmt.Sprintf("%s::g%d::s%d", ruleID, group, step)
}

// ParseRowID splits a row id into file and row number.
func ParseRowID(id string) (file string, row int, err error) {
	i := strings.LastIndex(id, "::row_")
	if i < 0 {
		return "", 0, fmt.Errorf("row id %q: want <table file>::row_<n>", id)
	}
	if _, err := fmt.Sscanf(id[i+len("::row_"):], "%d", &row); err != nil {
		return "", 0, fmt.Errorf("row id %q: row number: %v", id, err)
	}
	return id[:i], row, nil
}

// RowIDOfRule returns the row id inside a rule id.
func RowIDOfRule(ruleID string) string {
	parts := strings.Split(ruleID, "::")
	if len(parts) < 4 {
		return ""
	}
	return parts[1] + "::" + parts[2]
}

// GroupKey is the logic group a condition belongs to; conditions without
// an explicit group fall into one default group per logic type.
func GroupKey(e Entity) string {
	if g := strings.TrimSpace(e.LogicStructured.LogicGroup); g != "" {
		return g
	}
	if e.LogicStructured.LogicType == LogicOR {
		return "or"
	}
	return "and"
}

// Group is one logic group of a rule, in order of first appearance.
type Group struct {
	Key   string
	Type  string // AND or OR
	Index int    // 1-based, as in decision ids
	// Members are indexes into Rule.Conditions, in order; step = position+1.
	Members []int
}

// Groups splits a rule's conditions into logic groups in order of first
// appearance. The group's type is OR when its members say OR, else AND.
func (r Rule) Groups() []Group {
	var out []Group
	pos := map[string]int{}
	for i, c := range r.Conditions {
		k := GroupKey(c)
		gi, ok := pos[k]
		if !ok {
			gi = len(out)
			pos[k] = gi
			out = append(out, Group{Key: k, Type: LogicAND, Index: gi + 1})
		}
		if c.LogicStructured.LogicType == LogicOR {
			out[gi].Type = LogicOR
		}
		out[gi].Members = append(out[gi].Members, i)
	}
	return out
}

// ConceptKey identifies a concept across the pack: the SNOMED CT id when
// coded, else the normalised concept name. Two conditions with the same key
// test the same finding.
func ConceptKey(e Entity) string {
	if id := e.SnomedID(); id != "" {
		return "sct:" + id
	}
	return "name:" + NormalizeName(e.Concept())
}

// NormalizeName lower-cases and collapses white space, for matching names.
func NormalizeName(s string) string {
	if normalASCII(s) {
		return s // most calls pass a name already normal: no copy
	}
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// normalASCII: s is ASCII without upper case, its words single-spaced
// with no space at either end, so NormalizeName would return it as is.
func normalASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80 || 'A' <= c && c <= 'Z' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			return false
		case c == ' ' && (i == 0 || i == len(s)-1 || s[i-1] == ' '):
			return false
		}
	}
	return true
}
