package rules

import (
	"fmt"
	"strings"
)

// Anatomy is the pack's vocabulary for per-vessel stenosis statements
// ("<segment> <vessel> <percent>", "<percent> <vessel>", "occluded
// <vessel>") and the facts and counted populations they give. The engine
// reads the statements with these words only; it knows no vessel.
type Anatomy struct {
	Note   string `json:"note,omitempty"`
	Source string `json:"source"`
	// Vessels are the main arteries a stenosis is counted in; a branch
	// counts in its main vessel, with the main vessel's cut-off.
	Vessels []Vessel `json:"vessels"`
	// Segments are the words that place the lesion: before a vessel name
	// ("proximal", "p" as in "pLAD"), or, words of two letters or more,
	// after it ("LCx: mid 85%", "LAD 80% proximal"); a segment is kept for
	// a main-vessel word only, not for a branch.
	Segments []Segment `json:"segments,omitempty"`
	// Nouns may follow the vessel name before the percentage ("LAD
	// stenosis 80%"); NounsBefore may follow the percentage before the
	// vessel ("80% stenosis of the LAD").
	Nouns       []string `json:"nouns_after_vessel,omitempty"`
	NounsBefore []string `json:"nouns_before_vessel,omitempty"`
	// LesionWords describe a lesion and may stand between the percentage
	// and the vessel (at most four): "85% long calcified proximal LAD".
	LesionWords []string `json:"lesion_words,omitempty"`
	// LengthUnit: a lesion length in this unit may stand there too ("38 mm").
	LengthUnit string `json:"lesion_length_unit,omitempty"`
	// OccludedBefore / OccludedAfter state a total occlusion (100 %)
	// before or after the vessel name ("occluded RCA", "RCA CTO").
	OccludedBefore []string `json:"occluded_before,omitempty"`
	OccludedAfter  []string `json:"occluded_after,omitempty"`
	// NotNative: a word of these in the same report makes it something
	// other than a native stenosis (a graft, a stent, a spasm, a flow
	// reserve), which is not read.
	NotNative []string `json:"not_native,omitempty"`
	// Restenosis: words that report a restenosis inside a stent of the
	// native vessel ("<vessel> in-stent restenosis 80%"); in a report
	// holding one, the not-native words that name the stent itself
	// (StentWords) do not set it aside, so it reads as the vessel's
	// stenosis, while any other not-native word (a graft) still does.
	Restenosis []string `json:"restenosis,omitempty"`
	StentWords []string `json:"stent_words,omitempty"`
	// NormalAfter: words after a vessel name that report it free of a
	// significant stenosis ("LMS normal", "LAD: minor irregularities"); such
	// a report is below every cut-off and states the vessel's facts absent.
	NormalAfter []string `json:"normal_after,omitempty"`
	// NotStenosis: words of a vessel finding that is no stenosis ("LMS
	// calcification", "calcified plaque in the LAD", "LAD bridging"): a
	// mention with one of them and no stenosis word (nouns, occlusion
	// words) or percentage grounds to none of the per-vessel stenosis
	// facts below.
	NotStenosis []string `json:"not_stenosis,omitempty"`
	// Grades are severity words that report a stenosis without a number
	// ("moderate disease in the circumflex", "severe LAD stenosis", "RCA:
	// mild disease"); Negations before a grade word state it absent ("no
	// significant disease in the LAD"), and such a report is not read.
	Grades    []AnatomyGrade `json:"grades,omitempty"`
	Negations []string       `json:"negations,omitempty"`
	// Facts are the per-vessel items a report gives.
	Facts []AnatomyFact `json:"facts"`
	// Counts are the populations by number of significantly diseased
	// counted vessels; Derive ones are derived, the others only stop a
	// derivation their stated polarity contradicts.
	Counts []VesselCount `json:"counts,omitempty"`
	// CountBasis: the words that say on what a stated vessel count rests.
	// A count the text states functionally ("functionally one-vessel")
	// supersedes another count its sentence states without such a word
	// ("two-vessel angiographically"): the functionally significant
	// vessels are the diseased ones the rows count.
	CountBasis *CountBasis `json:"count_basis,omitempty"`
}

// CountBasis holds the words of a functional vessel count (Functional)
// and of an anatomical one (Anatomic, for the trace and the pack's
// documentation: an anatomical count is any count without a functional
// word).
type CountBasis struct {
	Functional []string `json:"functional"`
	Anatomic   []string `json:"anatomic,omitempty"`
	Source     string   `json:"source,omitempty"`
}

