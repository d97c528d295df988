package cdshooks

import (
	"strings"
	"testing"

	"github.com/executablekg/execkg/engine"
)

// A pack with its own grading scheme is summarised in its own terms, an
// ESC row by class and level.
func TestSummaryUsesThePacksGrade(t *testing.T) {
	us := engine.Recommendation{Text: "Do not start low-dose aspirin for primary prevention.", Class: "D", Grade: "Grade D — recommend against"}
	if got := summary(us); !strings.HasSuffix(got, "(Grade D — recommend against)") || strings.Contains(got, "class") {
		t.Fatalf("summary = %q", got)
	}
	if got := detail(us, &RecommendationExt{}, nil); !strings.Contains(got, "Grade D — recommend against") || strings.Contains(got, "level of evidence") {
		t.Fatalf("detail = %q", got)
	}
	esc := engine.Recommendation{Text: "CCTA is recommended.", Class: "I", Level: "A"}
	if got := summary(esc); !strings.HasSuffix(got, "(class I, level A)") {
		t.Fatalf("summary = %q", got)
	}
}
