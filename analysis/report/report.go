// Package report renders the evaluation as one self-contained HTML page:
// inline CSS and SVG, no scripts, nothing fetched, so it opens offline and
// prints as it shows.
package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/executablekg/execkg/analysis"
	"github.com/executablekg/execkg/analysis/docbench"
	"github.com/executablekg/execkg/analysis/reproduce"
	"github.com/executablekg/execkg/rules"
)

// Input is what the page shows.
type Input struct {
	Title    string
	Numbers  *reproduce.Numbers
	Scores   []*analysis.ArmScore
	Coverage *analysis.Coverage
	Pack     *rules.Pack
	// Notes are setting lines shown under the title.
	Notes []string
}

type tableRow struct {
	Label string
	Cells []string
}

type chip struct {
	Class, Title string
}

type covRule struct {
	RowID, Text string
	Evaluated   int
	Fired       int
	Chips       []chip
}

type covTable struct {
	Name  string
	Rules []covRule
}

type page struct {
	Title             string
	Notes             []string
	Head              []string
	Rows              []tableRow
	Details           string
	PRF, Errors, Recl template.HTML
	TopK              []tableRow
	TopKHead          []string
	Cov               *analysis.Coverage
	CovTables         []covTable
	// Documents: the real-world document benchmark, when scored.
	Docs                     *docbench.Score
	DocHead                  []string
	DocRows                  []tableRow
	DocPlot, DocErr, DocTabs template.HTML
}

// Render writes the page.
func Render(w io.Writer, in Input) error {
	n := in.Numbers
	if n == nil {
		return fmt.Errorf("report: no numbers to show")
	}
	p := page{Title: in.Title, Notes: in.Notes}
	if p.Title == "" {
		p.Title = "ExecutableKG evaluation"
	}
	p.Head = []string{""}
	for _, a := range n.Arms {
		p.Head = append(p.Head, a.Arm)
	}
	p.Rows = resultRows(n)
	var det strings.Builder
	reproduce.PrintDetails(&det, n)
	p.Details = strings.TrimSpace(det.String())

	// Precision, recall, F1 per arm.
	var ss []series
	for _, a := range n.Arms {
		ss = append(ss, series{Name: a.Arm, Values: []float64{a.Precision, a.Recall, a.F1}})
	}
	p.PRF = template.HTML(barChart("Micro precision, recall and F1 per arm", []string{"precision", "recall", "F1"}, ss, 1, "%.3f", 560))

	// Errors of our arm by step.
	if n.Ours != nil && n.Ours.Errors != nil {
		var cats []string
		for _, c := range analysis.ErrorCategories {
			if n.Ours.Errors.ByKind["FP"][c]+n.Ours.Errors.ByKind["FN"][c] > 0 {
				cats = append(cats, c)
			}
		}
		vals := make([][]int, 2)
		for i, k := range []string{"FP", "FN"} {
			for _, c := range cats {
				vals[i] = append(vals[i], n.Ours.Errors.ByKind[k][c])
			}
		}
		p.Errors = template.HTML(stackedBars("Errors of "+n.Ours.Arm+" by the step that explains them", []string{"FP", "FN"}, cats, vals, 760))
	}

	// Recall per table, for tables with reference pairs.
	if len(in.Scores) > 0 {
		var labels []string
		var files []string
		for _, t := range in.Scores[0].Tables {
			if t.Reference > 0 {
				labels = append(labels, tableLabel(t.Table))
				files = append(files, t.Table)
			}
		}
		var rs []series
		for _, s := range in.Scores {
			by := map[string]analysis.TableScore{}
			for _, t := range s.Tables {
				by[t.Table] = t
			}
			vals := make([]float64, len(files))
			for i, f := range files {
				vals[i] = by[f].Recall
			}
			rs = append(rs, series{Name: s.Arm, Values: vals})
		}
		p.Recl = template.HTML(barChart("Recall per recommendation table (tables with reference pairs)", labels, rs, 1, "%.2f", 900))
	}

	if n.Ours != nil && len(n.Ours.TopK) > 0 {
		p.TopKHead = []string{"anchors per finding", "TP / FP / FN", "precision", "recall", "F1", "exact", "correct abstention", "self-check"}
		for _, t := range n.Ours.TopK {
			a := t.Score
			p.TopK = append(p.TopK, tableRow{Label: fmt.Sprint(t.K), Cells: []string{
				fmt.Sprintf("%d / %d / %d", a.TP, a.FP, a.FN), fmt.Sprintf("%.3f", a.Precision), fmt.Sprintf("%.3f", a.Recall),
				fmt.Sprintf("%.3f", a.F1), fmt.Sprint(a.Exact), fmt.Sprintf("%d / %d", a.Abstention, a.EmptyReference),
				fmt.Sprintf("%d mismatch(es)", t.Stats.SelfCheckMismatches)}})
		}
	}
	if d := n.Documents; d != nil {
		documentsSection(&p, d)
	}
	if in.Coverage != nil {
		p.Cov = in.Coverage
		p.CovTables = coverageTables(in.Coverage, in.Pack)
	}
	return tmpl.Execute(w, p)
}

