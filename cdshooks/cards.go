package cdshooks

import (
	"crypto/rand"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/executablekg/execkg/engine"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/rules"
)

// MaxSummary is the longest card summary in characters: the specification
// asks for fewer than 140.
const MaxSummary = 139

// Indicator values, in increasing urgency.
const (
	Info     = "info"
	Warning  = "warning"
	Critical = "critical"
)

// overrideReasonSystem is the code system of the override reasons every
// card offers; the specification prescribes none.
const overrideReasonSystem = "https://executablekg.org/cds-hooks/override-reason"

// overrideReasons are offered on every card: the reasons a clinician may
// give for not following a guideline row. Each carries a display, as the
// specification requires.
var overrideReasons = []Coding{
	{System: overrideReasonSystem, Code: "not-applicable", Display: "Does not apply to this patient"},
	{System: overrideReasonSystem, Code: "data-wrong", Display: "Patient data wrong or out of date"},
	{System: overrideReasonSystem, Code: "already-addressed", Display: "Already addressed"},
	{System: overrideReasonSystem, Code: "patient-declined", Display: "Patient declined"},
	{System: overrideReasonSystem, Code: "clinical-judgement", Display: "Clinical judgement in this case"},
}

// evidenceSource is where one finding or fact came from: the words of the
// case text or the FHIR resource.
type evidenceSource struct {
	Resource string
	Spans    []Span
}

// caseData is what the cards cite beyond the result: per finding (or
// patient-model fact) id, its spans or resource.
type caseData struct {
	sources map[string]evidenceSource
	// patientID is the FHIR id of the patient, for suggested resources.
	patientID string
	// taking are the normalised concepts of the drugs the patient takes
	// (and each class they belong to): no order is suggested for them.
	taking map[string]bool
}

// newCaseData indexes the result's findings and its patient model's facts
// by id: the evidence of a fired condition carries that id.
func newCaseData(res *engine.Result) *caseData {
	cd := &caseData{sources: map[string]evidenceSource{}, taking: map[string]bool{}}
	for _, f := range res.Findings {
		if f.Start >= 0 && f.End > f.Start {
			cd.sources[f.ID] = evidenceSource{Spans: []Span{{f.Start, f.End}}}
		}
	}
	cd.addModel(res.Patient)
	return cd
}

// orderMatch is a draft order a row concerns: one of its actions names
// it, or (enables) the signed order is evidence the row fired on.
type orderMatch struct {
	order   draftOrder
	action  engine.Action
	enables bool
}

// cardOptions is how one card is built.
type cardOptions struct {
	pack    *packInfo
	missing []string
	matches []orderMatch
	data    *caseData
}

// negative reports whether a row advises against its actions (class III,
// or an avoid intent).
func negative(rec engine.Recommendation) bool {
	if rec.Class == "III" {
		return true
	}
	for _, a := range rec.Actions {
		if a.Intent == "avoid" {
			return true
		}
	}
	return false
}

func hasIntent(rec engine.Recommendation, intent string) bool {
	for _, a := range rec.Actions {
		if a.Intent == intent {
			return true
		}
	}
	return false
}

// indicator: critical for a class III or avoid row that matches a draft
// order, warning for any other class III, avoid or stop row and for a
// row the record puts a caution on, info else.
func indicator(rec engine.Recommendation, matches []orderMatch) string {
	if negative(rec) && len(matches) > 0 {
		return Critical
	}
	if negative(rec) || hasIntent(rec, "stop") || len(rec.Cautions) > 0 {
		return Warning
	}
	return Info
}

// buildCard turns one fired recommendation into a card.
func buildCard(rec engine.Recommendation, o cardOptions) Card {
	c := Card{
		UUID:      newUUID(),
		Summary:   summary(rec),
		Indicator: indicator(rec, o.matches),
		Source:    source(rec, o.pack),
	}
	ext := &RecommendationExt{RowID: rec.RowID, RuleID: rec.RuleID, Class: rec.Class, Level: rec.Level,
		Direction: rec.Direction, Intent: intents(rec), Missing: o.missing}
	for _, a := range rec.Actions {
		ext.Actions = append(ext.Actions, ActionExt{Concept: a.Concept, Intent: a.Intent, Role: a.Role})
	}
	for _, fc := range rec.FiredBy {
		ext.FiredBy = append(ext.FiredBy, firedBy(fc, o.data)...)
	}
	for _, m := range o.matches {
		ext.Orders = append(ext.Orders, m.order.Ref())
	}
	c.Extension = &Extension{Recommendation: ext}
	c.Detail = detail(rec, ext, o.matches)
	c.Suggestions = suggestions(rec, o)
	if len(c.Suggestions) > 0 {
		c.SelectionBehavior = "any"
	}
	c.OverrideReasons = overrideReasons
	return c
}

