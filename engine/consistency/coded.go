package consistency

import (
	"fmt"

	"github.com/executablekg/execkg/rules"
)

// Coded is a coded fact (a FHIR resource, structured input) as step (v)
// sees it: it has no words to read cues in, only what the record states.
type Coded struct {
	// Uncertain: the record states the fact with doubt (a provisional or
	// differential diagnosis).
	Uncertain bool
	// Absent: the record states the fact absent (refuted).
	Absent bool
}

// CheckCoded is step (v) for a coded fact: certainty and absence are read
// from the record's statuses, not from cue words; negation and qualifier
// checks need words, and a code names its concept exactly, so they pass.
func (cc *Compiled) CheckCoded(f Coded, checks Checks) Verdict {
	v := Verdict{Pass: true, Context: Context{Target: cc.cond.Concept, Qualifiers: []string{}, Cues: []string{}}}
	block := func(check, reason string) Verdict {
		v.Pass, v.Check, v.Reason = false, check, check+": "+reason
		return v
	}
	if checks.Absence && cc.op == rules.OpAbsent && !f.Absent {
		return block(CheckAbsence, fmt.Sprintf("the record does not state that %s is absent; an ABSENT condition needs a stated absence", name(cc.cond)))
	}
	if checks.Certainty {
		cu, either, where := conditionCertainty(cc, tokenize(cc.cond.Concept))
		if !either && f.Uncertain != cu {
			if f.Uncertain {
				return block(CheckCertainty, fmt.Sprintf("the record states the fact with doubt but the condition %s is not uncertain", quote(name(cc.cond))))
			}
			return block(CheckCertainty, fmt.Sprintf("the condition is uncertain (%s) but the record states the fact without doubt", where))
		}
	}
	if checks == (Checks{}) {
		v.Reason = "no checks selected"
	} else {
		v.Reason = "passed " + checks.String() + " (coded fact: certainty and absence from the record's statuses)"
	}
	return v
}
