package extract

import (
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/executablekg/execkg/rules"
)

// Section is one headed part of a document: the heading as written and the
// byte span of its body (the heading excluded), with the pack's kind of it.
// Kind is "" for a label the pack does not know ("ICA (02/26):"): it ends
// the section before it and means nothing itself.
type Section struct {
	Kind         string `json:"kind"`
	Heading      string `json:"heading"`
	HeadingStart int    `json:"heading_start"`
	Start        int    `json:"start"`
	End          int    `json:"end"`
}

// maximum words of a label before its colon: longer is a sentence with a
// colon in it, not a heading.
const maxLabelWords = 6

// ReadSections finds the headed sections of a document with the pack's
// heading words. A heading is a label at the start of a line or of a
// sentence, ended by a colon (or, for a heading the pack knows, by " - ",
// or standing alone on its line). A heading alone on its line opens a block
// that runs to the next heading at a line start or a blank line; a heading
// with words after it on its line covers that line and the bulleted lines
// that follow it; a heading inside running text covers its sentence. Text with no sections data reads as one unheaded part.
func ReadSections(text string, sec *rules.Sections) []Section {
	if sec == nil || len(sec.Kinds) == 0 {
		return nil
	}
	if out, ok := recentSections.get(text, sec); ok {
		return out
	}
	out := readSections(text, sec)
	recentSections.put(text, sec, out)
	return out
}

// sectionsSeen remembers the sections of the last few texts read: one case
// asks for its document's sections again for every finding a reader judges
// (the extractor, the annotation, the not-taken reader per drug), and a
// long document read again per finding made the cost grow with the square
// of its length. A text is found by its address and length, so a lookup
// costs nothing whatever the text's length; the entry holds the text, so
// its memory cannot be reused for another text while it is remembered.
// The slices returned are shared: callers read them only.
type sectionsSeen struct {
	mu      sync.Mutex
	next    int
	entries [8]sectionsEntry
}

type sectionsEntry struct {
	text string
	sec  *rules.Sections
	out  []Section
}

var recentSections sectionsSeen

func (c *sectionsSeen) get(text string, sec *rules.Sections) ([]Section, bool) {
	if len(text) == 0 {
		return nil, false
	}
	p := unsafe.StringData(text)
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.entries {
		e := &c.entries[i]
		if e.sec == sec && len(e.text) == len(text) && unsafe.StringData(e.text) == p {
			return e.out, true
		}
	}
	return nil, false
}

func (c *sectionsSeen) put(text string, sec *rules.Sections, out []Section) {
	if len(text) == 0 {
		return
	}
	c.mu.Lock()
	c.entries[c.next] = sectionsEntry{text: text, sec: sec, out: out}
	c.next = (c.next + 1) % len(c.entries)
	c.mu.Unlock()
}

