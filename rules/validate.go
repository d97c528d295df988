package rules

import (
	"fmt"
	"sort"
	"strings"
)

// Validate runs the semantic checks a JSON Schema cannot express, over the
// whole pack (some checks, such as one concept per wording, span tables).
// It returns every problem found, located by file, row, rule and JSON
// pointer.
func Validate(p *Pack) Diagnostics {
	var ds Diagnostics
	tableFiles := map[int]string{}
	for _, t := range p.Tables {
		ds = append(ds, validateTable(p, t)...)
		if prev, dup := tableFiles[t.Table]; dup {
			ds = append(ds, &Diagnostic{Code: CodeDuplicateFile, File: t.File, Row: -1, Rule: -1, Pointer: "/table",
				Message: fmt.Sprintf("table %d is also defined in %s", t.Table, prev),
				Fix:     "each table number belongs to exactly one file; remove or renumber one of them"})
		} else {
			tableFiles[t.Table] = t.File
		}
	}
	ds = append(ds, conceptChecks(p)...)
	ds = append(ds, p.ValueSets.Check(p)...)
	ds.Sort()
	return ds
}

func validateTable(p *Pack, t *Table) Diagnostics {
	var ds Diagnostics
	add := func(code string, row, rule int, ptr, msg, fix string) {
		ds = append(ds, &Diagnostic{Code: code, File: t.File, Row: row, Rule: rule, Pointer: ptr, Message: msg, Fix: fix})
	}
	if t.Guideline.ID != p.Guideline.ID || t.Guideline.Version != p.Guideline.Version {
		add(CodeGuideline, -1, -1, "/guideline", fmt.Sprintf("guideline %s %s differs from the pack's %s %s", t.Guideline.ID, t.Guideline.Version, p.Guideline.ID, p.Guideline.Version),
			"all tables of one pack name the same guideline id and version")
	}
	seenRow := map[int]bool{}
	for ri := range t.Rows {
		row := &t.Rows[ri]
		rp := fmt.Sprintf("/rows/%d", ri)
		if row.Row != ri {
			add(CodeRowOrder, row.Row, -1, rp+"/row", fmt.Sprintf("row number %d at position %d", row.Row, ri),
				"rows are numbered 0..n-1 in the guideline's printed order, as in the catalogue")
		}
		if seenRow[row.Row] {
			add(CodeDuplicateID, row.Row, -1, rp+"/row", fmt.Sprintf("row id %s is used twice", RowID(t.File, row.Row)), "give each row its own number")
		}
		seenRow[row.Row] = true
		for field, v := range map[string]string{"text": row.Text, "input": row.Input, "recommendation": row.Recommendation} {
			if strings.TrimSpace(v) == "" {
				add(CodeMissingField, row.Row, -1, rp+"/"+field, field+" is empty", "write the row's "+field+" (our paraphrase)")
			}
		}
		sc := p.Scheme()
		wantDir := sc.Direction(row.Class)
		// An unreadable grading file (reported by the preflight) leaves an
		// empty scheme: its grades are not checked against a guess.
		checked := len(sc.Grades) > 0
		if _, ok := sc.Grade(row.Class); !ok && row.Class == "" {
			add(CodeMissingField, row.Row, -1, rp+"/class", "class (the row's grade) is empty", "write the row's grade: one of "+strings.Join(sc.Values(false), ", ")+" (meta/grading.json)")
		} else if !ok && checked {
			add(CodeGrade, row.Row, -1, rp+"/class", fmt.Sprintf("grade %q is not in the pack's scheme (%s)", row.Class, sc.Scheme),
				"use one of "+strings.Join(sc.Values(false), ", ")+" (meta/grading.json)")
		}
		switch _, ok := sc.Level(row.Level); {
		case !checked:
		case len(sc.Levels) == 0 && row.Level != "":
			add(CodeGrade, row.Row, -1, rp+"/level", fmt.Sprintf("level %q, but the scheme (%s) has no levels of evidence", row.Level, sc.Scheme),
				"remove the level: the scheme folds certainty into the grade")
		case len(sc.Levels) > 0 && !ok:
			add(CodeGrade, row.Row, -1, rp+"/level", fmt.Sprintf("level %q is not in the pack's scheme (%s)", row.Level, sc.Scheme),
				"use one of "+strings.Join(sc.Values(true), ", ")+" (meta/grading.json)")
		}
		if row.Direction != "" && wantDir != "" && row.Direction != wantDir {
			add(CodeDirection, row.Row, -1, rp+"/direction", fmt.Sprintf("direction %s with %s", row.Direction, sc.Term(row.Class)),
				directionFix(sc))
		}
		if len(row.Rules) == 0 {
			add(CodeNoCondition, row.Row, -1, rp+"/rules", "row has no rules", "encode the row as at least one rule with conditions and actions")
		}
		for k := range row.Rules {
			ds = append(ds, validateRule(t, row, k, rp, wantDir, sc)...)
		}
	}
	return ds
}

