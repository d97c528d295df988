package rules

import (
	"fmt"
	"sort"
	"strings"
)

// Diagnostic codes, stable so tools and tests can match on them.
const (
	CodeSyntax        = "E001" // not valid JSON / wrong types
	CodeSchema        = "E002" // violates the JSON Schema
	CodeOperator      = "E010" // unknown operator
	CodeThreshold     = "E011" // numeric operator without a parseable threshold
	CodeUnit          = "E012" // numeric operator without a unit
	CodeNoThreshold   = "E013" // PRESENT/ABSENT with threshold or unit
	CodeSingleOR      = "E014" // OR group with one member
	CodeNoCondition   = "E015" // rule without conditions
	CodeNoAction      = "E016" // rule without actions
	CodeActionClass   = "E017" // action strength/level disagrees with the row
	CodeDuplicateID   = "E018" // duplicate row / rule / decision id
	CodeConceptSplit  = "E019" // same wording coded with two concepts
	CodeRowOrder      = "E020" // row numbers not 0..n-1 in order
	CodeDirection     = "E021" // direction disagrees with class
	CodeRole          = "E022" // unknown role
	CodeGuideline     = "E023" // table disagrees with the pack's guideline id/version
	CodeLogicType     = "E024" // group mixes AND and OR / unknown logic type
	CodeCodeShared    = "E025" // two concept names share one code
	CodeWorkflowKind  = "E026" // unknown workflow kind
	CodeMissingField  = "E027" // required text missing
	CodeDuplicateFile = "E028" // two files hold the same table number
	CodeHierarchy     = "E029" // meta/hierarchy.json unreadable or names no pack concept
	CodeIntent        = "E030" // action without a valid intent, or intent on a condition
	CodeWindow        = "E031" // time window malformed or on a non-event condition
	CodeReading       = "E032" // meta/reading.json unreadable or names no pack concept
	CodeValueSets     = "E033" // meta/valuesets.json unreadable, or a code, concept, system or unit wrong
	CodeSections      = "E036" // meta/sections.json unreadable or malformed
	CodeGrading       = "E034" // meta/grading.json unreadable or malformed
	CodeGrade         = "E035" // row grade or level not in the pack's grading scheme
)

// Diagnostic is one located problem: what, where (file, row, rule, JSON
// pointer) and how to fix it.
type Diagnostic struct {
	Code    string `json:"code"`
	File    string `json:"file"`
	Row     int    `json:"row"`  // -1 when not row-specific
	Rule    int    `json:"rule"` // -1 when not rule-specific
	Pointer string `json:"pointer"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

func (d *Diagnostic) Error() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Pointer != "" {
		b.WriteString("#" + d.Pointer)
	}
	loc := []string{}
	if d.Row >= 0 && d.hasRow() {
		loc = append(loc, fmt.Sprintf("row %d", d.Row))
	}
	if d.Rule >= 0 && d.hasRule() {
		loc = append(loc, fmt.Sprintf("rule %d", d.Rule))
	}
	if len(loc) > 0 {
		b.WriteString(" (" + strings.Join(loc, ", ") + ")")
	}
	fmt.Fprintf(&b, ": %s %s", d.Code, d.Message)
	if d.Fix != "" {
		b.WriteString("; fix: " + d.Fix)
	}
	return b.String()
}

// hasRow/hasRule: a zero Row from a literal without location stays silent
// only when the pointer says nothing about rows.
func (d *Diagnostic) hasRow() bool  { return strings.Contains(d.Pointer, "/rows/") }
func (d *Diagnostic) hasRule() bool { return strings.Contains(d.Pointer, "/rules/") }

// Diagnostics is a list of problems; it is an error when non-empty.
type Diagnostics []*Diagnostic

func (ds Diagnostics) Error() string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Error()
	}
	return strings.Join(parts, "\n")
}

// Err returns nil for an empty list, else the list.
func (ds Diagnostics) Err() error {
	if len(ds) == 0 {
		return nil
	}
	return ds
}

// Sort orders diagnostics by file, row, rule, pointer.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Row != b.Row {
			return a.Row < b.Row
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Pointer < b.Pointer
	})
}
