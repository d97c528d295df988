package engine

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
)

// past reports whether a fact is stated of the past: a history, a
// resolved or inactive condition.
func past(f patient.Fact) bool {
	return f.Present && (f.Status == patient.StatusHistory || f.Status == patient.StatusResolved)
}

// currentOnly drops from the model's evidence the facts stated of the
// past whose concept holds only while current (meta/hierarchy.json
// current_only: a symptom, a rhythm): "resolved angina" or "history of
// atrial fibrillation" says nothing of the patient now, so neither a row
// nor a definition (no is-a, no composite) reads it as present. Each is
// traced. Other concepts stated of the past count (a prior MI).
func (p *Program) currentOnly(m *patient.Model, ev []eval.Evidence, tr *Trace) []eval.Evidence {
	if p.hierarchy == nil || p.hierarchy.CurrentOnly == nil {
		return ev
	}
	off := map[[2]string]bool{}
	caseDate, dated := time.Time{}, false
	if d, err := time.Parse("2006-01-02", m.Date); err == nil {
		caseDate, dated = d, true
	}
	inPast := len(p.hierarchy.CurrentOnly.InPastSections) > 0
	for _, f := range m.Facts {
		if f.Experiencer == patient.Relative {
			continue
		}
		name := p.names[f.ConceptKey]
		if name == "" {
			name = f.Concept
		}
		// A listed state dated over a year back ("progressive angina
		// 2019 -> CABG") was an episode then, as a history of it is; a
		// narrower concept (an angina under symptomatic) keeps its date.
		old := dated && f.Present && f.When != nil && !f.When.To.IsZero() && f.When.To.Before(caseDate.AddDate(-1, 0, 0)) && !sinceWhen(f) && p.listedCurrentOnly(name)
		underPast := false
		if !past(f) && !old {
			if !inPast || !f.Present || f.Section == "" {
				continue
			}
			if k := p.doc.Kind(extract.Finding{Section: f.Section}); k == nil || k.Status != rules.SectionPast {
				continue
			}
			underPast = true
		}
		if underPast && !p.hierarchy.IsCurrentOnlyInPastSection(name) || !underPast && !p.hierarchy.IsCurrentOnly(name) {
			continue
		}
		k := [2]string{f.ID, f.ConceptKey}
		if off[k] {
			continue
		}
		off[k] = true
		if tr != nil {
			var why string
			if !underPast {
				why = name + " is stated " + pastHow(f) + ", and the pack counts it only while it holds (hierarchy.json current_only): no fact of the patient's present state"
			} else {
				why = name + " stands under the past heading '" + f.Section + "', and the pack counts it only in the present episode (hierarchy.json current_only.in_past_sections): no fact of the patient's present state"
			}
			tr.Rejected = append(tr.Rejected, Rejection{FindingID: f.ID, Check: CheckCurrency, BeforeMatching: true, Reason: why})
		}
	}
	if len(off) == 0 {
		return ev
	}
	out := ev[:0:0]
	for _, e := range ev {
		if !off[[2]string{e.ID, e.ConceptKey}] {
			out = append(out, e)
		}
	}
	return out
}

// listedCurrentOnly: the concept itself is listed in current_only (not
// only through a broader one).
func (p *Program) listedCurrentOnly(name string) bool {
	n := rules.NormalizeName(name)
	for _, c := range p.hierarchy.CurrentOnly.Concepts {
		if rules.NormalizeName(c) == n {
			return true
		}
	}
	return false
}

// pastHow says how a fact is of the past: its status, or the date its
// words give it ("worsening angina 2019": over a year before the case).
func pastHow(f patient.Fact) string {
	if past(f) {
		return string(f.Status)
	}
	return "dated '" + f.When.Text + "', over a year before the case date"
}

// sinceWhen: the fact's date is the start of a state that goes on
// ("angina since 2019"), not the time of a past episode.
func sinceWhen(f patient.Fact) bool {
	if f.When.Text == "" {
		return false
	}
	at := strings.Index(strings.ToLower(f.Text), strings.ToLower(f.When.Text))
	return at >= 0 && strings.HasSuffix(strings.TrimSpace(strings.ToLower(f.Text[:at])), "since")
}

// CheckCurrency names the check that sets aside a past fact of a concept
// that holds only while current.
const CheckCurrency = "currency"

