package engine

import (
	"strings"
	"testing"
)

func TestCommaClauseParentheses(t *testing.T) {
	cases := []struct{ text, finding, want string }{
		// Inside parentheses: the detail does not borrow the words before it.
		{"Not HBR (PRECISE-DAPT 12), no high-ischaemic-risk features.", "PRECISE-DAPT 12", "PRECISE-DAPT 12"},
		{"Three-vessel disease (LAD 80%, LCx 75%, RCA 90%), SYNTAX 19.", "LCx 75%", "LCx 75%"},
		{"Three-vessel disease (LAD 80%, LCx 75%, RCA 90%), SYNTAX 19.", "LAD 80%", "LAD 80%"},
		// Before the parenthesis, the clause keeps it.
		{"Not HBR (PRECISE-DAPT 12), no high-ischaemic-risk features.", "Not HBR", "Not HBR (PRECISE-DAPT 12)"},
		// Inside a list in parentheses, the clause ends at the closing one
		// though the parenthesis opens before the comma.
		{"Using the RF-CL model (female, 58, atypical symptoms, 2 risk factors) her pre-test likelihood is about 9%.", "2 risk factors", "2 risk factors"},
		// After a closed parenthesis, the clause runs back as before.
		{"CCS (2019) with stable angina on bisoprolol, LVEF 60%.", "stable angina", "CCS (2019) with stable angina on bisoprolol"},
	}
	for _, c := range cases {
		i := strings.Index(c.text, c.finding)
		if got := commaClause(c.text, i, i+len(c.finding)); got != c.want {
			t.Errorf("commaClause(%q, %q) = %q, want %q", c.text, c.finding, got, c.want)
		}
	}
}
