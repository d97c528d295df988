package extract

import (
	"strings"

	"github.com/executablekg/execkg/rules"
)

// Reading is a pack's document reading data compiled once: its section
// headings and their meaning, and its status words. A nil or empty
// Reading reads every finding as stated, unheaded.
type Reading struct {
	sec     *rules.Sections
	cues    map[string]Cues
	planned Cues
}

// NewReading compiles a pack's sections data (nil: none).
func NewReading(sec *rules.Sections) *Reading {
	r := &Reading{sec: sec, cues: map[string]Cues{}}
	if sec == nil {
		return r
	}
	for k, ws := range sec.Cues {
		r.cues[k] = NewCues(ws)
	}
	r.planned = NewCues(sec.PlannedConcepts)
	return r
}

// Sections reads the headed sections of a document.
func (r *Reading) Sections(text string) []Section {
	if r == nil {
		return nil
	}
	return ReadSections(text, r.sec)
}

// Annotate sets what the document's layout and the pack's words say of each
// finding: its section kind (when the extractor gave none), whether it is
// intended rather than present (under a plan heading, or its own words
// schedule it: "booked for", "next week") and whether it is a relative's
// (under a family history heading).
func (r *Reading) Annotate(text string, secs []Section, fs []Finding) {
	if r == nil || r.sec == nil {
		return
	}
	for i := range fs {
		f := &fs[i]
		if f.Section == "" && f.Start >= 0 {
			f.Section = SectionAt(secs, f.Start)
		}
		k := r.sec.Kind(f.Section)
		f.Intended = k != nil && k.Status == rules.SectionIntended || r.Cue(rules.CueIntention, f.Text) != ""
		f.Relative = k != nil && k.Experiencer == rules.SectionRelative
	}
}

// Kind returns the pack's section kind of a finding, or nil.
func (r *Reading) Kind(f Finding) *rules.SectionKind {
	if r == nil {
		return nil
	}
	return r.sec.Kind(f.Section)
}

// Cue returns the first cue of the given kind (rules.CueStopped, …) that
// text states, or "".
func (r *Reading) Cue(kind, text string) string {
	if r == nil {
		return ""
	}
	c, ok := r.cues[kind]
	if !ok {
		return ""
	}
	return c.Find(text)
}

// PlannedConcept: the concept is itself an intention ("planned PCI",
// "candidate for revascularization") and may be read from a plan.
func (r *Reading) PlannedConcept(name string) bool {
	return r != nil && r.planned.Find(name) != ""
}

// PlannedForms returns the names of the pack's intended forms of a concept
// ("planned {concept}" → "planned PCI").
func (r *Reading) PlannedForms(concept string) []string {
	if r == nil || r.sec == nil {
		return nil
	}
	var out []string
	for _, f := range r.sec.PlannedForms {
		out = append(out, strings.Replace(f, rules.FormPlaceholderConcept, concept, 1))
	}
	return out
}

// IntolerantOf returns the drug an intolerance concept names ("statin
// intolerance" → "statin" with the form "{drug} intolerance"), or "".
func (r *Reading) IntolerantOf(concept string) string {
	if r == nil || r.sec == nil {
		return ""
	}
	c := strings.TrimSpace(concept)
	for _, f := range r.sec.IntoleranceForms {
		i := strings.Index(f, rules.FormPlaceholderDrug)
		pre, post := f[:i], f[i+len(rules.FormPlaceholderDrug):]
		if len(c) > len(pre)+len(post) && strings.HasPrefix(c, pre) && strings.HasSuffix(c, post) {
			return c[len(pre) : len(c)-len(post)]
		}
	}
	return ""
}

// IntoleranceForms returns the names of the pack's concepts stating a drug
// is not tolerated or not allowed ("statin" → "statin intolerance").
func (r *Reading) IntoleranceForms(drug string) []string {
	if r == nil || r.sec == nil {
		return nil
	}
	var out []string
	for _, f := range r.sec.IntoleranceForms {
		out = append(out, strings.Replace(f, rules.FormPlaceholderDrug, drug, 1))
	}
	return out
}
