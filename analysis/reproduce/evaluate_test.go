package reproduce

import "github.com/executablekg/execkg/engine/eval"

// evaluate is the reference's open-world evaluation of one rule.
func evaluate(r eval.Rule, ev []eval.Evidence) eval.RuleResult {
	return eval.EvaluateRule(r, ev, eval.Options{})
}
