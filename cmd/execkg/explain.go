package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// writeCalculation prints one calculated concept: its value and inputs, or
// why it is unknown.
func writeCalculation(w io.Writer, c engine.Calculation) {
	if c.Value == nil {
		fmt.Fprintf(w, "  ? %s (%s): unknown: %s\n", c.Concept, c.Implementation, c.Unknown)
		return
	}
	fmt.Fprintf(w, "  = %s %.1f %s (%s)\n", c.Concept, *c.Value, c.Unit, c.Implementation)
	for _, in := range c.Inputs {
		fmt.Fprintf(w, "      %s: %s\n", in.Name, in.String())
	}
}

// gradeLabel is a recommendation's grade in its pack's terms: the term the
// engine gave ("Grade D — recommend against"), else the ESC class and
// level the fields are named after ("Class III, Level B — AGAINST").
func gradeLabel(term, class, level string) string {
	if term != "" {
		return term
	}
	return rules.DefaultGrading.Label(class, level)
}

// explainMode is --explain: "" (off), "changed" (bare --explain) or "all".
type explainMode string

func (m *explainMode) String() string   { return string(*m) }
func (m *explainMode) IsBoolFlag() bool { return true }
func (m *explainMode) Set(v string) error {
	switch v {
	case "true", "changed":
		*m = "changed"
	case "all":
		*m = "all"
	case "false":
		*m = ""
	default:
		return fmt.Errorf("want --explain or --explain=all, got --explain=%s", v)
	}
	return nil
}

// writeExplain prints a result as a tree a clinician can read: findings
// and their anchors, each recommendation with the conditions that fired it
// and the patient's words behind each, near misses, and what step (v)
// blocked: by default only the blocked evidence that changed a rule's
// outcome (and findings set aside before matching), with all, every item.
func writeExplain(w io.Writer, r *engine.Result, all bool) {
	fmt.Fprintf(w, "Case %s: %s\n", r.CaseID, r.Question)
	if r.Error != "" {
		fmt.Fprintf(w, "  FAILED: %s\n", r.Error)
	}
	findingText := map[string]string{}
	for _, f := range r.Findings {
		findingText[f.ID] = f.Text
	}
	if r.Trace != nil {
		fmt.Fprintf(w, "\nFindings (i) and concept anchors (ii):\n")
		for _, fa := range r.Trace.Anchors {
			pack := "" // --pack all: each pack anchors the finding to its own concepts
			if fa.Pack != "" {
				pack = "  [" + fa.Pack + "]"
			}
			fmt.Fprintf(w, "  %s %q%s\n", fa.FindingID, findingText[fa.FindingID], pack)
			if len(fa.Anchors) == 0 {
				fmt.Fprintf(w, "      (no concept found)\n")
			}
			for _, a := range fa.Anchors {
				fmt.Fprintf(w, "      %d. %s  [%s, score %.3f]\n", a.Rank, a.Concept, strings.Join(a.Channels, "+"), a.Score)
			}
		}
	}
	writePatient(w, r.Patient, all)
	if r.Trace != nil && len(r.Trace.Calculations) > 0 {
		fmt.Fprintf(w, "\nCalculated (the pack's calculators):\n")
		for _, c := range r.Trace.Calculations {
			writeCalculation(w, c)
		}
	}
	fmt.Fprintf(w, "\nRecommendations (%d rule(s) fired, %d row(s)):\n", len(r.Recommendations), len(r.PredictedRowIDs))
	if len(r.Recommendations) == 0 {
		fmt.Fprintf(w, "  none: no rule has all its conditions met by what the case states\n")
	}
	for _, rec := range r.Recommendations {
		fmt.Fprintf(w, "  ✔ %s  %s\n", rec.RowID, gradeLabel(rec.Grade, rec.Class, rec.Level))
		fmt.Fprintf(w, "      %s\n", rec.Text)
		if s := engine.ActionSummary(rec.Actions); s != "" {
			fmt.Fprintf(w, "      → %s\n", s)
		}
		doi := ""
		if rec.Source.DOI != "" {
			// A statement whose DOI was not verified has none: say nothing
			// rather than print an empty link.
			doi = " (doi:" + rec.Source.DOI + ")"
		}
		fmt.Fprintf(w, "      source: %s, %s row %d%s\n", rec.Source.Guideline, rec.Source.Table, rec.Source.Row, doi)
		for _, c := range rec.FiredBy {
			fmt.Fprintf(w, "      because %s\n", condLine(c, findingText))
		}
		for _, c := range rec.Cautions {
			fmt.Fprintf(w, "      ⚠ caution: %s\n", c.Reason)
		}
	}
	if len(r.Withheld) > 0 {
		fmt.Fprintf(w, "\nWithheld (the row fired, but the record says the patient does not tolerate or must not have what it gives):\n")
		for _, x := range r.Withheld {
			term := x.Grade
			if term == "" {
				term = rules.DefaultGrading.Term(x.Class)
			}
			fmt.Fprintf(w, "  ✘ %s  %s: %s\n", x.RowID, term, x.Reason)
		}
	}
	if len(r.NearMisses) > 0 {
		fmt.Fprintf(w, "\nNear misses (would apply if the case also stated):\n")
		for _, n := range r.NearMisses {
			term := n.Grade
			if term == "" {
				term = rules.DefaultGrading.Term(n.Class)
			}
			fmt.Fprintf(w, "  ? %s  %s: %s\n", n.RowID, term, strings.Join(n.Missing, "; "))
		}
	}
	if r.Trace != nil && len(r.Trace.Rejected) > 0 {
		var aside, blocked []string
		hidden := 0
		seen := map[string]bool{}
		changed := map[string]bool{} // one line per finding and reason, decisive at any condition
		for _, rj := range r.Trace.Rejected {
			if rj.ChangedOutcome {
				changed[rj.FindingID+"|"+rj.Reason] = true
			}
		}
		for _, rj := range r.Trace.Rejected {
			k := rj.FindingID + "|" + rj.Reason
			if seen[k] {
				continue
			}
			seen[k] = true
			rj.ChangedOutcome = changed[k]
			line := fmt.Sprintf("  ✘ %s %q: %s", rj.FindingID, findingText[rj.FindingID], rj.Reason)
			switch {
			case rj.BeforeMatching:
				aside = append(aside, line)
			case all && rj.ChangedOutcome:
				blocked = append(blocked, line+"  [changed an outcome]")
			case all || rj.ChangedOutcome:
				blocked = append(blocked, line)
			default:
				hidden++
			}
		}
		if len(aside) > 0 {
			fmt.Fprintf(w, "\nFindings set aside before matching:\n%s\n", strings.Join(aside, "\n"))
		}
		switch {
		case all && len(blocked) > 0:
			fmt.Fprintf(w, "\nEvidence blocked by the consistency check (v), all of it:\n%s\n", strings.Join(blocked, "\n"))
		case len(blocked) > 0:
			fmt.Fprintf(w, "\nEvidence blocked by the consistency check (v) that changed a rule's outcome:\n%s\n", strings.Join(blocked, "\n"))
		}
		if hidden > 0 {
			fmt.Fprintf(w, "  (%d more blocked item(s) changed no rule's outcome; --explain=all lists them)\n", hidden)
		}
	}
	if r.Trace != nil {
		fmt.Fprintf(w, "\n%d rule(s) evaluated from %d row(s); checks: %s; closed world: %v; top-%d anchors\n",
			len(r.Trace.Rules), len(r.RetrievedRowIDs), r.Trace.Checks, r.Trace.ClosedWorld, r.Trace.TopK)
	}
}

