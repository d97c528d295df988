package engine

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/rules"
)

// ViaAnatomy starts the Via of an item derived from per-vessel stenosis
// reports ("LAD 80%, RCA 90%" → two-vessel coronary artery disease).
const ViaAnatomy = "anatomy: "

// Cut-offs of a significant (obstructive) stenosis, by diameter: >= 50 %
// in the left main stem and >= 70 % in the other epicardial vessels and
// their named branches. This is the conventional definition the guideline
// uses throughout; its high-risk CCTA criteria (catalogue README:
// "left main >= 50 %", "three-vessel disease with >= 70 %", "proximal LAD
// >= 70 %") use the same cut-offs.
const (
	SignificantLeftMain = 50.0
	SignificantOther    = 70.0
)

// Main coronary arteries a stenosis is counted in.
const (
	vesselLM  = "LM"
	vesselLAD = "LAD"
	vesselLCx = "LCx"
	vesselRCA = "RCA"
)

// stenosis is one per-vessel report read from the case text.
type stenosis struct {
	Vessel   string  // LM, LAD, LCx or RCA (a branch counts in its main vessel)
	Name     string  // as written ("pLAD", "OM1")
	Proximal bool    // proximal or ostial LAD (or "pLAD")
	Percent  float64 // diameter stenosis; 100 for an occlusion
	Below    bool    // stated as an upper bound ("<50%")
	Start    int     // offset in the text
	Text     string  // the matched words
}

func (s stenosis) significant() bool {
	cut := SignificantOther
	if s.Vessel == vesselLM {
		cut = SignificantLeftMain
	}
	if s.Below {
		return false
	}
	return s.Percent >= cut
}

// belowCut: the report states a value under the cut-off.
func (s stenosis) belowCut() bool {
	cut := SignificantOther
	if s.Vessel == vesselLM {
		cut = SignificantLeftMain
	}
	return s.Percent < cut || s.Below && s.Percent <= cut
}

const vesselPat = `(?:(?P<pos>p|prox\.?|proximal|ostial|m|mid|d|dist\.?|distal)[\s-]?)?(?P<v>LAD|LCx|LCX|Cx|RCA|LMS|LM|LMCA|left main(?: stem)?|left anterior descending(?: artery)?|circumflex(?: artery)?|right coronary(?: artery)?|OM\d?|D\d|diagonal|obtuse marginal|PDA|PLV)`

// stenosisRE: "LAD 80%", "LAD: 80% stenosis", "80% mid-LAD", "90% stenosis
// of the proximal LAD", "occluded RCA", "RCA CTO", "LAD 100%".
var (
	pctPat      = `(?P<cmp><|>|≥|≤|>=|<=)?\s*(?P<n>\d{1,3})(?:\s*[-–]\s*\d{1,3})?\s*%`
	vesselPctRE = regexp.MustCompile(`(?i)\b` + vesselPat + `\b(?:\s*(?:stenosis|lesion|disease))?\s*:?\s*` + pctPat)
	pctVesselRE = regexp.MustCompile(`(?i)` + pctPat + `\s*` + lesionWordsPat + `(?:(?:stenosis|lesion|narrowing|disease)\s+)?(?:(?:in|of|at)\s+)?(?:the\s+)?` + vesselPat + `\b`)
	// lesionWordsPat: words describing the lesion that may stand between
	// the percentage and the vessel ("85% long (38 mm) calcified proximal
	// LAD"); a closed list, so a second finding never joins in.
	lesionWordsPat = `(?:(?:long|short|diffuse|diffusely|focal|calcified|heavily|severely|severe|moderately|tight|eccentric|concentric|tandem|tubular|discrete|non-calcified|noncalcified|mixed|soft|complex|critical|subtotal|ulcerated|angulated|tortuous|\(\s*\d+(?:\.\d+)?\s*mm\s*\)|\d+(?:\.\d+)?\s*mm)\s+){0,4}`
	occVesselRE    = regexp.MustCompile(`(?i)\b(?:occluded|occlusion of(?: the)?|CTO of(?: the)?|CTO)\s+` + vesselPat + `\b`)
	vesselOccRE    = regexp.MustCompile(`(?i)\b` + vesselPat + `\b\s*(?:is\s+|was\s+)?(?:occluded|occlusion|CTO)\b`)
	// Words that make a percentage near a vessel something other than a
	// native stenosis: a graft, a stent, a spasm, a flow reserve.
	notNativeRE = regexp.MustCompile(`(?i)\b(?:SVG|LIMA|RIMA|graft|grafts|in-stent|ISR|restenosis|stent|stented|DES|spasm|vasospasm|FFR|iFR|QFR|CFR|patent)\b`)
)