// statedPast says whether the model states an item of the past: its
// fact (or, for an is-a item, the fact it comes from) is a history or a
// resolved condition, or stands under a section the pack marks past (meta/sections.json).
func (p *Program) statedPast(m *patient.Model) func(eval.Evidence) bool {
	was := pastOf(m)
	for _, f := range m.Facts {
		if k := p.doc.Kind(extract.Finding{Section: f.Section}); f.Present && k != nil && k.Status == rules.SectionPast {
			was[[2]string{f.ID, f.ConceptKey}] = patient.StatusHistory
		}
	}
	return func(e eval.Evidence) bool {
		if _, ok := was[[2]string{e.ID, e.Key()}]; ok {
			return true
		}
		_, ok := was[[2]string{e.ID, e.From}]
		return ok && e.From != ""
	}
}

// pastOf maps each fact stated of the past, by id and concept key, to
// its status, so an is-a fact drawn from it (eval.Evidence.From) keeps
// the status: a resolved angina is a past symptom, a prior MI a past
// coronary event, in the model as in evaluation.
func pastOf(m *patient.Model) map[[2]string]patient.Status {
	out := map[[2]string]patient.Status{}
	for _, f := range m.Facts {
		if past(f) {
			out[[2]string{f.ID, f.ConceptKey}] = f.Status
		}
	}
	return out
}

// durationBefore: a count over the units of a year, week or month right
// before the cue ("2/12 hx of", "3/52 history of") makes it a present
// state's duration, as "2-month history of" is; the shorthand whenSlash
// reads.
var durationBefore = regexp.MustCompile(`(?:^|[^\d/.])\d{1,2}/(?:12|52|7)\W*$`)

// pastWords reports whether words state a condition of the past (the
// pack's past cues, meta/reading.json), of whatever concept they name:
// the reading of a record's words, where no concept is located.
func (p *Program) pastWords(words string) bool {
	return p.pastFor(words, "", nil, false)
}

// pastFor reports whether words state the past of the concept they name
// by one of names (any of them; none given: the words' concept): a cue
// before it among the words' first lead words ("History of chest pain",
// "Personal history of AF"), or one after it ("AF ablated in 2019").
//
// A cue before the concept dates only what follows it up to the pack's
// past.ends words: "Angina since previous PCI" dates the PCI, not the
// angina named before the cue. A cue is a present state's duration, not
// a past, when the word before it says how long ("2-month", "long";
// past.negated_by, "2/12 hx of") or the words say how long it has
// lasted ("for 3 months", "x 2/52", "for the past 6 weeks", "since
// 2019"): "history of angina on exertion for 3 months" is the presenting
// complaint; so it is when the words or the rest of their sentence
// (rest) say it, or say the state goes on or changes (past.present:
// "history of exertional angina, worse over 3 months", "History of
// angina, ongoing"). A drug (drug) is dated by a cue right before it (one
// word between at most: "previously on bisoprolol", not "History of AF
// on apixaban"), past.drug cues as well and has no
// present duration: "previous clopidogrel for 12 months" was stopped.
func (p *Program) pastFor(words, rest string, names []string, drug bool) bool {
	r := p.reading
	var spans [][2]int // where the words name the concept
	if len(names) > 0 {
		lower := strings.ToLower(words)
		for _, n := range names {
			spans = append(spans, namedAll(lower, words, n)...)
		}
	}
	if drug && len(spans) == 0 {
		return false // a drug the words do not name: the drug readers judge it
	}
	// reaches: the cue m dates the concept named after it, up to an end
	// word (for a drug with one word between at most, for a
	// past.adjacent cue none), or in a name
	// that holds the cue ("previous MI"); unlocated, the words' concept.
	reaches := func(m []int) bool {
		if len(spans) == 0 {
			return true
		}
		for _, sp := range spans {
			if sp[0] <= m[0] && sp[1] >= m[1] {
				return true
			}
			if sp[0] < m[1] {
				continue
			}
			gap := words[m[1]:sp[0]]
			if r.pastAdjacent[strings.ToLower(words[m[0]:m[1]])] && strings.TrimSpace(gap) != "" {
				continue // "remote monitoring shows AF": the cue dates its own noun
			}
			if (r.pastEnds == nil || !r.pastEnds.MatchString(gap)) && (!drug || len(strings.Fields(gap)) <= 1) {
				return true
			}
		}
		return false
	}
	// lasts is read only once a cue is found (most words hold none).
	lastsRead, lastsVal := false, false
	lasts := func() bool {
		if !lastsRead {
			lastsRead = true
			lastsVal = !drug && (lastsFor(words) || lastsFor(rest) ||
				(r.pastPresent != nil && (r.pastPresent.MatchString(words) || r.pastPresent.MatchString(rest))))
		}
		return lastsVal
	}
	cues := r.past
	if drug {
		cues = r.pastDrug
	}
	if cues != nil {
		for _, m := range cues.FindAllStringIndex(words, -1) {
			head := words[:m[0]]
			if r.pastLead > 0 && len(strings.Fields(head)) >= r.pastLead {
				break
			}
			if !drug && (lasts() || (r.pastNegated != nil && r.pastNegated.MatchString(head)) || durationBefore.MatchString(head)) {
				continue
			}
			if reaches(m) {
				return true
			}
		}
	}
	if drug || r.pastAfter == nil {
		return false
	}
	// A cue after the concept ("AF ablated in 2019") dates what it follows.
	for _, m := range r.pastAfter.FindAllStringIndex(words, -1) {
		if len(spans) == 0 {
			return true
		}
		for _, sp := range spans {
			if sp[0] < m[0] {
				return true
			}
		}
	}
	return false
}

