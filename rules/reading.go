package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
)

// ReadingFile is where a pack keeps the words its evidence readers read
// with, relative to its rule directory.
const ReadingFile = "meta/reading.json"

// Reading is the pack's vocabulary for the engine's evidence readers: the
// clinical words, concept names and cut-offs the readers read a case with.
// The engine's readers hold only the shape of what they read (a symptom,
// a link word, a therapy in one sentence); every word is here.
//
// A word list is matched case-insensitively at word boundaries; a word
// ending in "*" also matches any word it begins ("discontinu*" matches
// "discontinued").
type Reading struct {
	Note string `json:"note,omitempty"`
	// Ungrounded: finding shapes that ground to no concept.
	Ungrounded []UngroundedValue `json:"ungrounded,omitempty"`
	// NotTaken: cues of a sentence that stops, plans, considers or
	// refuses a drug rather than stating it is taken.
	NotTaken *CueList `json:"not_taken,omitempty"`
	// Stopped: cues of a medication finding whose own words say the drug
	// was stopped.
	Stopped *CueList `json:"stopped,omitempty"`
	// StoppedFor: words naming an adverse effect ("cough", "hypotension",
	// "side effects"): after a Stopped cue in a drug's own list item
	// ("ramipril stopped - cough", "sacubitril/valsartan stopped due to
	// symptomatic hypotension") they say the drug was stopped because it
	// was not tolerated.
	StoppedFor *CueList `json:"stopped_for,omitempty"`
	// StopOrders: words opening a finding that order a drug stopped now
	// ("STOP ISMN" under "Recommend:"): the drug is stopped as of the
	// document, not a plan that states nothing.
	StopOrders *CueList `json:"stop_orders,omitempty"`
	// CurrentOrders: words opening a finding that keep or adjust a drug
	// the patient takes ("continue aspirin", "remain on bisoprolol",
	// "reduce bisoprolol to 2.5 mg"): the drug is taken now, under a
	// plan heading too.
	CurrentOrders *CueList `json:"current_orders,omitempty"`
	// UpTitrated: words of a medication item saying its dose was raised
	// now ("Atorvastatin 80 mg - INCREASED from 40 mg"; "40 -> 80", a
	// rising arrow, is notation the engine reads itself): the new dose is
	// ordered, not yet taken, so what the pack names by that dose
	// ("atorvastatin 80": a maximum tolerated statin) is the plan's
	// reading, as an order to increase is.
	UpTitrated *CueList `json:"up_titrated,omitempty"`
	// BegunNow: words of a medication finding saying the document begins
	// the drug now ("ezetimibe 10 mg added today", "Bisoprolol 2.5 mg
	// (NEW)", "Adding ezetimibe today"): taken from now on, but no course
	// yet whose result a row can judge (rules.Window.Course).
	BegunNow *BegunCues `json:"begun_now,omitempty"`
	// Switched: a done change of drug ("switched from clopidogrel to
	// ticagrelor"): see SwitchCues.
	Switched *SwitchCues `json:"switched,omitempty"`
	// Past: cues of words that state a condition of the past ("history
	// of", "resolved"): the fact's status is history, which counts as
	// present only for concepts not held current-only (hierarchy.json
	// current_only).
	Past *PastCues `json:"past,omitempty"`
	// Now: cues that date a finding to the document's date ("now BMI
	// 29"), so a value stated with them supersedes an earlier dated one.
	Now *NowCues `json:"now,omitempty"`
	// Plausible: the range a measured concept's value can take; a value
	// outside it is a misreading (see Plausible).
	Plausible []Plausible `json:"plausible,omitempty"`
	// References: the words that write a target or a reference range
	// right before a value ("target <1.4", "ref <3.0"): such a value is
	// no value of the patient (see ReferenceCues).
	References *ReferenceCues `json:"references,omitempty"`
	// Refractory: symptoms stated to persist despite therapy.
	Refractory *Refractory `json:"refractory,omitempty"`
	// Recency: when a dated event counts as its "recent" form.
	Recency *Recency `json:"recency,omitempty"`
	// Demographics: finding shapes that name a demographic concept.
	Demographics []Demographic `json:"demographics,omitempty"`
	// AnatomyChecks: which step (v) checks a stenosis report satisfies.
	AnatomyChecks *AnatomyChecks `json:"anatomy_checks,omitempty"`
	// Senses: abbreviations whose other sense a grade beside them chooses.
	Senses []Sense `json:"senses,omitempty"`
	// RiskScores: scores that predict the risk of a procedure.
	RiskScores *RiskScores `json:"risk_scores,omitempty"`
	// Sites: anatomical site words that tell one organ's disease from
	// another's ("peripheral artery disease" is no coronary disease).
	Sites []Site `json:"sites,omitempty"`
	// Counts: counts out of a total that a report gives for a measured
	// concept ("new hypokinesia in 4/16 segments").
	Counts *Counts `json:"counts,omitempty"`
	// Falls: concepts a measure's fall states ("LVEF 30% (40% in 2021)").
	Falls []Fall `json:"falls,omitempty"`
	// GlossedStates: states of the person that a parenthesis after
	// another thing's words says of that thing ("ECG (symptom-free)").
	GlossedStates *GlossedStates `json:"glossed_states,omitempty"`
}

