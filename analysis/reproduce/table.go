package reproduce

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/executablekg/execkg/analysis"
)

// PrintTable writes the results table in the reference system's shape:
// one column per arm, the ours-vs-other McNemar test in each other arm's
// column.
func PrintTable(w io.Writer, n *Numbers) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(label string, cell func(i int, a ArmNumbers) string) {
		cells := []string{label}
		for i, a := range n.Arms {
			cells = append(cells, cell(i, a))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	row("", func(_ int, a ArmNumbers) string { return a.Arm })
	row("TP / FP / FN", func(_ int, a ArmNumbers) string { return fmt.Sprintf("%d / %d / %d", a.TP, a.FP, a.FN) })
	row("Precision / recall / F1 (micro)", func(_ int, a ArmNumbers) string {
		return fmt.Sprintf("%.3f / %.3f / %.3f", a.Precision, a.Recall, a.F1)
	})
	cats := analysis.Categories
	row(fmt.Sprintf("Exact row-set match (%s)", strings.Join(cats, " / ")), func(_ int, a ArmNumbers) string {
		parts := make([]string, len(cats))
		for i, c := range cats {
			parts[i] = fmt.Sprint(a.ExactBy[c])
		}
		return fmt.Sprintf("%d (%s)", a.Exact, strings.Join(parts, " / "))
	})
	row("Vignettes with unsupported output", func(_ int, a ArmNumbers) string { return fmt.Sprint(a.Unsupported) })
	empty := 0
	if len(n.Arms) > 0 {
		empty = n.Arms[0].EmptyReference
	}
	row(fmt.Sprintf("Correct abstention (of %d)", empty), func(_ int, a ArmNumbers) string { return fmt.Sprint(a.Abstention) })
	row("Failed vignettes (scored as empty)", func(_ int, a ArmNumbers) string { return fmt.Sprint(a.Failed) })
	if n.Reference.MergedPairs != nil {
		row(fmt.Sprintf("F1 with merged concepts (%d pairs)", *n.Reference.MergedPairs), func(_ int, a ArmNumbers) string {
			if a.F1Merged == nil {
				return "–"
			}
			return fmt.Sprintf("%.3f", *a.F1Merged)
		})
	} else {
		row("F1 with merged concepts", func(int, ArmNumbers) string { return "none merged" })
	}
	if n.Ours != nil && len(n.McNemar) > 0 {
		row("Exact McNemar vs "+n.Ours.Arm+" (exact only in "+n.Ours.Arm+" / only here, p)", func(i int, a ArmNumbers) string {
			if i == 0 {
				return "–"
			}
			m := n.McNemar[i-1]
			return fmt.Sprintf("%d / %d, p = %s", m.OnlyA, m.OnlyB, FormatP(m.P))
		})
	}
	tw.Flush()
}

// FormatP prints a p-value: three significant digits, scientific below
// 0.001.
func FormatP(p float64) string {
	switch {
	case p >= 0.001:
		return fmt.Sprintf("%.3f", p)
	case p == 0:
		return "0"
	}
	return fmt.Sprintf("%.3g", p)
}

// PrintDetails writes the other headline figures under the table.
func PrintDetails(w io.Writer, n *Numbers) {
	r := n.Reference
	fmt.Fprintf(w, "\nReference: %d vignette–row pairs; %d vignettes with no applicable row; %d vignettes stating suspected or established CCS hold %d pairs.\n",
		r.Pairs, r.EmptyVignettes, r.PopulationVignettes, r.PopulationPairs)
	if r.MergedNote != "" {
		fmt.Fprintf(w, "Merged-concept reference: %s\n", r.MergedNote)
	}
	for _, rt := range n.Retrieval {
		if n.Ours != nil && rt.Arm == n.Ours.Arm {
			continue
		}
		fmt.Fprintf(w, "Retrieval (%s): the retrieved rows held %d of %d reference pairs (%.1f%%); at most %d fit the row budget.\n",
			rt.Arm, rt.ReferencePairsRetrieved, rt.ReferencePairs, pct(rt.ReferencePairsRetrieved, rt.ReferencePairs), rt.Budget)
	}
	o := n.Ours
	if o == nil {
		return
	}
	if o.TracedCases == 0 {
		fmt.Fprintf(w, "%s: no traces, so no error analysis, re-scoring or coverage.\n", o.Arm)
		return
	}
	if o.Retrieval != nil {
		fmt.Fprintf(w, "Retrieval (%s): retrieved rules covered %d of %d reference pairs.\n", o.Arm, o.Retrieval.ReferencePairsRetrieved, o.Retrieval.ReferencePairs)
	}
	if o.StepV != nil {
		fmt.Fprintf(w, "Step (v) blocked %d vignette–rule pairs, %d of them reference pairs.\n", o.StepV.BlockedPairs, o.StepV.BlockedReferencePairs)
	}
	if e := o.Errors; e != nil {
		fmt.Fprintf(w, "Errors of %s: %d FP (%s), %d FN (%s); the 10 vignettes with most FPs hold %d of them.\n",
			o.Arm, e.FP, breakdown(e.ByKind["FP"]), e.FN, breakdown(e.ByKind["FN"]), e.FPTop10Vignettes)
	}
	if len(o.TopK) > 0 {
		fmt.Fprintln(w, "\nAnchors per finding (re-scored from the stored trace):")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "k\tTP / FP / FN\tprecision\trecall\tF1\texact\tabstention\tself-check\t")
		for _, t := range o.TopK {
			a := t.Score
			fmt.Fprintf(tw, "%d\t%d / %d / %d\t%.3f\t%.3f\t%.3f\t%d\t%d / %d\t%d mismatch(es)\t\n", t.K, a.TP, a.FP, a.FN, a.Precision, a.Recall, a.F1, a.Exact, a.Abstention, a.EmptyReference, t.Stats.SelfCheckMismatches)
		}
		tw.Flush()
	}
	if o.TopKNote != "" {
		fmt.Fprintf(w, "Re-scoring: %s\n", o.TopKNote)
	}
	if c := o.Coverage; c != nil {
		fmt.Fprintf(w, "Condition coverage: %d of %d conditions evaluated, %d ever true, %d ever false, %d both; %d of %d rules evaluated, %d fired.\n",
			c.EverEvaluated, c.Conditions, c.EverTrue, c.EverFalse, c.BothWays, c.RulesEvaluated, c.Rules, c.RulesFired)
	}
}

func breakdown(m map[string]int) string {
	var parts []string
	for _, c := range analysis.ErrorCategories {
		if m[c] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, m[c]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}