// lastsFor: the words say how long a state has lasted, as the when
// stage reads a duration ("for 3 months", "over the past 6 weeks", "x
// 2/52", "since 2019").
func lastsFor(words string) bool {
	// Each pattern runs only when the words hold what it needs (mayHold):
	// a duration word, a year, a slash.
	digits := strings.ContainsAny(words, "0123456789")
	if mayHold(words, whenForWords) && mayHold(words, whenUnitWords) && whenFor.MatchString(words) ||
		digits && hasYear(words) && whenSinceYr.MatchString(words) {
		return true
	}
	if !digits || !strings.Contains(words, "/") {
		return false
	}
	for _, m := range whenSlash.FindAllStringSubmatch(words, -1) {
		if m[1] != "" || m[2] != "" {
			return true
		}
	}
	return false
}

// namedAll is where words name a concept by name, as whole words: the
// byte spans. A short name (an acronym) must match as written.
func namedAll(lower, words, name string) [][2]int {
	hay := lower
	if len(name) <= 3 {
		hay = words
	} else {
		name = strings.ToLower(name)
	}
	var out [][2]int
	for i := 0; name != "" && i <= len(hay)-len(name); {
		k := strings.Index(hay[i:], name)
		if k < 0 {
			break
		}
		j := i + k
		e := j + len(name)
		if (j == 0 || !isWordByte(hay[j-1])) && (e == len(hay) || !isWordByte(hay[e])) {
			out = append(out, [2]int{j, e})
		}
		i = j + 1
	}
	return out
}

// lineLabel is the label a value at start follows right after its colon
// ("Previous echo 03/2024: "), with the colon, when the label opens its
// line or sentence and runs to six words at most; else "".
func lineLabel(text string, start int) string {
	k := start
	for k > 0 && text[k-1] == ' ' {
		k--
	}
	if k == 0 || text[k-1] != ':' {
		return ""
	}
	b := k - 1
	for b > 0 && text[b-1] != '\n' && !(b >= 2 && text[b-1] == ' ' && text[b-2] == '.') {
		b--
	}
	label := text[b:k]
	if n := len(strings.Fields(label)); n == 0 || n > 6 || strings.ContainsAny(label[:len(label)-1], ".;:") {
		return ""
	}
	return label + " "
}