// GlossedStates are concepts that describe the person as a whole
// ("asymptomatic individual") which, written inside a parenthesis right
// after another thing's words on its line ("ECG 12/01 (in clinic,
// symptom-free)", "one run of SVT (asymptomatic)"), describe that thing:
// the state at the recording, the kind of the event. A parenthesis after
// words that name the person (Persons: "Mr A (asymptomatic)", "58M
// (asymptomatic)") still speaks of the patient.
type GlossedStates struct {
	Why      string   `json:"why"`
	Concepts []string `json:"concepts"`
	Persons  []string `json:"persons"`
}

// Fall is a concept (Concept: "deterioration of left ventricular systolic
// function") that a fall of a measure (Measure) by at least By of its Unit
// states: the current value with a higher earlier one beside it (in a
// parenthesis after it, across a trend arrow) or dated before it.
type Fall struct {
	Why     string  `json:"why"`
	Concept string  `json:"concept"`
	Measure string  `json:"measure"`
	By      float64 `json:"by"`
	Unit    string  `json:"unit"`
}

// Counts reads a count out of a total ("3/16 segments", "(4 of 17
// segments)", "= 3/16") as the value of a counted concept: Totals are the
// totals a count is out of, Nouns what is counted. The count must follow
// a total's noun, stand alone in a parenthesis or after "=". Which
// concept it counts is the first of Measures whose words the count's
// sentence states and whose context groups each have a word in the
// sentence, its line's label or its item's first line, or the document's
// title (its first two lines), looked for in that order.
type Counts struct {
	Why    string   `json:"why"`
	Totals []int    `json:"totals"`
	Nouns  []string `json:"nouns"`
	// Adjacent: words between a count and what it counts that make it a
	// count without a total ("3 contiguous segments", "(2 adjacent)").
	Adjacent []string       `json:"adjacent,omitempty"`
	Measures []CountMeasure `json:"measures"`
}

// CountMeasure is one counted concept: Words (one in the count's
// sentence) and Context (every group with one word in the scope).
type CountMeasure struct {
	Concept string     `json:"concept"`
	Words   []string   `json:"words"`
	Context [][]string `json:"context,omitempty"`
}

// Site is an organ's site words (Words: "coronary") and the words of
// other sites (Others: "carotid", "peripheral"). A mention that states an
// other site's word names no concept of this site (one whose name holds
// one of Words) unless it states whole a name of the concept that holds a
// word of the site, or that holds the other site's word itself: the
// two-thirds cover allowance must never drop the organ.
type Site struct {
	Why    string   `json:"why"`
	Words  []string `json:"words"`
	Others []string `json:"others"`
}

// RiskScores are measured concepts that state the predicted risk of a
// procedure ("STS PROM (CABG): 1.1 %"): a procedure named in the same
// finding is what the score is computed for, neither done nor planned.
type RiskScores struct {
	Why    string   `json:"why"`
	Scores []string `json:"scores"`
}

// Sense is an abbreviation that names Not in most text but, with a grade
// beside it (one of Grades right after it, past any of Between, or after
// one of Between right before it: "CCS class III", "CCS angina class
// II", "class II (CCS)"), names a grading scale instead: there the
// abbreviation states none of Not.
type Sense struct {
	Why          string   `json:"why"`
	Abbreviation []string `json:"abbreviation"`
	Not          []string `json:"not"`
	Between      []string `json:"between,omitempty"`
	Grades       []string `json:"grades"`
	// Before: words right before the abbreviation that choose the other
	// sense as well ("left ICA" is the internal carotid artery).
	Before []string `json:"before,omitempty"`
	// Exact: the abbreviation names the other sense only written in the
	// case given ("3 mi" is miles, "2 MI" may count infarctions); the
	// grade and before words still match in any case.
	Exact bool `json:"exact,omitempty"`
}

// UngroundedValue is a measurement the pack has no concept for and must
// not be read as another one ("creatinine 180" is not an eGFR): a finding
// that begins with one of Words (after an optional qualifier word and a
// glued prefix) and a number grounds to nothing.
type UngroundedValue struct {
	Name       string   `json:"name"`
	Why        string   `json:"why"`
	Qualifiers []string `json:"qualifiers,omitempty"` // words before it, with a space ("serum")
	Glued      []string `json:"glued,omitempty"`      // prefixes written onto it ("s-")
	Words      []string `json:"words"`
	// Term: no number follows; the glued prefix makes the word another
	// term ("low-MI imaging" is the ultrasound mechanical index, not an
	// infarction), so it is required.
	Term bool `json:"term,omitempty"`
	// Values: when given, only these values make the shape ground to
	// nothing ("N", the non-diagnostic grade of a scale, or "0"); a
	// number otherwise.
	Values []string `json:"values,omitempty"`
}

