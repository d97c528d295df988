package engine

import (
	"strings"
	"unicode"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/engine/read"
)

// Antithrombotic regimens (DAPT, ticagrelor-based DAPT, combination
// antithrombotic therapy) are pack data: composites over the drug concepts
// in meta/hierarchy.json, drug and brand names in the lexicon. What stays
// here is generic: a sentence the pack's cues mark as stopping, planning or
// refusing a drug (meta/reading.json not_taken) does not state that it is
// taken, and a finding whose own words stop it (stopped) states it absent.

// medicationStatusStage reads whether a medication finding states the drug
// taken: not in a sentence that stops, plans or refuses it, not stopped.
type medicationStatusStage struct{}

func (medicationStatusStage) Name() string          { return "medication-status" }
func (medicationStatusStage) Reads() read.Input     { return read.Text }
func (medicationStatusStage) Emits() []patient.Kind { return []patient.Kind{patient.KindMedication} }

// Satisfies nothing: the reader only weakens or negates a reading.
func (medicationStatusStage) Satisfies(eval.Cond) consistency.Checks { return consistency.Checks{} }

// notTaken: the sentence around offset i has a cue of the pack's
// not_taken list.
func (p *Program) notTaken(text string, i int) bool {
	return p.reading.notTaken != nil && sentenceAround(text, i, p.reading.notTakenIn)
}

// notTakenAmong is notTaken for finding f among the case's findings: a cue
// inside another finding's words is that finding's ("no contraindication
// to beta-blockers" beside "beta-blocker therapy"), not f's. The sentence
// is the one notTaken reads, before or after the drug ("Apixaban
// planned.").
func (p *Program) notTakenAmong(text string, f extract.Finding, findings []extract.Finding) bool {
	if p.reading.notTaken == nil || f.Start < 0 || f.Start > len(text) {
		return false
	}
	lo := strings.LastIndexAny(text[:f.Start], ".;") + 1
	// The sentence holds the finding's own words at least: a period
	// inside them ("(e.g. X 5 mg) could be") ends no sentence.
	from := f.Start
	if f.End > from && f.End <= len(text) && strings.ContainsAny(text[f.Start:f.End], ".;") {
		from = f.End
	}
	hi := strings.IndexAny(text[from:], ".;")
	if hi < 0 {
		hi = len(text)
	} else {
		hi += from
	}
	// A sentence that runs over a line end stops at a heading the pack
	// knows ("amlodipine 10 mg od\n  Tried/stopped: ISMN"): the heading's
	// words are its own section's, not the sentence's.
	for _, s := range p.doc.Sections(text) {
		if s.Kind == "" {
			continue
		}
		if s.HeadingStart > lo && s.Start <= f.Start {
			lo = s.Start
		}
		if s.HeadingStart >= f.End && s.HeadingStart < hi {
			hi = s.HeadingStart
		}
	}
	// "Apixaban: NOT started (single episode)": a finding after the
	// drug's colon that opens with the cue is the label's value.
	return p.reading.notTakenIn(p.blankOthers(text, lo, hi, f, findings, ":")) || p.hangsUnderStatusLabel(text, f, findings)
}

// hangsUnderStatusLabel reports whether f opens a line indented to the
// column of the value after a status label on a line above ("Tried/
// stopped: isosorbide mononitrate ...;" then, aligned under it, "
// diltiazem (2023) - replaced ..."): the hanging lines continue the
// label's list, so its cue is theirs (statusLabel). Lines between that
// hang at the same column are passed over.
func (p *Program) hangsUnderStatusLabel(text string, f extract.Finding, findings []extract.Finding) bool {
	if f.Start <= 0 || f.Start > len(text) {
		return false
	}
	ls := strings.LastIndexByte(text[:f.Start], '\n') + 1
	col := f.Start - ls
	if ls == 0 || col == 0 || strings.Trim(text[ls:f.Start], " ") != "" {
		return false
	}
	for n := 0; n < 8 && ls > 0; n++ {
		ps := strings.LastIndexByte(text[:ls-1], '\n') + 1
		line := text[ps : ls-1]
		if len(line) <= col || line[col] == ' ' {
			return false
		}
		if strings.Trim(line[:col], " ") == "" {
			ls = ps // another hanging line of the list
			continue
		}
		c := strings.LastIndexByte(line[:col], ':')
		if c < 0 || strings.Trim(line[c+1:col], " ") != "" {
			return false
		}
		for _, o := range findings {
			if o.Start >= ps && o.End <= ps+c && p.statusLabel(text, o, extract.Finding{Start: ps + col}) {
				return true
			}
		}
		return false
	}
	return false
}

