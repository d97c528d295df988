package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
)

// Threshold is a numeric threshold kept as written. Files may give it as a
// JSON string ("30") or number (30); both decode to the same value.
type Threshold string

// UnmarshalJSON accepts a string, a number or null.
func (t *Threshold) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		*t = ""
		return nil
	}
	if b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = Threshold(strings.TrimSpace(s))
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("threshold must be a number or a string holding one, got %s", b)
	}
	*t = Threshold(n.String())
	return nil
}

// Float parses the threshold. Decimal commas ("0,8") are accepted.
func (t Threshold) Float() (float64, error) {
	s := strings.TrimSpace(strings.ReplaceAll(string(t), ",", "."))
	s = strings.TrimSuffix(s, "%")
	s = strings.ReplaceAll(s, "−", "-") // Unicode minus
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}

// JSONSchema makes the generated schema accept a string or a number.
func (Threshold) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		OneOf: []*jsonschema.Schema{
			{Type: "string", Pattern: `^\s*-?[0-9]+([.,][0-9]+)?\s*%?\s*$`},
			{Type: "number"},
		},
		Description: "numeric threshold, as a number or a string holding one",
	}
}

// NormalizeOperator maps accepted spellings (≤ ≥ ≠ =<, lowercase words) to
// the canonical operator. Unknown spellings are returned unchanged so
// validation can name them.
func NormalizeOperator(op string) string {
	s := strings.TrimSpace(op)
	switch strings.ToUpper(s) {
	case "PRESENT":
		return OpPresent
	case "ABSENT":
		return OpAbsent
	case "UNLESS", "UNLESS_KNOWN", "UNLESS KNOWN":
		return OpUnless
	case "≤", "=<", "<=":
		return OpLE
	case "≥", "=>", ">=":
		return OpGE
	case "≠", "<>", "!=":
		return OpNE
	case "==", "=":
		return OpEQ
	case "<":
		return OpLT
	case ">":
		return OpGT
	}
	return s
}

// UnmarshalJSON normalises operators and case of logic types.
func (l *Logic) UnmarshalJSON(b []byte) error {
	type plain Logic
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*l = Logic(p)
	if l.Operator != "" {
		l.Operator = NormalizeOperator(l.Operator)
	}
	if u := strings.ToUpper(strings.TrimSpace(l.LogicType)); u == "AND" || u == "OR" {
		l.LogicType = u
	}
	if u := strings.ToUpper(strings.TrimSpace(l.Direction)); contains(Directions, u) {
		l.Direction = u
	}
	return nil
}

// rowAliases maps the reference system's row keys to ours, so its files load.
var rowAliases = map[string]string{
	"Class a":         "class",
	"Level b":         "level",
	"Recommendations": "text",
	"Section Header":  "section",
}

// UnmarshalJSON accepts both layouts of the reference system: rules holding
// {conditions, actions}, and rules holding conditions with a row-level
// actions list (the rules list may then also hold condition entities
// directly). Reference key spellings ("Class a", "Level b", …) are accepted.
func (r *Row) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	for from, to := range rowAliases {
		if v, ok := raw[from]; ok {
			if _, has := raw[to]; !has {
				raw[to] = v
			}
			delete(raw, from)
		}
	}
	var rulesRaw json.RawMessage
	if v, ok := raw["rules"]; ok {
		rulesRaw = v
		delete(raw, "rules")
	}
	type plain Row
	var p plain
	nb, _ := json.Marshal(raw)
	dec := json.NewDecoder(bytes.NewReader(nb))
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*r = Row(p)
	r.Class = normalizeClass(r.Class)
	r.Level = strings.ToUpper(strings.TrimSpace(r.Level))
	if r.Direction != "" {
		r.Direction = strings.ToUpper(strings.TrimSpace(r.Direction))
	}
	if len(rulesRaw) == 0 || string(rulesRaw) == "null" {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(rulesRaw, &items); err != nil {
		return fmt.Errorf("rules must be a list: %w", err)
	}
	var loose []Entity // layout B written as a flat list of conditions
	for _, it := range items {
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(it, &probe); err != nil {
			return fmt.Errorf("each item of rules must be an object: %w", err)
		}
		if _, isEntity := probe["entity_original"]; isEntity {
			var e Entity
			if err := json.Unmarshal(it, &e); err != nil {
				return err
			}
			loose = append(loose, e)
			continue
		}
		var ru Rule
		if err := json.Unmarshal(it, &ru); err != nil {
			return err
		}
		r.Rules = append(r.Rules, ru)
	}
	if len(loose) > 0 {
		r.Rules = append(r.Rules, Rule{Conditions: loose})
	}
	return nil
}

func normalizeClass(c string) string {
	s := strings.TrimSpace(c)
	switch strings.ToUpper(s) {
	case "I":
		return "I"
	case "IIA":
		return "IIa"
	case "IIB":
		return "IIb"
	case "III":
		return "III"
	}
	return s
}

// RuleActions returns the actions that apply to rule k of the row: the
// rule's own (layout A) or the row-level list (layout B).
func (r Row) RuleActions(k int) []Entity {
	if k >= 0 && k < len(r.Rules) && len(r.Rules[k].Actions) > 0 {
		return r.Rules[k].Actions
	}
	return r.Actions
}

// Parse decodes one rule-table file. name is the file name used for ids and
// errors. Syntax errors name the line and column.
func Parse(name string, data []byte) (*Table, error) {
	var t Table
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&t); err != nil {
		return nil, &Diagnostic{File: name, Code: CodeSyntax, Pointer: "", Message: describeJSONError(data, err), Fix: "fix the JSON syntax at that position"}
	}
	if dec.More() {
		return nil, &Diagnostic{File: name, Code: CodeSyntax, Message: "trailing data after the table object", Fix: "a rule-table file holds exactly one JSON object"}
	}
	t.File = name
	return &t, nil
}

func describeJSONError(data []byte, err error) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
		if e.Field != "" {
			return fmt.Sprintf("%s: field %s has the wrong type (%s where %s is expected)", lineCol(data, off), e.Field, e.Value, e.Type)
		}
	}
	if off >= 0 {
		return fmt.Sprintf("%s: %v", lineCol(data, off), err)
	}
	return err.Error()
}

func lineCol(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}
