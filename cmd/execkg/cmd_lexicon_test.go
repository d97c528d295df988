package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/executablekg/execkg/grounding/lexicon"
)

const lexTestdata = "../../grounding/lexicon/testdata"

func TestLexiconImportRF2Command(t *testing.T) {
	out := filepath.Join(t.TempDir(), "lexicon.json")
	var stdout, stderr bytes.Buffer
	rf2 := filepath.Join(lexTestdata, "sct2_Description_Snapshot-en_test.txt")
	// flags after the positional argument, as in the usage line
	code := run([]string{"lexicon", "import-rf2", rf2, "--lexicon", filepath.Join(lexTestdata, "lexicon.json"), "--out", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "added 4 new synonyms to 2 concepts") {
		t.Errorf("summary: %s", stderr.String())
	}
	l, err := lexicon.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Lookup("Auricular fibrillation"); len(got) != 1 || got[0].Concept != "atrial fibrillation" {
		t.Errorf("imported synonym: %v", got)
	}
	// to standard output by default
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"lexicon", "import-rf2", "--lexicon", filepath.Join(lexTestdata, "lexicon.json"), rf2}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "High blood pressure disorder") {
		t.Errorf("stdout mode: exit %d, %s", code, stderr.String())
	}
	// errors name the problem
	stderr.Reset()
	bad := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(bad, []byte("not\tan\trf2\n"), 0o644)
	if code := run([]string{"lexicon", "import-rf2", bad}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "not an RF2 description file") {
		t.Errorf("bad file: exit %d, %s", code, stderr.String())
	}
	if code := run([]string{"lexicon", "import-rf2"}, &stdout, &stderr); code != 2 {
		t.Errorf("missing file argument: exit %d", code)
	}
}

func TestLexiconCheckAndLookup(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"lexicon", "check"}, &stdout, &stderr); code != 0 {
		t.Fatalf("shipped lexicon fails its check (exit %d):\n%s%s", code, stdout.String(), stderr.String())
	}
	// the fixture lexicon lacks the pack's concepts and has an undeclared
	// ambiguous term once "ambiguous" is dropped
	data, _ := os.ReadFile(filepath.Join(lexTestdata, "lexicon.json"))
	p := filepath.Join(t.TempDir(), "l.json")
	s := string(data)
	s = s[:strings.Index(s, `,
  "ambiguous"`)] + "\n}\n"
	os.WriteFile(p, []byte(s), 0o644)
	stdout.Reset()
	code := run([]string{"lexicon", "check", "--lexicon", p}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stdout.String(), `conflict: "ccs"`) || !strings.Contains(stdout.String(), "missing:") {
		t.Errorf("check of a bad lexicon: exit %d\n%s", code, stdout.String())
	}
	stdout.Reset()
	if code := run([]string{"lexicon", "lookup", "eGFR", "rapid AF", "no such thing"}, &stdout, &stderr); code != 1 {
		t.Errorf("lookup with an unknown term: exit %d", code)
	}
	got := stdout.String()
	for _, want := range []string{"eGFR\testimated glomerular filtration rate", "rapid AF\tfast irregular heart rate", "no such thing\t(no concept)"} {
		if !strings.Contains(got, want) {
			t.Errorf("lookup output lacks %q:\n%s", want, got)
		}
	}
}