func validateRule(t *Table, row *Row, k int, rp, wantDir string, sc *Grading) Diagnostics {
	var ds Diagnostics
	rule := row.Rules[k]
	kp := fmt.Sprintf("%s/rules/%d", rp, k)
	add := func(code, ptr, msg, fix string) {
		ds = append(ds, &Diagnostic{Code: code, File: t.File, Row: row.Row, Rule: k, Pointer: ptr, Message: msg, Fix: fix})
	}
	if len(rule.Conditions) == 0 {
		add(CodeNoCondition, kp+"/conditions", "rule has no conditions", "add at least one condition; a row restricted only by the table's population gets the population as its condition")
	}
	exceptionsOnly := len(rule.Conditions) > 0
	for ci, c := range rule.Conditions {
		cp := fmt.Sprintf("%s/conditions/%d", kp, ci)
		if NormalizeOperator(c.LogicStructured.Operator) != OpUnless {
			exceptionsOnly = false
		} else if c.LogicStructured.LogicType == LogicOR {
			// "A, or unless B" has no clinical reading: an exception
			// qualifies the whole rule.
			add(CodeOperator, cp+"/logic_structured/logic_type", "an UNLESS condition in an OR group",
				"put the exception in the rule's AND group; it blocks the whole rule when its concept is known")
		}
		ds = append(ds, validateEntityCommon(t, row, k, cp, c)...)
		l := c.LogicStructured
		if l.Intent != "" {
			add(CodeIntent, cp+"/logic_structured/intent", "a condition has no intent", "intent belongs to actions; remove it from the condition")
		}
		if w := l.Window; w != nil {
			op := NormalizeOperator(l.Operator)
			switch {
			case w.Course && !w.Bounded() && w.Unit == "" && op == OpPresent:
				// A course of the drug, undated: no bounds to check.
			case w.Course && op != OpPresent:
				add(CodeWindow, cp+"/logic_structured/window/course", fmt.Sprintf("a course window on a %s condition", l.Operator),
					"course marks a drug the patient has been on (PRESENT): remove it or make the condition PRESENT")
			case WindowUnits[w.Unit] == 0:
				add(CodeWindow, cp+"/logic_structured/window/unit", fmt.Sprintf("window unit %q", w.Unit), "use days, weeks, months or years")
			case w.Min == nil && w.Max == nil || w.Min != nil && w.Max != nil && *w.Min > *w.Max || w.Min != nil && *w.Min < 0:
				add(CodeWindow, cp+"/logic_structured/window", "a window needs min and/or max (>= 0, min <= max)", `e.g. {"max": 7, "unit": "days"} for "within the last 7 days"`)
			case op != OpPresent && op != OpUnless:
				add(CodeWindow, cp+"/logic_structured/window", fmt.Sprintf("a window on a %s condition", l.Operator),
					"a window dates a stated event: use it with PRESENT (the event happened then) or UNLESS (an exclusion when it happened then)")
			}
		}
		switch {
		case l.Operator == "":
			add(CodeOperator, cp+"/logic_structured/operator", "condition has no operator", "set operator to PRESENT, ABSENT, UNLESS, <, <=, >, >=, = or !=")
		case !contains(Operators, l.Operator):
			add(CodeOperator, cp+"/logic_structured/operator", fmt.Sprintf("unknown operator %q", l.Operator), "use PRESENT, ABSENT, UNLESS, <, <=, >, >=, = or != (≤ ≥ ≠ are accepted)")
		case IsNumeric(l.Operator):
			if l.Threshold == "" {
				add(CodeThreshold, cp+"/logic_structured/threshold", fmt.Sprintf("operator %s needs a threshold", l.Operator), `give the number, e.g. "threshold": "35"`)
			} else if _, err := l.Threshold.Float(); err != nil {
				add(CodeThreshold, cp+"/logic_structured/threshold", fmt.Sprintf("threshold %q is not a number", l.Threshold), `write the threshold as a plain number, e.g. "35" or "0.8"`)
			}
			if strings.TrimSpace(l.Unit) == "" {
				add(CodeUnit, cp+"/logic_structured/unit", fmt.Sprintf("operator %s needs a unit", l.Operator), `give the unit, e.g. "%" or "mL/min/1.73 m2", or "unitless" for scores and ratios`)
			}
		default: // PRESENT / ABSENT / UNLESS
			if l.Threshold != "" || l.Unit != "" {
				add(CodeNoThreshold, cp+"/logic_structured", fmt.Sprintf("%s takes no threshold or unit (found threshold %q, unit %q)", l.Operator, l.Threshold, l.Unit),
					"remove threshold and unit, or use a numeric operator")
			}
		}
		if l.LogicType != "" && l.LogicType != LogicAND && l.LogicType != LogicOR {
			add(CodeLogicType, cp+"/logic_structured/logic_type", fmt.Sprintf("unknown logic_type %q", l.LogicType), "use AND or OR")
		}
	}
	for _, g := range rule.Groups() {
		types := map[string]bool{}
		for _, m := range g.Members {
			lt := rule.Conditions[m].LogicStructured.LogicType
			if lt == "" {
				lt = LogicAND
			}
			types[lt] = true
		}
		first := fmt.Sprintf("%s/conditions/%d/logic_structured/logic_group", kp, g.Members[0])
		if len(types) > 1 {
			add(CodeLogicType, first, fmt.Sprintf("logic group %q mixes AND and OR members", g.Key), "give every member of a group the same logic_type, or split the group")
		}
		if g.Type == LogicOR && len(g.Members) == 1 {
			add(CodeSingleOR, first, fmt.Sprintf("OR group %q has a single member", g.Key), "list every alternative in the OR group, or make the condition AND")
		}
	}
	if exceptionsOnly {
		add(CodeNoCondition, kp+"/conditions", "rule has only UNLESS conditions, so it would hold for every patient",
			"add the population or finding the row is written for; UNLESS only names what blocks it")
	}
	acts := row.RuleActions(k)
	actBase := kp + "/actions"
	if len(rule.Actions) == 0 {
		actBase = rp + "/actions"
	}
	if len(acts) == 0 {
		add(CodeNoAction, kp, "rule has no actions", "add actions to the rule, or a row-level actions list")
	}
	for ai, a := range acts {
		ap := fmt.Sprintf("%s/%d", actBase, ai)
		ds = append(ds, validateEntityCommon(t, row, k, ap, a)...)
		l := a.LogicStructured
		if l.Strength != row.Class || l.Level != row.Level {
			add(CodeActionClass, ap+"/logic_structured", fmt.Sprintf("action says class %s level %s, row says %s %s", l.Strength, l.Level, row.Class, row.Level),
				"set the action's strength and level to the row's class and level")
		}
		if wantDir != "" && l.Direction != wantDir {
			add(CodeDirection, ap+"/logic_structured/direction", fmt.Sprintf("action direction %q with %s", l.Direction, sc.Term(row.Class)), directionFix(sc))
		}
		switch {
		case l.Intent == "":
			add(CodeIntent, ap+"/logic_structured/intent", "action has no intent",
				"say what to do with the concept: intent one of "+strings.Join(Intents, ", "))
		case !contains(Intents, l.Intent):
			add(CodeIntent, ap+"/logic_structured/intent", fmt.Sprintf("unknown intent %q", l.Intent), "use one of: "+strings.Join(Intents, ", "))
		case wantDir == DirectionNegative && l.Intent != IntentAvoid:
			// A class III row advises against doing something; "stop X"
			// as a class III would read as "do not stop X", which no row
			// of a guideline says without naming what to do instead.
			add(CodeIntent, ap+"/logic_structured/intent", fmt.Sprintf("%s action with intent %q", sc.Term(row.Class), l.Intent),
				`an action advised against is "avoid" (do not start / perform / combine); a recommendation to stop a therapy is a POSITIVE row with intent "stop"`)
		case wantDir == DirectionInsufficient && l.Intent != IntentDiscuss:
			// A statement that takes no side must not read as "start X"
			// or "perform X": what a reader can do is discuss the
			// uncertainty with the patient.
			add(CodeIntent, ap+"/logic_structured/intent", fmt.Sprintf("%s action with intent %q", sc.Term(row.Class), l.Intent),
				`a statement that takes no side (direction INSUFFICIENT) has intent "discuss": the balance of benefits and harms is uncertain`)
		}
	}
	return ds
}

