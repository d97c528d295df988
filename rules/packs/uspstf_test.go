package packs_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

const uspstfDir = "uspstf-cvd-prevention"

// The USPSTF pack: 11 tables, 21 rows in catalogue order, the published
// grade split (README of the catalogue: A 3, B 4, C 4, D 3, I 7) and the
// directions the grades give (I statements take no side).
func TestUSPSTFPackShape(t *testing.T) {
	p, err := rules.LoadFS(packs.FS(), uspstfDir)
	require.NoError(t, err)
	s := rules.ComputeStats(p)
	require.Equal(t, 11, s.Tables)
	require.Equal(t, 21, s.Rows)
	require.Equal(t, map[string]int{"A": 3, "B": 4, "C": 4, "D": 3, "I": 7}, s.ClassSplit)
	require.Equal(t, map[string]int{"POSITIVE": 11, "NEGATIVE": 3, "INSUFFICIENT": 7}, s.DirectionSplit)
	require.Equal(t, "USPSTF grades", p.Scheme().Scheme)
	for i, tb := range p.Tables {
		require.Equal(t, i+1, tb.Table)
		require.Equal(t, fmt.Sprintf("table_%02d.json", i+1), tb.File)
	}
}

// catalogue is the part of the paraphrased catalogue the pack must agree with.
type catalogue struct {
	Grading map[string]string `json:"grading"`
	Tables  []struct {
		Table      int    `json:"table"`
		Topic      string `json:"topic"`
		Population string `json:"population"`
		Footnotes  []rules.Footnote
		Rows       []struct {
			Row        int    `json:"row"`
			Population string `json:"population"`
			Text       string `json:"text"`
			Grade      string `json:"grade"`
			Direction  string `json:"direction"`
		} `json:"rows"`
	} `json:"tables"`
}

// The second, independent check of every row against the catalogue the
// pack was encoded from (../shared/guideline beside the repository): text,
// grade, direction, population and footnotes as the catalogue has them,
// and the scheme's meanings as its grading section.
func TestUSPSTFRowsMatchCatalogue(t *testing.T) {
	b, err := os.ReadFile("../../../shared/guideline/uspstf-cvd-prevention/catalogue.json")
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("catalogue not beside the repository (../shared/guideline/uspstf-cvd-prevention)")
	}
	require.NoError(t, err)
	var c catalogue
	require.NoError(t, json.Unmarshal(b, &c))
	p, err := rules.LoadFS(packs.FS(), uspstfDir)
	require.NoError(t, err)
	require.Len(t, p.Tables, len(c.Tables))
	for _, g := range p.Scheme().Grades {
		require.Equal(t, c.Grading[g.Value], g.Meaning, "grade %s", g.Value)
	}
	for i, ct := range c.Tables {
		tb := p.Tables[i]
		require.Equal(t, ct.Table, tb.Table)
		require.Equal(t, ct.Topic, tb.Topic, tb.File)
		require.Equal(t, ct.Population, tb.Population, tb.File)
		require.Equal(t, ct.Footnotes, tb.Footnotes, tb.File)
		require.Len(t, tb.Rows, len(ct.Rows), tb.File)
		for j, cr := range ct.Rows {
			r := tb.Rows[j]
			id := rules.RowID(tb.File, r.Row)
			require.Equal(t, cr.Row, r.Row, id)
			require.Equal(t, cr.Text, r.Text, id)
			require.Equal(t, cr.Grade, r.Class, id)
			require.Equal(t, cr.Direction, r.Direction, id)
			require.Equal(t, cr.Population, r.Section, id)
			require.Empty(t, r.Level, id)
		}
	}
}
