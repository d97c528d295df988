package eval

import "github.com/executablekg/execkg/rules"

// Derive applies a pack's is-a relations to evidence: an affirmed finding
// also affirms every broader concept of the pack (without its value: "HFrEF
// with LVEF 30%" says nothing numeric about heart failure), and a stated
// absence also denies every narrower concept. Derived items keep the
// mention's id and text, so step (v) still judges the patient's own words;
// Via names the stated concept. nameOfKey and keyOfName come from
// rules.Pack.ConceptIndex.
func Derive(ev []Evidence, h *rules.Hierarchy, nameOfKey, keyOfName map[string]string) []Evidence {
	if h == nil {
		return nil
	}
	var out []Evidence
	seen := map[[3]string]bool{}
	for _, e := range ev {
		name := nameOfKey[e.Key()]
		if name == "" {
			name = e.Concept
		}
		affirmed := e.Present || e.Value != nil
		related := h.Narrower(name)
		if affirmed {
			related = h.Broader(name)
		}
		for _, r := range related {
			key, ok := keyOfName[r]
			if !ok {
				continue
			}
			k := [3]string{e.ID, key, boolKey(affirmed)}
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, Evidence{ID: e.ID, ConceptKey: key, Concept: nameOfKey[key], Text: e.Text, Present: affirmed, Via: "is-a: " + name})
		}
	}
	return out
}

func boolKey(b bool) string {
	if b {
		return "+"
	}
	return "-"
}
