// Package fhir reads a FHIR R4 record (a Bundle of Patient, Condition,
// Observation, MedicationStatement, MedicationRequest, Procedure,
// ServiceRequest, AllergyIntolerance, FamilyMemberHistory, Encounter and
// DiagnosticReport resources) into the patient
// model, the same model text becomes.
//
// The reader knows no clinical vocabulary: a resource becomes a fact only
// when one of its codes is in a value set of the pack (rules.ValueSets,
// meta/valuesets.json), and the value set names the fact's concept, its
// unit and the pack concept a status maps to. What the reader knows is
// FHIR: which status codes mean what, which result is the latest, which
// resources belong to the patient. Everything it reads but does not keep
// goes to Model.Dropped with the reason, and every fact keeps the
// resource it came from ("Observation/abc") and the code that placed it.
package fhir

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/units"
)

// ReaderName is the Reader every fact and drop of this package carries.
const ReaderName = "fhir"

// WordsReaderName is the Reader of a fact named from a resource's words
// (Options.Name) because none of its codes is in a value set.
const WordsReaderName = "fhir-words"

// NameFunc names the pack concepts a resource's own words state (a code's
// text or a coding's display), for a resource none of whose codes is in a
// value set. It returns each concept's value set (one without codes when
// the pack has none for it, so that the record's statuses, and for a
// measurement the set's units, still apply) with the certainty the words
// state of that concept, or none and why the words name no concept.
type NameFunc func(w Words) (names []Named, why string)

// Words are a resource's words as a NameFunc reads them.
type Words struct {
	Text string
	// Resource is the resource's type ("Condition", "MedicationRequest").
	Resource string
	// Product: the words name a medicinal product, to be read by
	// ingredient (Ingredients) as well as whole.
	Product bool
	// Substance: the words name what the patient reacts to (an
	// AllergyIntolerance's code): a drug named as a product's words are
	// ("Atorvastatin") where they name no other concept.
	Substance bool
	// Narrower, when set, is the concept the resource's code names: only
	// concepts narrower than it are wanted (a class code's words may say
	// which kind: "Angina pectoris with coronary microvascular
	// dysfunction" under I20).
	Narrower string
}

// Named is one concept a resource's words name.
type Named struct {
	Set *rules.ValueSet
	// Certainty is the words' own doubt about this concept ("Suspected
	// angina pectoris" doubts the angina, not a concept named beside it);
	// the record's statuses apply on top.
	Certainty patient.Certainty
	// Unread lists product ingredients that named no concept, for the
	// model's dropped readings (set on the first Named only).
	Unread []string
	// Aside says, per concept the words name but do not state of the
	// patient ("no known CAD" beside a diabetes), why it is set aside
	// (first Named only).
	Aside []string
	// Coded: the concept is one a combination code states (a value
	// set's also), not one its words name: its fact cites the code.
	Coded bool
	// Text, when set, is the words that state the concept (a combination
	// code's display), for its fact's text.
	Text string
	code string // a Coded concept's code, "system|code"
}

// NarrativeFunc reads a resource's free text (an Observation's
// valueString: a report's findings, an ECG's reading) as the text reader
// reads a note, into facts and drops; the reader cites the resource.
type NarrativeFunc func(text string) ([]patient.Fact, []patient.Dropped)

// NarrativeReaderName is the Reader of a fact read from a resource's free
// text (Options.Narrative).
const NarrativeReaderName = "fhir-text"

// UCUM is the code system of units of measure.
const UCUM = "http://unitsofmeasure.org"

// Options set what a bundle does not say.
type Options struct {
	// CaseID names the model (default: the bundle's id, else "fhir").
	CaseID string
	// Name, when set, reads a resource coded outside the value sets
	// (an RxNorm clinical drug, a local laboratory code, a SNOMED CT
	// concept the pack does not list) by its words: records name what
	// they code, and a code the pack has not listed is no reason to lose
	// the fact. Nil: such a resource is dropped.
	Name NameFunc
	// Drug, when set, says whether a concept named from a resource's
	// words is a drug of the pack, and gives the words' cue that state it
	// not tolerated ("allergy" in "Aspirin allergy") or "". A drug named
	// in a resource that records no medication (a Condition) is not taken:
	// with such a cue it is not tolerated, without one it is dropped.
	Drug func(conceptKey, words string) (drug bool, notTolerated string)
	// Agent, when set, returns the single agent of a drug class that
	// words name ("Metoprolol" of beta-blocker), or "": an allergy to one
	// agent bars that agent, not the class, so the value set's
	// not-tolerated concept ("contraindication to beta-blocker") is not
	// used for it.
	Agent func(concept, words string) string
	// Narrative, when set, reads a resource's free-text value (an
	// Observation's valueString) as text; nil: such a value is dropped.
	Narrative NarrativeFunc
	// Past, when set, reports whether a resource's words state a
	// condition of the past ("Personal history of atrial fibrillation"):
	// a Condition named by such words has status history whatever its
	// clinicalStatus, since problem lists keep a history entry active.
	Past func(words string) bool
	// Date is the reference date: ages count to it and time windows from
	// it. Zero means today (UTC).
	Date time.Time
}

