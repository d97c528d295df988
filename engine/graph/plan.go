package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/executablekg/execkg/rules"
)

// A plan is the complete graph of one pack, computed before anything is
// written. Both stores write plans, which is what makes their results equal.
type plan struct {
	packID, packVersion string
	rules               int
	// nodes in write order: sources, concepts, recommendations, decisions.
	nodes []pnode
	edges []pedge
}

// pnode is one node. id is its identity within (label, pack): see identity.
type pnode struct {
	label string
	id    string
	props map[string]any
}

// pedge is one relationship between two nodes of the plan.
type pedge struct {
	typ      string
	from, to nref
	props    map[string]any
}

// nref names a node within a pack: label and identity.
type nref struct{ label, id string }

func (r nref) String() string { return r.label + "|" + r.id }

// identity is the value that makes a node unique within its label and pack;
// the Neo4j uniqueness constraints are on these properties (plus pack_id and
// pack_version).
func identity(label string, props map[string]any) string {
	s := func(k string) string { v, _ := props[k].(string); return v }
	switch label {
	case LabelDecisionNode:
		return s("decision_id")
	case LabelRecommendationNode:
		return s("rule_unique_id")
	case LabelGuidelineSource:
		return s("source_id")
	case LabelUnresolvedConcept:
		return s("target_label") + "|" + s("concept_key")
	}
	return s("snomed_id")
}

// roleLabel maps an entity role to the label of its concept.
func roleLabel(role string) (string, bool) {
	switch role {
	case rules.RoleClinicalCondition:
		return LabelClinicalCondition, true
	case rules.RoleClinicalParameter:
		return LabelClinicalParameter, true
	case rules.RoleMedication:
		return LabelMedication, true
	case rules.RoleProcedure:
		return LabelProcedure, true
	case rules.RoleQualifierValue:
		return LabelQualifierValue, true
	}
	return "", false
}

// ruleDirection: the row's direction, else the first action's, else by
// class (III advises against).
func ruleDirection(r rules.RuleRef) string {
	if d := strings.ToUpper(strings.TrimSpace(r.Row.Direction)); d != "" {
		return d
	}
	for _, a := range r.Actions {
		if d := a.LogicStructured.Direction; d != "" {
			return d
		}
	}
	if r.Row.Class == "III" {
		return rules.DirectionNegative
	}
	return rules.DirectionPositive
}

// actionDirection: the action's own direction, else the rule's.
func actionDirection(a rules.Entity, r rules.RuleRef) string {
	if d := a.LogicStructured.Direction; d != "" {
		return d
	}
	return ruleDirection(r)
}

// actionRelation maps an action's target label and direction to its
// relationship type.
func actionRelation(target, direction string) (string, error) {
	switch direction {
	case rules.DirectionNegative:
		return RelContraindicates, nil
	case rules.DirectionInsufficient:
		return RelInsufficientEvidence, nil
	case rules.DirectionPositive:
	default:
		return "", fmt.Errorf("direction %q is not POSITIVE, NEGATIVE or INSUFFICIENT", direction)
	}
	switch target {
	case LabelMedication:
		return RelRecommendsUsage, nil
	case LabelProcedure:
		return RelRecommendsProcedure, nil
	}
	return "", fmt.Errorf("a POSITIVE action must be a Medication or a Procedure (role gives label %s): no relationship type exists for it", target)
}

// MappingError lists every reason a pack cannot be mapped to the graph.
type MappingError struct {
	PackID   string
	Problems []string
}

