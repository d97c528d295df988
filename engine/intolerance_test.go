package engine

import (
	"strings"
	"testing"

	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
)

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
	keys := map[string]string{"angiotensin-converting enzyme inhibitor": acei}
	got := intoleranceDrops(text, fs, items, keys)
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
	if got := intoleranceDrops(text, fs, items, map[string]string{"beta-blocker": bb}); len(got) != 0 {
		t.Errorf("beta-blocker therapy: nothing should be dropped, got %v", got)
	}
	if intolerantOf("contraindication to beta-blocker") != "beta-blocker" || intolerantOf("statin") != "" {
		t.Errorf("intolerantOf")
	}
}
