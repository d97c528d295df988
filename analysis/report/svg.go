package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// palette gives arms and categories distinct, print-safe colours.
var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"}

func colour(i int) string { return palette[i%len(palette)] }

// series is one coloured set of bars.
type series struct {
	Name   string
	Values []float64
}

// barChart draws grouped vertical bars: one group per label, one bar per
// series. max ≤ 0 scales to the largest value. Values print above bars
// with format.
func barChart(title string, labels []string, ss []series, maxV float64, format string, width int) string {
	const h, top, bottom, left = 260, 30, 70, 44
	if maxV <= 0 {
		for _, s := range ss {
			for _, v := range s.Values {
				maxV = math.Max(maxV, v)
			}
		}
		if maxV == 0 {
			maxV = 1
		}
		maxV = niceCeil(maxV)
	}
	plotW := float64(width - left - 10)
	plotH := float64(h - top - bottom)
	groupW := plotW / float64(max(len(labels), 1))
	barW := groupW * 0.8 / float64(max(len(ss), 1))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">`, width, h+18*((len(ss)+2)/3), html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="18" class="t">%s</text>`, left, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		v := maxV * float64(i) / 4
		y := float64(top) + plotH - plotH*float64(i)/4
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" class="g"/><text x="%d" y="%.1f" class="ax" text-anchor="end">%s</text>`,
			left, width-10, y, y, left-4, y+4, trimNum(v))
	}
	for gi, lab := range labels {
		gx := float64(left) + groupW*float64(gi) + groupW*0.1
		for si, s := range ss {
			if gi >= len(s.Values) {
				continue
			}
			v := s.Values[gi]
			bh := plotH * v / maxV
			x := gx + barW*float64(si)
			y := float64(top) + plotH - bh
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %s</title></rect>`,
				x, y, math.Max(barW-1, 1), bh, colour(si), html.EscapeString(s.Name), html.EscapeString(lab), fmt.Sprintf(format, v))
			if barW >= 18 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="v" text-anchor="middle">%s</text>`, x+barW/2, y-3, fmt.Sprintf(format, v))
			}
		}
		lx := gx + groupW*0.4
		ly := float64(top) + plotH + 12
		if len(labels) > 8 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="ax" text-anchor="end" transform="rotate(-60 %.1f %.1f)">%s</text>`, lx, ly, lx, ly, html.EscapeString(lab))
		} else {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="ax" text-anchor="middle">%s</text>`, lx, ly+4, html.EscapeString(lab))
		}
	}
	// Legend.
	for si, s := range ss {
		x := left + (si%3)*((width-left)/3)
		y := h + 4 + 18*(si/3)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" class="ax">%s</text>`, x, y-10, colour(si), x+16, y, html.EscapeString(s.Name))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// stackedBars draws one horizontal bar per row, split into coloured
// segments (one per category).
func stackedBars(title string, rows []string, cats []string, values [][]int, width int) string {
	const rowH, top, left = 26, 30, 60
	total := 0
	for _, r := range values {
		s := 0
		for _, v := range r {
			s += v
		}
		total = max(total, s)
	}
	if total == 0 {
		total = 1
	}
	h := top + rowH*len(rows) + 20*((len(cats)+2)/3) + 12
	plotW := float64(width - left - 60)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">`, width, h, html.EscapeString(title))
	fmt.Fprintf(&b, `<text x="%d" y="18" class="t">%s</text>`, left, html.EscapeString(title))
	for ri, r := range rows {
		y := top + rowH*ri
		fmt.Fprintf(&b, `<text x="%d" y="%d" class="ax" text-anchor="end">%s</text>`, left-6, y+15, html.EscapeString(r))
		x := float64(left)
		sum := 0
		for ci, v := range values[ri] {
			if v == 0 {
				continue
			}
			w := plotW * float64(v) / float64(total)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %d</title></rect>`,
				x, y+2, w, rowH-6, colour(ci), html.EscapeString(r), html.EscapeString(cats[ci]), v)
			if w > 18 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="vw" text-anchor="middle">%d</text>`, x+w/2, y+16, v)
			}
			x += w
			sum += v
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="ax">%d</text>`, x+4, y+16, sum)
	}
	ly := top + rowH*len(rows) + 14
	for ci, c := range cats {
		x := left + (ci%3)*((width-left)/3)
		y := ly + 20*(ci/3)
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" class="ax">%s</text>`, x, y-10, colour(ci), x+16, y, html.EscapeString(c))
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func niceCeil(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func trimNum(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}
