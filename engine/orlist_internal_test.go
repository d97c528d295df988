package engine

import (
	"reflect"
	"testing"
)

func TestOrAlternatives(t *testing.T) {
	for _, tc := range []struct {
		text, head string
		alts       []string
	}{
		{"no contraindication to beta-blocker or DHP CCB", "contraindication",
			[]string{"no contraindication to beta-blocker", "no contraindication to DHP CCB"}},
		{"no intolerance of statin or ezetimibe", "intolerance",
			[]string{"no intolerance of statin", "no intolerance of ezetimibe"}},
		{"documented or suspected ANOCA", "", nil},
		{"no contraindication to beta-blocker", "", nil},
		{"no contraindication to beta-blocker or DHP CCB or nitrates", "", nil},
	} {
		head, alts := orAlternatives(tc.text)
		if head != tc.head || !reflect.DeepEqual(alts, tc.alts) {
			t.Errorf("orAlternatives(%q) = %q, %q; want %q, %q", tc.text, head, alts, tc.head, tc.alts)
		}
	}
}