// supersede keeps, per measured concept, the latest of its values, as
// the FHIR reader keeps the latest result; the text orders them thus:
//   - a value dated by its words (When) is of that date;
//   - a value the words state now ("now BMI 29"; the pack's now cues) is
//     of the document's date, later than any other without a now cue:
//     "BMI 41, now BMI 29" is a BMI of 29;
//   - an undated value is the report's own, of the document's date, so
//     it is later than a value dated more than now.undated_supersedes_days
//     before it ("LVEF 30% in 2019. Echo: LVEF 55%" is an LVEF of 55%)
//     and than an undated value its words state of the past ("previous
//     LVEF 55%") or as an earlier one (now.earlier: "baseline LVEF
//     30%"); against a value dated nearer, or another undated one, the
//     text does not say which came first, and both are kept, unless
//   - a trend arrow stands between them on one line: of two values dated
//     alike, the one after the arrow is the later ("RF-CL 32%, adjusted
//     up for PAD -> clinical likelihood ~55%" is a likelihood of 55%).
//
// A value later than another drops it, traced with the one used.
func (p *Program) supersede(m *patient.Model, date time.Time) []edit {
	words := func(f patient.Fact) string {
		if len(f.Spans) == 0 || m.Text == "" {
			return ""
		}
		sp := f.Spans[0]
		// A value right after a label of its line dates by the label
		// too: "Previous echo 03/2024: LVEF 50%" is a past LVEF.
		return lineLabel(m.Text, sp.Start) + m.Text[sp.Start:sp.End]
	}
	const (
		past   = iota // undated, stated of the past
		own           // undated: the report's own
		dated         // dated by its words
		nowCue        // stated now
	)
	type value = measuredValue
	docEnd := time.Date(date.Year(), date.Month(), date.Day(), 23, 59, 59, 0, time.UTC)
	stale := time.Time{}
	if p.reading.undatedDays > 0 {
		stale = date.AddDate(0, 0, -p.reading.undatedDays)
	}
	byKey := map[string][]value{}
	for i, f := range m.Facts {
		if f.Kind != patient.KindMeasurement || f.Value == nil || f.Via != "" || f.ConceptKey == "" {
			continue
		}
		v := value{i: i, kind: own, at: -1}
		if len(f.Spans) > 0 && f.Spans[0].End <= len(m.Text) {
			v.at, v.end = f.Spans[0].Start, f.Spans[0].End
		}
		w := words(f)
		switch {
		case p.reading.now != nil && p.reading.now.MatchString(w):
			v.kind, v.t = nowCue, docEnd
		case f.When != nil:
			v.kind, v.t = dated, f.When.To
		case p.reading.later != nil && p.reading.later.MatchString(f.Text):
			v.kind, v.t = nowCue, docEnd // "LVEF 30%, improved to 50%": the latest stated
		case p.pastWords(w) || p.earlierWords(w, p.namesOf(f.Evidence)):
			v.kind = past // "previous LVEF 55%", "baseline LVEF 30%"
		}
		byKey[f.ConceptKey] = append(byKey[f.ConceptKey], v)
	}
	// later: b is a value later than a.
	later := func(b, a value) bool {
		switch {
		case a.kind == past:
			// A value dated within the validity of an undated one
			// ("Labs 05/11: LDL-C 1.3" of a November letter) is later
			// than one stated as earlier ("LDL before statin 3.4"), as
			// the report's own undated value is.
			return b.kind == own || b.kind == nowCue || b.kind == dated && !stale.IsZero() && !b.t.Before(stale)
		case a.kind == own:
			return b.kind == nowCue
		case b.kind == own:
			return a.kind == dated && !stale.IsZero() && a.t.Before(stale)
		case b.kind == past:
			return false
		}
		return a.t.Before(b.t) // dated or now against dated or now
	}
	// after: b follows a trend arrow that follows a on its line ("RF-CL
	// 32%, adjusted for PAD -> clinical likelihood ~55%"): b is the later.
	after := func(b, a value) bool {
		return m.Text != "" && m.Facts[a.i].ID != m.Facts[b.i].ID && arrowAfter(m.Text, a, b)
	}
	drop := map[int]int{} // superseded fact → the value used
	used := map[int]value{}
	for _, vs := range byKey {
		for _, v := range vs {
			used[v.i] = v
		}
	}
	for _, vs := range byKey {
		for _, a := range vs {
			for _, b := range vs {
				// Values of one finding stand together (a range's two
				// bounds), unless each is dated by its own date: the
				// columns of a results table (columnDates).
				if !(later(b, a) || a.kind == b.kind && after(b, a)) || m.Facts[a.i].ID == m.Facts[b.i].ID && !(a.kind == dated && b.kind == dated) {
					continue
				}
				if j, ok := drop[a.i]; !ok || later(b, used[j]) || after(b, used[j]) {
					drop[a.i] = b.i
				}
			}
		}
	}
	if len(drop) == 0 {
		return nil
	}
	why := map[int]string{}
	for _, vs := range byKey {
		for _, v := range vs {
			switch v.kind {
			case nowCue:
				why[v.i] = "stated now, of the document's date"
			case own:
				why[v.i] = "the report's own undated value, of the document's date"
			}
		}
	}
	return dropFor(m, drop, func(f patient.Fact, j int) string {
		k := m.Facts[j]
		when := why[j]
		if k.When != nil && when == "" {
			when = k.When.Text
		}
		return fmt.Sprintf("an earlier value of %s; the latest, '%s' (%s), is used", f.Concept, k.Text, when)
	})
}