// Error is a located problem in the input: which entry, which resource,
// which field.
type Error struct {
	// Where is the entry ("entry 3", "part 2 entry 0").
	Where    string
	Resource string // "Observation/abc", or the resource type alone
	Field    string // "valueQuantity.value"
	Message  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("fhir: ")
	if e.Where != "" {
		b.WriteString(e.Where)
	}
	if e.Resource != "" {
		if e.Where != "" {
			b.WriteString(" ")
		}
		b.WriteString("(" + e.Resource + ")")
	}
	if e.Field != "" {
		b.WriteString(" field " + e.Field)
	}
	if b.Len() > len("fhir: ") {
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// BundleTypes are the Bundle types the reader accepts.
var BundleTypes = []string{"collection", "searchset", "transaction"}

// Read reads one Bundle into a patient model.
func Read(bundle []byte, vs *rules.ValueSets, opt Options) (*patient.Model, error) {
	return ReadParts([][]byte{bundle}, vs, opt)
}

// ReadParts reads several inputs about one patient into one model: each
// part is a Bundle or a single resource (a CDS Hooks prefetch holds a
// Patient and one search Bundle per query).
func ReadParts(parts [][]byte, vs *rules.ValueSets, opt Options) (*patient.Model, error) {
	if vs == nil {
		return nil, errors.New("fhir: the pack has no value sets (" + rules.ValueSetsFile + "), so no code can become a fact; add the file to the pack")
	}
	r := &reader{vs: vs, name: opt.Name, narrative: opt.Narrative, drug: opt.Drug, agent: opt.Agent, past: opt.Past, date: opt.Date, byRef: map[string]json.RawMessage{}, unread: map[string]int{}}
	if r.date.IsZero() {
		r.date = time.Now().UTC()
	}
	r.date = time.Date(r.date.Year(), r.date.Month(), r.date.Day(), 0, 0, 0, 0, time.UTC)
	m := &patient.Model{CaseID: opt.CaseID, Source: "fhir", Date: r.date.Format("2006-01-02"), Facts: []patient.Fact{}}
	r.m = m
	bundleID := ""
	for p, part := range parts {
		prefix := ""
		if len(parts) > 1 {
			prefix = fmt.Sprintf("part %d ", p)
		}
		var h head
		if err := json.Unmarshal(part, &h); err != nil {
			return nil, &Error{Where: strings.TrimSpace(prefix), Message: jsonMessage(part, err) + "; send a FHIR R4 JSON Bundle"}
		}
		if h.ResourceType != "Bundle" {
			if h.ResourceType == "" {
				return nil, &Error{Where: strings.TrimSpace(prefix), Field: "resourceType", Message: "missing; send a FHIR R4 JSON Bundle (resourceType \"Bundle\") or a resource"}
			}
			r.items = append(r.items, item{where: strings.TrimSpace(prefix), raw: part})
			continue
		}
		var b Bundle
		if err := json.Unmarshal(part, &b); err != nil {
			return nil, located(strings.TrimSpace(prefix), "Bundle", err)
		}
		if !contains(BundleTypes, b.Type) {
			return nil, &Error{Where: strings.TrimSpace(prefix), Resource: "Bundle", Field: "type",
				Message: fmt.Sprintf("%q; send a Bundle of type %s", b.Type, strings.Join(BundleTypes, ", "))}
		}
		if bundleID == "" {
			bundleID = b.ID
		}
		for i, e := range b.Entry {
			where := fmt.Sprintf("%sentry %d", prefix, i)
			if e.Request != nil && strings.EqualFold(e.Request.Method, "DELETE") {
				continue
			}
			if e.Search != nil && e.Search.Mode == "outcome" {
				continue
			}
			if len(e.Resource) == 0 || string(e.Resource) == "null" {
				r.drop(patient.Dropped{Text: where, Reason: "the entry holds no resource"})
				continue
			}
			r.items = append(r.items, item{where: where, raw: e.Resource, fullURL: e.FullURL})
		}
	}
	if m.CaseID == "" {
		m.CaseID = bundleID
	}
	if m.CaseID == "" {
		m.CaseID = "fhir"
	}
	if err := r.index(); err != nil {
		return nil, err
	}
	for _, it := range r.items {
		if it.repeat {
			continue
		}
		if err := r.read(it); err != nil {
			return nil, err
		}
	}
	r.refutedKinds()
	r.keepLatest()
	r.onTherapy()
	types := make([]string, 0, len(r.unread))
	for t := range r.unread {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		r.drop(patient.Dropped{Resource: t, Reason: fmt.Sprintf("%d %s resource(s): this reader does not read the type", r.unread[t], t)})
	}
	for i := range m.Facts {
		m.Facts[i].ID = fmt.Sprintf("fhir-%d", i+1)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("fhir: %w", err)
	}
	return m, nil
}

type item struct {
	where   string
	raw     json.RawMessage
	fullURL string
	ref     string // "Type/id"
	typ     string
	repeat  bool // an earlier item is the same resource
}

type reader struct {
	vs        *rules.ValueSets
	name      NameFunc
	narrative NarrativeFunc
	past      func(words string) bool
	drug      func(conceptKey, words string) (bool, string)
	agent     func(concept, words string) string
	// words are the concepts the last words-named match's words state
	// ("Stable angina, non-obstructive coronary artery disease"): the
	// first is the match's, the others are added beside its fact (add)
	// unless it is a measurement.
	words []Named
	typ   string // the type of the resource being read
	// class: the last code match was by a class prefix.
	class bool
	// kinds are the facts refuted by a code for a kind within its class.
	kinds []int
	date  time.Time
	m     *patient.Model
	items []item
	// byRef holds every resource by "Type/id" and by fullUrl, for
	// medicationReference.
	byRef map[string]json.RawMessage
	// patientRefs are the references that name the record's patient.
	patientRefs map[string]bool
	unread      map[string]int
	// recorded is each Condition's recordedDate, by reference.
	recorded map[string]time.Time
}

// index finds every resource's reference and the record's one patient.
func (r *reader) index() error {
	r.patientRefs = map[string]bool{}
	var patients []string
	seen := map[string]bool{}
	for i := range r.items {
		it := &r.items[i]
		var h head
		if err := json.Unmarshal(it.raw, &h); err != nil {
			return &Error{Where: it.where, Message: jsonMessage(it.raw, err)}
		}
		if h.ResourceType == "" {
			return &Error{Where: it.where, Field: "resourceType", Message: "missing; every entry's resource names its resourceType"}
		}
		it.typ = h.ResourceType
		it.ref = h.ResourceType
		if h.ID != "" {
			it.ref = h.ResourceType + "/" + h.ID
			// The same resource in two parts (a Patient in every
			// prefetch search) is read once.
			it.repeat = seen[it.ref]
			seen[it.ref] = true
			r.byRef[it.ref] = it.raw
		} else if it.fullURL != "" {
			it.ref = it.fullURL
		}
		if it.fullURL != "" {
			r.byRef[it.fullURL] = it.raw
		}
		if h.ResourceType == "Patient" {
			if !r.patientRefs[it.ref] {
				patients = append(patients, it.ref)
			}
			r.patientRefs[it.ref] = true
			if it.fullURL != "" {
				r.patientRefs[it.fullURL] = true
			}
		}
	}
	if len(patients) > 1 {
		return &Error{Resource: "Patient", Message: fmt.Sprintf("the record holds %d patients (%s); send one patient's record", len(patients), strings.Join(patients, ", "))}
	}
	return nil
}

// decode decodes a resource, locating a type error by its field.
func decode[T any](it item, v *T) error {
	if err := json.Unmarshal(it.raw, v); err != nil {
		return located(it.where, it.ref, err)
	}
	return nil
}

func located(where, ref string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &Error{Where: where, Resource: ref, Field: te.Field, Message: fmt.Sprintf("a JSON %s where FHIR R4 wants %s", te.Value, fhirType(te.Type.String()))}
	}
	return &Error{Where: where, Resource: ref, Message: err.Error()}
}

func fhirType(goType string) string {
	switch {
	case strings.Contains(goType, "float"):
		return "a number"
	case goType == "string" || goType == "*string":
		return "a string"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	}
	return "an object"
}

func jsonMessage(b []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := int(se.Offset)
		if off > len(b) {
			off = len(b)
		}
		line := 1 + strings.Count(string(b[:off]), "\n")
		return fmt.Sprintf("not valid JSON at line %d (byte %d): %v", line, se.Offset, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return fmt.Sprintf("a JSON %s where a FHIR resource object was expected", te.Value)
	}
	return "not valid JSON: " + err.Error()
}

func (r *reader) drop(d patient.Dropped) {
	d.Reader = ReaderName
	r.m.Dropped = append(r.m.Dropped, d)
}

func (r *reader) add(f patient.Fact) {
	if f.Reader == "" {
		f.Reader = ReaderName
	}
	names := r.words
	r.words = nil
	if f.Reader == ReaderName && f.Certainty == patient.Refuted && r.class {
		// A code for a kind within the class (I20.8 under angina I20):
		// judged once the record is read (refutedKinds).
		r.kinds = append(r.kinds, len(r.m.Facts))
	}
	if len(names) == 0 {
		r.m.Facts = append(r.m.Facts, f)
		return
	}
	// rec is what the record's statuses state; the words' doubt applies to
	// a fact not renamed to a status form (as).
	rec := f.Certainty
	if f.ConceptKey == names[0].Set.Key {
		f.Certainty = doubted(rec, names[0].Certainty)
	}
	r.addNamed(f)
	for _, u := range names[0].Unread {
		r.drop(patient.Dropped{Resource: f.Resource, Text: u, Reason: fmt.Sprintf("ingredient %q of %q names no concept of the pack", u, f.Text)})
	}
	for _, why := range names[0].Aside {
		r.drop(patient.Dropped{Resource: f.Resource, Text: f.Text, Reason: "its words name " + why})
	}
	if f.Kind == patient.KindMeasurement {
		return // a measurement's value belongs to its one concept
	}
	// One fact per further concept the words state, with the same
	// statuses and time, and the words' doubt about that concept.
	for _, n := range names[1:] {
		if n.Coded && !f.Present {
			// A refuted or absent combination code refutes the
			// combination, not each concept in it.
			continue
		}
		g := f
		g.ConceptKey, g.Concept, g.Class = n.Set.Key, n.Set.Concept, ""
		g.Certainty = doubted(rec, n.Certainty)
		if n.Text != "" {
			g.Text = n.Text
		}
		if n.code != "" {
			g.Code = n.code
		}
		if g.Reader == ReaderName && !n.Coded { // a kind the coded resource's words name
			g.Reader, g.Code = WordsReaderName, ""
		}
		r.addNamed(g)
	}
}

// doubted is a record's certainty with its words' doubt: words that doubt
// a concept make a confirmed or unstated fact suspected; a refuted one
// stays refuted.
func doubted(record, words patient.Certainty) patient.Certainty {
	if words == patient.Suspected && record != patient.Refuted {
		return patient.Suspected
	}
	return record
}

// medicationResources are the resource types that record a drug's use or
// intolerance; any other resource that names a drug states neither.
var medicationResources = map[string]bool{"MedicationStatement": true, "MedicationRequest": true, "MedicationAdministration": true,
	"MedicationDispense": true, "AllergyIntolerance": true}

// addNamed adds a fact named from a resource's words: a drug named by a
// resource that records no medication ("Aspirin allergy", a Condition) is
// not tolerated when the words say so, and no fact otherwise.
func (r *reader) addNamed(f patient.Fact) {
	typ, _, _ := strings.Cut(f.Resource, "/")
	if r.drug != nil && f.Reader == WordsReaderName && !medicationResources[typ] && f.Present {
		if drug, cue := r.drug(f.ConceptKey, f.Text); drug {
			if cue == "" {
				r.drop(patient.Dropped{Resource: f.Resource, Text: f.Text, Reason: "its words name the drug " + f.Concept + ", but a " + typ + " records no use of it"})
				return
			}
			f.Kind, f.Status = patient.KindMedication, patient.StatusNotTolerated
		}
	}
	r.m.Facts = append(r.m.Facts, f)
}

// mine reports whether a subject reference names the record's patient (a
// resource without a subject, or a record without a Patient, is taken as
// the patient's).
func (r *reader) mine(it item, ref *Reference) bool {
	if ref == nil || ref.Reference == "" || len(r.patientRefs) == 0 {
		return true
	}
	if r.patientRefs[ref.Reference] {
		return true
	}
	r.drop(patient.Dropped{Resource: it.ref, Reason: fmt.Sprintf("its subject %s is not the record's patient", ref.Reference)})
	return false
}

func (r *reader) read(it item) error {
	r.words, r.typ, r.class = nil, it.typ, false
	switch it.typ {
	case "Patient":
		return r.readPatient(it)
	case "Condition":
		return r.readCondition(it)
	case "Observation":
		return r.readObservation(it)
	case "MedicationStatement":
		return r.readMedicationStatement(it)
	case "MedicationRequest":
		return r.readMedicationRequest(it)
	case "Procedure":
		return r.readProcedure(it)
	case "ServiceRequest":
		return r.readServiceRequest(it)
	case "AllergyIntolerance":
		return r.readAllergy(it)
	case "FamilyMemberHistory":
		return r.readFamily(it)
	case "Encounter":
		return r.readEncounter(it)
	case "DiagnosticReport":
		return r.readReport(it)
	case "Medication":
		return nil // read through the references to it
	case "OperationOutcome":
		return nil
	}
	r.unread[it.typ]++
	return nil
}

func (r *reader) readPatient(it item) error {
	var p Patient
	if err := decode(it, &p); err != nil {
		return err
	}
	if p.BirthDate != "" {
		if a := r.vs.Demographics.Age; a != nil && a.Key != "" {
			lo, hi, err := ageAt(p.BirthDate, r.date)
			if err != nil {
				return &Error{Where: it.where, Resource: it.ref, Field: "birthDate", Message: err.Error() + "; write YYYY, YYYY-MM or YYYY-MM-DD"}
			}
			v := float64(lo)
			r.m.Age = &v
			f := patient.Fact{Kind: patient.KindDemographic, Resource: it.ref, Status: patient.StatusActive}
			f.ConceptKey, f.Concept, f.Present, f.Value, f.Unit = a.Key, a.Concept, true, &v, a.Unit
			f.Text = fmt.Sprintf("born %s, %d %s on %s", p.BirthDate, lo, a.Unit, r.m.Date)
			if hi != lo {
				// A birth year alone leaves the age one of two values.
				f.Comparator = ">="
				f.Text = fmt.Sprintf("born %s, %d or %d %s on %s", p.BirthDate, lo, hi, a.Unit, r.m.Date)
			}
			r.add(f)
		}
	}
	if p.Gender != "" {
		r.m.Sex = p.Gender
		if s, ok := r.vs.Sex(p.Gender); ok {
			f := patient.Fact{Kind: patient.KindDemographic, Resource: it.ref,
				Code: r.vs.URI(r.vs.Demographics.SexSystem) + "|" + p.Gender}
			f.ConceptKey, f.Concept, f.Present, f.Text = s.Key, s.Concept, s.Present, "gender "+p.Gender
			f.Status = patient.StatusActive
			if !s.Present {
				f.Status = patient.StatusAbsent
			}
			r.add(f)
		} else {
			r.drop(patient.Dropped{Resource: it.ref, Text: "gender " + p.Gender, Reason: "no value set of the pack holds the gender code"})
		}
	}
	return nil
}

// ageAt is the age in whole years on date of one born on birth; for a
// partial birth date, the youngest and oldest it allows.
func ageAt(birth string, date time.Time) (lo, hi int, err error) {
	from, to, err := parseDate(birth)
	if err != nil {
		return 0, 0, err
	}
	if from.After(date) {
		return 0, 0, fmt.Errorf("%s is after the reference date %s", birth, date.Format("2006-01-02"))
	}
	years := func(b time.Time) int {
		n := date.Year() - b.Year()
		if date.Month() < b.Month() || date.Month() == b.Month() && date.Day() < b.Day() {
			n--
		}
		return n
	}
	if to.After(date) {
		to = date
	}
	return years(to), years(from), nil
}

// parseDate reads a FHIR date or dateTime as the days it may mean: from
// the first to the last day of its precision.
func parseDate(s string) (from, to time.Time, err error) {
	s = strings.TrimSpace(s)
	switch {
	case len(s) == 4:
		t, e := time.Parse("2006", s)
		return t, t.AddDate(1, 0, -1), e
	case len(s) == 7:
		t, e := time.Parse("2006-01", s)
		return t, t.AddDate(0, 1, -1), e
	case len(s) == 10:
		t, e := time.Parse("2006-01-02", s)
		return t, t, e
	case len(s) > 10:
		t, e := time.Parse(time.RFC3339, s)
		if e != nil {
			if t2, e2 := time.Parse("2006-01-02T15:04:05", s); e2 == nil {
				t, e = t2, nil
			}
		}
		if e != nil {
			return time.Time{}, time.Time{}, fmt.Errorf("%q is no FHIR dateTime", s)
		}
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		return d, d, nil
	}
	return time.Time{}, time.Time{}, fmt.Errorf("%q is no FHIR date", s)
}

// when dates an event from a dateTime or a period; nil when undated.
func when(it item, field, dt string, p *Period) (*eval.When, error) {
	if dt != "" {
		from, to, err := parseDate(dt)
		if err != nil {
			return nil, &Error{Where: it.where, Resource: it.ref, Field: field, Message: err.Error()}
		}
		return &eval.When{From: from, To: to, Text: dt}, nil
	}
	if p == nil || p.Start == "" && p.End == "" {
		return nil, nil
	}
	w := &eval.When{}
	if p.Start != "" {
		from, _, err := parseDate(p.Start)
		if err != nil {
			return nil, &Error{Where: it.where, Resource: it.ref, Field: field + ".start", Message: err.Error()}
		}
		w.From, w.To, w.Text = from, from, p.Start
	}
	if p.End != "" {
		_, to, err := parseDate(p.End)
		if err != nil {
			return nil, &Error{Where: it.where, Resource: it.ref, Field: field + ".end", Message: err.Error()}
		}
		if w.From.IsZero() {
			w.From = to
		}
		w.To = to
		w.Text = strings.TrimSpace(p.Start + " to " + p.End)
	}
	return w, nil
}

// match finds the value set of a CodeableConcept: an exact code of any
// coding beats a class prefix; the first coding wins among equals.
func (r *reader) match(cc *CodeableConcept) (rules.Match, Coding, bool) {
	if cc == nil {
		return rules.Match{}, Coding{}, false
	}
	var best rules.Match
	var bestC Coding
	var also []Named
	found := false
	for _, c := range cc.Coding {
		m, ok := r.vs.Lookup(c.System, c.Code)
		if !ok {
			continue
		}
		// A combination code states its further concepts whichever
		// coding names the fact ("Coronary arteriosclerosis" in SNOMED CT
		// beside ICD-10-CM I25.119, with angina pectoris).
		for _, a := range m.Also {
			set := r.vs.ByKey(a.Key)
			if set == nil {
				set = &rules.ValueSet{Concept: a.Concept, Key: a.Key}
			}
			words := c.Display
			if words == "" {
				words = c.Code
			}
			also = append(also, Named{Set: set, Coded: true, Text: words, code: c.System + "|" + c.Code})
		}
		if !found || best.Prefix && !m.Prefix || best.Prefix && m.Prefix && len(m.Code) > len(best.Code) {
			best, bestC, found = m, c, true
		}
	}
	if !found {
		return r.named(cc)
	}
	// A combination code (also) is one kind within its set, as a code
	// under a class prefix is (refutedKinds).
	r.class = best.Prefix && bestC.Code != best.Code || len(also) > 0
	if r.name != nil {
		// The words may name kinds of the coded concept: facts beside it.
		for _, w := range cc.words() {
			ws := r.wordsOf(w)
			ws.Narrower = best.Set.Concept
			if names, _ := r.name(ws); len(names) > 0 {
				r.words = append([]Named{{Set: best.Set}}, names...)
				break
			}
		}
	}
	r.combined(best.Set, also)
	return best, bestC, found
}

// combined adds a combination code's further concepts to the concepts the
// resource states beside its fact (add), once each.
func (r *reader) combined(own *rules.ValueSet, also []Named) {
	if len(also) == 0 {
		return
	}
	if len(r.words) == 0 {
		r.words = []Named{{Set: own}}
	}
	for _, a := range also {
		seen := a.Set.Key == own.Key
		for _, n := range r.words {
			seen = seen || n.Set.Key == a.Set.Key
		}
		if !seen {
			r.words = append(r.words, a)
		}
	}
}

// textSystem marks a Match made from a resource's words, not its codes.
const textSystem = "text"

// named is match's fallback: the concept the resource's words name
// (its text first, then each coding's display).
func (r *reader) named(cc *CodeableConcept) (rules.Match, Coding, bool) {
	if r.name == nil || cc == nil {
		return rules.Match{}, Coding{}, false
	}
	for _, w := range cc.words() {
		if names, _ := r.name(r.wordsOf(w)); len(names) > 0 {
			r.words = names
			return rules.Match{Set: names[0].Set, System: textSystem}, Coding{Display: w}, true
		}
	}
	return rules.Match{}, Coding{}, false
}

// wordsOf is words of the resource being read, as NameFunc takes them.
func (r *reader) wordsOf(text string) Words {
	return Words{Text: text, Resource: r.typ, Product: r.typ == "MedicationStatement" || r.typ == "MedicationRequest", Substance: r.typ == "AllergyIntolerance"}
}

// unmatched drops a resource none of whose codes is in a value set.
func (r *reader) unmatched(it item, cc *CodeableConcept) {
	var codes []string
	if cc != nil {
		for _, c := range cc.Coding {
			codes = append(codes, c.System+"|"+c.Code)
		}
	}
	reason := "no value set of the pack holds its code"
	if len(codes) > 0 {
		reason = "no value set of the pack holds its code(s) " + strings.Join(codes, ", ")
	} else if cc == nil || cc.Text == "" {
		reason = "it carries no code"
	} else {
		reason = "it carries text but no code"
	}
	if r.name != nil && cc != nil {
		// Why its words did not name a concept either.
		for _, w := range cc.words() {
			if _, why := r.name(r.wordsOf(w)); why != "" {
				reason += fmt.Sprintf(", and its words %q %s", w, why)
			}
		}
	}
	r.drop(patient.Dropped{Resource: it.ref, Text: cc.label(), Reason: reason})
}

// fact starts a fact for a matched code.
func fact(it item, kind patient.Kind, m rules.Match, c Coding, text string) patient.Fact {
	f := patient.Fact{Kind: kind, Resource: it.ref, Code: c.System + "|" + c.Code}
	f.ConceptKey, f.Concept, f.Present, f.Text = m.Set.Key, m.Set.Concept, true, text
	if m.System == textSystem {
		// Named from its words: no code to cite; the words' doubt holds
		// (add).
		f.Code, f.Reader = "", WordsReaderName
	}
	if m.Prefix && kind == patient.KindMedication {
		// A class code (a prefix of a hierarchical system) names the
		// pack's class.
		f.Class = m.Set.Concept
	}
	return f
}

// as renames a fact to the pack concept its value set gives for a status
// ("suspected", "planned", "not-tolerated"): the pack then reads the
// status as part of the concept, so the fact is stated as is. A set whose
// status names its own concept makes the fact an intention instead.
func as(f *patient.Fact, m rules.Match, status string) bool {
	c, ok := m.Set.As[status]
	if !ok || m.Set.AsKeys[status] == "" {
		return false
	}
	if m.Set.AsKeys[status] == m.Set.Key {
		// The concept names its own intention (the rows on ICA apply
		// when it is indicated): the fact keeps its status and asserts
		// the concept, as a plan section's procedure does in text.
		f.Intention = true
		return false
	}
	f.ConceptKey, f.Concept = m.Set.AsKeys[status], c
	f.Text = status + ": " + f.Text
	return true
}

func (r *reader) readCondition(it item) error {
	var c Condition
	if err := decode(it, &c); err != nil {
		return err
	}
	if !r.mine(it, c.Subject) {
		return nil
	}
	clinical, verification := statusCode(c.ClinicalStatus), statusCode(c.VerificationStatus)
	if verification == "entered-in-error" {
		r.drop(patient.Dropped{Resource: it.ref, Text: c.Code.label(), Reason: "verificationStatus entered-in-error"})
		return nil
	}
	m, coding, ok := r.match(c.Code)
	if !ok {
		r.unmatched(it, c.Code)
		return nil
	}
	f := fact(it, patient.KindProblem, m, coding, c.Code.label())
	switch clinical {
	case "active", "recurrence", "relapse":
		f.Status = patient.StatusActive
	case "inactive", "remission", "resolved":
		f.Status = patient.StatusHistory
	case "":
		if c.AbatementDateTime != "" || c.AbatementPeriod != nil || c.AbatementString != "" || c.AbatementBoolean != nil && *c.AbatementBoolean {
			// R4 con-4: an abated condition is inactive, resolved or in
			// remission; without a clinicalStatus its abatement says so.
			f.Status = patient.StatusHistory
		}
	default:
		r.drop(patient.Dropped{Resource: it.ref, Text: f.Text, Reason: fmt.Sprintf("clinicalStatus %q is not an R4 code", clinical)})
		return nil
	}
	if m.System == textSystem && r.past != nil && r.past(coding.Display) {
		f.Status = patient.StatusHistory // the words say so: "History of chest pain"
	}
	switch verification {
	case "confirmed":
		if f.Certainty == "" { // words that state a doubt keep it
			f.Certainty = patient.Confirmed
		}
	case "unconfirmed", "provisional", "differential":
		f.Certainty = patient.Suspected
		if as(&f, m, "suspected") {
			f.Certainty = patient.Confirmed
		}
	case "refuted":
		f.Certainty, f.Present, f.Status = patient.Refuted, false, patient.StatusAbsent
	case "":
	default:
		r.drop(patient.Dropped{Resource: it.ref, Text: f.Text, Reason: fmt.Sprintf("verificationStatus %q is not an R4 code", verification)})
		return nil
	}
	w, err := when(it, "onset", c.OnsetDateTime, c.OnsetPeriod)
	if err != nil {
		return err
	}
	f.When = w
	if c.RecordedDate != "" {
		rec, err := when(it, "recordedDate", c.RecordedDate, nil)
		if err != nil {
			return err
		}
		if r.recorded == nil {
			r.recorded = map[string]time.Time{}
		}
		r.recorded[it.ref] = rec.To
	}
	r.add(f)
	return nil
}

// onTherapy adds the concepts a symptom persisting on a therapy states
// (rules.OnTherapy): an active, affirmed Condition of a listed symptom,
// onset or recorded at least AfterDays after a listed therapy still taken
// was begun, and no earlier than that many days before the record's date.
// A symptom recorded before the therapy began, or an undated therapy,
// says nothing of its effect.
func (r *reader) onTherapy() {
	for _, t := range r.vs.OnTherapy {
		if len(t.Keys) == 0 {
			continue
		}
	symptoms:
		for _, s := range r.m.Facts {
			if !t.SymptomKeys[s.ConceptKey] || !strings.HasPrefix(s.Resource, "Condition/") || s.Status != patient.StatusActive ||
				s.Experiencer != "" && s.Experiencer != patient.Self {
				continue
			}
			if present, ok := s.Asserts(); !present || !ok || s.Certainty == patient.Suspected || s.Certainty == patient.Refuted {
				continue
			}
			seen := r.recorded[s.Resource]
			if s.When != nil && s.When.To.After(seen) {
				seen = s.When.To
			}
			if seen.IsZero() {
				continue
			}
			for _, d := range r.m.Facts {
				if d.Kind != patient.KindMedication || d.Status != patient.StatusTaking || !d.Present || !t.TherapyKeys[d.ConceptKey] || d.When == nil {
					continue
				}
				begun := d.When.From.AddDate(0, 0, t.AfterDays) // from its start, not a period's end
				if begun.After(seen) || begun.After(r.date) {
					continue
				}
				for _, c := range t.Keys {
					// Cited to the symptom's resource and code; the text
					// names the therapy's.
					f := patient.Fact{Kind: patient.KindProblem, Resource: s.Resource, Code: s.Code, Reader: ReaderName, Status: patient.StatusActive, Certainty: patient.Confirmed}
					f.ConceptKey, f.Concept, f.Present, f.When = c.Key, c.Concept, true, s.When
					f.Text = fmt.Sprintf("%s active, recorded %s while taking %s since %s (%s)", s.Concept, seen.Format("2006-01-02"), d.Concept, d.When.Text, d.Resource)
					r.m.Facts = append(r.m.Facts, f)
				}
				break symptoms // one persisting symptom states the concepts
			}
		}
	}
}

// observationStatuses are the statuses of a result one may act on.
var observationStatuses = []string{"final", "amended", "corrected"}

func (r *reader) readObservation(it item) error {
	var o Observation
	if err := decode(it, &o); err != nil {
		return err
	}
	if !r.mine(it, o.Subject) {
		return nil
	}
	if !contains(observationStatuses, o.Status) {
		r.drop(patient.Dropped{Resource: it.ref, Text: o.Code.label(), Reason: fmt.Sprintf("status %q: only %s results are read", o.Status, strings.Join(observationStatuses, ", "))})
		return nil
	}
	dt := o.EffectiveDateTime
	if dt == "" {
		dt = o.EffectiveInstant
	}
	w, err := when(it, "effective", dt, o.EffectivePeriod)
	if err != nil {
		return err
	}
	if w == nil && o.Issued != "" {
		if w, err = when(it, "issued", o.Issued, nil); err != nil {
			return err
		}
	}
	// A panel's components are read one by one, each by its own code;
	// codes no value set holds are dropped once, for the whole panel.
	var unplaced []string
	for i := range o.Component {
		c := &o.Component[i]
		if _, _, ok := r.match(&c.Code); !ok {
			for _, cd := range c.Code.Coding {
				unplaced = append(unplaced, cd.System+"|"+cd.Code)
			}
			continue
		}
		if _, err := r.observed(it, fmt.Sprintf("component[%d].", i), &c.Code, c.ValueQuantity, c.ValueCodeableConcept, c.ValueBoolean, c.DataAbsentReason, w, false); err != nil {
			return err
		}
	}
	if yes, ok := answerWord(o.ValueString); ok && o.ValueBoolean == nil {
		// "Chest pain on exertion: Yes" answers its code's question.
		o.ValueBoolean, o.ValueString = &yes, ""
	}
	if o.ValueString != "" && r.narrative != nil {
		r.readNarrative(it, o.Code.label(), o.ValueString, w)
		return nil
	}
	panel := len(o.Component) > 0
	if panel && o.ValueQuantity == nil && o.ValueCodeableConcept == nil && o.ValueBoolean == nil && o.DataAbsentReason == nil {
		if len(unplaced) > 0 {
			r.drop(patient.Dropped{Resource: it.ref, Text: o.Code.label(), Reason: "no value set of the pack holds the component code(s) " + strings.Join(unplaced, ", ")})
		}
		return nil
	}
	_, err = r.observed(it, "", &o.Code, o.ValueQuantity, o.ValueCodeableConcept, o.ValueBoolean, o.DataAbsentReason, w, panel)
	return err
}

// readNarrative reads a free-text value with its code's words as its
// heading ("ICA findings: Distal left main 65%; RCA 90%"): the facts the
// text reader finds, cited to the resource and dated by it when the text
// gives no date of its own.
func (r *reader) readNarrative(it item, label, value string, w *eval.When) {
	text := strings.TrimSpace(value)
	if label != "" {
		text = label + ": " + text
	}
	facts, drops := r.narrative(text)
	for _, d := range drops {
		d.Resource = it.ref
		r.drop(d)
	}
	if len(facts) == 0 {
		r.drop(patient.Dropped{Resource: it.ref, Text: text, Reason: "its text names no concept of the pack"})
		return
	}
	head := len(text) - len(strings.TrimSpace(value))
	for _, f := range facts {
		if len(f.Spans) > 0 && f.Spans[0].End <= head {
			// The code's words head the text; what they name is the
			// test, not its finding ("Clinic assessment").
			r.drop(patient.Dropped{Resource: it.ref, Text: f.Text, Reason: "its words are the observation's name, not its value"})
			continue
		}
		f.ID, f.Spans, f.Resource, f.Code, f.Section, f.Reader = "", nil, it.ref, "", "", NarrativeReaderName
		if f.When == nil {
			f.When = w
		}
		r.m.Facts = append(r.m.Facts, f)
	}
}

// valueText reads a result whose name the value sets and the concepts'
// names do not place as a note would write it, its name and value
// ("Diameter stenosis mid LAD (visual): 60 %"): the text reader knows
// how a value qualifies the words before it (a stenosis grade of a
// segment). It reports whether the text stated anything; nothing is
// added or dropped when it did not.
func (r *reader) valueText(it item, code *CodeableConcept, q *Quantity, w *eval.When) bool {
	label := code.label()
	if r.narrative == nil || label == "" {
		return false
	}
	unit := q.Unit
	if unit == "" {
		unit = q.Code
	}
	if unit = ucumPlain(unit); unit == "1" {
		unit = ""
	}
	value := strings.TrimSpace(q.Comparator + trim(*q.Value) + " " + unit)
	text := label + ": " + value
	facts, _ := r.narrative(text)
	head := len(label) + len(": ")
	var kept []patient.Fact
	for _, f := range facts {
		if len(f.Spans) == 0 || f.Spans[0].End <= head {
			continue // the name alone: the test, not its result
		}
		kept = append(kept, f)
	}
	if len(kept) == 0 {
		return false
	}
	for _, f := range kept {
		f.ID, f.Spans, f.Resource, f.Code, f.Section, f.Reader = "", nil, it.ref, "", "", NarrativeReaderName
		if f.When == nil {
			f.When = w
		}
		r.m.Facts = append(r.m.Facts, f)
	}
	return true
}

// observed reads one observation (or one component): a quantity of a
// measured concept, a coded value that is itself a concept, or a yes/no
// answer that states the code's concept present or absent. panel is
// true for an observation whose components were read, so an unmatched
// panel code without a value is no drop of its own.
func (r *reader) observed(it item, field string, code *CodeableConcept, q *Quantity, vc *CodeableConcept, yes *bool, absent *CodeableConcept, w *eval.When, panel bool) (int, error) {
	if absent != nil {
		if m, _, ok := r.match(code); ok {
			r.drop(patient.Dropped{Resource: it.ref, Text: m.Set.Concept, Reason: "dataAbsentReason " + statusCode(absent)})
		}
		return 0, nil
	}
	if q != nil {
		m, coding, ok := r.match(code)
		if !ok {
			if field == "" && !panel && q.Value != nil && r.valueText(it, code, q, w) {
				return 1, nil
			}
			r.unmatched(it, code)
			return 0, nil
		}
		if q.Value == nil {
			r.drop(patient.Dropped{Resource: it.ref, Text: code.label(), Reason: field + "valueQuantity has no value"})
			return 0, nil
		}
		f := fact(it, patient.KindMeasurement, m, coding, code.label())
		v, unit, why := r.convert(m.Set, *q.Value, q)
		if why != "" {
			r.drop(patient.Dropped{Resource: it.ref, Text: fmt.Sprintf("%s %v %s", code.label(), *q.Value, q.Unit), Reason: why})
			return 0, nil
		}
		f.Value, f.Unit = &v, unit
		switch q.Comparator {
		case "":
		case "<", "<=", ">", ">=":
			f.Comparator = q.Comparator
		default:
			return 0, &Error{Where: it.where, Resource: it.ref, Field: field + "valueQuantity.comparator", Message: fmt.Sprintf("%q; use <, <=, >= or >", q.Comparator)}
		}
		f.Text = fmt.Sprintf("%s %s%s %s", code.label(), f.Comparator, trim(*q.Value), q.Unit)
		f.When = w
		r.add(f)
		return 1, nil
	}
	if yes != nil {
		m, coding, ok := r.match(code)
		if !ok {
			r.unmatched(it, code)
			return 0, nil
		}
		f := fact(it, patient.KindFinding, m, coding, code.label())
		f.Status, f.When = patient.StatusActive, w
		if !*yes {
			f.Present, f.Status = false, patient.StatusAbsent
			f.Text = "no " + f.Text
		}
		r.add(f)
		return 1, nil
	}
	if vc != nil && yes == nil {
		if v, ok := answer(vc); ok {
			// A coded yes/no answer (SNOMED CT 373066001 "Yes") states
			// the code's concept, as a boolean does.
			return r.observed(it, field, code, nil, nil, &v, nil, w, panel)
		}
	}
	if vc != nil {
		// A coded result ("finding: X") is a fact of the value's concept,
		// whatever the test was.
		m, coding, ok := r.match(vc)
		if !ok {
			r.unmatched(it, vc)
			return 0, nil
		}
		f := fact(it, patient.KindFinding, m, coding, vc.label())
		f.When = w
		r.add(f)
		return 1, nil
	}
	if !panel {
		if m, _, ok := r.match(code); ok {
			r.drop(patient.Dropped{Resource: it.ref, Text: m.Set.Concept, Reason: field + "the observation has no value"})
		} else if field == "" {
			r.unmatched(it, code)
		}
	}
	return 0, nil
}

// convert brings a quantity to the value set's unit; why is set when the
// unit is not one the value set lists or cannot be converted.
func (r *reader) convert(set *rules.ValueSet, v float64, q *Quantity) (float64, string, string) {
	var spelt string
	var ok bool
	if q.Code != "" && (q.System == UCUM || q.System == "") {
		spelt, ok = set.Units[q.Code]
	}
	if !ok && q.Unit != "" {
		spelt, ok = set.Units[q.Unit]
	}
	if !ok {
		// UCUM annotations ({score}, {beats}) name no unit: "{beats}/min"
		// is "/min", and "{score}" alone is the unit 1, a unitless value.
		u := q.Code
		if u == "" {
			u = q.Unit
		}
		if plain := ucumPlain(u); plain != u {
			if spelt, ok = set.Units[plain]; !ok && plain == "1" && units.Canonical(set.Unit) == units.Unitless {
				spelt, ok = set.Unit, true
			}
		}
	}
	if !ok {
		u := q.Code
		if u == "" {
			u = q.Unit
		}
		return 0, "", fmt.Sprintf("unit %q is not one the value set of %q lists (%s)", u, set.Concept, strings.Join(sortedUnits(set.Units), ", "))
	}
	if set.Unit == "" {
		return v, spelt, ""
	}
	out, err := units.Convert(v, spelt, set.Unit, set.Concept)
	if err != nil {
		return 0, "", err.Error()
	}
	return out, set.Unit, ""
}

// ucumPlain is a UCUM unit without its annotations; "1" when nothing else
// is left.
func ucumPlain(u string) string {
	var b strings.Builder
	depth := 0
	for _, r := range u {
		switch {
		case r == '{':
			depth++
		case r == '}' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	if out := strings.TrimSpace(b.String()); out != "" {
		return out
	}
	return "1"
}

func sortedUnits(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for u := range m {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

func trim(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%g", v)
}

// keepLatest keeps, per measured concept, the latest result by its time
// (a dated result beats an undated one; among equals the later entry
// wins) and drops the others with the one kept. A result whose time
// overlaps the latest one's (the same day, one or both given as a date
// only) is no earlier: both are kept, since the record does not say
// which came first, rather than one picked by bundle order.
func (r *reader) keepLatest() {
	latest := map[string]int{}
	later := func(a, b *patient.Fact) bool { // a later than b
		switch {
		case a.When == nil:
			return b.When == nil
		case b.When == nil:
			return true
		}
		return !a.When.To.Before(b.When.To)
	}
	for i := range r.m.Facts {
		f := &r.m.Facts[i]
		if f.Kind != patient.KindMeasurement {
			continue
		}
		if j, ok := latest[f.ConceptKey]; !ok || later(f, &r.m.Facts[j]) {
			latest[f.ConceptKey] = i
		}
	}
	kept := r.m.Facts[:0:0]
	for i, f := range r.m.Facts {
		// Values of the latest resource stay together (one report's
		// stenosis per vessel).
		if j, ok := latest[f.ConceptKey]; f.Kind == patient.KindMeasurement && ok && j != i && (f.Resource != r.m.Facts[j].Resource || f.Resource == "") &&
			!concurrent(f.When, r.m.Facts[j].When) {
			k := r.m.Facts[j]
			date := "undated"
			if k.When != nil {
				date = k.When.Text
			}
			what := "an earlier result"
			if f.When == nil && k.When != nil {
				what = "an undated result"
			}
			r.drop(patient.Dropped{Resource: f.Resource, Text: f.Text, Reason: fmt.Sprintf("%s of %s; the latest, %s (%s), is used", what, f.Concept, k.Resource, date)})
			continue
		}
		kept = append(kept, f)
	}
	r.m.Facts = kept
}

// concurrent: two result times overlap, neither strictly before the
// other (the reader dates to the day: two results of one day tie).
func concurrent(a, b *eval.When) bool {
	return a != nil && b != nil && !a.To.Before(b.From) && !b.To.Before(a.From)
}

// refutedKinds: a refuted code for a kind within a class ("Other forms of
// angina pectoris", I20.8, read as angina by I20), or a refuted
// combination code (I25.111, coronary atherosclerosis with spasm), refutes
// that kind, not the class: where the record affirms the class concept
// too (an active angina beside it), the refutation is no absence of it. Alone it
// stands: a refuted I21.4 is the rule-out of a myocardial infarction.
func (r *reader) refutedKinds() {
	if len(r.kinds) == 0 {
		return
	}
	affirmed := map[string]bool{}
	for _, f := range r.m.Facts {
		if ok, _ := f.Asserts(); ok {
			affirmed[f.ConceptKey] = true
		}
	}
	drop := map[int]bool{}
	for _, i := range r.kinds {
		if f := r.m.Facts[i]; affirmed[f.ConceptKey] {
			drop[i] = true
			r.drop(patient.Dropped{Resource: f.Resource, Text: f.Text, Reason: fmt.Sprintf("refuted, but its code is one kind within %s, which the record affirms elsewhere: it refutes that kind, not %s", f.Concept, f.Concept)})
		}
	}
	kept := r.m.Facts[:0:0]
	for i, f := range r.m.Facts {
		if !drop[i] {
			kept = append(kept, f)
		}
	}
	r.m.Facts, r.kinds = kept, nil
}

// medication finds the product a statement or request names: its own
// CodeableConcept, or the Medication it references (contained or in the
// record).
func (r *reader) medication(it item, cc *CodeableConcept, ref *Reference, contained []json.RawMessage) (*CodeableConcept, error) {
	if cc != nil || ref == nil || ref.Reference == "" {
		return cc, nil
	}
	var raw json.RawMessage
	if strings.HasPrefix(ref.Reference, "#") {
		for _, c := range contained {
			var h head
			if json.Unmarshal(c, &h) == nil && h.ResourceType == "Medication" && "#"+h.ID == ref.Reference {
				raw = c
			}
		}
	} else {
		raw = r.byRef[ref.Reference]
	}
	if raw == nil {
		r.drop(patient.Dropped{Resource: it.ref, Text: ref.Display, Reason: "medicationReference " + ref.Reference + " is not in the record"})
		return nil, nil
	}
	var med Medication
	if err := json.Unmarshal(raw, &med); err != nil {
		return nil, located(it.where, ref.Reference, err)
	}
	if med.Code == nil {
		return &CodeableConcept{Text: ref.Display}, nil
	}
	return med.Code, nil
}

// medicationStatus maps a statement's or request's status to the model's;
// ok is false for a status that states nothing of the patient.
func medicationStatus(typ, status, intent string) (patient.Status, bool) {
	switch status {
	case "active":
		if typ == "MedicationRequest" && (intent == "proposal" || intent == "plan") {
			return patient.StatusPlanned, true
		}
		return patient.StatusTaking, true
	case "completed":
		// R4: a completed MedicationStatement is no longer taken; a
		// completed MedicationRequest is an order whose actions all
		// occurred (dispensed, a course supplied), which says nothing of
		// whether a chronic drug is still taken: unknown, not stopped.
		if typ == "MedicationRequest" {
			return "", false
		}
		return patient.StatusStopped, true
	case "stopped":
		return patient.StatusStopped, true
	case "on-hold":
		// Held is not being taken now; the order stands.
		return patient.StatusStopped, true
	case "intended", "draft":
		return patient.StatusPlanned, true
	case "not-taken":
		return patient.StatusAbsent, true
	}
	return "", false
}

func (r *reader) readMedication(it item, status, intent string, cc *CodeableConcept, w *eval.When, dose []Dosage) {
	st, ok := medicationStatus(it.typ, status, intent)
	if !ok {
		r.drop(patient.Dropped{Resource: it.ref, Text: cc.label(), Reason: fmt.Sprintf("status %q states nothing of what is taken", status)})
		return
	}
	m, coding, ok := r.match(cc)
	if !ok {
		r.unmatched(it, cc)
		return
	}
	f := fact(it, patient.KindMedication, m, coding, cc.label())
	f.Status, f.When = st, w
	if st == patient.StatusAbsent {
		f.Present = false
	}
	if st == patient.StatusPlanned && as(&f, m, "planned") {
		f.Status = ""
	}
	for _, d := range dose {
		if d.Text != "" {
			f.Dose = d.Text
			break
		}
	}
	r.add(f)
}

func (r *reader) readMedicationStatement(it item) error {
	var s MedicationStatement
	if err := decode(it, &s); err != nil {
		return err
	}
	if !r.mine(it, s.Subject) {
		return nil
	}
	if s.Status == "entered-in-error" {
		r.drop(patient.Dropped{Resource: it.ref, Reason: "status entered-in-error"})
		return nil
	}
	cc, err := r.medication(it, s.MedicationCodeableConcept, s.MedicationReference, s.Contained)
	if err != nil || cc == nil && s.MedicationReference != nil {
		return err
	}
	w, err := when(it, "effective", s.EffectiveDateTime, s.EffectivePeriod)
	if err != nil {
		return err
	}
	r.readMedication(it, s.Status, "", cc, w, s.Dosage)
	return nil
}

func (r *reader) readMedicationRequest(it item) error {
	var q MedicationRequest
	if err := decode(it, &q); err != nil {
		return err
	}
	if !r.mine(it, q.Subject) {
		return nil
	}
	if q.Status == "entered-in-error" {
		r.drop(patient.Dropped{Resource: it.ref, Reason: "status entered-in-error"})
		return nil
	}
	cc, err := r.medication(it, q.MedicationCodeableConcept, q.MedicationReference, q.Contained)
	if err != nil || cc == nil && q.MedicationReference != nil {
		return err
	}
	w, err := when(it, "authoredOn", q.AuthoredOn, nil)
	if err != nil {
		return err
	}
	r.readMedication(it, q.Status, q.Intent, cc, w, q.DosageInstruction)
	return nil
}

func (r *reader) readProcedure(it item) error {
	var p Procedure
	if err := decode(it, &p); err != nil {
		return err
	}
	if !r.mine(it, p.Subject) {
		return nil
	}
	var st patient.Status
	switch p.Status {
	case "completed":
		st = patient.StatusDone
	case "preparation", "in-progress":
		st = patient.StatusPlanned
	default:
		r.drop(patient.Dropped{Resource: it.ref, Text: p.Code.label(), Reason: fmt.Sprintf("status %q: only completed, preparation and in-progress procedures are read", p.Status)})
		return nil
	}
	m, coding, ok := r.match(p.Code)
	if !ok {
		r.unmatched(it, p.Code)
		return nil
	}
	f := fact(it, patient.KindProcedure, m, coding, p.Code.label())
	f.Status = st
	if st == patient.StatusDone {
		w, err := when(it, "performed", p.PerformedDateTime, p.PerformedPeriod)
		if err != nil {
			return err
		}
		f.When = w
	} else if as(&f, m, "planned") {
		f.Status = ""
	}
	r.add(f)
	return nil
}

// readServiceRequest reads an order or proposal for a procedure as the
// procedure planned, as a Procedure in preparation is; a completed request
// says nothing a result does not (its Procedure or Observation is read),
// and a revoked one nothing at all.
func (r *reader) readServiceRequest(it item) error {
	var q ServiceRequest
	if err := decode(it, &q); err != nil {
		return err
	}
	if !r.mine(it, q.Subject) {
		return nil
	}
	switch q.Status {
	case "active", "draft", "on-hold":
	default:
		r.drop(patient.Dropped{Resource: it.ref, Text: q.Code.label(), Reason: fmt.Sprintf("status %q: only active, draft and on-hold requests state a planned procedure", q.Status)})
		return nil
	}
	m, coding, ok := r.match(q.Code)
	if !ok {
		r.unmatched(it, q.Code)
		return nil
	}
	f := fact(it, patient.KindProcedure, m, coding, q.Code.label())
	f.Status = patient.StatusPlanned
	if as(&f, m, "planned") {
		f.Status = ""
	}
	// No date: the order's date is not when the procedure is (a planned
	// Procedure has none either).
	r.add(f)
	return nil
}

func (r *reader) readAllergy(it item) error {
	var a AllergyIntolerance
	if err := decode(it, &a); err != nil {
		return err
	}
	if !r.mine(it, a.Patient) {
		return nil
	}
	switch v := statusCode(a.VerificationStatus); v {
	case "entered-in-error", "refuted":
		r.drop(patient.Dropped{Resource: it.ref, Text: a.Code.label(), Reason: "verificationStatus " + v})
		return nil
	}
	switch c := statusCode(a.ClinicalStatus); c {
	case "inactive", "resolved":
		r.drop(patient.Dropped{Resource: it.ref, Text: a.Code.label(), Reason: "clinicalStatus " + c + ": no longer stated"})
		return nil
	}
	m, coding, ok := r.match(a.Code)
	if !ok {
		r.unmatched(it, a.Code)
		return nil
	}
	f := fact(it, patient.KindMedication, m, coding, a.Code.label())
	f.Status = patient.StatusNotTolerated
	switch statusCode(a.VerificationStatus) {
	case "confirmed":
		if f.Certainty == "" { // words that state a doubt keep it
			f.Certainty = patient.Confirmed
		}
	case "unconfirmed", "presumed":
		f.Certainty = patient.Suspected
	}
	if (r.agent == nil || r.agent(f.Concept, f.Text) == "") && as(&f, m, "not-tolerated") {
		f.Kind, f.Status = patient.KindProblem, patient.StatusActive
	}
	w, err := when(it, "onsetDateTime", a.OnsetDateTime, nil)
	if err != nil {
		return err
	}
	f.When = w
	r.add(f)
	return nil
}

// readEncounter reads what a visit was for: each reason code, and each
// reason reference the record does not hold (its display's words; a
// referenced resource the record holds is read on its own), is a finding
// of the patient's, dated by the visit. A visit not yet made ("planned")
// is for a procedure planned: a value set's planned concept stands for a
// procedure given as its reason. A cancelled visit states nothing.
func (r *reader) readEncounter(it item) error {
	var e Encounter
	if err := decode(it, &e); err != nil {
		return err
	}
	if !r.mine(it, e.Subject) {
		return nil
	}
	switch e.Status {
	case "cancelled", "entered-in-error":
		r.drop(patient.Dropped{Resource: it.ref, Reason: fmt.Sprintf("status %q: the visit's reasons are not stated", e.Status)})
		return nil
	}
	w, err := when(it, "period", "", e.Period)
	if err != nil {
		return err
	}
	reasons := make([]*CodeableConcept, 0, len(e.ReasonCode)+len(e.ReasonReference))
	for i := range e.ReasonCode {
		reasons = append(reasons, &e.ReasonCode[i])
	}
	for _, ref := range e.ReasonReference {
		switch {
		case ref.Reference != "" && r.byRef[ref.Reference] != nil:
			// Read as a resource of its own.
		case ref.Display != "":
			reasons = append(reasons, &CodeableConcept{Text: ref.Display})
		default:
			r.drop(patient.Dropped{Resource: it.ref, Text: ref.Reference, Reason: "its reasonReference is not in the record and has no display"})
		}
	}
	if len(reasons) == 0 {
		r.drop(patient.Dropped{Resource: it.ref, Reason: "no reasonCode or reasonReference: the visit states no finding"})
		return nil
	}
	for _, cc := range reasons {
		r.words, r.class = nil, false
		m, coding, ok := r.match(cc)
		if !ok {
			r.unmatched(it, cc)
			continue
		}
		f := fact(it, patient.KindProblem, m, coding, "reason for visit: "+cc.label())
		f.Status, f.When = patient.StatusActive, w
		if m.System == textSystem && r.past != nil && r.past(coding.Display) {
			f.Status = patient.StatusHistory
		}
		if e.Status == "planned" && as(&f, m, "planned") {
			f.Status = ""
		}
		r.add(f)
	}
	return nil
}

// reportStatuses are the statuses of a report one may act on.
var reportStatuses = []string{"final", "amended", "corrected", "appended"}

// readReport reads a DiagnosticReport's conclusion: its words as the text
// reader reads a note (under the report's name, as an Observation's
// valueString), and each conclusion code as a finding of the patient's,
// dated by the report. Its results are Observations, read on their own.
func (r *reader) readReport(it item) error {
	var d DiagnosticReport
	if err := decode(it, &d); err != nil {
		return err
	}
	if !r.mine(it, d.Subject) {
		return nil
	}
	if !contains(reportStatuses, d.Status) {
		r.drop(patient.Dropped{Resource: it.ref, Text: d.Code.label(), Reason: fmt.Sprintf("status %q: only %s reports are read", d.Status, strings.Join(reportStatuses, ", "))})
		return nil
	}
	w, err := when(it, "effective", d.EffectiveDateTime, d.EffectivePeriod)
	if err != nil {
		return err
	}
	if w == nil && d.Issued != "" {
		if w, err = when(it, "issued", d.Issued, nil); err != nil {
			return err
		}
	}
	if strings.TrimSpace(d.Conclusion) != "" {
		if r.narrative != nil {
			r.readNarrative(it, d.Code.label(), d.Conclusion, w)
		} else {
			r.drop(patient.Dropped{Resource: it.ref, Text: d.Conclusion, Reason: "its conclusion is free text, and no text reader was given"})
		}
	}
	for i := range d.ConclusionCode {
		cc := &d.ConclusionCode[i]
		r.words, r.class = nil, false
		m, coding, ok := r.match(cc)
		if !ok {
			r.unmatched(it, cc)
			continue
		}
		f := fact(it, patient.KindProblem, m, coding, cc.label())
		f.Status, f.Certainty, f.When = patient.StatusActive, patient.Confirmed, w
		r.add(f)
	}
	return nil
}

func (r *reader) readFamily(it item) error {
	var h FamilyMemberHistory
	if err := decode(it, &h); err != nil {
		return err
	}
	if !r.mine(it, h.Patient) {
		return nil
	}
	if h.Status == "entered-in-error" {
		r.drop(patient.Dropped{Resource: it.ref, Reason: "status entered-in-error"})
		return nil
	}
	who := h.Relationship.label()
	for i := range h.Condition {
		cc := &h.Condition[i].Code
		m, coding, ok := r.match(cc)
		if !ok {
			r.unmatched(it, cc)
			continue
		}
		f := fact(it, patient.KindProblem, m, coding, strings.TrimSpace(who+": "+cc.label()))
		f.Experiencer = patient.Relative
		r.add(f)
	}
	return nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