func condLine(c engine.FiredCond, findingText map[string]string) string {
	s := c.Concept + " " + c.Operator
	if c.Threshold != "" {
		s += " " + c.Threshold + " " + c.Unit
	}
	var from []string
	for _, e := range c.Evidence {
		if t := findingText[e.ID]; t != "" {
			from = append(from, fmt.Sprintf("%q (%s)", t, e.ID))
		} else if e.Text != "" {
			from = append(from, fmt.Sprintf("%q", e.Text))
		}
	}
	if len(from) > 0 {
		s += " ← " + strings.Join(from, ", ")
	}
	return s + ": " + c.Reason
}

// writePatient prints the patient model the case was read into: each fact
// with its kind, status, certainty, section and where it came from (the
// span of the patient's words, or the record), read facts before derived
// ones; alternative readings of a finding only with all.
func writePatient(w io.Writer, m *patient.Model, all bool) {
	if m == nil || len(m.Facts) == 0 {
		return
	}
	fmt.Fprintf(w, "\nPatient model (%s", m.Source)
	if m.Date != "" {
		fmt.Fprintf(w, ", dated %s", m.Date)
	}
	fmt.Fprintf(w, "):\n")
	alt := 0
	for _, f := range m.Facts {
		if f.Secondary && !all {
			alt++
			continue
		}
		state := string(f.Status)
		if f.Certainty == patient.Suspected || f.Certainty == patient.Refuted {
			state += ", " + string(f.Certainty)
		}
		if f.Experiencer == patient.Relative {
			state += ", a relative's"
		}
		val := ""
		if f.Value != nil {
			val = fmt.Sprintf(" = %s%g %s", strings.TrimPrefix(f.Comparator, "="), *f.Value, f.Unit)
		}
		where := f.Reader
		switch {
		case f.Resource != "":
			where += " " + f.Resource
		case len(f.Spans) > 0:
			where += fmt.Sprintf(" bytes %d-%d", f.Spans[0].Start, f.Spans[0].End)
		}
		if f.Section != "" {
			where += ", section " + f.Section
		}
		if f.Via != "" {
			where += ", " + f.Via
		}
		fmt.Fprintf(w, "  %-11s %s%s  [%s]  %q  (%s)\n", f.Kind, f.Concept, val, state, f.Text, where)
	}
	if alt > 0 {
		fmt.Fprintf(w, "  (%d alternative reading(s) of findings; --explain=all lists them)\n", alt)
	}
	for _, d := range m.Dropped {
		what := strings.TrimSpace(d.Text + " " + d.Resource)
		fmt.Fprintf(w, "  dropped %q: %s\n", what, d.Reason)
	}
}