// mainVessel maps a written vessel or branch to the main artery it is
// counted in, or "".
func mainVessel(v string) string {
	u := strings.ToUpper(v)
	switch {
	case u == "LM" || u == "LMS" || u == "LMCA" || strings.HasPrefix(u, "LEFT MAIN"):
		return vesselLM
	case u == "LAD" || strings.HasPrefix(u, "LEFT ANTERIOR") || strings.HasPrefix(u, "DIAGONAL") || len(u) == 2 && u[0] == 'D':
		return vesselLAD
	case u == "LCX" || u == "CX" || strings.HasPrefix(u, "CIRCUMFLEX") || strings.HasPrefix(u, "OM") || strings.HasPrefix(u, "OBTUSE"):
		return vesselLCx
	case u == "RCA" || strings.HasPrefix(u, "RIGHT CORONARY") || u == "PDA" || u == "PLV":
		return vesselRCA
	}
	return ""
}

// segmentOf returns the bounds of the piece of text around [lo, hi)
// between punctuation that separates reports (, ; . ( ) newline).
func segmentOf(text string, lo, hi int) (int, int) {
	a := lo
	for a > 0 && !strings.ContainsRune(",;()\n", rune(text[a-1])) && !(text[a-1] == '.' && (a == 1 || text[a-2] < '0' || text[a-2] > '9')) {
		a--
	}
	b := hi
	for b < len(text) && !strings.ContainsRune(",;()\n", rune(text[b])) && !(text[b] == '.' && (b+1 >= len(text) || text[b+1] < '0' || text[b+1] > '9')) {
		b++
	}
	return a, b
}

// stenoses reads the per-vessel stenosis reports of a text.
func stenoses(text string) []stenosis {
	var out []stenosis
	seen := map[int]bool{} // vessel-name offset already read
	add := func(re *regexp.Regexp, occluded bool) {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			get := func(name string) (string, int) {
				i := re.SubexpIndex(name)
				if i < 0 || m[2*i] < 0 {
					return "", -1
				}
				return text[m[2*i]:m[2*i+1]], m[2*i]
			}
			v, vAt := get("v")
			mv := mainVessel(v)
			if mv == "" || seen[vAt] {
				continue
			}
			// A vessel name glued to a graft ("SVG-RCA", "LIMA-LAD").
			if vAt > 0 && (text[vAt-1] == '-' || text[vAt-1] == '/') {
				if p, _ := get("pos"); p == "" {
					continue
				}
			}
			a, b := segmentOf(text, m[0], m[1])
			if notNativeRE.MatchString(text[a:b]) {
				continue
			}
			s := stenosis{Vessel: mv, Name: v, Start: m[0], Text: strings.TrimSpace(text[m[0]:m[1]])}
			pos, _ := get("pos")
			lp := strings.ToLower(pos)
			s.Proximal = mv == vesselLAD && strings.EqualFold(v, "LAD") && (lp == "p" || strings.HasPrefix(lp, "prox") || lp == "ostial")
			if occluded {
				s.Percent = 100
			} else {
				n, _ := get("n")
				f, err := strconv.ParseFloat(n, 64)
				if err != nil || f > 100 {
					continue
				}
				s.Percent = f
				c, _ := get("cmp")
				s.Below = c == "<" || c == "≤" || c == "<="
			}
			// "proximal" written before the number: "90% stenosis of the
			// proximal LAD" is caught by pos; "LAD proximal 90%" is not read.
			seen[vAt] = true
			out = append(out, s)
		}
	}
	add(vesselPctRE, false)
	add(pctVesselRE, false)
	add(occVesselRE, true)
	add(vesselOccRE, true)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// vesselCountConcepts are the pack's concepts that state how many main
// vessels are diseased, by count (0: two or more).
var vesselCountConcepts = map[string]int{
	"one-vessel coronary artery disease":   1,
	"two-vessel coronary artery disease":   2,
	"three-vessel coronary artery disease": 3,
	"multivessel coronary artery disease":  0,
	"obstructive coronary artery disease":  -1,
}

