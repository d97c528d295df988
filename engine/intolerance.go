package engine

import (
	"regexp"
	"strings"

	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/rules"
)

// intolerantOf returns the drug a concept states is not tolerated or not
// allowed ("statin intolerance" → statin, "contraindication to
// beta-blocker" → beta-blocker), or "".
func intolerantOf(concept string) string {
	c := strings.TrimSpace(concept)
	if d, ok := strings.CutSuffix(c, " intolerance"); ok {
		return d
	}
	if d, ok := strings.CutPrefix(c, "contraindication to "); ok {
		return d
	}
	return ""
}

// intoleranceDrops finds the evidence that a finding stating intolerance
// of a drug would wrongly give for the drug itself: "intolerant of ACE
// inhibitor" names the drug but says the patient cannot take it, and
// neither does the detail in parentheses right after it ("(cough on
// ramipril)"). It returns the (finding, drug concept key) pairs to drop.
func intoleranceDrops(text string, findings []extract.Finding, items []evidence.Item, keyOf map[string]string) map[[2]string]string {
	said := map[string]bool{} // findings whose own words state intolerance
	for _, f := range findings {
		said[f.ID] = intoleranceWords.MatchString(f.Text)
	}
	drugs := map[string][]string{} // finding → drug keys it is intolerant of
	for _, it := range items {
		if it.Rejected != "" || !it.Present || !said[it.FindingID] {
			continue
		}
		if d := intolerantOf(it.Concept); d != "" {
			if k, ok := keyOf[rules.NormalizeName(d)]; ok {
				drugs[it.FindingID] = append(drugs[it.FindingID], k)
			}
		}
	}
	if len(drugs) == 0 {
		return nil
	}
	out := map[[2]string]string{}
	for _, f := range findings {
		ks := drugs[f.ID]
		if len(ks) == 0 {
			continue
		}
		for _, k := range ks {
			out[[2]string{f.ID, k}] = f.Text
		}
		lo, hi := parenthesisAfter(text, f.End)
		if lo < 0 {
			continue
		}
		for _, g := range findings {
			if g.Start >= lo && g.End <= hi {
				for _, k := range ks {
					out[[2]string{g.ID, k}] = f.Text
				}
			}
		}
	}
	return out
}

// intoleranceWords: the finding itself says the drug is not tolerated or
// not allowed; grounding alone ("beta-blocker therapy" near a
// contraindication wording) does not.
var intoleranceWords = regexp.MustCompile(`(?i)intoleran|contra-?indicat|allerg|not tolerat|unable to tolerate|cannot tolerate|could not tolerate`)

// discontinued: a medication finding whose own words say the drug was
// stopped ("aspirin stopped after 1 week", "DAPT discontinued").
var discontinued = regexp.MustCompile(`(?i)\b(?:stopped|discontinued|ceased|withdrawn|stopping|came off|taken off)\b`)

// parenthesisAfter returns the inside of a parenthesis that opens right
// after end (spaces allowed), or -1, -1.
func parenthesisAfter(text string, end int) (int, int) {
	if end < 0 || end > len(text) {
		return -1, -1
	}
	i := end
	for i < len(text) && text[i] == ' ' {
		i++
	}
	if i >= len(text) || text[i] != '(' {
		return -1, -1
	}
	j := strings.IndexByte(text[i:], ')')
	if j < 0 {
		return -1, -1
	}
	return i + 1, i + j
}
