package engine

import (
	"strings"

	"github.com/executablekg/execkg/rules"
)

// intentVerb says an action's intent in words for a reader; the concept
// follows it ("STOP dual antiplatelet therapy").
var intentVerb = map[string]string{
	rules.IntentStart:    "START",
	rules.IntentContinue: "CONTINUE",
	rules.IntentStop:     "STOP",
	rules.IntentAvoid:    "AVOID (do not start, perform or combine)",
	rules.IntentSwitch:   "SWITCH TO",
	rules.IntentReduce:   "REDUCE",
	rules.IntentPerform:  "PERFORM",
	rules.IntentRefer:    "REFER TO",
	rules.IntentDiscuss:  "DISCUSS",
	rules.IntentAssess:   "ASSESS",
}

// ActionSummary says a recommendation's actions in words, intent first,
// with the action's context where it says how or when ("STOP dual
// antiplatelet therapy (1–3 months after PCI); CONTINUE single antiplatelet
// therapy"). An action without an intent (a graph built before intents)
// is named by its relation.
func ActionSummary(acts []Action) string {
	parts := make([]string, 0, len(acts))
	for _, a := range acts {
		v := intentVerb[a.Intent]
		if v == "" {
			v = strings.ToLower(strings.ReplaceAll(a.Relation, "_", " "))
		}
		s := v + " " + a.Concept
		if c := strings.TrimSpace(a.Context); c != "" && !strings.EqualFold(c, a.Concept) {
			s += " (" + c + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