// Plausible is the range [Min, Max], in Unit, that a value of a measured
// concept can take in a living patient. A value outside it is no fact: it
// is dropped with the reason, on every input path (text, FHIR codes,
// FHIR words). FractionInPercent: a value below 1 stated in percent is
// a fraction written with a percent sign ("LVEF 0.55 %") and reads as
// its percent (55 %) when that lies inside the range. OtherSetting:
// words in the value's own finding saying it was measured in another
// setting than the one the concept means ("peak heart rate 150 during
// the exercise test" is no resting rate): the value is dropped with the
// reason, unless the finding also names the concept's own setting
// (SameSetting: "resting HR 62, peak 150" is left as read).
type Plausible struct {
	Concept           string   `json:"concept"`
	Min               float64  `json:"min"`
	Max               float64  `json:"max"`
	Unit              string   `json:"unit"`
	FractionInPercent bool     `json:"fraction_in_percent,omitempty"`
	OtherSetting      []string `json:"other_setting,omitempty"`
	SameSetting       []string `json:"same_setting,omitempty"`
	// Scales are the ranges of the same value on other scales no factor
	// converts to Unit (HbA1c in % beside mmol/mol): a value in a scale's
	// unit is judged by its range, and a number written without a unit
	// takes the one unit whose range holds it ("HbA1c 52" is mmol/mol,
	// "HbA1c 6.8" is %).
	Scales []PlausibleScale `json:"scales,omitempty"`
	Source string           `json:"source"`
}

// ReferenceCues are the words that, right before a value, make it a
// target, goal or reference range and not the patient's own value
// ("Target LDL-C <1.4 mmol/L", "LDL goal <1.8"). Why says so.
type ReferenceCues struct {
	Why  string   `json:"why"`
	Cues []string `json:"cues"`
}