func intents(rec engine.Recommendation) string {
	var out []string
	for _, a := range rec.Actions {
		if a.Intent != "" && !containsStr(out, a.Intent) {
			out = append(out, a.Intent)
		}
	}
	return strings.Join(out, "/")
}

// summary is the row's text with its class and level, the text cut at a
// word to fit MaxSummary.
func summary(rec engine.Recommendation) string {
	head := strings.TrimSuffix(strings.TrimSpace(rec.Text), ".")
	tail := " (class " + rec.Class
	if rec.Level != "" {
		tail += ", level " + rec.Level
	}
	tail += ")"
	if rec.Grade != "" {
		// A pack with its own grading scheme says it in its own terms
		// ("Grade D — recommend against").
		tail = " (" + rec.Grade + ")"
	}
	return capitalize(truncate(head, MaxSummary-utf8.RuneCountInString(tail))) + tail
}

// truncate cuts s to at most n characters at a word boundary, marking the
// cut with an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := len(r)
	for i := len(r) - 1; i > n/2; i-- {
		if unicode.IsSpace(r[i]) {
			cut = i
			break
		}
	}
	return strings.TrimRightFunc(string(r[:cut]), func(c rune) bool { return unicode.IsSpace(c) || c == ',' || c == ';' }) + "…"
}

func capitalize(s string) string {
	r, w := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[w:]
}

// source cites the row: "2024 ESC CCS Guidelines, Recommendation Table 17
// row 3", the DOI, and the table's topic.
func source(rec engine.Recommendation, p *packInfo) Source {
	s := Source{Label: fmt.Sprintf("%s, %s row %d", p.label, rec.Source.Table, rec.Source.Row)}
	if rec.Source.DOI != "" {
		s.URL = "https://doi.org/" + rec.Source.DOI
	}
	if rec.TableTopic != "" {
		table := strings.TrimSpace(strings.TrimPrefix(rec.Source.Table, "Recommendation Table"))
		s.Topic = &Coding{System: p.topicSystem, Code: table, Display: rec.TableTopic}
	}
	return s
}

// firedBy lists one firing condition with each piece of its evidence.
func firedBy(fc engine.FiredCond, data *caseData) []FiredBy {
	cond := conditionText(fc)
	if len(fc.Evidence) == 0 {
		return []FiredBy{{Condition: cond, Evidence: fc.Reason}}
	}
	var out []FiredBy
	for _, e := range fc.Evidence {
		f := FiredBy{Condition: cond, Evidence: e.Text, Value: e.Value, Unit: e.Unit, Date: whenText(e.When), Via: e.Via}
		if src, ok := data.sources[e.ID]; ok {
			f.Resource, f.Spans = src.Resource, src.Spans
		}
		out = append(out, f)
	}
	return out
}

// conditionText is the condition as a reader sees it: "LVEF <= 35 %",
// "diabetes mellitus present".
func conditionText(fc engine.FiredCond) string {
	switch fc.Operator {
	case "PRESENT":
		return fc.Concept + " present"
	case "ABSENT":
		return fc.Concept + " absent"
	case "UNLESS":
		return "no " + fc.Concept + " (exception)"
	}
	s := fc.Concept + " " + fc.Operator + " " + fc.Threshold
	if fc.Unit != "" {
		s += " " + fc.Unit
	}
	return s
}

// whenText is an event's date: a day, a range of days, or the words.
func whenText(w *eval.When) string {
	if w == nil {
		return ""
	}
	if w.From.IsZero() && w.To.IsZero() {
		return w.Text
	}
	from, to := w.From.Format(time.DateOnly), w.To.Format(time.DateOnly)
	if w.To.IsZero() || from == to {
		return from
	}
	if w.From.IsZero() {
		return "before " + to
	}
	return from + " to " + to
}