func resultRows(n *reproduce.Numbers) []tableRow {
	var rows []tableRow
	add := func(label string, f func(i int, a reproduce.ArmNumbers) string) {
		r := tableRow{Label: label}
		for i, a := range n.Arms {
			r.Cells = append(r.Cells, f(i, a))
		}
		rows = append(rows, r)
	}
	add("TP / FP / FN", func(_ int, a reproduce.ArmNumbers) string { return fmt.Sprintf("%d / %d / %d", a.TP, a.FP, a.FN) })
	add("Precision / recall / F1 (micro)", func(_ int, a reproduce.ArmNumbers) string {
		return fmt.Sprintf("%.3f / %.3f / %.3f", a.Precision, a.Recall, a.F1)
	})
	add("Exact row-set match ("+strings.Join(analysis.Categories, " / ")+")", func(_ int, a reproduce.ArmNumbers) string {
		var parts []string
		for _, c := range analysis.Categories {
			parts = append(parts, fmt.Sprint(a.ExactBy[c]))
		}
		return fmt.Sprintf("%d (%s)", a.Exact, strings.Join(parts, " / "))
	})
	add("Vignettes with unsupported output", func(_ int, a reproduce.ArmNumbers) string { return fmt.Sprint(a.Unsupported) })
	add("Correct abstention", func(_ int, a reproduce.ArmNumbers) string {
		return fmt.Sprintf("%d of %d", a.Abstention, a.EmptyReference)
	})
	add("Failed vignettes", func(_ int, a reproduce.ArmNumbers) string { return fmt.Sprint(a.Failed) })
	if n.Reference.MergedPairs != nil {
		add(fmt.Sprintf("F1 with merged concepts (%d pairs)", *n.Reference.MergedPairs), func(_ int, a reproduce.ArmNumbers) string {
			if a.F1Merged == nil {
				return "–"
			}
			return fmt.Sprintf("%.3f", *a.F1Merged)
		})
	}
	if n.Ours != nil && len(n.McNemar) > 0 {
		add("Exact McNemar vs "+n.Ours.Arm+" (exact only in "+n.Ours.Arm+" / only here, p)", func(i int, _ reproduce.ArmNumbers) string {
			if i == 0 {
				return "–"
			}
			m := n.McNemar[i-1]
			return fmt.Sprintf("%d / %d, p = %s", m.OnlyA, m.OnlyB, reproduce.FormatP(m.P))
		})
	}
	return rows
}

// tableLabel turns "table_08.json" into "T8".
func tableLabel(file string) string {
	var n int
	if _, err := fmt.Sscanf(file, "table_%d.json", &n); err == nil {
		return fmt.Sprintf("T%d", n)
	}
	return file
}

