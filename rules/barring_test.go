package rules

import (
	"strings"
	"testing"
)

// CountsAs follows is-a and any_of membership, not a membership the
// composite excludes for the concept; the barring data is validated.
func TestCountsAsAndBarringData(t *testing.T) {
	h, err := ParseHierarchy("h.json", []byte(`{"version": 1,
  "relations": [{"narrower": "aspirin", "broader": "antiplatelet therapy"}, {"narrower": "dapt", "broader": "antiplatelet therapy"}, {"narrower": "dapt", "broader": "combination therapy"}],
  "composites": [
    {"concept": "antiplatelet therapy", "any_of": [{"concept": "clopidogrel"}], "source": "s"},
    {"concept": "single therapy", "any_of": [{"concept": "antiplatelet therapy"}], "unless": [{"concept": "combination therapy"}], "source": "s"}],
  "components": [{"concept": "dapt", "of": ["aspirin", "clopidogrel"], "source": "s"}],
  "bars": [{"concept": "contraindication to aspirin", "drug": "aspirin", "source": "s"}],
  "agents": [{"class": "beta-blocker", "agents": ["metoprolol"], "source": "s"}],
  "partial": [{"concept": "statin", "source": "s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for concept, want := range map[string]string{
		"clopidogrel": "antiplatelet therapy,single therapy",
		"aspirin":     "antiplatelet therapy,single therapy",
		"dapt":        "antiplatelet therapy,combination therapy",
	} {
		if got := strings.Join(h.CountsAs(concept), ","); got != want {
			t.Errorf("CountsAs(%s) = %s, want %s", concept, got, want)
		}
	}
	if got := strings.Join(h.ComponentsOf("DAPT"), ","); got != "aspirin,clopidogrel" {
		t.Errorf("ComponentsOf(DAPT) = %s", got)
	}
	if h.BarredDrug("Contraindication to aspirin") != "aspirin" || h.BarredDrug("aspirin") != "" {
		t.Error("BarredDrug")
	}
	if h.AgentNamed("beta-blocker", "Metoprolol succinate 50 mg") != "metoprolol" || h.AgentNamed("beta-blocker", "Beta-blockers") != "" {
		t.Error("AgentNamed")
	}
	if !h.PartialIntolerance("Statin") || h.PartialIntolerance("aspirin") {
		t.Error("PartialIntolerance")
	}
	for _, bad := range []string{
		`{"version": 1, "relations": [], "components": [{"concept": "dapt", "of": [], "source": "s"}]}`,
		`{"version": 1, "relations": [], "components": [{"concept": "dapt", "of": ["dapt"], "source": "s"}]}`,
		`{"version": 1, "relations": [], "bars": [{"concept": "x", "drug": "", "source": "s"}]}`,
		`{"version": 1, "relations": [], "agents": [{"class": "x", "agents": ["a"]}]}`,
		`{"version": 1, "relations": [], "classes": [{"concept": "x"}]}`,
	} {
		if _, err := ParseHierarchy("h.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "h.json") {
			t.Errorf("%s: error %v, want one naming the file", bad, err)
		}
	}
}