// Vessel is one main artery: its written names (a trailing "#" stands
// for one digit: "OM#" is OM1, OM2…), its branches, the diameter stenosis
// from which a report is significant, and whether it is counted in the
// vessel-disease populations.
type Vessel struct {
	Name          string   `json:"name"`
	Words         []string `json:"words"`
	Branches      []string `json:"branches,omitempty"`
	SignificantAt float64  `json:"significant_at"`
	Counted       bool     `json:"counted"`
}

// Segment is a named part of a vessel and the words that state it.
type Segment struct {
	Name  string   `json:"name"`
	Words []string `json:"words"`
}

// AnatomyFact: a report in one of Vessels (and in Segment, when set)
// gives Concept. Value: the report's percentage is the concept's value
// (stated, not below-bound reports); otherwise the concept holds when the
// report is significant. AtLeast, when set, is the diameter stenosis
// from which a report gives the concept instead of its vessel's cut-off
// (a stenosis of a segment that need not be a significant one); such a
// fact is read only from main-vessel reports and never stated absent.
type AnatomyFact struct {
	Concept string   `json:"concept"`
	Vessels []string `json:"vessels"`
	Segment string   `json:"segment,omitempty"`
	Value   bool     `json:"value,omitempty"`
	AtLeast float64  `json:"at_least,omitempty"`
}

// AnatomyGrade is a severity band of a graded report: Percent is its
// lower bound, which the vessel's cut-off is compared with (a graded
// report states no value, so no value fact is read from it); Concept,
// when set, is derived for the report too, and with UnlessSignificant only
// when no report of the case reaches its vessel's cut-off (a concept of
// the whole coronary tree, such as non-obstructive disease).
type AnatomyGrade struct {
	Words             []string `json:"words"`
	Percent           float64  `json:"percent"`
	Concept           string   `json:"concept,omitempty"`
	UnlessSignificant bool     `json:"unless_significant,omitempty"`
	Source            string   `json:"source"`
}

// VesselCount is a population by the number of significantly diseased
// counted vessels, Min..Max (a missing Max is open). Label names it in
// traces ("two-vessel disease").
type VesselCount struct {
	Concept string `json:"concept"`
	Min     int    `json:"min"`
	Max     *int   `json:"max,omitempty"`
	Derive  bool   `json:"derive,omitempty"`
	Label   string `json:"label,omitempty"`
}

// Holds reports whether n counted vessels lie in the count's range.
func (c VesselCount) Holds(n int) bool {
	return n >= c.Min && (c.Max == nil || n <= *c.Max)
}

// VesselOf returns the vessel of the given name, or nil.
func (a *Anatomy) VesselOf(name string) *Vessel {
	for i := range a.Vessels {
		if a.Vessels[i].Name == name {
			return &a.Vessels[i]
		}
	}
	return nil
}

