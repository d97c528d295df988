package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode"
)

// SectionsFile is where a pack keeps how documents are read: the headings
// of their sections, what each section kind means for the facts under it,
// and the words that state a drug's or a finding's status. Relative to the
// pack's rule directory.
const SectionsFile = "meta/sections.json"

// Sections is a pack's document reading data (meta/sections.json).
type Sections struct {
	Comment string `json:"_comment,omitempty"`
	// Kinds are the section kinds with their heading words.
	Kinds []SectionKind `json:"sections"`
	// Cues are the pack's status words, by what they state:
	//   intention       the finding is intended, not present ("booked for")
	//   plan            words that make an item of a mixed section (an
	//                   assessment and plan) a plan ("start", "arrange",
	//                   "refer"): the item's findings are intended
	//   start           words of a plan's item that start a drug now ("start
	//                   bisoprolol", "add ISMN"): the drug is planned, and
	//                   a rule that starts nothing reads it as taken
	//   regimen         words that give a drug its dose, frequency or
	//                   length of course ("od", "bd", "# months"): under
	//                   a plan heading a drug written with its regimen
	//                   ("Plan: aspirin + clopidogrel 6 months") is
	//                   prescribed, as a start word would start it
	//   done            words that state a procedure of an item of a mixed
	//                   section done ("s/p CABG", "prior PCI"): it is read
	//                   as stated; a procedure there with neither these
	//                   words nor a date ("A/P: ... CTCA") is planned
	//   not-tolerated   a drug is not tolerated or not allowed ("allergic")
	//   not-taken       a sentence about a drug that is no statement that
	//                   the patient takes it ("contraindicated", "avoid",
	//                   "consider starting", "the guideline recommends")
	//   alternatives    words that join procedures as options being
	//                   weighed ("PCI or CABG", "CCTA versus stress
	//                   echo"): none of them is done, each is intended
	//   condition       words opening a sentence's condition clause ("if
	//                   significant disease, PCI"): a procedure in the
	//                   clause after it is intended, not done
	//   recommendation  words that recommend or advise a procedure
	//                   ("Recommend CABG", "Heart Team advises PCI"): the
	//                   procedure is intended, not done; the finding's
	//                   other concepts are read as stated
	//   option          words that speak of a procedure as an option, a
	//                   possibility or a comparison ("PCI feasible",
	//                   "CABG and PCI both appropriate", "PCI would need
	//                   long stents"): the procedure is neither done nor
	//                   planned nor stated absent, so it is not read; the
	//                   finding's other concepts are ("complete
	//                   revascularisation achievable by PCI")
	// A cue is a phrase of words; "*" ending a word matches any word it
	// starts ("intoleran*"), "#" matches a number, and a leading "^" ties
	// the cue to the start of the finding.
	Cues map[string][]string `json:"cues"`
	// IntoleranceForms name the pack's concept of a drug not tolerated or
	// not allowed, with {drug} for the drug's concept name
	// ("{drug} intolerance"): a drug under an allergies heading reads as
	// that concept when the pack has it.
	IntoleranceForms []string `json:"intolerance_forms"`
	// PlannedForms name the pack's concept of an intended procedure
	// ("planned {concept}"), and PlannedConcepts the words of a concept
	// name that make it an intention itself ("candidate"): under a plan
	// heading only these are read.
	PlannedForms    []string `json:"planned_forms"`
	PlannedConcepts []string `json:"planned_concepts"`
	// Frame holds the words of a letter's frame, which states nothing
	// about the patient: the titles before a person's name ("Dr", "Mrs")
	// and the salutations and closings ("Dear", "Yours sincerely"). A
	// finding that is only a name or a salutation is not read.
	Frame Frame `json:"frame"`
}