func coverageTables(c *analysis.Coverage, p *rules.Pack) []covTable {
	text := map[string]string{}
	topic := map[string]string{}
	if p != nil {
		for _, t := range p.Tables {
			topic[t.File] = fmt.Sprintf("Table %d: %s", t.Table, t.Topic)
			for i := range t.Rows {
				text[rules.RowID(t.File, t.Rows[i].Row)] = t.Rows[i].Recommendation
			}
		}
	}
	var out []covTable
	idx := map[string]int{}
	for _, r := range c.Rules {
		i, ok := idx[r.Table]
		if !ok {
			name := topic[r.Table]
			if name == "" {
				name = r.Table
			}
			i = len(out)
			idx[r.Table] = i
			out = append(out, covTable{Name: name})
		}
		cr := covRule{RowID: r.RowID, Text: text[r.RowID], Evaluated: r.Evaluated, Fired: r.Fired}
		for _, cc := range r.Conditions {
			cls := "never"
			switch {
			case cc.True > 0 && cc.False > 0:
				cls = "both"
			case cc.True > 0:
				cls = "true"
			case cc.False > 0:
				cls = "false"
			case cc.Unknown > 0:
				cls = "unknown"
			}
			cond := strings.TrimSpace(fmt.Sprintf("%s %s %s %s", cc.Concept, cc.Operator, cc.Threshold, cc.Unit))
			cr.Chips = append(cr.Chips, chip{Class: cls, Title: fmt.Sprintf("%s — true %d, false %d, unknown %d", cond, cc.True, cc.False, cc.Unknown)})
		}
		out[i].Rules = append(out[i].Rules, cr)
	}
	return out
}

