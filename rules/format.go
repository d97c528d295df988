package rules

import (
	"bytes"
	"encoding/json"
)

// Format writes a table in the canonical layout of the pack files: indented
// structure with one entity object per line, so a diff shows which
// condition changed. Parse(Format(t)) equals t.
func Format(t *Table) ([]byte, error) {
	var b bytes.Buffer
	compact := func(v any) error {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Write(bytes.TrimRight(buf.Bytes(), "\n"))
		return nil
	}
	field := func(indent, name string, v any, comma bool) error {
		b.WriteString(indent)
		_ = compact(name)
		b.WriteString(": ")
		if err := compact(v); err != nil {
			return err
		}
		if comma {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		return nil
	}
	entities := func(indent, name string, es []Entity, comma bool) error {
		b.WriteString(indent)
		_ = compact(name)
		b.WriteString(": [\n")
		for i, e := range es {
			b.WriteString(indent + "  ")
			if err := compact(e); err != nil {
				return err
			}
			if i < len(es)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "]")
		if comma {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		return nil
	}
	b.WriteString("{\n")
	_ = field("  ", "guideline", t.Guideline, true)
	_ = field("  ", "table", t.Table, true)
	_ = field("  ", "topic", t.Topic, true)
	if t.Population != "" {
		_ = field("  ", "population", t.Population, true)
	}
	_ = field("  ", "source", t.Source, true)
	if len(t.Footnotes) > 0 {
		b.WriteString(`  "footnotes": [` + "\n")
		for i, f := range t.Footnotes {
			b.WriteString("    ")
			_ = compact(f)
			if i < len(t.Footnotes)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("  ],\n")
	}
	b.WriteString(`  "rows": [` + "\n")
	for ri, r := range t.Rows {
		b.WriteString("    {\n")
		in := "      "
		_ = field(in, "row", r.Row, true)
		_ = field(in, "section", r.Section, true)
		_ = field(in, "text", r.Text, true)
		_ = field(in, "class", r.Class, true)
		_ = field(in, "level", r.Level, true)
		if r.Direction != "" {
			_ = field(in, "direction", r.Direction, true)
		}
		_ = field(in, "input", r.Input, true)
		_ = field(in, "recommendation", r.Recommendation, true)
		if r.Workflow != "" {
			_ = field(in, "workflow", r.Workflow, true)
		}
		b.WriteString(in + `"rules": [` + "\n")
		for k, ru := range r.Rules {
			b.WriteString(in + "  {\n")
			if err := entities(in+"    ", "conditions", ru.Conditions, len(ru.Actions) > 0); err != nil {
				return nil, err
			}
			if len(ru.Actions) > 0 {
				if err := entities(in+"    ", "actions", ru.Actions, false); err != nil {
					return nil, err
				}
			}
			b.WriteString(in + "  }")
			if k < len(r.Rules)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(in + "]")
		if len(r.Actions) > 0 {
			b.WriteString(",\n")
			if err := entities(in, "actions", r.Actions, false); err != nil {
				return nil, err
			}
		} else {
			b.WriteByte('\n')
		}
		b.WriteString("    }")
		if ri < len(t.Rows)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("  ]\n}\n")
	return b.Bytes(), nil
}