// Frame is the words of a document's frame (see Sections.Frame).
type Frame struct {
	NameTitles  []string `json:"name_titles"`
	Salutations []string `json:"salutations"`
	// TitleRoles: a document's title line (its first line, when more
	// follow, with no colon and no number) names what the document
	// reports ("PCI REPORT"); an undated concept of these condition roles
	// named there was done on the document's date.
	TitleRoles []string `json:"title_roles,omitempty"`
	// TitleNotDone: words of a title line that make it an encounter about
	// a procedure, not its report ("Clinic - post-PCI review"); such a
	// title dates nothing.
	TitleNotDone []string `json:"title_not_done,omitempty"`
	// ReportSections: the section kinds of a procedure report where an
	// undated done procedure is the report's own, done on its date (the
	// body of what was done and found, not history, consent or plan).
	ReportSections []string `json:"report_sections,omitempty"`
	// DoneLabels: words of a dated line label that head what was done on
	// that date ("Operation 09/09/2025: ..."), as a label naming a concept
	// of a title role does ("ICA 14/01/2026: ...").
	DoneLabels []string `json:"done_labels,omitempty"`
	// LabelPast: words leading a finding that place it before a line
	// label's date ("Echo 11/2026: LVEF 55%, prior MI"), besides the
	// reading past cues: the label dates the test, not such a finding.
	LabelPast []string `json:"label_past,omitempty"`
	// DoneWords: words in a procedure's own clause that state it done
	// ("CABG performed 20/11/2026", "underwent PCI"): no plan, whatever
	// its date (eval.Evidence.Done).
	DoneWords []string `json:"done_words,omitempty"`
	// DateLabels: labels of a report's own date line ("Date: 14/11/2026"):
	// the day a procedure report's undated procedure was done.
	DateLabels []string `json:"date_labels,omitempty"`
	// AdmissionLabels and DischargeLabels open the dates of the stay a
	// discharge document reports ("Admitted 16/04/2026   Discharged
	// 17/04/2026", "adm 04/06/2025, d/c 05/06/2025"): an undated
	// procedure it states done, and dates nowhere else, was done in that
	// stay.
	AdmissionLabels []string `json:"admission_labels,omitempty"`
	DischargeLabels []string `json:"discharge_labels,omitempty"`
	// StaySections: the section kinds (sections[].kind) whose undated
	// procedures a discharge document states as the stay's own ("Reason
	// for admission: elective PCI", "Diagnosis: ... treated with PCI");
	// elsewhere a procedure may be one discussed or of another time.
	StaySections []string `json:"stay_sections,omitempty"`
	// StayEvents: the acute events (concept names) such a section dates
	// to the stay as it dates a procedure ("Dx: Anterior STEMI - primary
	// PCI"): the diagnosis of a discharge document is the presentation
	// of the stay it reports, also when an earlier event is dated
	// elsewhere ("NSTEMI (recurrent)").
	StayEvents []string `json:"stay_events,omitempty"`
	// SexTitles: titles that say the patient's sex ("Mrs"), written as
	// the title is (matched case-sensitively, so an abbreviation in
	// capitals is no title). On the patient's own line (opened by one of
	// PatientLabels, "Re:", or holding one of PatientIdentifiers, "DOB")
	// the title stays a finding where the name after it is dropped; the
	// reading data's demographics say what it states.
	SexTitles          []string `json:"sex_titles,omitempty"`
	PatientLabels      []string `json:"patient_labels,omitempty"`
	PatientIdentifiers []string `json:"patient_identifiers,omitempty"`
	// PatientVerbs: words right before a title that make its person the
	// one the letter is about ("Thank you for referring Mrs Jones", "I
	// reviewed Ms Ahmed today"); a title after other words ("her husband
	// Mr Ahmed") may name a relative.
	PatientVerbs []string `json:"patient_verbs,omitempty"`
	// StatusColumns: header cells of a table column that says each row's
	// status ("Medication | Dose | Sig | Status" over "warfarin | -- | --
	// | STOPPED"): the row up to its status cell is one finding, so the
	// status words reach the drug the row names; the header row itself
	// states nothing of the patient.
	StatusColumns []string `json:"status_columns,omitempty"`
	// RowResolved and RowHistory: words opening a status cell that state
	// the row's problem resolved ("Resolved 2019", "inactive") or of the
	// past ("History only"), as a FHIR Condition's clinicalStatus
	// resolved or inactive does: a symptom that holds only while current
	// (hierarchy.json current_only) no longer counts, a prior MI still
	// does. In prose "resolved" is no such cue ("chest pain resolved with
	// rest" is a present angina); a status column says the problem's
	// state.
	RowResolved []string `json:"row_resolved,omitempty"`
	RowHistory  []string `json:"row_history,omitempty"`
}