var tmpl = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:14px;margin:18px 0 6px}
.notes{color:#555;font-size:12.5px;margin:0;padding-left:18px}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{font-variant-numeric:tabular-nums;white-space:nowrap}
pre{background:#f8f8f8;border:1px solid #e4e4e4;padding:10px;white-space:pre-wrap;font-size:12.5px}
svg{display:block;margin:10px 0;max-width:100%;height:auto}svg .t{font-size:13px;font-weight:600}svg .ax{font-size:11px;fill:#333}
svg .v{font-size:10px;fill:#222}svg .vw{font-size:10px;fill:#fff}svg .g{stroke:#e3e3e3}
.chip{display:inline-block;width:11px;height:11px;margin:1px;border:1px solid #999;border-radius:2px;vertical-align:middle}
.chip.both{background:#2ca02c}.chip.true{background:#1f77b4}.chip.false{background:#ff7f0e}.chip.unknown{background:#bbb}.chip.never{background:#fff}
.cov td{padding:2px 6px;font-size:12.5px}.cov td.rid{white-space:nowrap;font-family:ui-monospace,monospace;font-size:11.5px}
.legend span{margin-right:14px}
</style></head><body>
<h1>{{.Title}}</h1>
{{if .Notes}}<ul class="notes">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}

<h2>Results</h2>
<table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr><th>{{.Label}}</th>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</table>
<pre>{{.Details}}</pre>

<h2>Precision, recall and F1</h2>
{{.PRF}}

{{if .Errors}}<h2>Errors by step</h2>
<p>Each false positive and false negative of the traced arm is assigned to the first step that explains it (one line per error in the error CSV).</p>
{{.Errors}}{{end}}

{{if .Recl}}<h2>Recall per table</h2>
{{.Recl}}{{end}}

{{if .TopK}}<h2>Anchors per finding</h2>
<p>The stored trace re-scored with fewer concept anchors per finding, without rerunning anything.</p>
<table><tr>{{range .TopKHead}}<th>{{.}}</th>{{end}}</tr>
{{range .TopK}}<tr><td class="num">{{.Label}}</td>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}

{{if .Docs}}<h2>Real-world documents ({{.Docs.Split}} split)</h2>
<p>Clinic letters, discharge summaries, shorthand notes, GP referrals, reports and Heart Team notes written blind, each labelled with the rows that must and must not apply. Clean: every must row and no must-not row; exact: exactly the must rows.</p>
<table><tr>{{range .DocHead}}<th>{{.}}</th>{{end}}</tr>
{{range .DocRows}}<tr><th>{{.Label}}</th>{{range .Cells}}<td class="num">{{.}}</td>{{end}}</tr>
{{end}}</table>
{{.DocPlot}}
<p>Each miss and violation is assigned to the first stage that explains it (one line per error in the documents error CSV).</p>
{{.DocErr}}
{{.DocTabs}}{{end}}

{{if .Cov}}<h2>Condition coverage</h2>
<p>Across all vignettes, which conditions of which rules were ever evaluated true and false (from the trace's rule evaluations):
{{.Cov.EverEvaluated}} of {{.Cov.Conditions}} conditions were evaluated, {{.Cov.EverTrue}} were true at least once, {{.Cov.EverFalse}} false at least once, {{.Cov.BothWays}} both;
{{.Cov.RulesEvaluated}} of {{len .Cov.Rules}} rules were evaluated and {{.Cov.RulesFired}} fired. Hover a square for its counts.</p>
<p class="legend"><span><i class="chip both"></i> true and false</span><span><i class="chip true"></i> true only</span><span><i class="chip false"></i> false only</span><span><i class="chip unknown"></i> unknown only</span><span><i class="chip never"></i> never evaluated</span></p>
{{range .CovTables}}<h3>{{.Name}}</h3>
<table class="cov">{{range .Rules}}<tr><td class="rid">{{.RowID}}</td><td>{{range .Chips}}<i class="chip {{.Class}}" title="{{.Title}}"></i>{{end}}</td><td class="num">evaluated {{.Evaluated}}, fired {{.Fired}}</td><td>{{.Text}}</td></tr>
{{end}}</table>{{end}}{{end}}
</body></html>
`))

// documentsSection fills the documents table and its plots: recall and
// violation rate per style, errors per stage, and recall per table.
func documentsSection(p *page, d *docbench.Score) {
	p.Docs = d
	p.DocHead = []string{"style", "documents", "must returned", "recall", "must-not returned", "violation rate", "clean", "exact"}
	row := func(name string, t docbench.Tally) tableRow {
		return tableRow{Label: name, Cells: []string{fmt.Sprint(t.Docs), fmt.Sprintf("%d / %d", t.MustHit, t.Must), fmt.Sprintf("%.3f", t.Recall()),
			fmt.Sprintf("%d / %d", t.Violated, t.MustNot), fmt.Sprintf("%.3f", t.ViolationRate()), fmt.Sprint(t.Clean), fmt.Sprint(t.Exact)}}
	}
	var labels []string
	var rec, viol []float64
	for _, g := range d.ByStyle {
		p.DocRows = append(p.DocRows, row(g.Name, g.Tally))
		labels = append(labels, g.Name)
		rec = append(rec, g.Recall())
		viol = append(viol, g.ViolationRate())
	}
	p.DocRows = append(p.DocRows, row("all", d.Total))
	p.DocPlot = template.HTML(barChart("Must-include recall and must-not violation rate per style", labels,
		[]series{{Name: "must recall", Values: rec}, {Name: "violation rate", Values: viol}}, 1, "%.2f", 900))
	var cats []string
	for _, st := range docbench.Stages {
		if d.Stages["miss"][st]+d.Stages["violation"][st] > 0 {
			cats = append(cats, st)
		}
	}
	if len(cats) > 0 {
		vals := make([][]int, 2)
		for i, k := range []string{"miss", "violation"} {
			for _, c := range cats {
				vals[i] = append(vals[i], d.Stages[k][c])
			}
		}
		p.DocErr = template.HTML(stackedBars("Document errors by the stage that explains them", []string{"misses", "violations"}, cats, vals, 760))
	}
	var tl []string
	var tr []float64
	for _, g := range d.ByTable {
		if g.Must > 0 {
			tl = append(tl, tableLabel(g.Name))
			tr = append(tr, g.Recall())
		}
	}
	if len(tl) > 0 {
		p.DocTabs = template.HTML(barChart("Document must-include recall per recommendation table", tl, []series{{Name: "must recall", Values: tr}}, 1, "%.2f", 900))
	}
}