var countWords = map[int]string{1: "one-vessel", 2: "two-vessel", 3: "three-vessel"}

// contradicts: the derived count n disagrees with a stated item.
func contradicts(n int, concept string, present bool) bool {
	c, ok := vesselCountConcepts[concept]
	if !ok {
		return false
	}
	if present {
		switch c {
		case 1, 2, 3:
			return c != n
		case 0:
			return n < 2
		}
		return false
	}
	switch c {
	case 1, 2, 3:
		return c == n
	case 0:
		return n >= 2
	}
	return n >= 1
}

// anatomyEvidence derives evidence from per-vessel stenosis reports: the
// stenosis values (left main, proximal LAD, any coronary artery), left
// main and proximal LAD stenosis, and the number of significantly
// diseased main vessels beyond the left main. A
// stenosis below its cut-off derives nothing. Each item keeps the finding
// the report lies in; nothing is derived against a stated item.
func (p *Program) anatomyEvidence(text string, findings []extract.Finding, ev []eval.Evidence) []eval.Evidence {
	ss := stenoses(text)
	if len(ss) == 0 {
		return nil
	}
	findingAt := func(at int) (extract.Finding, bool) {
		for _, f := range findings {
			if f.Start >= 0 && f.Start <= at && at < f.End {
				return f, true
			}
		}
		return extract.Finding{}, false
	}
	stated := map[string][]bool{} // concept name → polarities stated
	for _, e := range ev {
		if e.Value == nil {
			stated[p.names[e.ConceptKey]] = append(stated[p.names[e.ConceptKey]], e.Present)
		}
	}
	var out []eval.Evidence
	emit := func(f extract.Finding, concept string, present bool, value *float64, via string) {
		key, ok := p.keys[rules.NormalizeName(concept)]
		if !ok {
			return
		}
		if value == nil {
			for _, pol := range stated[concept] {
				if pol != present {
					return
				}
			}
		}
		e := eval.Evidence{ID: f.ID, ConceptKey: key, Concept: p.names[key], Text: f.Text, Present: present, Via: ViaAnatomy + via}
		if value != nil {
			e.Value, e.Unit = value, "%"
		}
		out = append(out, e)
	}
	diseased := map[string]bool{}
	var sig []stenosis
	var first extract.Finding
	haveFirst := false
	for _, s := range ss {
		f, ok := findingAt(s.Start)
		if !ok {
			continue
		}
		v := s.Percent
		val := &v
		desc := fmt.Sprintf("%s %g%%", s.Name, s.Percent)
		if !s.Below {
			switch {
			case s.Vessel == vesselLM:
				emit(f, "left main coronary artery diameter stenosis", true, val, desc)
			case s.Proximal:
				emit(f, "proximal left anterior descending coronary artery diameter stenosis", true, val, desc)
			}
			if s.Vessel != vesselLM {
				emit(f, "coronary artery diameter stenosis", true, val, desc)
			}
		}
		if !s.significant() {
			continue
		}
		switch {
		case s.Vessel == vesselLM:
			emit(f, "left main coronary artery stenosis", true, nil, desc+" (>= 50% in the left main)")
			// Not counted as LAD and LCx disease: the pack tests "left
			// main plus multivessel disease", so the vessel count is of
			// the vessels beyond the left main.
			continue
		case s.Proximal:
			emit(f, "proximal left anterior descending coronary artery stenosis", true, nil, desc+" (>= 70%)")
			diseased[s.Vessel] = true
		default:
			diseased[s.Vessel] = true
		}
		sig = append(sig, s)
		if !haveFirst {
			first, haveFirst = f, true
		}
	}
	n := len(diseased)
	if n == 0 || n > 3 {
		return out
	}
	for concept, pols := range stated {
		for _, pol := range pols {
			if contradicts(n, concept, pol) {
				return out
			}
		}
	}
	var names []string
	for _, s := range sig {
		names = append(names, fmt.Sprintf("%s %g%%", s.Name, s.Percent))
	}
	via := strings.Join(names, ", ") + " → " + countWords[n] + " disease"
	emit(first, countWords[n]+" coronary artery disease", true, nil, via)
	return out
}
