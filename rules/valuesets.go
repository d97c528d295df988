package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/executablekg/execkg/rules/units"
)

// ValueSetsFile is where a pack keeps the codes that coded records (FHIR)
// use for its concepts, relative to its rule directory.
const ValueSetsFile = "meta/valuesets.json"

// ValueSets map the pack's concepts to the codes of coded records: LOINC
// for observations, ICD-10 / ICD-10-CM / SNOMED CT for conditions and
// procedures, RxNorm and ATC for drugs. A reader of coded data names a
// fact by the concept whose value set holds the record's code; a code
// outside every value set is no fact. Every code carries the source it
// was checked in.
type ValueSets struct {
	Version int    `json:"version"`
	Note    string `json:"note,omitempty"`
	// Systems declares the code systems by a short name ("loinc"): their
	// URI as FHIR writes it, and whether codes may be class prefixes.
	Systems map[string]CodeSystem `json:"systems"`
	// Demographics say which concepts a record's birth date and
	// administrative gender give.
	Demographics Demographics `json:"demographics"`
	// Concepts hold one value set per concept of the pack.
	Concepts []ValueSet `json:"concepts"`
	// OnTherapy says which symptoms a record shows persisting on which
	// therapy (OnTherapy).
	OnTherapy []OnTherapy `json:"on_therapy,omitempty"`

	// File is the file name the value sets were read from.
	File string `json:"-"`

	bySystem map[string]string                   // URI → short name
	exact    map[string]map[string]int           // short name → code → index in Concepts
	prefixes map[string][]prefixEntry            // short name → prefixes, longest first
	codeAt   map[string]map[string]string        // short name → code → JSON pointer (for checks)
	also     map[string]map[string][]AlsoConcept // short name → code → the further concepts it states
}

// CodeSystem is one code system a value set may use.
type CodeSystem struct {
	// URI is the system as FHIR writes it (Coding.system).
	URI string `json:"uri"`
	// Name is the system's full name.
	Name string `json:"name"`
	// Prefix allows codes of this system to stand for every code they
	// begin (an ATC class "C07" for every beta-blocking agent).
	Prefix bool `json:"prefix,omitempty"`
	// Licence notes the terms a system's codes are used under.
	Licence string `json:"licence,omitempty"`
	// Source is where the system's codes were checked.
	Source string `json:"source,omitempty"`
	// Text: documents write this system's codes as such (a problem
	// list's "I25.2 Old MI", "CAD (I25.10)"), so the text reader grounds a
	// code of it that a value set lists to that set's concept (and the
	// further concepts a combination code states), the code's words being
	// the mention. Only listed codes are read: a code's shape alone
	// ("T18.0-1", a catalogue reference) names nothing.
	Text bool `json:"text,omitempty"`
}

// Demographics name the concepts demographic fields give.
type Demographics struct {
	// Age is the concept a birth date gives, in Unit at the record's date.
	Age *AgeSet `json:"age,omitempty"`
	// Sex maps administrative gender codes to a concept stated present or
	// absent ("male" states the pack's "female sex" absent).
	Sex []SexCode `json:"sex,omitempty"`
	// SexSystem is the short name of the gender code system.
	SexSystem string `json:"sex_system,omitempty"`
}

// AgeSet is the concept an age is reported as.
type AgeSet struct {
	Concept string `json:"concept"`
	Unit    string `json:"unit"`
	Key     string `json:"-"`
}

// SexCode is one administrative gender code and the fact it states.
type SexCode struct {
	Code    string `json:"code"`
	Concept string `json:"concept"`
	Present bool   `json:"present"`
	Key     string `json:"-"`
}

