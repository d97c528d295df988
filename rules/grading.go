package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// GradingFile is where a pack declares its grading scheme, relative to its
// rule directory.
const GradingFile = "meta/grading.json"

// Grading is a pack's grading scheme: the grades a row's class may take
// (ESC classes I–III, USPSTF grades A–I), each with its meaning, the
// direction it gives the row and the term readers see, and the levels of
// evidence, if the scheme has them.
type Grading struct {
	// Scheme names the scheme ("ESC class of recommendation and level of
	// evidence", "USPSTF grades").
	Scheme string `json:"scheme"`
	Source string `json:"source"`
	// Grades are the values of a row's class, in the scheme's order.
	Grades []Grade `json:"grades"`
	// Levels are the values of a row's level; none means rows carry no
	// level (the scheme folds certainty into the grade).
	Levels []Grade `json:"levels,omitempty"`
}

// Grade is one value of the scheme.
type Grade struct {
	// Value as rows write it ("IIa", "B").
	Value string `json:"value"`
	// Term is what output says ("Class IIa", "Grade B", "I statement").
	Term string `json:"term"`
	// Note follows the term after a dash where the term alone would
	// mislead ("recommend against", "evidence insufficient").
	Note    string `json:"note,omitempty"`
	Meaning string `json:"meaning"`
	// Direction is the direction of every row of this grade (grades only):
	// POSITIVE, NEGATIVE or INSUFFICIENT.
	Direction string `json:"direction,omitempty"`
}

// DefaultGrading is the scheme of a pack that declares none: the ESC class
// of recommendation and level of evidence, which the rule-table format
// (and the reference system's files) were written for.
var DefaultGrading = &Grading{
	Scheme: "ESC class of recommendation and level of evidence",
	Source: "ESC Guidelines: classes of recommendations and levels of evidence (the 2024 CCS guideline's own tables of definitions, summarised in our words)",
	Grades: []Grade{
		{Value: "I", Term: "Class I", Meaning: "evidence and/or general agreement that the treatment or procedure is beneficial, useful, effective: is recommended or indicated", Direction: DirectionPositive},
		{Value: "IIa", Term: "Class IIa", Meaning: "weight of evidence or opinion is in favour of usefulness or efficacy: should be considered", Direction: DirectionPositive},
		{Value: "IIb", Term: "Class IIb", Meaning: "usefulness or efficacy is less well established by evidence or opinion: may be considered", Direction: DirectionPositive},
		{Value: "III", Term: "Class III", Note: "AGAINST", Meaning: "evidence or general agreement that the treatment or procedure is not useful or effective, and in some cases may be harmful: is not recommended", Direction: DirectionNegative},
	},
	Levels: []Grade{
		{Value: "A", Term: "Level A", Meaning: "data derived from multiple randomized clinical trials or meta-analyses"},
		{Value: "B", Term: "Level B", Meaning: "data derived from a single randomized clinical trial or large non-randomized studies"},
		{Value: "C", Term: "Level C", Meaning: "consensus of opinion of the experts and/or small studies, retrospective studies, registries"},
	},
}

// LoadGradingFS reads dir/meta/grading.json; a pack without one has the
// DefaultGrading.
func LoadGradingFS(fsys fs.FS, dir string) (*Grading, error) {
	name := path.Join(dir, GradingFile)
	b, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultGrading, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseGrading(GradingFile, b)
}

// ParseGrading decodes and checks a grading file; errors name the file and
// the field.
func ParseGrading(name string, b []byte) (*Grading, error) {
	var g Grading
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return nil, fmt.Errorf("%s: %v (fields: scheme, source, grades[{value, term, note, meaning, direction}], levels)", name, err)
	}
	if strings.TrimSpace(g.Scheme) == "" || strings.TrimSpace(g.Source) == "" {
		return nil, fmt.Errorf("%s: scheme and source are required (name the scheme and where its definitions come from)", name)
	}
	if len(g.Grades) == 0 {
		return nil, fmt.Errorf("%s: grades is empty; list every value a row's class may take", name)
	}
	check := func(field string, list []Grade, grade bool) error {
		seen := map[string]bool{}
		for i, x := range list {
			at := fmt.Sprintf("%s: %s[%d]", name, field, i)
			switch {
			case strings.TrimSpace(x.Value) == "" || strings.TrimSpace(x.Term) == "" || strings.TrimSpace(x.Meaning) == "":
				return fmt.Errorf("%s: value, term and meaning are required", at)
			case seen[x.Value]:
				return fmt.Errorf("%s: value %q is listed twice", at, x.Value)
			case grade && !contains(Directions, x.Direction):
				return fmt.Errorf("%s (%s): direction %q; use one of %s", at, x.Value, x.Direction, strings.Join(Directions, ", "))
			case !grade && x.Direction != "":
				return fmt.Errorf("%s (%s): a level has no direction; the grade gives it", at, x.Value)
			}
			seen[x.Value] = true
		}
		return nil
	}
	if err := check("grades", g.Grades, true); err != nil {
		return nil, err
	}
	if err := check("levels", g.Levels, false); err != nil {
		return nil, err
	}
	return &g, nil
}

// Grade returns the scheme's entry for a row's class value.
func (g *Grading) Grade(value string) (Grade, bool) {
	for _, x := range g.Grades {
		if x.Value == value {
			return x, true
		}
	}
	return Grade{}, false
}

// Level returns the scheme's entry for a row's level value.
func (g *Grading) Level(value string) (Grade, bool) {
	for _, x := range g.Levels {
		if x.Value == value {
			return x, true
		}
	}
	return Grade{}, false
}

// Values lists the grade values, or the level values, in scheme order.
func (g *Grading) Values(levels bool) []string {
	list := g.Grades
	if levels {
		list = g.Levels
	}
	out := make([]string, len(list))
	for i, x := range list {
		out[i] = x.Value
	}
	return out
}

// Direction is the direction a row of this grade has ("" for a value the
// scheme lacks).
func (g *Grading) Direction(value string) string {
	x, _ := g.Grade(value)
	return x.Direction
}

// Term is the scheme's words for a grade alone: "Class IIa", "Grade D".
// A value the scheme lacks is returned as written.
func (g *Grading) Term(value string) string {
	if x, ok := g.Grade(value); ok {
		return x.Term
	}
	return value
}

// Label is a row's grade as output writes it: "Class III, Level B —
// AGAINST", "Grade B", "Grade D — recommend against", "I statement —
// evidence insufficient".
func (g *Grading) Label(value, level string) string {
	x, ok := g.Grade(value)
	if !ok {
		x = Grade{Term: value}
	}
	s := x.Term
	if l, ok := g.Level(level); ok {
		s += ", " + l.Term
	} else if level != "" {
		s += ", " + level
	}
	if x.Note != "" {
		s += " — " + x.Note
	}
	return s
}
