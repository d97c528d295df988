package engine

import (
	"strings"
	"testing"

	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/rules/packs"
)

// reading returns a Program holding only the built-in pack's sections
// data and the given concept keys: what intoleranceDrops and drugStatement read.
func readingProgram(t *testing.T, keys map[string]string, meds ...string) *Program {
	t.Helper()
	pack, err := packs.Default()
	if err != nil || pack.Sections == nil {
		t.Fatalf("built-in pack sections: %v", err)
	}
	rd, err := compileReading(pack.Reading, "")
	if err != nil {
		t.Fatal(err)
	}
	p := &Program{pack: pack, doc: extract.NewReading(pack.Sections), reading: rd, keys: keys, names: map[string]string{}, medications: map[string]bool{}}
	for n, k := range keys {
		p.names[k] = n
	}
	for _, m := range meds {
		p.medications[m] = true
	}
	return p
}

func TestIntoleranceDrops(t *testing.T) {
	text := "HFrEF. Intolerant of ACE inhibitor (cough on ramipril) and of ARNI. On ramipril for BP? no: on bisoprolol."
	find := func(id, s string) extract.Finding {
		i := strings.Index(text, s)
		return extract.Finding{ID: id, Text: s, Start: i, End: i + len(s)}
	}
	fs := []extract.Finding{find("f0", "Intolerant of ACE inhibitor"), find("f1", "cough on ramipril"), find("f2", "On ramipril")}
	acei := "name:angiotensin-converting enzyme inhibitor"
	items := []evidence.Item{
		{FindingID: "f0", ConceptKey: "name:angiotensin-converting enzyme inhibitor intolerance", Concept: "angiotensin-converting enzyme inhibitor intolerance", Present: true},
		{FindingID: "f0", ConceptKey: acei, Concept: "angiotensin-converting enzyme inhibitor", Present: true},
		{FindingID: "f1", ConceptKey: acei, Concept: "angiotensin-converting enzyme inhibitor", Present: true},
		{FindingID: "f2", ConceptKey: acei, Concept: "angiotensin-converting enzyme inhibitor", Present: true},
	}
	p := readingProgram(t, map[string]string{"angiotensin-converting enzyme inhibitor": acei}, acei)
	got, _ := p.intoleranceDrops(text, fs, items)
	for _, id := range []string{"f0", "f1"} {
		if _, ok := got[[2]string{id, acei}]; !ok {
			t.Errorf("%s: the drug should be dropped (intolerance or its detail in parentheses)", id)
		}
	}
	if _, ok := got[[2]string{"f2", acei}]; ok {
		t.Errorf("f2: a separate mention of the drug is kept")
	}
	// A finding that only grounds to the intolerance concept, without
	// saying so, keeps its drug: "beta-blocker therapy".
	bb := "sct:33252009"
	text = "On beta-blocker therapy, no contraindication to beta-blockers."
	fs = []extract.Finding{find("f0", "beta-blocker therapy")}
	items = []evidence.Item{
		{FindingID: "f0", ConceptKey: "name:contraindication to beta-blocker", Concept: "contraindication to beta-blocker", Present: true},
		{FindingID: "f0", ConceptKey: bb, Concept: "beta-blocker", Present: true},
	}
	p = readingProgram(t, map[string]string{"beta-blocker": bb}, bb)
	if got, _ := p.intoleranceDrops(text, fs, items); len(got) != 0 {
		t.Errorf("beta-blocker therapy: nothing should be dropped, got %v", got)
	}
	// A drug under an allergies heading is not taken, and reads as the
	// pack's intolerance concept of it.
	statin, si := "sct:96302009", "name:statin intolerance"
	text = "Allergies: statin (myalgia)\nMeds: aspirin"
	fs = []extract.Finding{find("f0", "statin"), find("f1", "myalgia")}
	fs[0].Section = "allergies"
	items = []evidence.Item{{FindingID: "f0", ConceptKey: statin, Concept: "statin", Present: true}}
	p = readingProgram(t, map[string]string{"statin": statin, "statin intolerance": si}, statin)
	drops, adds := p.intoleranceDrops(text, fs, items)
	if _, ok := drops[[2]string{"f0", statin}]; !ok {
		t.Errorf("a drug under an allergies heading should be dropped, got %v", drops)
	}
	if len(adds) != 1 || adds[0].ConceptKey != si || !strings.HasPrefix(adds[0].Via, ViaSection) {
		t.Errorf("a drug under an allergies heading should read as its intolerance concept, got %+v", adds)
	}
	if p.doc.IntolerantOf("contraindication to beta-blocker") != "beta-blocker" || p.doc.IntolerantOf("statin") != "" {
		t.Errorf("IntolerantOf")
	}
}

// A clause about a drug that does not state the patient takes it: the
// pack's not-taken and not-tolerated words, in the clause or heading an
// imperative list; a medication list reads each item on its own.
func TestNotTaken(t *testing.T) {
	p := readingProgram(t, nil)
	for _, c := range []struct {
		text, finding, section string
		want                   bool
	}{
		{"Aspirin is contraindicated (active bleeding).", "Aspirin is contraindicated", "", true},
		{"Consider starting ranolazine if still limited.", "Consider starting ranolazine if still limited", "", true},
		{"Avoid colchicine, ivabradine, ticagrelor w cobicistat", "ivabradine", "", true},
		{"Ranolazine not tolerated (dizziness).", "Ranolazine not tolerated", "", true},
		{"On aspirin 75 mg, bisoprolol 5 mg.", "bisoprolol 5 mg", "", false},
		{"Meds: aspirin 75 od, avoid NSAIDs", "aspirin 75 od", "medications", false},
	} {
		i := strings.Index(c.text, c.finding)
		f := extract.Finding{ID: "f0", Text: c.finding, Start: i, End: i + len(c.finding), Section: c.section}
		if got := p.drugStatement(c.text, f, commaClause(c.text, f.Start, f.End)) != ""; got != c.want {
			t.Errorf("drugStatement(%q in %q) = %v, want %v", c.finding, c.text, got, c.want)
		}
	}
}

// A list item's status after a dash belongs to its drug, up to the arrow
// that starts the next one.
func TestStoppedItem(t *testing.T) {
	p := readingProgram(t, nil)
	text := "- Sitagliptin - STOPPED -> semaglutide 0.25 mg weekly - NEW\n- aspirin stopped"
	for _, c := range []struct {
		finding string
		want    bool
	}{{"Sitagliptin", true}, {"semaglutide 0.25 mg weekly", false}, {"aspirin stopped", true}} {
		i := strings.Index(text, c.finding)
		f := extract.Finding{Text: c.finding, Start: i, End: i + len(c.finding)}
		if got := p.stoppedItem(text, f); got != c.want {
			t.Errorf("stopped(%q) = %v, want %v", c.finding, got, c.want)
		}
	}
}
