package engine

import (
	"bufio"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/executablekg/execkg/rules"
)

// gateCorpus is finding texts of the grounding corpus and random mixes of
// date, time and refractory fragments.
func gateCorpus(t *testing.T, words []string) []string {
	t.Helper()
	f, err := os.Open("../grounding/testdata/findings.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	parts := append([]string{"12/03/2021", "3/2019", "2019-04-01", "03.06.66", "march 2020", "since 2018", "in 2015", "20", "19",
		"1999", "2031", "/", ".", "-", " ", ",", "6 weeks ago", "for two months", "yesterday", "K", "é", "x2", "angina", "on"}, words...)
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 30000; i++ {
		var b strings.Builder
		for j := r.IntN(9); j >= 0; j-- {
			b.WriteString(parts[r.IntN(len(parts))])
			if r.IntN(2) == 0 {
				b.WriteByte(' ')
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestWhenGatesKeepMatches: whenOf's pre-checks (a year, a separator)
// never skip a text its patterns match.
func TestWhenGatesKeepMatches(t *testing.T) {
	gates := []struct {
		name string
		re   *regexp.Regexp
		may  func(s string) bool
	}{
		{"iso", whenISO, func(s string) bool { return hasYear(s) && strings.Contains(s, "-") }},
		{"dmy", whenDMY, func(s string) bool { return strings.ContainsAny(s, "0123456789") && strings.ContainsAny(s, "/.") }},
		{"my", whenMY, func(s string) bool { return hasYear(s) && strings.Contains(s, "/") }},
		{"month year", whenMonthYr, hasYear},
		{"since year", whenSinceYr, hasYear},
		{"year", whenYear, hasYear},
	}
	matched := map[string]int{}
	for _, s := range gateCorpus(t, nil) {
		for _, g := range gates {
			if g.re.MatchString(s) {
				matched[g.name]++
				if !g.may(s) {
					t.Fatalf("%s pattern matches %q but its pre-check skips it", g.name, s)
				}
			}
		}
	}
	for _, g := range gates {
		if matched[g.name] < 50 {
			t.Errorf("%s pattern matched only %d texts; the check is too weak", g.name, matched[g.name])
		}
	}
}

// TestRefractoryGateKeepsMatches: a text the refractory patterns match
// always holds one of their link words as mayMatch reads them.
func TestRefractoryGateKeepsMatches(t *testing.T) {
	rd, err := rules.LoadReadingFS(os.DirFS("../rules/packs"), "esc-ccs-2024")
	if err != nil || rd == nil || rd.Refractory == nil {
		t.Fatalf("pack reading: %v", err)
	}
	v, err := compileRefractory(rd.Refractory)
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, g := range rd.Refractory.Symptoms {
		words = append(words, g.Words...)
	}
	words = append(append(words, rd.Refractory.Links...), rd.Refractory.Therapies...)
	if rd.Refractory.Near != nil {
		words = append(words, rd.Refractory.Near.Links...)
	}
	for i, w := range words {
		words[i] = strings.TrimSuffix(w, "*")
	}
	var re, near int
	for _, s := range gateCorpus(t, append(words, strings.ToUpper(words[0]))) {
		if v.re.MatchString(s) {
			re++
			if !mayMatch(s, v.links) {
				t.Fatalf("the refractory pattern matches %q but the link check skips it", s)
			}
		}
		if v.near != nil && v.near.MatchString(s) {
			near++
			if !mayMatch(s, v.nearLinks) {
				t.Fatalf("the near pattern matches %q but the link check skips it", s)
			}
		}
	}
	if re < 20 || (v.near != nil && near < 20) {
		t.Fatalf("patterns matched %d and %d texts; the check is too weak", re, near)
	}
}