// detail is the card's Markdown: the row, the conditions that held with
// their data, the draft orders it concerns, and what data is missing.
func detail(rec engine.Recommendation, ext *RecommendationExt, matches []orderMatch) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\n", md(rec.Text))
	if rec.Grade != "" {
		b.WriteString(md(rec.Grade))
	} else {
		fmt.Fprintf(&b, "Class %s, level of evidence %s", md(rec.Class), md(rec.Level))
	}
	if rec.TableTopic != "" {
		fmt.Fprintf(&b, " · %s", md(rec.TableTopic))
	}
	b.WriteString("\n\n**Fired by**\n\n")
	for _, f := range ext.FiredBy {
		fmt.Fprintf(&b, "- %s: ", md(f.Condition))
		var bits []string
		if f.Evidence != "" {
			bits = append(bits, "“"+md(f.Evidence)+"”")
		}
		if f.Value != nil {
			bits = append(bits, md(strings.TrimSpace(strconv.FormatFloat(*f.Value, 'f', -1, 64)+" "+f.Unit)))
		}
		if f.Date != "" {
			bits = append(bits, md(f.Date))
		}
		if f.Resource != "" {
			bits = append(bits, "`"+strings.ReplaceAll(f.Resource, "`", "")+"`")
		}
		if f.Via != "" {
			bits = append(bits, "("+md(f.Via)+")")
		}
		b.WriteString(strings.Join(bits, ", "))
		b.WriteString("\n")
	}
	if len(matches) > 0 {
		b.WriteString("\n**Draft orders concerned**\n\n")
		for _, m := range matches {
			if m.enables {
				fmt.Fprintf(&b, "- `%s` %s: once signed, the row applies (%s %s)\n", m.order.Ref(), md(m.order.Display), md(m.action.Intent), md(m.action.Concept))
			} else {
				fmt.Fprintf(&b, "- `%s` %s: the row says %s %s\n", m.order.Ref(), md(m.order.Display), md(m.action.Intent), md(m.action.Concept))
			}
		}
	}
	if len(rec.Cautions) > 0 {
		b.WriteString("\n**Caution: the record**\n\n")
		for _, c := range rec.Cautions {
			fmt.Fprintf(&b, "- %s\n", md(c.Reason))
		}
	}
	if len(ext.Missing) > 0 {
		b.WriteString("\n**Not known, would change the advice**\n\n")
		for _, m := range ext.Missing {
			fmt.Fprintf(&b, "- %s\n", md(m))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// md escapes the characters GitHub Flavored Markdown would read as markup,
// so patient words and row texts show as written.
func md(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '{', '}', '[', ']', '<', '>', '#', '|', '~':
			b.WriteByte('\\')
		case '\n', '\r':
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

// suggestions: a start action becomes a draft order to create; a draft
// order the row says to stop or avoid becomes a delete of that order.
func suggestions(rec engine.Recommendation, o cardOptions) []Suggestion {
	var out []Suggestion
	for _, m := range o.matches {
		if m.action.Intent == "stop" || m.action.Intent == "avoid" || rec.Class == "III" {
			out = append(out, Suggestion{Label: truncate("Remove the draft order: "+m.order.Label(), 80), UUID: newUUID(),
				Actions: []Action{{Type: "delete", Description: fmt.Sprintf("Remove draft %s (%s %s, %s)", m.order.Ref(), m.action.Intent, m.action.Concept, o.pack.rowLabel(rec)),
					ResourceID: m.order.Ref()}}})
		}
	}
	if negative(rec) {
		return out
	}
	for _, a := range rec.Actions {
		if a.Intent != "start" || o.data.taking[rules.NormalizeName(a.Concept)] {
			continue
		}
		res := newOrder(a, o.pack.codes, o.data.patientID)
		if res == nil {
			continue
		}
		out = append(out, Suggestion{Label: truncate("Order "+a.Concept, 80), UUID: newUUID(),
			Actions: []Action{{Type: "create", Description: fmt.Sprintf("Create a draft order for %s (%s)", a.Concept, o.pack.rowLabel(rec)), Resource: res}}})
	}
	return out
}

// newOrder is the draft resource a start action suggests: a
// MedicationRequest for a medication, a ServiceRequest for a procedure,
// coded from the value sets. A concept the value sets do not code (a drug
// class, "lipid-lowering therapy") is no orderable item: nil.
func newOrder(a engine.Action, codes Codes, patientID string) map[string]any {
	if codes == nil {
		return nil
	}
	cs := codes.Codings(a.Concept)
	if len(cs) == 0 {
		return nil
	}
	cc := map[string]any{"text": a.Concept, "coding": cs}
	r := map[string]any{"status": "draft", "intent": "proposal"}
	if patientID != "" {
		r["subject"] = map[string]any{"reference": "Patient/" + patientID}
	}
	switch a.Role {
	case "Medication":
		r["resourceType"] = "MedicationRequest"
		r["medicationCodeableConcept"] = cc
	case "Procedure":
		r["resourceType"] = "ServiceRequest"
		r["code"] = cc
	default:
		return nil
	}
	return r
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// sortCards orders cards by urgency, then by row.
func sortCards(cards []Card) {
	rank := map[string]int{Critical: 0, Warning: 1, Info: 2}
	sort.SliceStable(cards, func(i, j int) bool {
		return rank[cards[i].Indicator] < rank[cards[j].Indicator]
	})
}
