package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestPresizedFindingsKeepShape: ask sizes its per-finding lists and maps
// from the number of findings; a case without findings still answers nil
// lists (JSON null, as before), and a case with findings lists each one
// once, in order. Over every line of a tenth of the dev documents.
func TestPresizedFindingsKeepShape(t *testing.T) {
	p, _ := readerProgram(t)
	ctx := context.Background()
	none, some := 0, 0
	for i, text := range devTexts(t, true) {
		if i%10 != 0 {
			continue
		}
		fs, err := p.cfg.extractor.Extract(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Ask(ctx, "presize", text)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) == 0 {
			none++
			if res.Findings != nil {
				t.Fatalf("%q: no findings, but Findings is %#v, not nil", text, res.Findings)
			}
			if b, _ := json.Marshal(res.Findings); string(b) != "null" {
				t.Fatalf("%q: no findings encode as %s", text, b)
			}
			continue
		}
		some++
		var ids []string
		for _, f := range fs {
			ids = append(ids, f.ID)
		}
		var got []string
		for _, f := range res.Findings {
			got = append(got, f.ID)
		}
		if strings.Join(got, " ") != strings.Join(ids, " ") {
			t.Fatalf("%q: findings %v, want %v", text, got, ids)
		}
	}
	if none == 0 || some == 0 {
		t.Fatalf("%d texts without findings, %d with: the corpus tests nothing", none, some)
	}
}
