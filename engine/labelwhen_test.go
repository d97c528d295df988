package engine

import (
	"context"
	"encoding/json"
	"os"
	"sort"
	"testing"
	"time"
)

// testdata/labelwhen/cases.json: line labels and report titles that date
// a procedure (labelWhen), read through the whole program on the case's
// date.
func TestLabelWhenCases(t *testing.T) {
	b, err := os.ReadFile("testdata/labelwhen/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Text string   `json:"text"`
			Date string   `json:"date"`
			Want []string `json:"want"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatalf("testdata/labelwhen/cases.json: %v", err)
	}
	p, _ := readerProgram(t)
	for i, c := range file.Cases {
		date, err := time.Parse(time.DateOnly, c.Date)
		if err != nil {
			t.Fatalf("case %d: date %q: %v", i, c.Date, err)
		}
		res, err := p.AskOn(context.Background(), "t", c.Text, date)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, e := range res.Evidence {
			if e.Via != "" || !e.Present {
				continue
			}
			w := "undated"
			if e.When != nil {
				w = e.When.From.Format(time.DateOnly) + ".." + e.When.To.Format(time.DateOnly)
			}
			got[e.Text+"|"+e.Concept+"|"+w] = true
		}
		for _, want := range c.Want {
			if !got[want] {
				var keys []string
				for k := range got {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				t.Errorf("case %d (%q): want %q; got %v", i, c.Text, want, keys)
			}
		}
	}
}