func readSections(text string, sec *rules.Sections) []Section {
	kinds := headingIndex(sec)
	var out []Section
	open := -1      // index in out of the block section still open, or -1
	listed := false // the open block has list items: its fields are past
	closeAt := func(pos int) {
		if open >= 0 {
			out[open].End = trimEnd(text, out[open].Start, pos)
			open = -1
		}
	}
	// A text of one line is running text, not a layout of fields: a label
	// opening it ("Plan: echo. Exertional angina.") heads its sentence
	// only, as a label inside prose does.
	oneLine := !strings.Contains(strings.TrimSpace(text), "\n")
	lineStart := 0
	for lineStart <= len(text) {
		lineEnd := strings.IndexByte(text[lineStart:], '\n')
		if lineEnd < 0 {
			lineEnd = len(text)
		} else {
			lineEnd += lineStart
		}
		line := text[lineStart:lineEnd]
		body := lineStart + leadingSpace(line)
		switch {
		case body == lineEnd:
			closeAt(lineStart) // a blank line ends a block
		case bulletAt(text, body, lineEnd) > body:
			// A list item continues the section above it.
			listed = open >= 0
		default:
			starts := withFieldLabels(sentenceStarts(text, body, lineEnd), text, body, lineEnd, kinds)
			headed := false // the line starts with a heading: a line of labelled fields
			for k, at := range starts {
				h, ok := labelAt(text, at, lineEnd, kinds, at == body)
				if !ok {
					continue
				}
				h.Kind = sharedKind(sec, text, h, lineEnd)
				if at == body && !oneLine {
					headed = true
				}
				if open >= 0 && !listed && h.Kind == "" && headed && !namesHeading(h.Heading, kinds) {
					// A field the pack does not know as a heading,
					// opening a line of a block of lines ("Plan\nCABG:
					// LIMA to LAD"), is a field of that block: the block
					// runs on, and the field's label still names what its
					// line reports (SectionAt keeps the block's kind).
					// After the block's list items, such a line is past
					// the list and ends the block ("Plan:\n- stop
					// statin\nECG: SR 70").
					h.End = trimEnd(text, h.Start, lineEnd)
					if h.Start >= lineEnd {
						h.End = lineEnd
					}
					out = append(out, h)
					continue
				}
				if open >= 0 {
					closeAt(at)
				} else if len(out) > 0 && out[len(out)-1].End > at {
					out[len(out)-1].End = trimEnd(text, out[len(out)-1].Start, at)
				}
				h.End = lineEnd
				if !headed {
					// A label inside running text ("… ACS excluded. FHx:
					// mother MI at 55. No personal history of MI.") heads
					// its own sentence only: the prose goes on after it.
					if k+1 < len(starts) {
						h.End = starts[k+1]
					}
					h.End = trimEnd(text, h.Start, h.End)
					out = append(out, h)
					continue
				}
				out = append(out, h)
				if h.Start >= lineEnd || strings.TrimSpace(text[h.Start:lineEnd]) == "" {
					open, listed = len(out)-1, false // a block: runs on below
				} else {
					// Bulleted lines right below belong to it, and so do
					// lines indented deeper than its own, which continue
					// its list ("Tried/stopped: ISMN - headaches;\n
					// diltiazem - bradycardia").
					open = -1
					next := lineEnd
					indent := body - lineStart
					for next < len(text) {
						ns := next + 1
						ne := strings.IndexByte(text[ns:], '\n')
						if ne < 0 {
							ne = len(text)
						} else {
							ne += ns
						}
						b := ns + leadingSpace(text[ns:ne])
						if b == ne || bulletAt(text, b, ne) == b && b-ns <= indent {
							break
						}
						next = ne
					}
					out[len(out)-1].End = trimEnd(text, h.Start, next)
				}
			}
		}
		if lineEnd >= len(text) {
			break
		}
		lineStart = lineEnd + 1
	}
	closeAt(len(text))
	return out
}

// sharedKind is the kind a heading opens: the kind of its words, or the
// kind that shares that heading (rules.SectionKind.SharedHeadings) when
// the words after it, on its line or else on the next, name no person
// ("CC: chest pain" is a chief complaint, "cc: Dr Price, GP" a copy list).
func sharedKind(sec *rules.Sections, text string, h Section, lineEnd int) string {
	words := strings.Join(rules.CueWords(StripParens(h.Heading)), " ")
	for _, k := range sec.Kinds {
		for _, sh := range k.SharedHeadings {
			if strings.Join(rules.CueWords(sh), " ") != words {
				continue
			}
			content := ""
			if h.Start < lineEnd {
				content = text[h.Start:lineEnd]
			} else if lineEnd < len(text) {
				next := text[lineEnd+1:]
				if i := strings.IndexByte(next, '\n'); i >= 0 {
					next = next[:i]
				}
				content = next
			}
			if strings.TrimSpace(content) == "" || namesPerson(sec, k, content) {
				return h.Kind
			}
			return k.Kind
		}
	}
	return h.Kind
}

// namesPerson: the words hold a name title of the frame ("Dr", "Mrs") or
// one of the kind's person words ("patient", "GP").
func namesPerson(sec *rules.Sections, k rules.SectionKind, content string) bool {
	for _, w := range rules.CueWords(content) {
		for _, t := range sec.Frame.NameTitles {
			if strings.EqualFold(w, t) {
				return true
			}
		}
		for _, p := range k.PersonWords {
			if strings.EqualFold(w, p) {
				return true
			}
		}
	}
	return false
}

// SectionAt returns the kind of the section holding byte offset pos ("" if
// none).
func SectionAt(secs []Section, pos int) string {
	kind := ""
	for _, s := range secs {
		if pos >= s.Start && pos < s.End && (s.Kind != "" || kind == "") {
			kind = s.Kind // a later (inner) section wins, unless it is a field of no kind
		}
	}
	return kind
}

type headingWords struct {
	words []string
	kind  string
}