// dropFor drops from m each fact drop maps to the fact that replaces it,
// traced with the reason why gives, and returns the edits.
func dropFor(m *patient.Model, drop map[int]int, why func(f patient.Fact, used int) string) []edit {
	var edits []edit
	kept := m.Facts[:0:0]
	for i, f := range m.Facts {
		j, ok := drop[i]
		if !ok {
			kept = append(kept, f)
			continue
		}
		edits = append(edits, edit{was: f.Evidence})
		m.Dropped = append(m.Dropped, patient.Dropped{Text: f.Text, Reader: f.Reader, Reason: why(f, j)})
	}
	m.Facts = kept
	return edits
}

// measuredValue is one stated value of a measure, for supersede: the
// fact's index, how the text dates it, its date, and where its words lie
// in the text (at < 0: nowhere known).
type measuredValue struct {
	i       int
	kind    int
	t       time.Time
	at, end int
}

// arrowAfter reports whether value b follows value a on the same line of
// text with a trend arrow between them: the arrow marks a change over
// time, so b is the later state of the measure.
func arrowAfter(text string, a, b measuredValue) bool {
	if a.at < 0 || b.at < 0 || a.end > b.at {
		return false
	}
	between := text[a.end:b.at]
	return !strings.Contains(between, "\n") && hasArrow(between)
}

// stale drops a dated value older than its measure's validity (the
// pack's now.valid_for: a heart rate of 2019 is no rate at a scan in
// 2026), traced: the measure is then unknown, not that old value. An
// undated value stays: nothing says it is old.
func (p *Program) stale(m *patient.Model, date time.Time) []edit {
	if len(p.reading.validFor) == 0 {
		return nil
	}
	var edits []edit
	kept := m.Facts[:0:0]
	for _, f := range m.Facts {
		days, ok := p.reading.validFor[rules.NormalizeName(p.nameOf(f))]
		if !ok || f.Kind != patient.KindMeasurement || f.Value == nil || f.Via != "" || f.When == nil ||
			!f.When.To.Before(date.AddDate(0, 0, -days)) {
			kept = append(kept, f)
			continue
		}
		m.Dropped = append(m.Dropped, patient.Dropped{Text: f.Text, Resource: f.Resource, Reader: f.Reader,
			Reason: fmt.Sprintf("a value of %s dated %s, older than the %d days the pack counts it as the patient's present value (meta/reading.json now.valid_for); the value is not used", p.nameOf(f), f.When.Text, days)})
		edits = append(edits, edit{was: f.Evidence})
	}
	m.Facts = kept
	return edits
}

// edit is one stated value a model check changed: dropped (now nil) or
// read anew.
type edit struct {
	was eval.Evidence
	now *eval.Evidence
}

// applyEdits brings a result's evidence list in line with the model's
// checked values, so what the result lists is what was evaluated.
func applyEdits(ev []eval.Evidence, edits []edit) []eval.Evidence {
	if len(edits) == 0 {
		return ev
	}
	same := func(a, b eval.Evidence) bool {
		return a.ID == b.ID && a.ConceptKey == b.ConceptKey && a.Via == b.Via && a.Comparator == b.Comparator &&
			a.Unit == b.Unit && a.Value != nil && b.Value != nil && *a.Value == *b.Value
	}
	out := ev[:0:0]
	for _, e := range ev {
		keep := true
		for _, x := range edits {
			if same(e, x.was) {
				keep = false
				if x.now != nil {
					out = append(out, *x.now)
				}
				break
			}
		}
		if keep {
			out = append(out, e)
		}
	}
	return out
}

