package extract

import "strings"

// statusTables finds the tables whose header row names a status column
// (the pack's frame.status_columns: "Medication | Dose | Sig | Status").
// Each body row is one finding from its first cell through its status
// cell (keep: the field gaps padding those cells set nothing apart), so
// the status a row gives ("STOPPED", "Not taking - declined", "HELD")
// is read with the drug or problem the row names; the bar closing the
// status cell ends that finding, the cells after it (a comment, a
// reason) stay findings of their own. The header row is layout (cuts):
// its column names state nothing of the patient. A table is two or more
// consecutive lines with the same two or more bars (tableRow); a
// separator line of bars and dashes is layout too.
func (r *Reading) statusTables(text string) (keep, cuts [][2]int, cells map[[2]int][2]int) {
	if r == nil || len(r.statusColumns) == 0 || strings.Count(text, "|") < 4 {
		return nil, nil, nil
	}
	cells = map[[2]int][2]int{}
	type line struct{ s, e, bars int }
	var block []line
	flush := func() {
		if len(block) >= 2 {
			k, c := r.statusBlock(text, block[0].s, block[0].e, cells, func(yield func(s, e int)) {
				for _, l := range block[1:] {
					yield(l.s, l.e)
				}
			})
			keep, cuts = append(keep, k...), append(cuts, c...)
		}
		block = block[:0]
	}
	for ls := 0; ls < len(text); {
		le := strings.IndexByte(text[ls:], '\n')
		if le < 0 {
			le = len(text)
		} else {
			le += ls
		}
		n := strings.Count(text[ls:le], "|")
		if n < 2 || !tableRow(text, ls) || len(block) > 0 && block[len(block)-1].bars != n {
			flush()
		}
		if n >= 2 && tableRow(text, ls) {
			block = append(block, line{ls, le, n})
		}
		ls = le + 1
	}
	flush()
	return keep, cuts, cells
}

// statusBlock reads one table: its header line [hs, he) and its body
// lines (see statusTables); status gets each row's status cell by its
// keep span.
func (r *Reading) statusBlock(text string, hs, he int, status map[[2]int][2]int, body func(func(s, e int))) (keep, cuts [][2]int) {
	header := cellSpans(text, hs, he)
	col := -1
	for j, c := range header {
		if r.statusColumns[strings.Join(strings.Fields(strings.ToLower(text[c[0]:c[1]])), " ")] {
			col = j
			break
		}
	}
	if col < 1 {
		return nil, nil // no status column, or nothing named before it
	}
	cuts = append(cuts, [2]int{hs, he})
	body(func(s, e int) {
		cells := cellSpans(text, s, e)
		if separatorRow(text[s:e]) {
			cuts = append(cuts, [2]int{s, e})
			return
		}
		if len(cells) <= col {
			return
		}
		row := [2]int{cells[0][0], cells[col][1]}
		keep = append(keep, row)
		status[row] = cells[col]
		if col+1 < len(cells) {
			// The bar after the status cell ends the row's finding.
			if b := strings.IndexByte(text[cells[col][1]:e], '|'); b >= 0 {
				cuts = append(cuts, [2]int{cells[col][1] + b, cells[col][1] + b + 1})
			}
		}
	})
	return keep, cuts
}

// cellSpans are the [start, end) spans of a table line's cells, each
// trimmed of its padding; the outer bars open and close no cell.
func cellSpans(text string, s, e int) [][2]int {
	row := text[s:e]
	lead := len(row) - len(strings.TrimLeft(row, " \t"))
	row = strings.TrimRight(row, " \t\r")
	from := s + lead
	end := s + len(row)
	if from < end && text[from] == '|' {
		from++
	}
	if end > from && text[end-1] == '|' {
		end--
	}
	var out [][2]int
	for from <= end {
		b := strings.IndexByte(text[from:end], '|')
		ce := end
		if b >= 0 {
			ce = from + b
		}
		cs, cend := from, ce
		for cs < cend && (text[cs] == ' ' || text[cs] == '\t') {
			cs++
		}
		for cend > cs && (text[cend-1] == ' ' || text[cend-1] == '\t') {
			cend--
		}
		out = append(out, [2]int{cs, cend})
		if b < 0 {
			break
		}
		from = ce + 1
	}
	return out
}

// separatorRow: a table line of bars, dashes, colons and pluses only
// ("|------|:---:|").
func separatorRow(row string) bool {
	return strings.Trim(row, "|-:+= \t\r") == "" && strings.Contains(row, "-")
}

// within: offset i lies in one of spans.
func within(spans [][2]int, i int) bool {
	for _, sp := range spans {
		if i >= sp[0] && i < sp[1] {
			return true
		}
	}
	return false
}
