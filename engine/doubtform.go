package engine

import (
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
)

// undoubtedForms adds, for a finding the case states with doubt and an
// anchor whose own name is a doubt (the pack's provisional-diagnosis
// concept, "suspected vasospastic angina"), each doubtful name without its
// doubt cue: "?vasospastic angina" or "query VSA" states it, because
// writers mark a provisional diagnosis with whichever doubt cue they use
// ("?", "query", "possible", "suspected"), and step (v) still checks that
// the case's doubt meets the condition's. A concept that is a clinical
// picture rather than a doubt ("presentation suggestive of ACS") keeps
// its full names. The cues are the consistency check's own; the engine
// names none.
func (p *Program) undoubtedForms(phrases []string) []string {
	var extra []string
	for _, n := range phrases {
		if !p.doubtfulName(n) {
			continue
		}
		cx := consistency.Analyze(n, n)
		rest := " " + strings.ToLower(n) + " "
		for _, c := range cx.Cues {
			rest = strings.Replace(rest, " "+strings.ToLower(c)+" ", " ", 1)
		}
		if rest = strings.Join(strings.Fields(rest), " "); rest != "" && rest != strings.ToLower(n) {
			extra = append(extra, rest)
		}
	}
	if len(extra) == 0 {
		return phrases
	}
	return append(append([]string(nil), phrases...), extra...)
}