// check validates the section; where names the file.
func (a *Anatomy) check(where string) error {
	where += ": anatomy"
	if strings.TrimSpace(a.Source) == "" {
		return fmt.Errorf("%s.source: say where the cut-offs and populations come from", where)
	}
	if len(a.Vessels) == 0 {
		return fmt.Errorf("%s.vessels: give at least one vessel", where)
	}
	words := map[string]string{} // lower-case word → where it is defined
	addWords := func(field string, ws []string, required bool) error {
		if required && len(ws) == 0 {
			return fmt.Errorf("%s: give at least one word", field)
		}
		for j, w := range ws {
			f := fmt.Sprintf("%s[%d]", field, j)
			if strings.TrimSpace(w) == "" || strings.TrimSpace(strings.TrimSuffix(w, "#")) == "" {
				return fmt.Errorf("%s: a word must not be empty", f)
			}
			if strings.Contains(strings.TrimSuffix(w, "#"), "#") {
				return fmt.Errorf("%s (%q): '#' (one digit) may only end a word", f, w)
			}
			if prev, dup := words[strings.ToLower(w)]; dup {
				return fmt.Errorf("%s (%q): the word is already %s; a word may name one vessel only", f, w, prev)
			}
			words[strings.ToLower(w)] = f
		}
		return nil
	}
	names := map[string]bool{}
	counted := 0
	for i, v := range a.Vessels {
		f := fmt.Sprintf("%s.vessels[%d]", where, i)
		if strings.TrimSpace(v.Name) == "" || names[v.Name] {
			return fmt.Errorf("%s.name: give each vessel a distinct name, got %q", f, v.Name)
		}
		names[v.Name] = true
		if v.SignificantAt <= 0 || v.SignificantAt > 100 {
			return fmt.Errorf("%s (%s).significant_at: a diameter stenosis in (0, 100] %%, got %g", f, v.Name, v.SignificantAt)
		}
		if err := addWords(fmt.Sprintf("%s (%s).words", f, v.Name), v.Words, true); err != nil {
			return err
		}
		if err := addWords(fmt.Sprintf("%s (%s).branches", f, v.Name), v.Branches, false); err != nil {
			return err
		}
		if v.Counted {
			counted++
		}
	}
	segs := map[string]bool{}
	for i, s := range a.Segments {
		f := fmt.Sprintf("%s.segments[%d]", where, i)
		if strings.TrimSpace(s.Name) == "" || segs[s.Name] || len(s.Words) == 0 {
			return fmt.Errorf("%s: give each segment a distinct name and at least one word, got %q", f, s.Name)
		}
		segs[s.Name] = true
		for j, w := range s.Words {
			if strings.TrimSpace(w) == "" {
				return fmt.Errorf("%s.words[%d]: a word must not be empty", f, j)
			}
		}
	}
	for field, ws := range map[string][]string{"nouns_after_vessel": a.Nouns, "nouns_before_vessel": a.NounsBefore, "lesion_words": a.LesionWords,
		"occluded_before": a.OccludedBefore, "occluded_after": a.OccludedAfter, "not_native": a.NotNative, "normal_after": a.NormalAfter,
		"restenosis": a.Restenosis, "stent_words": a.StentWords, "not_stenosis": a.NotStenosis} {
		for j, w := range ws {
			if strings.TrimSpace(w) == "" {
				return fmt.Errorf("%s.%s[%d]: a word must not be empty", where, field, j)
			}
		}
	}
	for i, g := range a.Grades {
		f := fmt.Sprintf("%s.grades[%d]", where, i)
		if len(g.Words) == 0 || strings.TrimSpace(g.Source) == "" {
			return fmt.Errorf("%s: give the grade's words and its source (which grading scale)", f)
		}
		if g.Percent <= 0 || g.Percent > 100 {
			return fmt.Errorf("%s.percent: the band's lower bound in (0, 100] %%, got %g", f, g.Percent)
		}
		for j, w := range g.Words {
			if strings.TrimSpace(w) == "" {
				return fmt.Errorf("%s.words[%d]: a word must not be empty", f, j)
			}
		}
	}
	for j, w := range a.Negations {
		if strings.TrimSpace(w) == "" {
			return fmt.Errorf("%s.negations[%d]: a word must not be empty", where, j)
		}
	}
	if len(a.Facts) == 0 {
		return fmt.Errorf("%s.facts: give at least one fact, or the reader derives nothing", where)
	}
	for i, ft := range a.Facts {
		f := fmt.Sprintf("%s.facts[%d] (%s)", where, i, ft.Concept)
		if NormalizeName(ft.Concept) == "" {
			return fmt.Errorf("%s.concept: required", f)
		}
		if len(ft.Vessels) == 0 {
			return fmt.Errorf("%s.vessels: name at least one vessel", f)
		}
		for j, v := range ft.Vessels {
			if !names[v] {
				return fmt.Errorf("%s.vessels[%d]: %q is not one of anatomy.vessels", f, j, v)
			}
		}
		if ft.Segment != "" && !segs[ft.Segment] {
			return fmt.Errorf("%s.segment: %q is not one of anatomy.segments", f, ft.Segment)
		}
		if ft.AtLeast < 0 || ft.AtLeast > 100 || ft.AtLeast > 0 && ft.Value {
			return fmt.Errorf("%s.at_least: give a percentage between 0 and 100, on a fact without value", f)
		}
	}
	for i, c := range a.Counts {
		f := fmt.Sprintf("%s.counts[%d] (%s)", where, i, c.Concept)
		if NormalizeName(c.Concept) == "" {
			return fmt.Errorf("%s.concept: required", f)
		}
		if c.Min < 1 || c.Max != nil && (*c.Max < c.Min || *c.Max > counted) {
			return fmt.Errorf("%s: give min >= 1 and max between min and the number of counted vessels (%d)", f, counted)
		}
		if c.Derive && strings.TrimSpace(c.Label) == "" {
			return fmt.Errorf("%s.label: a derived count needs a label for its trace", f)
		}
	}
	return nil
}

// concepts lists every concept name the section derives or reads, with
// its field, for the check against the pack.
func (a *Anatomy) concepts() [][2]string {
	var out [][2]string
	for i, f := range a.Facts {
		out = append(out, [2]string{fmt.Sprintf("anatomy.facts[%d]", i), f.Concept})
	}
	for i, c := range a.Counts {
		out = append(out, [2]string{fmt.Sprintf("anatomy.counts[%d]", i), c.Concept})
	}
	for i, g := range a.Grades {
		if g.Concept != "" {
			out = append(out, [2]string{fmt.Sprintf("anatomy.grades[%d]", i), g.Concept})
		}
	}
	return out
}