func validateEntityCommon(t *Table, row *Row, k int, ptr string, e Entity) Diagnostics {
	var ds Diagnostics
	add := func(code, p, msg, fix string) {
		ds = append(ds, &Diagnostic{Code: code, File: t.File, Row: row.Row, Rule: k, Pointer: p, Message: msg, Fix: fix})
	}
	if strings.TrimSpace(e.EntityOriginal) == "" {
		add(CodeMissingField, ptr+"/entity_original", "entity_original is empty", "write the entity's wording as the row says it")
	}
	if !contains(Roles, e.Role) {
		add(CodeRole, ptr+"/role", fmt.Sprintf("unknown role %q", e.Role), "use one of: "+strings.Join(Roles, ", "))
	}
	if e.Workflow != "" && !contains(WorkflowKinds, e.Workflow) {
		add(CodeWorkflowKind, ptr+"/workflow", fmt.Sprintf("unknown workflow kind %q", e.Workflow), "use one of: "+strings.Join(WorkflowKinds, ", "))
	}
	for si, s := range e.EntityStandardizedList {
		if s.SnomedID != "" && (len(s.SnomedID) < 6 || len(s.SnomedID) > 18) {
			add(CodeSchema, fmt.Sprintf("%s/entity_standardized_list/%d/snomed_id", ptr, si), fmt.Sprintf("SNOMED CT id %q has %d digits", s.SnomedID, len(s.SnomedID)),
				"SNOMED CT ids have 6 to 18 digits; leave the code out when unsure")
		}
	}
	return ds
}

