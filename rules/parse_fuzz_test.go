package rules

import (
	"os"
	"testing"
)

// FuzzParse: the rule-file parser must never panic, whatever the input, and
// whatever it accepts must survive Validate and the id helpers.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("packs/esc-ccs-2024/table_08.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"rows":[{"row":0,"Class a":"I","rules":[{"entity_original":"x","logic_structured":{"operator":"≤","threshold":3}}]}]}`))
	f.Add([]byte(`{"rows":[{"rules":[{"conditions":[{"logic_structured":{"threshold":"1,5"}}]}]}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := Parse("table_99.json", data)
		if err != nil {
			return
		}
		p := &Pack{Tables: []*Table{tb}, Guideline: tb.Guideline}
		_ = Validate(p)
		_ = ComputeStats(p)
		for _, r := range p.Rules() {
			_ = r.Conditions()
		}
	})
}
