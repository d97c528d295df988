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
	if intolerantOf("contraindication to beta-blocker") != "beta-blocker" || intolerantOf("statin") != "" {
		t.Errorf("intolerantOf")
	}
}