// ValueSet is the codes of one concept.
type ValueSet struct {
	Concept string `json:"concept"`
	Codes   []Code `json:"codes"`
	// Unit is the unit a measured concept's facts are given in (the unit
	// the pack's rules use); values arrive in the units listed in Units.
	Unit string `json:"unit,omitempty"`
	// Units maps the UCUM codes accepted for this concept to the spelling
	// rules/units knows ("mL/min/{1.73_m2}" → "mL/min/1.73 m2"); a value
	// in a unit not listed is not read.
	Units map[string]string `json:"units,omitempty"`
	// As names the pack concept a record's fact becomes when the record
	// gives it a status or certainty the pack has its own concept for:
	// "suspected" (a provisional diagnosis), "planned" (a procedure in
	// preparation), "not-tolerated" (an allergy or intolerance).
	As map[string]string `json:"as,omitempty"`
	// Source is where the codes of this set were checked, unless a code
	// names its own.
	Source string `json:"source,omitempty"`

	// Key is the concept's key in the pack (filled by Resolve).
	Key string `json:"-"`
	// AsKeys are the keys of As's concepts (filled by Resolve).
	AsKeys map[string]string `json:"-"`
}

// OnTherapy: a coded record has no words for "despite": a symptom's
// Condition recorded as active (HL7 R4 condition-clinical "active": the
// subject is experiencing the symptoms now), with an onset or record date
// at least AfterDays after one of Therapies was begun and while it is
// still taken, states the symptom persisting on that therapy, and so each
// of Concepts. All names are concepts of the pack.
type OnTherapy struct {
	Symptoms  []string `json:"symptoms"`
	Therapies []string `json:"therapies"`
	// AfterDays is the least time on the therapy before a symptom counts
	// as persisting on it (a drug begun days ago has had no trial).
	AfterDays int      `json:"after_days"`
	Concepts  []string `json:"concepts"`
	Source    string   `json:"source"`

	// SymptomKeys, TherapyKeys and Keys are the concepts' pack keys (filled
	// by Resolve).
	SymptomKeys map[string]bool `json:"-"`
	TherapyKeys map[string]bool `json:"-"`
	Keys        []AlsoConcept   `json:"-"`
}

// Code is one code of a value set.
type Code struct {
	// System is the short name of a system in ValueSets.Systems.
	System  string `json:"system"`
	Code    string `json:"code"`
	Display string `json:"display,omitempty"`
	// Prefix marks a class code that stands for every code it begins
	// (only in systems that allow prefixes).
	Prefix bool   `json:"prefix,omitempty"`
	Source string `json:"source,omitempty"`
	// Also names the further concepts a combination code states beside
	// its set's own (ICD-10-CM I25.11, atherosclerotic heart disease of
	// native coronary artery with angina pectoris, states the angina too):
	// a record's fact of the code is a fact of each, with its statuses.
	Also []string `json:"also,omitempty"`
}

// AlsoConcept is a further concept a combination code states.
type AlsoConcept struct {
	Concept string
	Key     string
}

type prefixEntry struct {
	code string
	set  int
}

// ValueSetStatuses are the keys ValueSet.As may use.
var ValueSetStatuses = []string{"suspected", "planned", "not-tolerated"}

// Match is the value set a code falls in.
type Match struct {
	Set *ValueSet
	// System is the short name of the code's system.
	System string
	// Code is the code matched: the record's code, or the class prefix
	// it begins with.
	Code string
	// Prefix is true when the code matched a class prefix.
	Prefix bool
	// Also are the further concepts the matched code states (Code.Also).
	Also []AlsoConcept
}

// LoadValueSetsFS reads dir/meta/valuesets.json; a missing file is no
// value sets, not an error.
func LoadValueSetsFS(fsys fs.FS, dir string) (*ValueSets, error) {
	name := path.Join(dir, ValueSetsFile)
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseValueSets(ValueSetsFile, b)
}

// ParseValueSets decodes value sets strictly: an unknown field is an
// error naming it, so a misspelt key is not silently ignored.
func ParseValueSets(name string, b []byte) (*ValueSets, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var v ValueSets
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))
			return nil, fmt.Errorf("%s: line %d: %v", name, line, err)
		}
		return nil, fmt.Errorf("%s: %v (see rules/packs/ENCODING.md, value sets)", name, err)
	}
	v.File = name
	return &v, nil
}