func (e *MappingError) Error() string {
	return fmt.Sprintf("graph: pack %q cannot be mapped to the graph schema, nothing was written (%d problem(s); `execkg validate` explains rule-table errors):\n  %s",
		e.PackID, len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// DefaultGrounding is the grounding text used when BuildOptions.Grounding is
// nil: the wording and the standardized name, one per line.
func DefaultGrounding(c rules.Condition) (string, []string) {
	return c.Entity.EntityOriginal + "\n" + c.Entity.Concept(), nil
}

// groundingText composes a DecisionNode's grounding text from the callback's
// base text, its aliases and (only with includeContext) the guideline
// context: unique lines (compared case- and space-insensitively), in that
// order. The base text's phrases may be separated by newlines or by "; " (as
// in grounding.Record.Text), so a callback returning a record's text and
// aliases does not list the synonyms twice. Aliases are unique, non-empty
// and kept as given.
func groundingText(c rules.Condition, opt BuildOptions) (string, []string) {
	g := opt.Grounding
	if g == nil {
		g = DefaultGrounding
	}
	base, aliases := g(c)
	var lines, outAliases []string
	seen, seenAlias := map[string]bool{}, map[string]bool{}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if k := rules.NormalizeName(s); k != "" && !seen[k] {
			seen[k] = true
			lines = append(lines, s)
		}
	}
	for _, l := range strings.Split(base, "\n") {
		for _, phrase := range strings.Split(l, "; ") {
			add(phrase)
		}
	}
	for _, a := range aliases {
		a = strings.TrimSpace(a)
		if k := rules.NormalizeName(a); k != "" && !seenAlias[k] {
			seenAlias[k] = true
			outAliases = append(outAliases, a)
		}
		add(a)
	}
	if opt.IncludeContext {
		add(c.Entity.Context)
	}
	return strings.Join(lines, "\n"), outAliases
}

// textHash is the stored grounding_hash: a rebuild re-embeds a node only
// when it changes.
func textHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

// sourceID names the GuidelineSource of a table.
func sourceID(packID, file string) string { return packID + "::" + file }

// Check reports whether the pack can be mapped onto the graph schema,
// without writing anywhere (a *MappingError lists every problem).
func Check(p *rules.Pack) error {
	_, err := buildPlan(p, BuildOptions{})
	return err
}

// buildPlan maps the pack onto the graph schema, collecting every problem
// before returning, so one run names all of them.
func buildPlan(p *rules.Pack, opt BuildOptions) (*plan, error) {
	if p == nil || len(p.Tables) == 0 {
		return nil, &MappingError{Problems: []string{"the pack holds no tables (load it with packs.Default or rules.LoadFS)"}}
	}
	g := p.Guideline
	pl := &plan{packID: g.ID, packVersion: g.Version}
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	if strings.TrimSpace(g.ID) == "" {
		bad("guideline id is empty: set guideline.id in every table file")
	}
	if strings.TrimSpace(g.Version) == "" {
		bad("guideline version is empty: set guideline.version in every table file (it keys the pack in the graph)")
	}
	base := func() map[string]any { return map[string]any{"pack_id": g.ID, "pack_version": g.Version} }

	files := map[string]bool{}
	for _, t := range p.Tables {
		if t.Guideline.ID != g.ID || t.Guideline.Version != g.Version {
			bad("%s: guideline %s/%s differs from the pack's %s/%s: one pack holds one guideline version", t.File, t.Guideline.ID, t.Guideline.Version, g.ID, g.Version)
		}
		if files[t.File] {
			bad("%s: file name appears twice in the pack", t.File)
		}
		files[t.File] = true
		props := base()
		props["source_id"] = sourceID(g.ID, t.File)
		props["title"] = g.Title
		props["year"] = int64(g.Year)
		props["section"] = t.Source.Table
		props["doi"] = firstNonEmpty(t.Source.DOI, g.DOI)
		props["pages"] = t.Source.Pages
		props["table"] = int64(t.Table)
		props["file"] = t.File
		pl.nodes = append(pl.nodes, pnode{label: LabelGuidelineSource, id: identity(LabelGuidelineSource, props), props: props})
	}

	type conceptAcc struct {
		node     pnode
		wordings map[string]bool
	}
	concepts := map[nref]*conceptAcc{}
	var conceptOrder []nref
	// concept returns the node an entity points at, creating it on first use.
	concept := func(e rules.Entity, where string) (nref, string, bool) {
		target, ok := roleLabel(e.Role)
		if !ok {
			bad("%s: role %q is not one of %s", where, e.Role, strings.Join(rules.Roles, ", "))
			return nref{}, "", false
		}
		key := rules.ConceptKey(e)
		if key == "name:" {
			bad("%s: entity has neither wording (entity_original) nor a standardized name", where)
			return nref{}, "", false
		}
		props := base()
		props["concept_key"] = key
		props["entity_original"] = e.EntityOriginal
		props["entity_standardized_candidate"] = candidate(e)
		props["role"] = e.Role
		label := target
		if id := e.SnomedID(); id != "" {
			props["snomed_id"] = id
			props["preferred_term"] = e.Concept()
			props["entity"] = e.Concept()
		} else {
			label = LabelUnresolvedConcept
			props["target_label"] = target
			props["name"] = e.Concept()
		}
		ref := nref{label, identity(label, props)}
		acc := concepts[ref]
		if acc == nil {
			acc = &conceptAcc{node: pnode{label: label, id: ref.id, props: props}, wordings: map[string]bool{}}
			concepts[ref] = acc
			conceptOrder = append(conceptOrder, ref)
		}
		if w := strings.TrimSpace(e.EntityOriginal); w != "" {
			acc.wordings[w] = true
		}
		return ref, target, true
	}

	var recs, decisions []pnode
	ruleIDs := map[string]bool{}
	for _, r := range p.Rules() {
		pl.rules++
		where := fmt.Sprintf("%s row %d rule %d", r.Table.File, r.Row.Row, r.K)
		if ruleIDs[r.ID] {
			bad("%s: rule id %s appears twice (duplicate row number in the table?)", where, r.ID)
			continue
		}
		ruleIDs[r.ID] = true
		dir := ruleDirection(r)
		if dir != rules.DirectionPositive && dir != rules.DirectionNegative && dir != rules.DirectionInsufficient {
			bad("%s: direction %q is not POSITIVE, NEGATIVE or INSUFFICIENT", where, dir)
		}
		rp := base()
		rp["rule_unique_id"] = r.ID
		rp["source_row_id"] = r.RowID
		rp["table"] = int64(r.Table.Table)
		rp["row"] = int64(r.Row.Row)
		rp["rule_index"] = int64(r.K)
		rp["section"] = r.Row.Section
		rp["strength"] = r.Row.Class
		rp["level"] = r.Row.Level
		rp["direction"] = dir
		rp["full_text"] = r.Row.Text
		rp["input_summary"] = r.Row.Input
		rp["recommendation_summary"] = r.Row.Recommendation
		rp["recommendation_type"] = recommendationType(r.Actions)
		rp["workflow"] = r.Row.Workflow
		rp["source"] = sourceText(r.Table)
		rec := nref{LabelRecommendationNode, r.ID}
		recs = append(recs, pnode{label: LabelRecommendationNode, id: r.ID, props: rp})
		pl.edges = append(pl.edges, pedge{typ: RelMentionedIn, from: rec, to: nref{LabelGuidelineSource, sourceID(g.ID, r.Table.File)}})

		// Decision nodes and their concept edges.
		conds := r.Conditions()
		byGroup := map[int][]nref{}
		for _, c := range conds {
			cw := fmt.Sprintf("%s condition %d", where, c.Index)
			e := c.Entity
			cref, target, ok := concept(e, cw)
			dp := base()
			dp["decision_id"] = c.DecisionID
			dp["rule_unique_id"] = r.ID
			dp["source_row_id"] = r.RowID
			dp["group_index"] = int64(c.Group.Index)
			dp["step"] = int64(c.Step)
			dp["logic_group"] = c.Group.Key
			dp["logic_type"] = c.Group.Type
			dp["operator"] = e.LogicStructured.Operator
			dp["threshold"] = string(e.LogicStructured.Threshold)
			dp["unit"] = e.LogicStructured.Unit
			dp["window"] = windowJSON(e.LogicStructured.Window)
			dp["context"] = e.Context
			dp["entity_original"] = e.EntityOriginal
			dp["entity_standardized_candidate"] = candidate(e)
			dp["concept_name"] = e.Concept()
			dp["concept_key"] = rules.ConceptKey(e)
			dp["snomed_id"] = e.SnomedID()
			dp["role"] = e.Role
			dp["target_label"] = target
			dp["workflow"] = e.Workflow
			text, aliases := groundingText(c, opt)
			dp["grounding_text"] = text
			if aliases == nil {
				aliases = []string{} // stored as an empty list, never absent
			}
			dp["grounding_aliases"] = aliases
			dp["grounding_hash"] = textHash(text)
			dref := nref{LabelDecisionNode, c.DecisionID}
			decisions = append(decisions, pnode{label: LabelDecisionNode, id: c.DecisionID, props: dp})
			byGroup[c.Group.Index] = append(byGroup[c.Group.Index], dref)
			if ok {
				rel := RelEvaluates
				if target == LabelClinicalCondition {
					rel = RelChecksFor
				}
				pl.edges = append(pl.edges, pedge{typ: rel, from: dref, to: cref})
			}
		}

		// Paths: an AND group is a chain (entry = first, exit = last); the
		// members of an OR group are parallel branches (each is entry and
		// exit). Every exit of a group leads to every entry of the next;
		// the exits of the last group result in the recommendation.
		var prevExit []nref
		for _, gr := range r.Rule.Groups() {
			members := byGroup[gr.Index]
			entry, exit := members[:1], members[len(members)-1:]
			if gr.Type == rules.LogicOR {
				entry, exit = members, members
			} else {
				for i := 1; i < len(members); i++ {
					pl.edges = append(pl.edges, pedge{typ: RelLeadsTo, from: members[i-1], to: members[i]})
				}
			}
			for _, a := range prevExit {
				for _, b := range entry {
					pl.edges = append(pl.edges, pedge{typ: RelLeadsTo, from: a, to: b})
				}
			}
			prevExit = exit
		}
		for _, a := range prevExit {
			pl.edges = append(pl.edges, pedge{typ: RelResultsIn, from: a, to: rec})
		}

		// Actions: one edge per (relation, concept); the first action wins
		// when two actions of a rule name the same concept.
		seen := map[string]bool{}
		for i, a := range r.Actions {
			aw := fmt.Sprintf("%s action %d", where, i)
			cref, target, ok := concept(a, aw)
			if !ok {
				continue
			}
			adir := actionDirection(a, r)
			rel, err := actionRelation(target, adir)
			if err != nil {
				bad("%s: %v", aw, err)
				continue
			}
			if seen[rel+"|"+cref.String()] {
				continue
			}
			seen[rel+"|"+cref.String()] = true
			pl.edges = append(pl.edges, pedge{typ: rel, from: rec, to: cref, props: map[string]any{
				"position":        int64(i),
				"entity_original": a.EntityOriginal,
				"context":         a.Context,
				"role":            a.Role,
				"direction":       adir,
				"intent":          a.LogicStructured.Intent,
			}})
		}
	}
	if len(problems) > 0 {
		return nil, &MappingError{PackID: g.ID, Problems: problems}
	}
	for _, ref := range conceptOrder {
		acc := concepts[ref]
		ws := make([]string, 0, len(acc.wordings))
		for w := range acc.wordings {
			ws = append(ws, w)
		}
		sort.Strings(ws)
		acc.node.props["wordings"] = ws
		pl.nodes = append(pl.nodes, acc.node)
	}
	pl.nodes = append(pl.nodes, recs...)
	pl.nodes = append(pl.nodes, decisions...)
	return pl, nil
}

// windowJSON stores a condition's time window as a JSON string ("" when
// none): one property, the same in both stores.
func windowJSON(w *rules.Window) string {
	if w == nil {
		return ""
	}
	b, _ := json.Marshal(w)
	return string(b)
}

func candidate(e rules.Entity) string {
	if len(e.EntityStandardizedList) > 0 {
		return e.EntityStandardizedList[0].Candidate
	}
	return ""
}

// recommendationType: PRESCRIPTION when the rule recommends a medication,
// PROCEDURE when its actions are procedures only (the reference system calls
// these DIAGNOSIS), "" without actions.
func recommendationType(actions []rules.Entity) string {
	t := ""
	for _, a := range actions {
		switch a.Role {
		case rules.RoleMedication:
			return TypePrescription
		case rules.RoleProcedure:
			t = TypeProcedure
		}
	}
	return t
}

// sourceText is the RecommendationNode's human-readable source.
func sourceText(t *rules.Table) string {
	s := t.Guideline.ID + ", " + firstNonEmpty(t.Source.Table, fmt.Sprintf("Recommendation Table %d", t.Table))
	if t.Source.Pages != "" {
		s += ", p. " + t.Source.Pages
	}
	if doi := firstNonEmpty(t.Source.DOI, t.Guideline.DOI); doi != "" {
		s += ", doi:" + doi
	}
	return s
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
