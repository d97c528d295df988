package consistency

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// withCueFile runs load with one cue file replaced.
func withCueFile(t *testing.T, name, content string, load func() error) error {
	t.Helper()
	m := fstest.MapFS{}
	entries, err := fs.ReadDir(embeddedCues, "cues")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := fs.ReadFile(embeddedCues, "cues/"+e.Name())
		if err != nil {
			t.Fatal(err)
		}
		m["cues/"+e.Name()] = &fstest.MapFile{Data: b}
	}
	m["cues/"+name] = &fstest.MapFile{Data: []byte(content)}
	old := cueFiles
	cueFiles = m
	defer func() { cueFiles = old }()
	return load()
}

func TestCueDataErrors(t *testing.T) {
	loadC := func() error { _, err := loadCues(); return err }
	loadS := func() error { _, err := loadScope(); return err }
	cases := []struct {
		file, content string
		load          func() error
		want          []string
	}{
		{"negation.json", `{"lists": "all", "forwrd": ["no"]}`, loadC, []string{"cues/negation.json", `unknown field "forwrd"`, "fix the file"}},
		{"negation.json", `{"lists": "some", "forward": ["no"]}`, loadC, []string{"cues/negation.json", `lists "some"`}},
		{"negation.json", `{"lists": "all", "forward": ["no", "not excluded"]}`, loadC, []string{`"not excluded" is also listed under another kind`}},
		{"negation.json", `{"lists": "all", "forward": ["no"], "list_heads": ["denies"]}`, loadC, []string{`list head "denies" is not a forward cue`}},
		{"negation.json", `{"lists": "all", "forward": ["  "]}`, loadC, []string{`cue "  " has no words`}},
		{"hypothetical.json", `{"lists": "none", "forward": ["if"], "self": ["nkda"]}`, loadC, []string{"self cues are negation cues only"}},
		{"scope.json", `{"window": 0}`, loadS, []string{"cues/scope.json", "window"}},
		{"pseudo.json", `[`, loadC, []string{"cues/pseudo.json"}},
	}
	for _, c := range cases {
		err := withCueFile(t, c.file, c.content, c.load)
		if err == nil {
			t.Errorf("%s %s: no error", c.file, c.content)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %s: error %q lacks %q", c.file, c.content, err, w)
			}
		}
	}
	// The shipped files load.
	if _, err := loadScope(); err != nil {
		t.Fatal(err)
	}
	if _, err := loadCues(); err != nil {
		t.Fatal(err)
	}
}
