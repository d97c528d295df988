package extract

import (
	"context"
	"testing"
	"unicode/utf8"
)

// FuzzExtract: whatever the bytes, the extractor returns without a panic
// and every finding it locates is the text at its offsets. Seeds are in
// testdata/fuzz/FuzzExtract (the first one is the input that used to panic).
func FuzzExtract(f *testing.F) {
	f.Add("Patient with an eGFR of 24 mL/min/1.73 m² and no diabetes.")
	f.Fuzz(func(t *testing.T, text string) {
		got, err := Clauses{}.Extract(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range got {
			if fd.Start < 0 {
				continue
			}
			if fd.Start > fd.End || fd.End > len(text) || text[fd.Start:fd.End] != fd.Text {
				t.Fatalf("finding %s %q at [%d,%d) is not the text there (len %d)", fd.ID, fd.Text, fd.Start, fd.End, len(text))
			}
		}
	})
}

// Offsets survive inputs whose lower case has another byte length: an
// invalid byte, and a letter whose lower form is longer (Ⱥ → ⱥ).
func TestExtractOddBytes(t *testing.T) {
	for _, text := range []string{"\xc1\x8f\xf8 And ", "ȺȺȺ with CCS and diabetes", "Patient with \xff diabetes and CCS"} {
		got, err := Clauses{}.Extract(context.Background(), text)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range got {
			if text[fd.Start:fd.End] != fd.Text {
				t.Errorf("%q: finding %q is not at [%d,%d)", text, fd.Text, fd.Start, fd.End)
			}
		}
		if utf8.ValidString(text) && len(got) == 0 {
			t.Errorf("%q: no findings", text)
		}
	}
}