// conceptChecks: one wording (with role) must map to one concept, and one
// SNOMED CT code must carry one concept name. The reference system lost a
// sixth of its F1 to the same finding coded two ways.
func conceptChecks(p *Pack) Diagnostics {
	type occ struct {
		file     string
		row, k   int
		ptr, key string
	}
	byWording := map[string][]occ{}
	byName := map[string][]occ{}
	byCode := map[string]map[string]occ{}
	for _, t := range p.Tables {
		for ri := range t.Rows {
			row := &t.Rows[ri]
			for k, ru := range row.Rules {
				for ci, c := range ru.Conditions {
					ptr := fmt.Sprintf("/rows/%d/rules/%d/conditions/%d", ri, k, ci)
					w := NormalizeName(c.EntityOriginal) + "|" + c.Role
					o := occ{t.File, row.Row, k, ptr, ConceptKey(c)}
					byWording[w] = append(byWording[w], o)
					byName[NormalizeName(c.Concept())] = append(byName[NormalizeName(c.Concept())], o)
					if id := c.SnomedID(); id != "" {
						if byCode[id] == nil {
							byCode[id] = map[string]occ{}
						}
						name := NormalizeName(c.Concept())
						if _, ok := byCode[id][name]; !ok {
							byCode[id][name] = o
						}
					}
				}
			}
		}
	}
	var ds Diagnostics
	wordings := make([]string, 0, len(byWording))
	for w := range byWording {
		wordings = append(wordings, w)
	}
	sort.Strings(wordings)
	for _, w := range wordings {
		occs := byWording[w]
		first := occs[0]
		for _, o := range occs[1:] {
			if o.key != first.key {
				ds = append(ds, &Diagnostic{Code: CodeConceptSplit, File: o.file, Row: o.row, Rule: o.k, Pointer: o.ptr + "/entity_standardized_list",
					Message: fmt.Sprintf("wording %q is coded as %s here but as %s in %s row %d", strings.Split(w, "|")[0], o.key, first.key, first.file, first.row),
					Fix:     "use one concept per finding across all tables (same standardized name and code), or reword the entity if it is a different finding"})
			}
		}
	}
	// A concept name coded in one place and uncoded in another becomes two
	// concepts (sct: and name: keys): a finding grounds to one of them only.
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		occs := byName[n]
		first := occs[0]
		for _, o := range occs[1:] {
			if o.key != first.key {
				ds = append(ds, &Diagnostic{Code: CodeConceptSplit, File: o.file, Row: o.row, Rule: o.k, Pointer: o.ptr + "/entity_standardized_list",
					Message: fmt.Sprintf("concept %q is keyed %s here but %s in %s row %d", n, o.key, first.key, first.file, first.row),
					Fix:     "give the concept the same snomed_id (or none) wherever it is named"})
				break
			}
		}
	}
	codes := make([]string, 0, len(byCode))
	for c := range byCode {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for _, c := range codes {
		if len(byCode[c]) < 2 {
			continue
		}
		names := make([]string, 0, len(byCode[c]))
		for n := range byCode[c] {
			names = append(names, n)
		}
		sort.Strings(names)
		o := byCode[c][names[1]]
		ds = append(ds, &Diagnostic{Code: CodeCodeShared, File: o.file, Row: o.row, Rule: o.k, Pointer: o.ptr + "/entity_standardized_list/0",
			Message: fmt.Sprintf("SNOMED CT %s carries several concept names: %s", c, strings.Join(names, "; ")),
			Fix:     "one code, one concept: use the same standardized name wherever this code is used"})
	}
	return ds
}

// directionFix says which grades give which direction.
func directionFix(sc *Grading) string {
	by := map[string][]string{}
	for _, g := range sc.Grades {
		by[g.Direction] = append(by[g.Direction], g.Value)
	}
	var parts []string
	for _, d := range Directions {
		if len(by[d]) > 0 {
			parts = append(parts, strings.Join(by[d], ", ")+" → "+d)
		}
	}
	return "the grade gives the direction (" + sc.Scheme + "): " + strings.Join(parts, "; ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