// plausible checks every stated value against its concept's plausible
// range (meta/reading.json plausible), whichever reader made it: a value
// outside the range is dropped with the reason, so "LVEF 0.55 %" never
// meets "LVEF <= 35 %"; a fraction written in percent, where the pack
// says the concept is given so, reads as its percent (0.55 % → 55 %); a
// value whose finding names another setting (plausible other_setting:
// a peak or exercise heart rate) is no value of the concept and dropped.
func (p *Program) plausible(m *patient.Model) []edit {
	edits := p.referenceValues(m)
	if len(p.reading.plausible) == 0 {
		return edits
	}
	kept := m.Facts[:0:0]
	for _, f := range m.Facts {
		pl, ok := p.reading.plausible[rules.NormalizeName(p.nameOf(f))]
		if !ok || f.Value == nil || f.Via != "" {
			kept = append(kept, f)
			continue
		}
		k := rules.NormalizeName(p.nameOf(f))
		if re := p.reading.otherSetting[k]; re != nil && re.MatchString(f.Text) {
			if same := p.reading.sameSetting[k]; same == nil || !same.MatchString(f.Text) {
				m.Dropped = append(m.Dropped, patient.Dropped{Text: f.Text, Resource: f.Resource, Reader: f.Reader,
					Reason: fmt.Sprintf("%q says the value was taken in another setting than the %s the pack means; the value is not used", re.FindString(f.Text), pl.Concept)})
				edits = append(edits, edit{was: f.Evidence})
				continue
			}
		}
		v, err := units.ConvertWith(*f.Value, f.Unit, pl.Unit, pl.Concept, units.Options{})
		for _, sc := range pl.Scales {
			if err != nil && units.Same(f.Unit, sc.Unit) {
				v, err = *f.Value, nil
				pl.Min, pl.Max, pl.Unit, pl.FractionInPercent = sc.Min, sc.Max, sc.Unit, false
			}
		}
		if err != nil || f.Unit == "" {
			kept = append(kept, f) // a unit the range cannot judge: other checks decide
			continue
		}
		if v >= pl.Min && v <= pl.Max {
			kept = append(kept, f)
			continue
		}
		in := fmt.Sprintf("%g–%g %s", pl.Min, pl.Max, pl.Unit)
		if pl.FractionInPercent && units.Canonical(f.Unit) == units.Percent && v > 0 && v < 1 && v*100 >= pl.Min && v*100 <= pl.Max {
			pct := math.Round(v*100*1e6) / 1e6 // no binary residue: 0.55 → 55
			m.Dropped = append(m.Dropped, patient.Dropped{Text: f.Text, Resource: f.Resource, Reader: f.Reader,
				Reason: fmt.Sprintf("%g %s is no plausible %s (%s): a fraction written with a percent sign, read as %g %s", *f.Value, f.Unit, pl.Concept, in, pct, pl.Unit)})
			was := f.Evidence
			f.Value, f.Unit = &pct, pl.Unit
			now := f.Evidence
			edits = append(edits, edit{was: was, now: &now})
			kept = append(kept, f)
			continue
		}
		m.Dropped = append(m.Dropped, patient.Dropped{Text: f.Text, Resource: f.Resource, Reader: f.Reader,
			Reason: fmt.Sprintf("%g %s is no plausible %s (%s); the value is not used", *f.Value, f.Unit, pl.Concept, in)})
		edits = append(edits, edit{was: f.Evidence})
	}
	m.Facts = kept
	return edits
}

// nameOf is a fact's pack concept name.
func (p *Program) nameOf(f patient.Fact) string {
	if n := p.names[f.ConceptKey]; n != "" {
		return n
	}
	return f.Concept
}

// namesOf is what a finding may call an evidence item's concept: its
// name and the pack's phrases for it; none for a derived item, which the
// finding names by its premise.
func (p *Program) namesOf(e eval.Evidence) []string {
	if e.Via != "" || e.DerivedBy != "" {
		return nil
	}
	return append([]string{e.Concept}, p.phrases[e.ConceptKey]...)
}

// sentenceRest is the text after a finding up to its sentence's end.
func sentenceRest(text string, end int) string {
	if end < 0 || end > len(text) {
		return ""
	}
	rest := text[end:]
	for _, stop := range []string{". ", ";", "\n"} {
		if i := strings.Index(rest, stop); i >= 0 {
			rest = rest[:i]
		}
	}
	return rest
}

// earlierWords reports whether words state a value as an earlier one of
// its measure (meta/reading.json now.earlier: "baseline LVEF 30%"), by a
// cue that is no word of the measure's own names ("reduction from
// baseline" names a measure, not a time).
func (p *Program) earlierWords(words string, names []string) bool {
	if p.reading.earlier == nil {
		return false
	}
	for _, m := range p.reading.earlier.FindAllString(words, -1) {
		cue, own := strings.ToLower(m), false
		for _, n := range names {
			if strings.Contains(strings.ToLower(n), cue) {
				own = true
				break
			}
		}
		if !own {
			return true
		}
	}
	return false
}