// SectionKind is one kind of document section.
type SectionKind struct {
	Kind string `json:"kind"`
	// Headings are the heading words that open a section of this kind
	// ("PMH", "past medical history"), matched word by word, ignoring case.
	Headings []string `json:"headings"`
	// Status of what the section states: "" (as stated), "intended"
	// (a plan: what it names is not present yet), "mixed" (an assessment
	// and plan, "A/P:": what it states is as stated, the diagnoses and the
	// current state, except in an item whose words plan, the pack's plan
	// cues before or in the finding, "start bisoprolol", "arrange CTCA":
	// that is intended, as under a plan heading) or "past" (a past
	// history: what it names happened before the present episode).
	Status string `json:"status,omitempty"`
	// KeepsRoles: under an intended section, concepts of these condition
	// roles with no intended form of their own ("planned {concept}") are
	// still read: a test in the plan is one the patient is to undergo,
	// which conditions on the test ("when ICA is indicated") read.
	KeepsRoles []string `json:"keeps_roles,omitempty"`
	// SharedHeadings are headings of another kind that open this kind
	// instead when the rest of their line names no person: no name title
	// of the frame (frame.name_titles) and none of PersonWords. "CC:
	// chest pain, woke her from sleep" opening a US note is its chief
	// complaint; "cc: Dr L Price, GP" closing a letter lists who gets a
	// copy of it.
	SharedHeadings []string `json:"shared_headings,omitempty"`
	PersonWords    []string `json:"person_words,omitempty"`
	// Experiencer: "" (the patient), "relative" (family history: the
	// findings are a relative's) or "other" (someone else's: a meeting's
	// attendees, a letter's addressee).
	Experiencer string `json:"experiencer,omitempty"`
	// Medication is how a drug named in the section stands: "" (as
	// stated), "taking" (a medication list: taken unless the item says it
	// was stopped), "stopped" (a list of drugs stopped or tried before,
	// "Stopped: amlodipine, ISMN", "Tried/stopped: ISMN - headaches": not
	// taken now, whatever the item's own words) or "not-tolerated"
	// (allergies and intolerances).
	Medication string `json:"medication,omitempty"`
}

// Section semantics the engine knows (the words are the pack's).
const (
	SectionIntended        = "intended"
	SectionPast            = "past"
	SectionMixed           = "mixed"
	SectionRelative        = "relative"
	SectionOther           = "other"
	SectionTaking          = "taking"
	SectionNotTolerated    = "not-tolerated"
	SectionStopped         = "stopped"
	CueIntention           = "intention"
	CuePlan                = "plan"
	CueDone                = "done"
	CueStart               = "start"
	CueNotTolerated        = "not-tolerated"
	CueNotTaken            = "not-taken"
	CueAlternatives        = "alternatives"
	CueCondition           = "condition"
	CueRecommendation      = "recommendation"
	CueOption              = "option"
	CueRegimen             = "regimen"
	CueUnchosen            = "unchosen"
	FormPlaceholderDrug    = "{drug}"
	FormPlaceholderConcept = "{concept}"
)

var knownCues = map[string]bool{CueIntention: true, CuePlan: true, CueDone: true, CueStart: true, CueNotTolerated: true, CueNotTaken: true, CueAlternatives: true, CueCondition: true, CueRecommendation: true, CueOption: true, CueRegimen: true, CueUnchosen: true}

