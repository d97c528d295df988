package lexicon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func load(t *testing.T) *Lexicon {
	t.Helper()
	l, err := Load(filepath.Join("testdata", "lexicon.json"))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLookup(t *testing.T) {
	l := load(t)
	got := l.Lookup("  High  Blood pressure ")
	if len(got) != 1 || got[0].Concept != "hypertension" {
		t.Fatalf("Lookup(high blood pressure) = %v", got)
	}
	if got := l.Lookup("ccs"); len(got) != 2 {
		t.Fatalf("Lookup(ccs) = %d concepts, want 2", len(got))
	}
	if got := l.Lookup("atrial fibrillation"); len(got) != 1 {
		t.Fatalf("the concept name must be found too, got %v", got)
	}
	if got := l.Lookup("heart attack"); len(got) != 0 {
		t.Fatalf("unknown term found: %v", got)
	}
	if c := l.Concept("Hypertension"); c == nil || c.SnomedID != "38341003" {
		t.Fatalf("Concept(Hypertension) = %v", c)
	}
	syn := l.Synonyms("atrial fibrillation", "")
	if strings.Join(syn, "|") != "AF|AFib" {
		t.Fatalf("Synonyms = %v", syn)
	}
}

func TestConflicts(t *testing.T) {
	l := load(t)
	if c := l.Conflicts(); len(c) != 0 {
		t.Fatalf("CCS is listed as ambiguous, got conflicts %v", c)
	}
	l.Ambiguous = nil
	c := l.Conflicts()
	if len(c) != 1 || c[0].Term != "ccs" || len(c[0].Concepts) != 2 {
		t.Fatalf("conflicts = %v", c)
	}
}

func TestParseErrors(t *testing.T) {
	for name, data := range map[string]string{
		"version":   `{"version":2,"concepts":[]}`,
		"unknown":   `{"version":1,"concepts":[],"extra":1}`,
		"duplicate": `{"version":1,"concepts":[{"concept":"AF","synonyms":[]},{"concept":"af","synonyms":[]}]}`,
		"empty":     `{"version":1,"concepts":[{"concept":" ","synonyms":[]}]}`,
		"syntax":    `{"version":1,`,
	} {
		if _, err := Parse(name, []byte(data)); err == nil {
			t.Errorf("%s: want an error", name)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
	}
}

func TestImportRF2(t *testing.T) {
	l := load(t)
	f, err := os.Open(filepath.Join("testdata", "sct2_Description_Snapshot-en_test.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := l.ImportRF2(f.Name(), f)
	if err != nil {
		t.Fatal(err)
	}
	af := l.Concept("atrial fibrillation")
	// FSN tag stripped and equal to the name → skipped; "Atrial fibrillation"
	// synonym equals the name → skipped; definition type and the
	// description inactivated later are ignored.
	if got := strings.Join(af.Synonyms, "|"); got != "AF|AFib|AF - Atrial fibrillation|Auricular fibrillation" {
		t.Fatalf("AF synonyms = %q", got)
	}
	htn := l.Concept("hypertension")
	if got := strings.Join(htn.Synonyms, "|"); got != "high blood pressure|HTN|Hypertensive disorder, systemic arterial|High blood pressure disorder" {
		t.Fatalf("hypertension synonyms = %q", got)
	}
	if st.Rows != 11 || st.Added != 4 || st.Concepts != 2 {
		t.Fatalf("stats = %+v", st)
	}
	// the new terms are searchable at once
	if got := l.Lookup("auricular fibrillation"); len(got) != 1 {
		t.Fatalf("imported synonym not indexed: %v", got)
	}
	// the written file round-trips
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	l2, err := Parse("roundtrip", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(l2.Concepts) != len(l.Concepts) || len(l2.Ambiguous) != 1 || len(l2.Concept("hypertension").Synonyms) != 4 {
		t.Fatalf("round trip lost data:\n%s", data)
	}
}

func TestImportRF2Errors(t *testing.T) {
	for name, data := range map[string]string{
		"header": "a\tb\n",
		"fields": strings.Join(rf2Columns, "\t") + "\n1\t2\t1\n",
		"active": strings.Join(rf2Columns, "\t") + "\n1\t2\tyes\t4\t5\ten\t7\tterm\t9\n",
		"empty":  "",
	} {
		l := load(t)
		if _, err := l.ImportRF2(name, strings.NewReader(data)); err == nil {
			t.Errorf("%s: want an error", name)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
	}
}

func TestStripSemanticTag(t *testing.T) {
	for in, want := range map[string]string{
		"Atrial fibrillation (disorder)":          "Atrial fibrillation",
		"Body mass index (observable entity)":     "Body mass index",
		"Angina (disorder)":                       "Angina",
		"Disorder of heart (disorder) (disorder)": "Disorder of heart (disorder)",
		"Plain term": "Plain term",
		"(disorder)": "(disorder)",
	} {
		if got := StripSemanticTag(in); got != want {
			t.Errorf("StripSemanticTag(%q) = %q, want %q", in, got, want)
		}
	}
}
