package engine

import (
	"strings"
	"time"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
)

// columnDates dates the values of a cumulative results table, as an EHR
// prints one: a header line of dates over rows that give one value per
// date column ("              12/05/2026   01/11/2026" over
// "eGFR          65           44"). Each value of a row takes its
// column's date, so the latest column is the current value (supersede),
// whatever the order of the columns. A row whose values do not match the
// header's dates one for one is left undated. Keys are the items' value
// pointers.
func (p *Program) columnDates(text string, byID map[string]extract.Finding, items []evidence.Item, date time.Time) map[*float64]*eval.When {
	if !strings.Contains(text, "\n") {
		return nil
	}
	type rowKey struct{ finding, concept string }
	rows := map[rowKey][]*float64{}
	var order []rowKey
	for _, it := range items {
		if it.Value == nil || it.Rejected != "" {
			continue
		}
		k := rowKey{it.FindingID, it.ConceptKey}
		if _, ok := rows[k]; !ok {
			order = append(order, k)
		}
		rows[k] = append(rows[k], it.Value)
	}
	var out map[*float64]*eval.When
	headers := map[int][]*eval.When{} // line start → its dates
	for _, k := range order {
		vs := rows[k]
		f, ok := byID[k.finding]
		if len(vs) < 2 || !ok || f.Start < 0 {
			continue
		}
		dates := p.headerDates(text, f.Start, date, headers)
		if len(dates) != len(vs) {
			continue
		}
		if out == nil {
			out = map[*float64]*eval.When{}
		}
		for i, v := range vs {
			out[v] = dates[i]
		}
	}
	return out
}

// headerDates are the dates of the nearest line above the one holding
// offset at, within its block (no blank line between), that holds two or
// more cells each giving a date; nil when none.
func (p *Program) headerDates(text string, at int, date time.Time, memo map[int][]*eval.When) []*eval.When {
	ls := strings.LastIndexByte(text[:at], '\n') + 1
	for n := 0; ls > 0 && n < 15; n++ {
		ps := strings.LastIndexByte(text[:ls-1], '\n') + 1
		line := text[ps : ls-1]
		if strings.TrimSpace(line) == "" {
			return nil
		}
		ds, ok := memo[ps]
		if !ok {
			for _, cell := range cells(line) {
				if w := p.whenOf(cell, date); w != nil {
					ds = append(ds, w)
				}
			}
			memo[ps] = ds
		}
		if len(ds) >= 2 {
			return ds
		}
		ls = ps
	}
	return nil
}

// cells splits a table line at its cell breaks: a tab, a bar or a run of
// two or more spaces.
func cells(line string) []string {
	line = strings.NewReplacer("\t", "  ", "|", "  ").Replace(line)
	var out []string
	for _, c := range strings.Split(line, "  ") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// byIDOf indexes findings by id.
func byIDOf(findings []extract.Finding) map[string]extract.Finding {
	m := make(map[string]extract.Finding, len(findings))
	for _, f := range findings {
		m[f.ID] = f
	}
	return m
}