// blankOthers is text[lo:hi] with the words of the case's other findings
// inside it blanked, so that a cue among them is theirs, not f's; a
// finding after f whose gap from it holds one of seps and no letter, and
// which opens with a not-taken cue, is f's own status word and is kept.
func (p *Program) blankOthers(text string, lo, hi int, f extract.Finding, findings []extract.Finding, seps string) string {
	b := []byte(text[lo:hi])
	for _, o := range findings {
		if o.ID == f.ID || o.Start < lo || o.End > hi || o.Start >= o.End || o.Start < f.End && f.Start < o.End {
			continue
		}
		if gap := text[min(f.End, o.Start):o.Start]; o.Start >= f.End && strings.ContainsAny(gap, seps) && strings.IndexFunc(gap, unicode.IsLetter) < 0 && p.reading.leadingCue(text[o.Start:o.End]) {
			continue
		}
		if p.statusLabel(text, o, f) {
			continue
		}
		for i := o.Start; i < o.End; i++ {
			b[i-lo] = ' '
		}
	}
	return string(b)
}

// statusLabel reports whether finding o is the label of f's line and
// says what became of the drugs it lists ("Tried/stopped: isosorbide
// mononitrate MR 30 mg", "Previously on: clopidogrel"): o opens the line
// (after a list marker at most), only a colon and layout stand between o
// and f, and o's words hold a not-taken cue. Its cue is f's status word.
func (p *Program) statusLabel(text string, o, f extract.Finding) bool {
	if o.End > f.Start || o.Start < 0 || f.Start > len(text) {
		return false
	}
	gap := text[o.End:f.Start]
	if !strings.Contains(gap, ":") || strings.IndexFunc(gap, unicode.IsLetter) >= 0 || strings.IndexFunc(gap, unicode.IsDigit) >= 0 {
		return false
	}
	ls := strings.LastIndexByte(text[:o.Start], '\n') + 1
	if lead := text[ls:o.Start]; strings.TrimSpace(lead) != "" && !extract.ListItem(lead) {
		return false
	}
	return p.reading.notTakenIn(text[o.Start:o.End])
}

// listItem is a medication list item around a finding: its words up to
// the comma, semicolon, sentence end, line end or arrow on either side ("Ticagrelor -
// STOPPED -> clopidogrel 75 mg od" holds two items; the arrow starts the
// drug now taken), as stoppedItem reads an item.
func listItem(text string, start, end int) string {
	lo, hi := listItemBounds(text, start, end)
	return text[lo:hi]
}

// listItemAmong is listItem for finding f with the words of the case's
// other findings inside the item blanked: a cue among another finding's
// words is that finding's ("atorvastatin 80 + add ezetimibe": the order
// adds ezetimibe, the statin is taken), as notTakenAmong reads a
// sentence.
func (p *Program) listItemAmong(text string, f extract.Finding, findings []extract.Finding) string {
	lo, hi := listItemBounds(text, f.Start, f.End)
	// "Aspirin 75 mg od - held until the bleeding settles": a finding
	// after the drug's colon or dash that opens with the cue is the
	// drug's own status word.
	return p.blankOthers(text, lo, hi, f, findings, ":-–")
}

// listItemBounds: the byte range listItem returns (0, 0 for a span that
// is no finding's).
func listItemBounds(text string, start, end int) (int, int) {
	if start < 0 || end > len(text) || start >= end {
		return 0, 0
	}
	// A line break is a stop and no other stop holds one, so the search
	// keeps to the span's line: its cost does not grow with the document.
	line, hi := strings.LastIndexByte(text[:start], '\n')+1, len(text)
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		hi = end + i
	}
	lo := line
	before, after := text[line:start], text[end:hi]
	for _, stop := range []string{",", ";", ". ", " -> ", " → ", " => "} {
		if i := strings.LastIndex(before, stop); i >= 0 && line+i+len(stop) > lo {
			lo = line + i + len(stop)
		}
		if i := strings.Index(after, stop); i >= 0 && end+i < hi {
			hi = end + i
		}
	}
	return lo, hi
}

// stopped: a medication finding's own words say the drug was stopped.
func (p *Program) stopped(finding string) bool {
	return p.reading.stopped != nil && p.reading.stopped.MatchString(finding)
}

// sentenceAround: the sentence (or semicolon clause) around offset i
// matches re.
func sentenceAround(text string, i int, match func(string) bool) bool {
	lo := strings.LastIndexAny(text[:i], ".;") + 1
	hi := strings.IndexAny(text[i:], ".;")
	if hi < 0 {
		hi = len(text)
	} else {
		hi += i
	}
	return match(text[lo:hi])
}