// Resolve fills every concept's pack key from the pack's concept index
// (rule conditions and definition members, then rule actions) and builds
// the code index. Codes whose system or concept is unknown are left out of
// the index; Check names them.
func (v *ValueSets) Resolve(p *Pack) {
	if v == nil {
		return
	}
	keyOf := packConceptKeys(p)
	v.bySystem = map[string]string{}
	for short, s := range v.Systems {
		v.bySystem[s.URI] = short
	}
	v.exact = map[string]map[string]int{}
	v.prefixes = map[string][]prefixEntry{}
	v.codeAt = map[string]map[string]string{}
	v.also = map[string]map[string][]AlsoConcept{}
	if a := v.Demographics.Age; a != nil {
		a.Key = keyOf[NormalizeName(a.Concept)]
	}
	for i := range v.Demographics.Sex {
		s := &v.Demographics.Sex[i]
		s.Key = keyOf[NormalizeName(s.Concept)]
	}
	for i := range v.Concepts {
		set := &v.Concepts[i]
		set.Key = keyOf[NormalizeName(set.Concept)]
		set.AsKeys = map[string]string{}
		for st, c := range set.As {
			set.AsKeys[st] = keyOf[NormalizeName(c)]
		}
		for j, c := range set.Codes {
			if _, ok := v.Systems[c.System]; !ok || set.Key == "" {
				continue
			}
			if v.codeAt[c.System] == nil {
				v.codeAt[c.System] = map[string]string{}
				v.exact[c.System] = map[string]int{}
			}
			if _, dup := v.codeAt[c.System][c.Code]; dup {
				continue
			}
			v.codeAt[c.System][c.Code] = fmt.Sprintf("/concepts/%d/codes/%d", i, j)
			for _, a := range c.Also {
				if k := keyOf[NormalizeName(a)]; k != "" && k != set.Key {
					if v.also[c.System] == nil {
						v.also[c.System] = map[string][]AlsoConcept{}
					}
					v.also[c.System][c.Code] = append(v.also[c.System][c.Code], AlsoConcept{Concept: a, Key: k})
				}
			}
			if c.Prefix {
				v.prefixes[c.System] = append(v.prefixes[c.System], prefixEntry{code: c.Code, set: i})
			} else {
				v.exact[c.System][c.Code] = i
			}
		}
	}
	for i := range v.OnTherapy {
		t := &v.OnTherapy[i]
		t.SymptomKeys, t.TherapyKeys, t.Keys = map[string]bool{}, map[string]bool{}, nil
		for _, c := range t.Symptoms {
			if k := keyOf[NormalizeName(c)]; k != "" {
				t.SymptomKeys[k] = true
			}
		}
		for _, c := range t.Therapies {
			if k := keyOf[NormalizeName(c)]; k != "" {
				t.TherapyKeys[k] = true
			}
		}
		for _, c := range t.Concepts {
			if k := keyOf[NormalizeName(c)]; k != "" {
				t.Keys = append(t.Keys, AlsoConcept{Concept: c, Key: k})
			}
		}
	}
	for s := range v.prefixes {
		ps := v.prefixes[s]
		sort.SliceStable(ps, func(a, b int) bool { return len(ps[a].code) > len(ps[b].code) })
	}
}

// packConceptKeys maps every normalised concept name of the pack (rule
// conditions, definition members, rule actions) to its key.
func packConceptKeys(p *Pack) map[string]string {
	_, keyOf := p.ConceptIndex()
	out := map[string]string{}
	for n, k := range keyOf {
		out[n] = k
	}
	for _, r := range p.Rules() {
		for _, a := range r.Actions {
			if n := NormalizeName(a.Concept()); out[n] == "" {
				out[n] = ConceptKey(a)
			}
		}
	}
	return out
}

// System returns the short name of a code system URI, or "".
func (v *ValueSets) System(uri string) string {
	if v == nil {
		return ""
	}
	return v.bySystem[uri]
}

// URI returns the URI of a system's short name, or "".
func (v *ValueSets) URI(short string) string {
	if v == nil {
		return ""
	}
	return v.Systems[short].URI
}

// Lookup finds the value set holding a code of a system (given by its
// URI): an exact code first, else the longest class prefix it begins with.
func (v *ValueSets) Lookup(systemURI, code string) (Match, bool) {
	if v == nil || code == "" {
		return Match{}, false
	}
	short := v.bySystem[systemURI]
	if short == "" {
		return Match{}, false
	}
	if i, ok := v.exact[short][code]; ok {
		return Match{Set: &v.Concepts[i], System: short, Code: code, Also: v.also[short][code]}, true
	}
	for _, p := range v.prefixes[short] {
		if strings.HasPrefix(code, p.code) {
			return Match{Set: &v.Concepts[p.set], System: short, Code: p.code, Prefix: true, Also: v.also[short][p.code]}, true
		}
	}
	return Match{}, false
}