// headingIndexes caches headingIndex by pack: every document of a batch
// reads the same headings, twice (the extractor and the reading), and
// splitting them into words was a twentieth of a short case's allocation.
// A pack's sections are never changed once loaded.
var headingIndexes sync.Map // *rules.Sections → []headingWords

func headingIndex(sec *rules.Sections) []headingWords {
	if hs, ok := headingIndexes.Load(sec); ok {
		return hs.([]headingWords)
	}
	hs, _ := headingIndexes.LoadOrStore(sec, readHeadingIndex(sec))
	return hs.([]headingWords)
}

func readHeadingIndex(sec *rules.Sections) []headingWords {
	var hs []headingWords
	for _, k := range sec.Kinds {
		for _, h := range k.Headings {
			hs = append(hs, headingWords{rules.CueWords(h), k.Kind})
		}
	}
	return hs
}

// labelAt reads a heading starting at byte at: a label of at most
// maxLabelWords words ended by a colon, a known heading ended by " - ", or
// (first on its line) a known heading alone on the line. An unknown label
// is returned with Kind "" only at the start of a line.
func labelAt(text string, at, lineEnd int, kinds []headingWords, lineFirst bool) (Section, bool) {
	r, _ := utf8.DecodeRuneInString(text[at:])
	if !unicode.IsLetter(r) {
		return Section{}, false
	}
	// The label runs to the first colon, dash separator or line end.
	end, after := -1, -1
	depth := 0
	for i := at; i < lineEnd; i++ {
		c := text[i]
		switch {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth <= 0 && c == ':' && (i+1 >= lineEnd || text[i+1] == ' ' || text[i+1] == '\t'):
			end, after = i, i+1
		case depth <= 0 && c == ' ' && strings.HasPrefix(text[i:], " - "):
			end, after = i, -(i + 3) // known headings only
		case depth <= 0 && (c == '.' || c == ';' || c == ',') && (i+1 >= lineEnd || text[i+1] == ' '):
			end = -2
		}
		if end != -1 {
			break
		}
	}
	label := ""
	alone := false
	switch {
	case end >= 0:
		label = text[at:end]
	case end == -1 && lineFirst:
		label, end, after, alone = text[at:lineEnd], lineEnd, lineEnd, true
	default:
		return Section{}, false
	}
	words := rules.CueWords(StripParens(label))
	if len(words) == 0 || len(words) > maxLabelWords {
		return Section{}, false
	}
	kind, known := matchHeading(words, kinds)
	dash := after < 0
	if dash {
		after = -after
	}
	if !known && (dash || alone || !lineFirst) {
		return Section{}, false
	}
	if known && alone && len(words) != len(kindWords(words, kinds)) {
		// A line alone holds a heading and nothing else, or headings of
		// one kind joined by a slash or an ampersand ("Outcome /
		// recommendation").
		if kind = joinedHeadings(StripParens(label), kinds); kind == "" {
			return Section{}, false
		}
	}
	start := after
	for start < lineEnd && (text[start] == ' ' || text[start] == '\t') {
		start++
	}
	return Section{Kind: kind, Heading: strings.TrimSpace(text[at:end]), HeadingStart: at, Start: start}, true
}

// joinedHeadings is the kind of a label made of two or more known
// headings joined by "/" or "&", each whole ("Outcome / recommendation",
// "Plan & actions"), where they are all of one kind; "" otherwise.
func joinedHeadings(label string, kinds []headingWords) string {
	parts := strings.FieldsFunc(label, func(r rune) bool { return r == '/' || r == '&' })
	if len(parts) < 2 {
		return ""
	}
	kind := ""
	for _, part := range parts {
		words := rules.CueWords(part)
		k, ok := matchHeading(words, kinds)
		if !ok || len(words) != len(kindWords(words, kinds)) || kind != "" && k != kind {
			return ""
		}
		kind = k
	}
	return kind
}

