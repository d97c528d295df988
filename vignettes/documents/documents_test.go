package documents

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules/packs"
)

func TestValidateNamesEachProblem(t *testing.T) {
	five := "a\nb\nc\nd\ne"
	known := func(id string) bool { return id == "table_01.json::row_0" || id == "table_02.json::row_1" }
	docs := []Document{
		{DocID: "ok", Style: "report", Date: "2026-01-02", Text: five, Must: []string{"table_01.json::row_0"}, MustNot: []string{"table_02.json::row_1"}},
		{DocID: "ok", Style: "poem", Date: "2026-1-2", Text: "one line", Must: []string{"table_99.json::row_0", "table_01.json::row_0"}, MustNot: []string{"table_01.json::row_0"}},
		{DocID: "rec", Style: FHIRStyle, Date: "2026-01-02", Bundle: []byte(`{"resourceType": "Patient"}`), Text: "a note"},
		{DocID: "rec2", Style: FHIRStyle, Date: "2026-01-02", Bundle: []byte(`{"resourceType": "Bundle", "type": "collection"}`)},
	}
	var got []string
	for _, p := range Validate(docs, known) {
		got = append(got, p.Field+": "+p.Msg)
	}
	require.Equal(t, []string{
		"doc_id: duplicate id",
		`style: "poem" is not one of clinic_letter, discharge_summary, shorthand_note, gp_referral, report, heart_team, fhir`,
		`date: "2026-1-2" is not YYYY-MM-DD`,
		"text: 1 lines; documents have 5–80",
		`must: unknown row id "table_99.json::row_0"`,
		`must_not: "table_01.json::row_0" is also a must row`,
		`bundle: a fhir record holds a FHIR R4 Bundle (resourceType "Bundle")`,
		"text: a fhir record is coded data only; put no text beside its bundle",
	}, got)
}

func TestDecodeNamesTheLine(t *testing.T) {
	_, err := Decode("x.jsonl", strings.NewReader("{\"doc_id\":\"a\"}\n{bad\n"))
	require.ErrorContains(t, err, "x.jsonl:2:")
}

func TestLogRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.jsonl")
	ms, err := ReadLog(p)
	require.NoError(t, err)
	require.Empty(t, ms)
	require.NoError(t, AppendLog(p, Measurement{Split: Test, Commit: "abc", MustHit: 3, Must: 4}))
	require.NoError(t, AppendLog(p, Measurement{Split: Final, Commit: "def"}))
	ms, err = ReadLog(p)
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.Equal(t, "def", ms[1].Commit)
}

func TestUnknownSplit(t *testing.T) {
	_, err := Load("holdout")
	require.ErrorContains(t, err, "have dev, test, final")
}

// TestShippedSplits: 690 documents: the first round's 300, 50 per style
// split 20/10/10, and dev's later rounds (the second's 60, the third's 30,
// the fourth's 60, the fifth's 30 and the seventh and eighth's 60 the ninth and tenth's 60, the eleventh's 30, the twelfth's 30 and the thirteenth's 30, five per
// style each; the sixth's 30, weighted to reports and letters: devExtra),
// and 30 FHIR records split
// 20/10, every one valid against the built-in pack, no
// document in two splits.
func TestShippedSplits(t *testing.T) {
	p, err := packs.Default()
	require.NoError(t, err)
	exists := func(id string) bool { _, _, ok := p.Row(id); return ok }
	seen := map[string]string{}
	want := map[string]int{Dev: 94, Test: 10, Final: 10, FHIRDev: 20, FHIRTest: 10}
	// The sixth round (W11) wrote 8 reports, 7 letters, 4 discharge
	// summaries, 4 referrals, 4 shorthand notes and 3 Heart Team notes;
	// W21 (session 18) 5 reports, 3 referrals and 4 of each other style
	// (W20 and W22, the same session, 5 and 4 of each).
	devExtra := map[string]int{"report": 8 + 5, "clinic_letter": 7 + 4, "discharge_summary": 4 + 4, "gp_referral": 4 + 3, "shorthand_note": 4 + 4, "heart_team": 3 + 4}
	for _, split := range Splits {
		docs, err := Load(split)
		require.NoError(t, err)
		require.Empty(t, Validate(docs, exists), split)
		per := map[string]int{}
		for _, d := range docs {
			require.Empty(t, seen[d.DocID], "%s is in %s and %s", d.DocID, seen[d.DocID], split)
			seen[d.DocID] = split
			per[d.Style]++
		}
		if split == FHIRDev || split == FHIRTest {
			require.Equal(t, map[string]int{FHIRStyle: want[split]}, per, split)
			continue
		}
		for _, s := range Styles {
			n := want[split]
			if split == Dev {
				n += devExtra[s]
			}
			require.Equal(t, n, per[s], "%s: %s", split, s)
		}
	}
	require.Len(t, seen, 768)
}