// PlausibleScale is the range [Min, Max] of a Plausible concept's value
// in another Unit.
type PlausibleScale struct {
	Unit string  `json:"unit"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// PastCues are the words that state a condition of the past. Cues
// precede the condition they date ("history of AF", "previous angina")
// and count only among a finding's first Lead words (0: anywhere), so
// "chest pain similar to previous episodes" is a present pain; After
// cues follow it ("AF ablated in 2019") and count anywhere. NegatedBy,
// right before a cue, makes it a present state's duration ("2-month
// history of chest pain").
type PastCues struct {
	Why       string   `json:"why"`
	Cues      []string `json:"cues"`
	Lead      int      `json:"lead,omitempty"`
	After     []string `json:"after,omitempty"`
	NegatedBy []string `json:"negated_by,omitempty"`
	// Ends are words that end a cue's reach: a cue before them dates
	// only what it precedes ("angina since previous PCI" dates the PCI,
	// "history of MI, now angina" not the angina).
	Ends []string `json:"ends,omitempty"`
	// Drug are further cues that, before a drug, say it was taken once
	// and is not now ("previously on bisoprolol", "was on clopidogrel").
	Drug []string `json:"drug,omitempty"`
	// Present are words that say the state goes on or changes now
	// ("History of angina, ongoing", "previous angina has become more
	// frequent"): the cue is its duration, not its end.
	Present []string `json:"present,omitempty"`
	// Adjacent are the cues that date only a concept named right after
	// them ("remote MI", not "remote monitoring shows AF").
	Adjacent []string `json:"adjacent,omitempty"`
}

// NowCues are the words dating a value to the document's date, and how
// far back a value dated in the case must be for the document's own,
// undated value of the same measure to supersede it.
type NowCues struct {
	CueList
	// UndatedSupersedesDays: an undated value, the report's own, is
	// later than a value dated more than this many days before the
	// document's date ("LVEF 30% in 2019. Echo: LVEF 55%"); 0: never.
	UndatedSupersedesDays int `json:"undated_supersedes_days,omitempty"`
	// ValidFor: how long a dated value of a measure stays the patient's
	// present value; an older one is dropped, traced.
	ValidFor []Validity `json:"valid_for,omitempty"`
	// Earlier are words that state a value as an earlier one of its
	// measure ("baseline LVEF 30%", "pre-op LVEF 35%"): as a value stated
	// of the past, any undated or now value of the measure supersedes it;
	// with no other value it stays the one known.
	Earlier []string `json:"earlier,omitempty"`
	// Later are words opening a later value of the measure named before
	// it ("LVEF was 30%, improved to 50%"): read as that measure's value,
	// and, undated, as the latest one, as a now word's is.
	Later []string `json:"later,omitempty"`
}

// Validity is how many days a dated value of Concept stays current, and why.
type Validity struct {
	Concept string `json:"concept"`
	Days    int    `json:"days"`
	Why     string `json:"why"`
}

// List is the cue list, or nil.
func (n *NowCues) List() *CueList {
	if n == nil {
		return nil
	}
	return &n.CueList
}

// SwitchCues state a done change of drug: in a medication finding, a
// drug named after a cue and before the first To word was stopped, a
// drug named after that word is the one taken now ("changed from
// bisoprolol to nebivolol"; "switched to ticagrelor"). A not-taken cue
// before the switch cue ("will be switched") leaves both as read.
type SwitchCues struct {
	Why  string   `json:"why"`
	Cues []string `json:"cues"`
	To   []string `json:"to"`
	// From: words right after a cue that name the drug stopped when no To
	// word follows; a drug named before the cue is then the one taken now
	// ("ticagrelor 90 mg bd (switched from clopidogrel)").
	From []string `json:"from,omitempty"`
	// Direct: cues whose object, named right after them, is the drug
	// stopped when neither a To nor a From word follows; a drug named
	// before the cue is the one taken now ("amlodipine (replaced
	// diltiazem 2024)").
	Direct []string `json:"direct,omitempty"`
	// Orders: cues that, opening a finding, order the switch now ("switch
	// warfarin to rivaroxaban"): the drug switched from is stopped as a
	// stop order stops it, and the list's reading of it is superseded.
	Orders []string `json:"orders,omitempty"`
}

// CueList is a list of cue words with the reason they are cues.
// BegunCues are the words that begin a drug now: After, in the drug's own
// clause after its name ("added today", "NEW"); Before, right before its
// name with a now word (meta/reading.json now) after it ("Adding ezetimibe
// 10 mg today").
type BegunCues struct {
	Why    string   `json:"why"`
	After  []string `json:"after"`
	Before []string `json:"before,omitempty"`
}

type CueList struct {
	Why  string   `json:"why"`
	Cues []string `json:"cues"`
	// NegatedBy are words that, right before a cue, turn it into its
	// opposite ("do not stop" keeps the drug).
	NegatedBy []string `json:"negated_by,omitempty"`
	// Refers are words that, right after a cue or its inflected form
	// ("stopping", "discontinued"), point back to the drugs named before
	// it in its sentence ("ISMN and GTN ... recommend stopping both").
	Refers []string `json:"refers,omitempty"`
	// NameNext are cues that order a stop only with a name of the drug
	// right after them: an abbreviation with another sense besides
	// ("D/c warfarin" stops it; "D/c on aspirin" discharges on it).
	NameNext []string `json:"name_next,omitempty"`
}

// Refractory is the vocabulary of "<symptom> ... <link> ... <therapy>":
// "angina despite bisoprolol" states symptoms refractory to therapy.
type Refractory struct {
	Source string `json:"source"`
	// Symptoms: groups of symptom words, each with the concepts a stated
	// refractory symptom of the group gives.
	Symptoms []RefractorySymptom `json:"symptoms"`
	// Links join the symptom to the therapy ("despite", "on maximal").
	Links []string `json:"links"`
	// Therapies name the therapy the symptom persists on: medical or
	// antianginal therapy in general words, or an antianginal drug.
	Therapies []string `json:"therapies"`
	// NotTherapies make the therapy something other than antianginal or
	// medical therapy for the symptom ("despite aspirin", "despite PCI").
	NotTherapies []string `json:"not_therapies,omitempty"`
	// Near: bare links ("on") that state the symptom persists on the
	// therapy only when both stand next to them.
	Near *RefractoryNear `json:"near,omitempty"`
	// After: "<therapy> ... <no-benefit words>", the therapy first
	// ("added ISMN, with no real improvement").
	After *RefractoryAfter `json:"after,omitempty"`
	// Before: "<link> <therapy> ... <symptom>", the link and the therapy
	// first ("despite two antianginals she still gets pain").
	Before *RefractoryBefore `json:"before,omitempty"`
	// Equivalents are words of symptoms other than the symptom words
	// (an anginal equivalent: "breathlessness") that may persist despite
	// therapy. The reader does not read them; a mention the grounder
	// reads as a refractory concept must name a symptom word or one of
	// these, or the concept's own wording ("LVEF <=35% despite GDMT"
	// names no symptom).
	Equivalents []string `json:"equivalents,omitempty"`
}

// RefractoryAfter is "<therapy> ... <outcome>" within one sentence, the
// outcome at most 60 characters after the therapy: words saying the
// therapy did not help ("with no improvement", "with little benefit").
// The symptom is the one the therapy treats, so the statement gives the
// Concepts listed, read at the therapy's finding.
type RefractoryAfter struct {
	Why      string   `json:"why"`
	Outcomes []string `json:"outcomes"`
	Concepts []string `json:"concepts"`
}

// RefractoryBefore is "<link> ... <therapy> ... <symptom>" within one
// sentence, the therapy at most 60 characters after the link and the
// symptom at most 80 after the therapy: a sentence that opens with the
// therapy the symptom persists on. Links are the few links that may lead
// ("despite"); the symptom gives its group's concepts, and none where one
// of the near statement's undo words follows it in its sentence.
type RefractoryBefore struct {
	Why   string   `json:"why"`
	Links []string `json:"links"`
}

// RefractoryNear is "<symptom> <bare link> <therapy>" with nothing between
// but spaces, commas or hyphens before the link and at most a few
// characters (a dose word) after it: "angina on bisoprolol" states the
// symptom persists on the drug, "angina, hypertension on amlodipine" does
// not. A bare link says less than "despite", so a near statement gives
// only the symptom group's concepts that Concepts lists, and none where
// one of Undo follows the symptom in its sentence ("… now well controlled").
type RefractoryNear struct {
	Why      string   `json:"why"`
	Links    []string `json:"links"`
	Concepts []string `json:"concepts"`
	Undo     []string `json:"undo,omitempty"`
}

// RefractorySymptom is one group of symptom words and what they give.
type RefractorySymptom struct {
	Words    []string `json:"words"`
	Concepts []string `json:"concepts"`
}

// Recency says when a dated event is its "recent" form.
type Recency struct {
	// WindowDays: how far back an event still counts as recent, and what
	// "recent"/"recently" means in a case without a date.
	WindowDays int    `json:"window_days"`
	Why        string `json:"why"`
	// Prefix makes an event's recent form from its concept name
	// ("recent " + "percutaneous coronary intervention").
	Prefix string `json:"concept_prefix"`
}

// Demographic names a concept a whole finding states by its shape: a
// regular expression (Pattern, matched case-insensitively) or one of
// Words (the whole finding).
type Demographic struct {
	Concept string   `json:"concept"`
	Why     string   `json:"why,omitempty"`
	Pattern string   `json:"pattern,omitempty"`
	Words   []string `json:"words,omitempty"`
	// Only: the shape is all the finding states, so it grounds to this
	// concept alone (a title kept from a patient's name says the sex and
	// nothing a search on its letters would find).
	Only bool `json:"only,omitempty"`
	// After, Before: when given, the shape names the concept only where
	// one of After is written right after the finding (past spaces and a
	// hyphen: "74F", "68 M") or the text right before it ends as Before
	// (a pattern: "Age: 74", "Mrs Jones, 72"); elsewhere a bare number is
	// a value of something else ("Hb 97 (102)", "calcium score 412").
	After  []string `json:"after,omitempty"`
	Before string   `json:"before,omitempty"`
}

// AnatomyChecks: a stenosis report states anatomical significance in its
// numbers, which satisfies the qualifier and absence checks, except for a
// condition whose context has one of KeptFor (functional significance).
type AnatomyChecks struct {
	Why     string   `json:"why"`
	KeptFor []string `json:"kept_for_context"`
}

// LoadReadingFS reads dir/meta/reading.json; a missing file is no reading
// vocabulary (the readers then read nothing), not an error.
func LoadReadingFS(fsys fs.FS, dir string) (*Reading, error) {
	name := path.Join(dir, ReadingFile)
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseReading(name, b)
}

// ParseReading decodes and checks a reading vocabulary; errors name the
// file, the field and how to fix it.
func ParseReading(name string, data []byte) (*Reading, error) {
	var r Reading
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: %w (see the field list in rules/reading.go)", name, err)
	}
	if err := r.check(name); err != nil {
		return nil, err
	}
	return &r, nil
}

func (r *Reading) check(name string) error {
	for i, u := range r.Ungrounded {
		f := fmt.Sprintf("%s: ungrounded[%d]", name, i)
		if strings.TrimSpace(u.Name) == "" || strings.TrimSpace(u.Why) == "" {
			return fmt.Errorf("%s: give name and why (what is not grounded and why)", f)
		}
		for _, l := range []struct {
			field string
			ws    []string
			need  bool
		}{{"qualifiers", u.Qualifiers, false}, {"glued", u.Glued, false}, {"words", u.Words, true}, {"values", u.Values, false}} {
			if err := checkWords(f+"."+l.field, l.ws, l.need || l.field == "glued" && u.Term); err != nil {
				return err
			}
		}
	}
	for i, f := range r.Falls {
		if strings.TrimSpace(f.Why) == "" || strings.TrimSpace(f.Concept) == "" || strings.TrimSpace(f.Measure) == "" || f.By <= 0 || strings.TrimSpace(f.Unit) == "" {
			return fmt.Errorf("%s: falls[%d]: give why, concept, measure, unit and by > 0", name, i)
		}
	}
	if c := r.Counts; c != nil {
		if strings.TrimSpace(c.Why) == "" || len(c.Totals) == 0 || len(c.Measures) == 0 {
			return fmt.Errorf("%s: counts: give why, totals and measures", name)
		}
		if err := checkWords(name+": counts.nouns", c.Nouns, true); err != nil {
			return err
		}
		if err := checkWords(name+": counts.adjacent", c.Adjacent, false); err != nil {
			return err
		}
		for i, m := range c.Measures {
			f := fmt.Sprintf("%s: counts.measures[%d]", name, i)
			if strings.TrimSpace(m.Concept) == "" {
				return fmt.Errorf("%s: give the concept", f)
			}
			if err := checkWords(f+".words", m.Words, true); err != nil {
				return err
			}
			for j, g := range m.Context {
				if err := checkWords(fmt.Sprintf("%s.context[%d]", f, j), g, true); err != nil {
					return err
				}
			}
		}
	}
	if g := r.GlossedStates; g != nil {
		if strings.TrimSpace(g.Why) == "" {
			return fmt.Errorf("%s: glossed_states: give why (what the parenthesis says of the thing before it)", name)
		}
		if err := checkWords(name+": glossed_states.concepts", g.Concepts, true); err != nil {
			return err
		}
		if err := checkWords(name+": glossed_states.persons", g.Persons, true); err != nil {
			return err
		}
	}
	if rs := r.RiskScores; rs != nil {
		if strings.TrimSpace(rs.Why) == "" {
			return fmt.Errorf("%s: risk_scores: give why (what the score says of the procedure)", name)
		}
		if err := checkWords(name+": risk_scores.scores", rs.Scores, true); err != nil {
			return err
		}
	}
	for i, st := range r.Sites {
		f := fmt.Sprintf("%s: sites[%d]", name, i)
		if strings.TrimSpace(st.Why) == "" {
			return fmt.Errorf("%s: give why (which organ the words tell apart)", f)
		}
		if err := checkWords(f+".words", st.Words, true); err != nil {
			return err
		}
		if err := checkWords(f+".others", st.Others, true); err != nil {
			return err
		}
	}
	for i, sn := range r.Senses {
		f := fmt.Sprintf("%s: senses[%d]", name, i)
		if strings.TrimSpace(sn.Why) == "" {
			return fmt.Errorf("%s: give why (which sense the grade chooses)", f)
		}
		for _, l := range []struct {
			field string
			ws    []string
			need  bool
		}{{"abbreviation", sn.Abbreviation, true}, {"not", sn.Not, true}, {"between", sn.Between, false}, {"grades", sn.Grades, len(sn.Before) == 0}, {"before", sn.Before, false}} {
			if err := checkWords(f+"."+l.field, l.ws, l.need); err != nil {
				return err
			}
		}
	}
	for _, c := range []struct {
		field string
		l     *CueList
	}{{"not_taken", r.NotTaken}, {"stopped", r.Stopped}, {"stopped_for", r.StoppedFor}, {"stop_orders", r.StopOrders}, {"current_orders", r.CurrentOrders}, {"now", r.Now.List()}} {
		if c.l == nil {
			continue
		}
		f := name + ": " + c.field
		if strings.TrimSpace(c.l.Why) == "" {
			return fmt.Errorf("%s.why: say what the cues mark", f)
		}
		if err := checkWords(f+".cues", c.l.Cues, true); err != nil {
			return err
		}
		if err := checkWords(f+".negated_by", c.l.NegatedBy, false); err != nil {
			return err
		}
	}
	if bn := r.BegunNow; bn != nil {
		f := name + ": begun_now"
		if strings.TrimSpace(bn.Why) == "" {
			return fmt.Errorf("%s.why: say what the cues mark", f)
		}
		if err := checkWords(f+".after", bn.After, true); err != nil {
			return err
		}
		if err := checkWords(f+".before", bn.Before, false); err != nil {
			return err
		}
	}
	if pc := r.Past; pc != nil {
		f := name + ": past"
		if strings.TrimSpace(pc.Why) == "" {
			return fmt.Errorf("%s.why: say what the cues mark", f)
		}
		if pc.Lead < 0 {
			return fmt.Errorf("%s.lead: %d; give the number of leading words a cue must lie in (0: anywhere)", f, pc.Lead)
		}
		for _, l := range []struct {
			field string
			ws    []string
			need  bool
		}{{"cues", pc.Cues, true}, {"after", pc.After, false}, {"negated_by", pc.NegatedBy, false}} {
			if err := checkWords(f+"."+l.field, l.ws, l.need); err != nil {
				return err
			}
		}
	}
	if sw := r.Switched; sw != nil && (strings.TrimSpace(sw.Why) == "" || len(sw.Cues) == 0 || len(sw.To) == 0) {
		return fmt.Errorf("%s: switched: give why, cues and to", name)
	}
	if rc := r.References; rc != nil && (strings.TrimSpace(rc.Why) == "" || len(rc.Cues) == 0) {
		return fmt.Errorf("%s: references: give why and cues", name)
	}
	seenPlausible := map[string]int{}
	for i, pl := range r.Plausible {
		f := fmt.Sprintf("%s: plausible[%d]", name, i)
		if NormalizeName(pl.Concept) == "" || strings.TrimSpace(pl.Unit) == "" || strings.TrimSpace(pl.Source) == "" {
			return fmt.Errorf("%s: give concept, unit and source", f)
		}
		if pl.Min >= pl.Max {
			return fmt.Errorf("%s (%s): min %g must be below max %g", f, pl.Concept, pl.Min, pl.Max)
		}
		if len(pl.SameSetting) > 0 && len(pl.OtherSetting) == 0 {
			return fmt.Errorf("%s (%s): same_setting keeps a value other_setting would drop; give other_setting too", f, pl.Concept)
		}
		for j, sc := range pl.Scales {
			if strings.TrimSpace(sc.Unit) == "" || sc.Min >= sc.Max || sc.Unit == pl.Unit {
				return fmt.Errorf("%s (%s): scales[%d] needs a unit other than %q and min below max", f, pl.Concept, j, pl.Unit)
			}
		}
		if j, dup := seenPlausible[NormalizeName(pl.Concept)]; dup {
			return fmt.Errorf("%s (%s): repeats plausible[%d]; merge the two ranges", f, pl.Concept, j)
		}
		seenPlausible[NormalizeName(pl.Concept)] = i
	}
	if rf := r.Refractory; rf != nil {
		f := name + ": refractory"
		if strings.TrimSpace(rf.Source) == "" {
			return fmt.Errorf("%s.source: say where the reading comes from", f)
		}
		if len(rf.Symptoms) == 0 {
			return fmt.Errorf("%s.symptoms: give at least one group of symptom words", f)
		}
		seen := map[string]string{}
		for i, s := range rf.Symptoms {
			g := fmt.Sprintf("%s.symptoms[%d]", f, i)
			if err := checkWords(g+".words", s.Words, true); err != nil {
				return err
			}
			for j, w := range s.Words {
				if strings.HasSuffix(w, "*") {
					return fmt.Errorf("%s.words[%d] %q: a symptom word must be whole (it picks the group); drop the '*'", g, j, w)
				}
				if at, ok := seen[strings.ToLower(w)]; ok {
					return fmt.Errorf("%s.words[%d] %q: already in %s; a word belongs to one group", g, j, w, at)
				}
				seen[strings.ToLower(w)] = g
			}
			if err := checkWords(g+".concepts", s.Concepts, true); err != nil {
				return err
			}
		}
		if err := checkWords(f+".links", rf.Links, true); err != nil {
			return err
		}
		if err := checkWords(f+".therapies", rf.Therapies, true); err != nil {
			return err
		}
		if err := checkWords(f+".not_therapies", rf.NotTherapies, false); err != nil {
			return err
		}
		if a := rf.After; a != nil {
			if strings.TrimSpace(a.Why) == "" {
				return fmt.Errorf("%s.after.why: say why a therapy that did not help states the symptom persists", f)
			}
			if err := checkWords(f+".after.outcomes", a.Outcomes, true); err != nil {
				return err
			}
			if err := checkWords(f+".after.concepts", a.Concepts, true); err != nil {
				return err
			}
		}
		if b := rf.Before; b != nil {
			if strings.TrimSpace(b.Why) == "" {
				return fmt.Errorf("%s.before.why: say why a link and therapy before the symptom state it persists", f)
			}
			if err := checkWords(f+".before.links", b.Links, true); err != nil {
				return err
			}
		}
		if n := rf.Near; n != nil {
			if strings.TrimSpace(n.Why) == "" {
				return fmt.Errorf("%s.near.why: say why a bare link joins only a symptom and a therapy next to it", f)
			}
			for _, l := range []struct {
				field string
				ws    []string
				need  bool
			}{{"links", n.Links, true}, {"concepts", n.Concepts, true}, {"undo", n.Undo, false}} {
				if err := checkWords(f+".near."+l.field, l.ws, l.need); err != nil {
					return err
				}
			}
		}
	}
	if rc := r.Recency; rc != nil {
		f := name + ": recency"
		if rc.WindowDays <= 0 {
			return fmt.Errorf("%s.window_days: give the recent window in days (a positive number), got %d", f, rc.WindowDays)
		}
		if strings.TrimSpace(rc.Why) == "" {
			return fmt.Errorf("%s.why: say where the window comes from", f)
		}
		if strings.TrimSpace(rc.Prefix) == "" {
			return fmt.Errorf("%s.concept_prefix: give the words that make an event's recent form (\"recent \")", f)
		}
	}
	for i, d := range r.Demographics {
		f := fmt.Sprintf("%s: demographics[%d]", name, i)
		if NormalizeName(d.Concept) == "" {
			return fmt.Errorf("%s.concept: name the pack concept the shape states", f)
		}
		if (d.Pattern == "") == (len(d.Words) == 0) {
			return fmt.Errorf("%s (%s): give either pattern or words, not both", f, d.Concept)
		}
		if d.Pattern != "" {
			if _, err := regexp.Compile(d.Pattern); err != nil {
				return fmt.Errorf("%s.pattern (%s): not a valid Go regular expression: %v", f, d.Concept, err)
			}
		}
		if err := checkWords(f+".words", d.Words, false); err != nil {
			return err
		}
	}
	if a := r.AnatomyChecks; a != nil {
		f := name + ": anatomy_checks"
		if strings.TrimSpace(a.Why) == "" {
			return fmt.Errorf("%s.why: say why a stenosis report satisfies the checks", f)
		}
		if err := checkWords(f+".kept_for_context", a.KeptFor, false); err != nil {
			return err
		}
	}
	return nil
}

// checkWords: no empty word, no duplicate (case-insensitive), and at least
// one when need is set.
func checkWords(field string, ws []string, need bool) error {
	if need && len(ws) == 0 {
		return fmt.Errorf("%s: give at least one word", field)
	}
	seen := map[string]int{}
	for i, w := range ws {
		if strings.TrimSpace(strings.TrimSuffix(w, "*")) == "" || strings.TrimSpace(w) != w {
			return fmt.Errorf("%s[%d] %q: a word must not be empty or start or end with a space", field, i, w)
		}
		if j, ok := seen[strings.ToLower(w)]; ok {
			return fmt.Errorf("%s[%d] %q: repeats [%d] (case does not count); remove one", field, i, w, j)
		}
		seen[strings.ToLower(w)] = i
	}
	return nil
}

// WordsPattern is the regular-expression alternation of a word list,
// longest first so that a longer word wins over its prefix: each word
// literal, a trailing "*" any word characters. It holds no boundaries or
// flags; the caller adds them.
func WordsPattern(ws []string) string {
	sorted := append([]string(nil), ws...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	parts := make([]string, 0, len(sorted))
	for _, w := range sorted {
		if s, ok := strings.CutSuffix(w, "*"); ok {
			parts = append(parts, regexp.QuoteMeta(s)+`\w*`)
		} else {
			parts = append(parts, regexp.QuoteMeta(w))
		}
	}
	return strings.Join(parts, "|")
}

// Words lists every word of the vocabulary (cue, symptom, therapy, link
// and demographic words, "*" dropped), for checks that scan code for the
// pack's vocabulary.
func (r *Reading) Words() []string {
	if r == nil {
		return nil
	}
	var out []string
	add := func(ws ...string) {
		for _, w := range ws {
			out = append(out, strings.TrimSuffix(w, "*"))
		}
	}
	for _, u := range r.Ungrounded {
		add(u.Name)
		add(u.Qualifiers...)
		add(u.Words...)
		add(u.Values...)
	}
	for _, l := range []*CueList{r.NotTaken, r.Stopped, r.StoppedFor, r.StopOrders, r.CurrentOrders, r.Now.List()} {
		if l != nil {
			add(l.Cues...) // NegatedBy are plain English negations, no pack vocabulary
		}
	}
	if bn := r.BegunNow; bn != nil {
		add(bn.After...)
		add(bn.Before...)
	}
	if pc := r.Past; pc != nil {
		add(pc.Cues...)
		add(pc.After...)
		add(pc.Drug...)
		add(pc.Present...)
	}
	if rf := r.Refractory; rf != nil {
		for _, s := range rf.Symptoms {
			add(s.Words...)
			add(s.Concepts...)
		}
		add(rf.Links...)
		add(rf.Therapies...)
		add(rf.NotTherapies...)
		if n := rf.Near; n != nil {
			add(n.Links...)
			add(n.Concepts...)
			add(n.Undo...)
		}
		if a := rf.After; a != nil {
			add(a.Outcomes...)
			add(a.Concepts...)
		}
		if b := rf.Before; b != nil {
			add(b.Links...)
		}
	}
	for _, d := range r.Demographics {
		add(d.Concept)
		add(d.Words...)
	}
	for _, pl := range r.Plausible {
		add(pl.Concept)
	}
	if a := r.AnatomyChecks; a != nil {
		add(a.KeptFor...)
	}
	if rs := r.RiskScores; rs != nil {
		add(rs.Scores...)
	}
	if g := r.GlossedStates; g != nil {
		add(g.Concepts...) // Persons are plain English ("patient", "she")
	}
	for _, f := range r.Falls {
		add(f.Concept, f.Measure)
	}
	if c := r.Counts; c != nil {
		add(c.Nouns...)
		add(c.Adjacent...)
		for _, m := range c.Measures {
			add(m.Concept)
			add(m.Words...)
			for _, g := range m.Context {
				add(g...)
			}
		}
	}
	for _, st := range r.Sites {
		add(st.Words...)
		add(st.Others...)
	}
	for _, sn := range r.Senses {
		add(sn.Abbreviation...)
		add(sn.Not...) // Between and Grades are plain English ("class", "II")
	}
	return out
}

// Check lists the concepts the vocabulary names that the pack does not
// know (neither a rule's concept nor a hierarchy member), each with its
// field: a reader would silently read nothing for them.
func (r *Reading) Check(p *Pack) []string {
	if r == nil {
		return nil
	}
	_, known := p.ConceptIndex()
	var out []string
	bad := func(field, concept string) {
		if _, ok := known[NormalizeName(concept)]; !ok {
			out = append(out, fmt.Sprintf("%s: %s names %q, which is no concept of the pack", ReadingFile, field, concept))
		}
	}
	if rf := r.Refractory; rf != nil {
		for i, s := range rf.Symptoms {
			for j, c := range s.Concepts {
				bad(fmt.Sprintf("refractory.symptoms[%d].concepts[%d]", i, j), c)
			}
		}
		if n := rf.Near; n != nil {
			for j, c := range n.Concepts {
				bad(fmt.Sprintf("refractory.near.concepts[%d]", j), c)
			}
		}
		if a := rf.After; a != nil {
			for j, c := range a.Concepts {
				bad(fmt.Sprintf("refractory.after.concepts[%d]", j), c)
			}
		}
	}
	for i, d := range r.Demographics {
		bad(fmt.Sprintf("demographics[%d].concept", i), d.Concept)
	}
	for i, pl := range r.Plausible {
		bad(fmt.Sprintf("plausible[%d].concept", i), pl.Concept)
	}
	if rs := r.RiskScores; rs != nil {
		for j, c := range rs.Scores {
			bad(fmt.Sprintf("risk_scores.scores[%d]", j), c)
		}
	}
	if g := r.GlossedStates; g != nil {
		for j, c := range g.Concepts {
			bad(fmt.Sprintf("glossed_states.concepts[%d]", j), c)
		}
	}
	for i, sn := range r.Senses {
		for j, c := range sn.Not {
			bad(fmt.Sprintf("senses[%d].not[%d]", i, j), c)
		}
	}
	for i, f := range r.Falls {
		bad(fmt.Sprintf("falls[%d].concept", i), f.Concept)
		bad(fmt.Sprintf("falls[%d].measure", i), f.Measure)
	}
	if c := r.Counts; c != nil {
		for i, m := range c.Measures {
			bad(fmt.Sprintf("counts.measures[%d].concept", i), m.Concept)
		}
	}
	return out
}

// FallList is the reading's falls (none for a nil reading).
func (r *Reading) FallList() []Fall {
	if r == nil {
		return nil
	}
	return r.Falls
}