// Kind returns the section kind named k, or nil.
func (s *Sections) Kind(k string) *SectionKind {
	if s == nil {
		return nil
	}
	for i := range s.Kinds {
		if s.Kinds[i].Kind == k {
			return &s.Kinds[i]
		}
	}
	return nil
}

// LoadSectionsFS reads dir/meta/sections.json; a missing file is no
// section data (documents are then read without sections), not an error.
func LoadSectionsFS(fsys fs.FS, dir string) (*Sections, error) {
	name := path.Join(dir, SectionsFile)
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseSections(name, b)
}

// ParseSections reads and checks a sections file; errors name the file,
// the entry and the field.
func ParseSections(name string, data []byte) (*Sections, error) {
	var s Sections
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w (see rules/sections.go for the fields)", name, err)
	}
	seenKind := map[string]bool{}
	heading := map[string]string{}
	for i, k := range s.Kinds {
		at := fmt.Sprintf("%s: sections[%d]", name, i)
		if strings.TrimSpace(k.Kind) == "" {
			return nil, fmt.Errorf("%s: kind is empty; name the section kind (\"plan\", \"family history\")", at)
		}
		at += " (" + k.Kind + ")"
		if seenKind[k.Kind] {
			return nil, fmt.Errorf("%s: kind given twice; merge the two entries", at)
		}
		seenKind[k.Kind] = true
		if len(k.Headings) == 0 {
			return nil, fmt.Errorf("%s: headings is empty; give the words that open such a section", at)
		}
		for j, h := range k.Headings {
			w := strings.Join(CueWords(h), " ")
			if w == "" {
				return nil, fmt.Errorf("%s: headings[%d] %q has no word", at, j, h)
			}
			if other, ok := heading[w]; ok {
				return nil, fmt.Errorf("%s: headings[%d] %q already opens section %q; a heading opens one kind", at, j, h, other)
			}
			heading[w] = k.Kind
		}
		if k.Status != "" && k.Status != SectionIntended && k.Status != SectionMixed && k.Status != SectionPast {
			return nil, fmt.Errorf("%s: status %q: use \"\", %q, %q or %q", at, k.Status, SectionIntended, SectionMixed, SectionPast)
		}
		if len(k.KeepsRoles) > 0 && k.Status != SectionIntended {
			return nil, fmt.Errorf("%s: keeps_roles applies to an intended section only; set status %q or drop it", at, SectionIntended)
		}
		for j, r := range k.KeepsRoles {
			if r != RoleProcedure && r != RoleMedication && r != RoleClinicalCondition && r != RoleClinicalParameter {
				return nil, fmt.Errorf("%s: keeps_roles[%d] %q is no condition role; use %s, %s, %s or %s", at, j, r, RoleClinicalCondition, RoleClinicalParameter, RoleMedication, RoleProcedure)
			}
		}
		if len(k.PersonWords) > 0 && len(k.SharedHeadings) == 0 {
			return nil, fmt.Errorf("%s: person_words applies to shared_headings only; add them or drop it", at)
		}
		for j, w := range k.PersonWords {
			if len(CueWords(w)) == 0 {
				return nil, fmt.Errorf("%s: person_words[%d] %q has no word", at, j, w)
			}
		}
		if k.Experiencer != "" && k.Experiencer != SectionRelative && k.Experiencer != SectionOther {
			return nil, fmt.Errorf("%s: experiencer %q: use \"\", %q or %q", at, k.Experiencer, SectionRelative, SectionOther)
		}
		if k.Medication != "" && k.Medication != SectionTaking && k.Medication != SectionStopped && k.Medication != SectionNotTolerated {
			return nil, fmt.Errorf("%s: medication %q: use \"\", %q, %q or %q", at, k.Medication, SectionTaking, SectionStopped, SectionNotTolerated)
		}
	}
	for i, k := range s.Kinds {
		for j, h := range k.SharedHeadings {
			w := strings.Join(CueWords(h), " ")
			if other, ok := heading[w]; !ok || other == k.Kind {
				return nil, fmt.Errorf("%s: sections[%d] (%s): shared_headings[%d] %q is no heading of another kind; shared headings are another kind's", name, i, k.Kind, j, h)
			}
		}
	}
	for c, ws := range s.Cues {
		if !knownCues[c] {
			return nil, fmt.Errorf("%s: cues.%s: unknown cue kind; use %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s or %s (a drug's stopped words are meta/reading.json's)", name, c, CueIntention, CuePlan, CueDone, CueStart, CueNotTolerated, CueNotTaken, CueAlternatives, CueCondition, CueRecommendation, CueOption, CueRegimen, CueUnchosen)
		}
		for j, w := range ws {
			if len(CueWords(strings.TrimPrefix(w, "^"))) == 0 {
				return nil, fmt.Errorf("%s: cues.%s[%d] %q has no word", name, c, j, w)
			}
		}
	}
	for j, w := range append(append([]string{}, s.Frame.NameTitles...), s.Frame.Salutations...) {
		if len(CueWords(w)) == 0 {
			return nil, fmt.Errorf("%s: frame: %q (entry %d) has no word", name, w, j)
		}
	}
	for field, ws := range map[string][]string{"title_roles": s.Frame.TitleRoles, "title_not_done": s.Frame.TitleNotDone, "done_labels": s.Frame.DoneLabels,
		"label_past": s.Frame.LabelPast, "date_labels": s.Frame.DateLabels, "done_words": s.Frame.DoneWords,
		"admission_labels": s.Frame.AdmissionLabels, "discharge_labels": s.Frame.DischargeLabels, "stay_sections": s.Frame.StaySections, "stay_events": s.Frame.StayEvents,
		"sex_titles": s.Frame.SexTitles, "patient_labels": s.Frame.PatientLabels, "patient_identifiers": s.Frame.PatientIdentifiers, "patient_verbs": s.Frame.PatientVerbs, "status_columns": s.Frame.StatusColumns, "row_resolved": s.Frame.RowResolved, "row_history": s.Frame.RowHistory} {
		for j, w := range ws {
			if len(CueWords(w)) == 0 {
				return nil, fmt.Errorf("%s: frame.%s[%d] %q has no word", name, field, j, w)
			}
		}
	}
	for j, w := range s.Frame.SexTitles {
		if !containsFold(s.Frame.NameTitles, w) {
			return nil, fmt.Errorf("%s: frame.sex_titles[%d] %q is not one of frame.name_titles; add it there too", name, j, w)
		}
	}
	for j, f := range s.IntoleranceForms {
		if strings.Count(f, FormPlaceholderDrug) != 1 {
			return nil, fmt.Errorf("%s: intolerance_forms[%d] %q: write %s once where the drug's name goes", name, j, f, FormPlaceholderDrug)
		}
	}
	for j, f := range s.PlannedForms {
		if strings.Count(f, FormPlaceholderConcept) != 1 {
			return nil, fmt.Errorf("%s: planned_forms[%d] %q: write %s once where the concept's name goes", name, j, f, FormPlaceholderConcept)
		}
	}
	return &s, nil
}

// CueWords splits a heading or cue into its lower-case words: runs of
// letters and digits, "*" and "#" kept as part of a word. Document text is
// split the same way, so "Imp/Plan" is the words "imp", "plan".
func CueWords(s string) []string {
	var out []string
	start := -1
	for i, r := range s + " " {
		in := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '*' || r == '#'
		if in && start < 0 {
			start = i
		} else if !in && start >= 0 {
			out = append(out, strings.ToLower(s[start:i]))
			start = -1
		}
	}
	return out
}

func containsFold(xs []string, s string) bool {
	for _, x := range xs {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