// namesHeading reports whether a label holds a heading's words anywhere
// ("Other meds", "Home medications"): such a label opens a section of its
// own, not a field of the block above it.
func namesHeading(label string, kinds []headingWords) bool {
	words := rules.CueWords(StripParens(label))
	for i := range words {
		for _, h := range kinds {
			if len(h.words) == 0 || i+len(h.words) > len(words) {
				continue
			}
			ok := true
			for j, w := range h.words {
				if words[i+j] != w {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// matchHeading: the label's words begin with a heading's words and add at
// most two more ("Bloods 06/01/25", "Meds on admission"); the longest
// heading wins.
func matchHeading(words []string, kinds []headingWords) (string, bool) {
	best, kind := 0, ""
	for _, h := range kinds {
		if len(h.words) > len(words) || len(words)-len(h.words) > 2 || len(h.words) <= best {
			continue
		}
		ok := true
		for i, w := range h.words {
			if words[i] != w {
				ok = false
				break
			}
		}
		if ok {
			best, kind = len(h.words), h.kind
		}
	}
	return kind, best > 0
}

func kindWords(words []string, kinds []headingWords) []string {
	best := []string(nil)
	for _, h := range kinds {
		if len(h.words) <= len(words) && len(h.words) > len(best) && strings.Join(words[:len(h.words)], " ") == strings.Join(h.words, " ") {
			best = h.words
		}
	}
	return best
}

// StripParens drops the parenthesised parts of a text ("Bloods (fasting)").
func StripParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')':
			if depth > 0 {
				depth--
			}
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sentenceStarts lists where sentences begin in a line: its first word and
// every word after ". " (not after an abbreviation).
func sentenceStarts(text string, body, lineEnd int) []int {
	out := []int{body}
	for i := body; i+1 < lineEnd; i++ {
		if (text[i] == '.' || text[i] == '?' || text[i] == '!') && text[i+1] == ' ' && !(text[i] == '.' && isAbbrevEnd(text, i)) {
			j := i + 1
			for j < lineEnd && text[j] == ' ' {
				j++
			}
			if j < lineEnd {
				out = append(out, j)
			}
		}
	}
	return out
}

// withFieldLabels adds to a line's sentence starts the known headings
// that open a field after "; " or ", " ("FHx: father MI at 50; PMH: HTN,
// DM"): a pack heading ended by a colon starts a section there too, so one
// field's section does not run over the next field.
func withFieldLabels(starts []int, text string, body, lineEnd int, kinds []headingWords) []int {
	var extra []int
	for i := body; i+1 < lineEnd; i++ {
		if (text[i] != ';' && text[i] != ',') || text[i+1] != ' ' {
			continue
		}
		j := i + 1
		for j < lineEnd && text[j] == ' ' {
			j++
		}
		if h, ok := labelAt(text, j, lineEnd, kinds, false); ok && h.Kind != "" && strings.Contains(text[h.HeadingStart:h.Start], ":") {
			extra = append(extra, j)
		}
	}
	if len(extra) == 0 {
		return starts
	}
	out := append(append([]int(nil), starts...), extra...)
	sort.Ints(out)
	return out
}

// ListItem reports whether a line opens with a list marker (as bulletAt
// reads it: "- ", "• ", "2. ", "(a) "), after its indentation.
func ListItem(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return bulletAt(t, 0, len(t)) > 0
}

// bulletAt returns where the item text begins after a list marker at pos
// ("- ", "* ", "• ", "1. ", "2) ", "(a) ", "a) "), or pos when there is none.
func bulletAt(text string, pos, lineEnd int) int {
	if pos >= lineEnd {
		return pos
	}
	s := text[pos:lineEnd]
	for _, b := range []string{"- ", "* ", "• ", "– ", "· ", "> "} {
		if strings.HasPrefix(s, b) {
			return pos + len(b) + leadingSpace(s[len(b):])
		}
	}
	i := 0
	if s[0] == '(' {
		i = 1
	}
	j := i
	for j < len(s) && j-i < 2 && isDigit(s[j]) {
		j++
	}
	digits := j > i
	if !digits && j < len(s) && s[j] >= 'a' && s[j] <= 'h' {
		j++ // "(a)", "b)"
	}
	if j == i || j+1 >= len(s) || s[j+1] != ' ' {
		return pos
	}
	if s[j] == ')' || s[j] == '.' && digits && i == 0 {
		return pos + j + 2 + leadingSpace(s[j+2:])
	}
	return pos
}

func leadingSpace(s string) int {
	n := 0
	for n < len(s) && (s[n] == ' ' || s[n] == '\t' || s[n] == '\r') {
		n++
	}
	return n
}

func trimEnd(text string, start, end int) int {
	for end > start && unicode.IsSpace(rune(text[end-1])) {
		end--
	}
	return end
}