// ByKey returns the value set of the pack concept with key, or nil.
func (v *ValueSets) ByKey(key string) *ValueSet {
	if v == nil || key == "" {
		return nil
	}
	for i := range v.Concepts {
		if v.Concepts[i].Key == key {
			return &v.Concepts[i]
		}
	}
	return nil
}

// SearchTokens lists the exact codes of the given systems (short names;
// all systems when none is given) as FHIR search tokens ("uri|code"),
// sorted: a CDS Hooks prefetch template or a FHIR search can ask for
// just the records the pack reads. Class prefixes are left out: a FHIR
// token search matches whole codes only.
func (v *ValueSets) SearchTokens(systems ...string) []string {
	if v == nil {
		return nil
	}
	want := map[string]bool{}
	for _, s := range systems {
		want[s] = true
	}
	seen := map[string]bool{}
	var out []string
	for _, set := range v.Concepts {
		if set.Key == "" {
			continue
		}
		for _, c := range set.Codes {
			sys, ok := v.Systems[c.System]
			if !ok || c.Prefix || len(want) > 0 && !want[c.System] {
				continue
			}
			t := sys.URI + "|" + c.Code
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Sex returns the fact an administrative gender code states.
func (v *ValueSets) Sex(code string) (SexCode, bool) {
	if v == nil {
		return SexCode{}, false
	}
	for _, s := range v.Demographics.Sex {
		if s.Code == code && s.Key != "" {
			return s, true
		}
	}
	return SexCode{}, false
}

// Check reports every problem of the value sets against the pack, each
// located by JSON pointer: an unknown code system, a concept that is not
// the pack's, a code given to two concepts, a prefix where the system
// allows none, a unit that cannot be converted to the concept's unit, a
// code without a source.
func (v *ValueSets) Check(p *Pack) Diagnostics {
	if v == nil {
		return nil
	}
	var ds Diagnostics
	add := func(ptr, msg, fix string) {
		ds = append(ds, &Diagnostic{Code: CodeValueSets, File: ValueSetsFile, Row: -1, Rule: -1, Pointer: ptr, Message: msg, Fix: fix})
	}
	if v.Version != 1 {
		add("/version", fmt.Sprintf("version %d; this reader knows version 1", v.Version), `set "version": 1`)
	}
	keyOf := packConceptKeys(p)
	known := func(ptr, name string) {
		if keyOf[NormalizeName(name)] == "" {
			add(ptr, fmt.Sprintf("%q is not a concept of the pack", name),
				"name the concept exactly as a table's entity_standardized_candidate or a definition in meta/hierarchy.json, or remove the entry")
		}
	}
	shorts := make([]string, 0, len(v.Systems))
	for s := range v.Systems {
		shorts = append(shorts, s)
	}
	sort.Strings(shorts)
	uris := map[string]string{}
	for _, s := range shorts {
		sys := v.Systems[s]
		ptr := "/systems/" + s
		if sys.URI == "" {
			add(ptr+"/uri", fmt.Sprintf("system %q has no uri", s), "give the system's URI as FHIR Coding.system writes it")
		} else if prev, dup := uris[sys.URI]; dup {
			add(ptr+"/uri", fmt.Sprintf("systems %q and %q share the uri %s", prev, s, sys.URI), "declare each code system once")
		} else {
			uris[sys.URI] = s
		}
	}
	if a := v.Demographics.Age; a != nil {
		known("/demographics/age/concept", a.Concept)
		if !units.Known(a.Unit) {
			add("/demographics/age/unit", fmt.Sprintf("unit %q is not known to rules/units", a.Unit), `use the unit the pack's age conditions use ("years")`)
		}
	}
	if len(v.Demographics.Sex) > 0 {
		if _, ok := v.Systems[v.Demographics.SexSystem]; !ok {
			add("/demographics/sex_system", fmt.Sprintf("sex_system %q is not declared in systems", v.Demographics.SexSystem), "declare the administrative gender system and name it here")
		}
	}
	seenSex := map[string]bool{}
	for i, s := range v.Demographics.Sex {
		ptr := fmt.Sprintf("/demographics/sex/%d", i)
		known(ptr+"/concept", s.Concept)
		if seenSex[s.Code] {
			add(ptr+"/code", fmt.Sprintf("gender code %q is listed twice", s.Code), "list each gender code once")
		}
		seenSex[s.Code] = true
	}
	owner := map[string]string{} // system|code → concept
	seenConcept := map[string]int{}
	for i, set := range v.Concepts {
		ptr := fmt.Sprintf("/concepts/%d", i)
		known(ptr+"/concept", set.Concept)
		n := NormalizeName(set.Concept)
		if j, dup := seenConcept[n]; dup {
			add(ptr+"/concept", fmt.Sprintf("concept %q already has a value set at /concepts/%d", set.Concept, j), "merge the two entries")
		}
		seenConcept[n] = i
		if len(set.Codes) == 0 {
			add(ptr+"/codes", fmt.Sprintf("value set of %q holds no code", set.Concept), "add a verified code or remove the entry")
		}
		for j, c := range set.Codes {
			cp := fmt.Sprintf("%s/codes/%d", ptr, j)
			sys, ok := v.Systems[c.System]
			if !ok {
				add(cp+"/system", fmt.Sprintf("code system %q is not declared in systems", c.System), "declare it under \"systems\" or use one of "+strings.Join(shorts, ", "))
				continue
			}
			if strings.TrimSpace(c.Code) == "" || c.Code != strings.TrimSpace(c.Code) {
				add(cp+"/code", fmt.Sprintf("code %q is empty or has surrounding spaces", c.Code), "write the code as the system prints it")
			}
			if c.Prefix && !sys.Prefix {
				add(cp+"/prefix", fmt.Sprintf("system %q allows no class prefixes", c.System), "list the individual codes, or mark the system prefix: true if its codes are hierarchical")
			}
			if c.Source == "" && set.Source == "" && sys.Source == "" {
				add(cp+"/source", fmt.Sprintf("code %s|%s of %q names no source", c.System, c.Code, set.Concept), "record where the code was checked (per code, per value set or per system)")
			}
			k := c.System + "|" + c.Code
			if prev, dup := owner[k]; dup && prev != n {
				add(cp, fmt.Sprintf("code %s is given to %q and to %q", k, prev, set.Concept), "a code names one concept; keep it in the value set it means")
			} else if dup {
				add(cp, fmt.Sprintf("code %s is listed twice for %q", k, set.Concept), "remove the repeat")
			}
			owner[k] = n
			for a, name := range c.Also {
				known(fmt.Sprintf("%s/also/%d", cp, a), name)
				if NormalizeName(name) == n {
					add(fmt.Sprintf("%s/also/%d", cp, a), fmt.Sprintf("code %s names %q as its value set's concept and again in also", k, name), "list in also only the further concepts the code states")
				}
			}
		}
		if set.Unit != "" && !units.Known(set.Unit) {
			add(ptr+"/unit", fmt.Sprintf("unit %q is not known to rules/units", set.Unit), "use the unit the pack's rules use for the concept")
		}
		if len(set.Units) > 0 && set.Unit == "" {
			add(ptr+"/unit", fmt.Sprintf("value set of %q lists units but no unit to convert to", set.Concept), "set \"unit\" to the unit the pack's rules use")
		}
		ucum := make([]string, 0, len(set.Units))
		for u := range set.Units {
			ucum = append(ucum, u)
		}
		sort.Strings(ucum)
		for _, u := range ucum {
			spelt := set.Units[u]
			up := ptr + "/units/" + pointerToken(u)
			if !units.Known(spelt) {
				add(up, fmt.Sprintf("unit %q (for UCUM %q) is not known to rules/units", spelt, u), "write the spelling rules/units knows, or add the spelling there")
				continue
			}
			if set.Unit != "" {
				if _, err := units.Convert(1, spelt, set.Unit, set.Concept); err != nil {
					add(up, fmt.Sprintf("UCUM %q cannot be converted to %s for %q: %v", u, set.Unit, set.Concept, err), "remove the unit, or add its conversion to rules/units")
				}
			}
		}
		as := make([]string, 0, len(set.As))
		for st := range set.As {
			as = append(as, st)
		}
		sort.Strings(as)
		for _, st := range as {
			if !containsString(ValueSetStatuses, st) {
				add(ptr+"/as/"+st, fmt.Sprintf("status %q is not one of %s", st, strings.Join(ValueSetStatuses, ", ")), "use one of the listed statuses")
			}
			known(ptr+"/as/"+st, set.As[st])
		}
	}
	for i, t := range v.OnTherapy {
		ptr := fmt.Sprintf("/on_therapy/%d", i)
		if len(t.Symptoms) == 0 || len(t.Therapies) == 0 || len(t.Concepts) == 0 || strings.TrimSpace(t.Source) == "" {
			add(ptr, "an on_therapy entry needs symptoms, therapies, concepts and source", "name the symptom and therapy concepts, the concepts they state together, and where the reading was checked")
		}
		if t.AfterDays < 0 {
			add(ptr+"/after_days", fmt.Sprintf("after_days %d is negative", t.AfterDays), "give the least days on the therapy, 0 or more")
		}
		for field, names := range map[string][]string{"symptoms": t.Symptoms, "therapies": t.Therapies, "concepts": t.Concepts} {
			for j, c := range names {
				known(fmt.Sprintf("%s/%s/%d", ptr, field, j), c)
			}
		}
	}
	ds.Sort()
	return ds
}

// pointerToken escapes a key for a JSON pointer (RFC 6901): "mg/dL" is
// "mg~1dL".
func pointerToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// CodeSystemCoverage counts one code system's value sets.
type CodeSystemCoverage struct {
	Name string `json:"name"`
	// Codes counts the system's codes (class prefixes included).
	Codes int `json:"codes"`
	// Prefixes counts the class prefixes among them.
	Prefixes int `json:"prefixes,omitempty"`
	// Concepts counts the concepts with at least one code of the system.
	Concepts int `json:"concepts"`
	// InputConcepts counts those among the concepts rules test.
	InputConcepts int `json:"input_concepts"`
}

// Coverage counts codes and concepts per code system, and the concepts
// rules test that have a code of any system.
func (v *ValueSets) Coverage(p *Pack) (bySystem map[string]CodeSystemCoverage, codedInputConcepts int) {
	bySystem = map[string]CodeSystemCoverage{}
	if v == nil {
		return bySystem, 0
	}
	_, condKeys := p.ConditionIndex()
	input := map[string]bool{}
	for n := range condKeys {
		input[n] = true
	}
	coded := map[string]bool{}
	for _, set := range v.Concepts {
		n := NormalizeName(set.Concept)
		seen := map[string]bool{}
		for _, c := range set.Codes {
			sys, ok := v.Systems[c.System]
			if !ok {
				continue
			}
			cov := bySystem[c.System]
			cov.Name = sys.Name
			cov.Codes++
			if c.Prefix {
				cov.Prefixes++
			}
			if !seen[c.System] {
				seen[c.System] = true
				cov.Concepts++
				if input[n] {
					cov.InputConcepts++
				}
			}
			bySystem[c.System] = cov
		}
		if input[n] && len(seen) > 0 {
			coded[n] = true
		}
	}
	return bySystem, len(coded)
}

// LookupText finds the value set of a code written in a document's text
// (a problem list's "I25.2"): the systems marked text are tried, in the
// order of their keys; an exact code of any of them beats a class prefix,
// a longer prefix a shorter one.
func (v *ValueSets) LookupText(code string) (Match, bool) {
	if v == nil || code == "" {
		return Match{}, false
	}
	shorts := make([]string, 0, len(v.Systems))
	for short, s := range v.Systems {
		if s.Text {
			shorts = append(shorts, short)
		}
	}
	sort.Strings(shorts)
	var best Match
	found := false
	for _, short := range shorts {
		m, ok := v.Lookup(v.Systems[short].URI, code)
		if !ok {
			continue
		}
		if !found || best.Prefix && !m.Prefix || best.Prefix && m.Prefix && len(m.Code) > len(best.Code) {
			best, found = m, true
		}
	}
	return best, found
}
