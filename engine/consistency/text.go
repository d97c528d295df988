package consistency

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one word or symbol of a text with its byte offsets.
type token struct {
	raw        string // as written
	low        string // lower-cased as written
	norm       string // spelling-normalised, for fuzzy matching
	start, end int    // byte offsets in the text
	word       bool   // letters/digits (false for "?", "%", "<", …)
	boundary   bool   // ends a clause: punctuation or a clause word
	clause     int    // clause number; -1 on boundaries
	ini        string // the token's part of initials (see initials)
	num        float64
	isNum      bool // low parses as a number, num (for similar)
	// isContent and acronym cache content() and acronymCandidate(), read
	// for every pair of words compared in every verdict.
	isContent, acronym bool
}

// tokenize splits text into words and symbols. Words keep internal
// hyphens, slashes and apostrophes ("ST-segment", "r/o", "can't") and
// decimal points or commas between digits ("1.73", "1,73"), so a cue such
// as "r/o" stays one token and a number never ends a clause.
// possessiveAt: text[k:] is the "s" of a possessive "'s" that ends the
// word ("father's", not "it's" inside a longer word such as "o'sullivan").
func possessiveAt(text string, k int) bool {
	if k >= len(text) || text[k] != 's' && text[k] != 'S' {
		return false
	}
	if k+1 == len(text) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(text[k+1:])
	return !isWordRune(r)
}

func tokenize(text string) []token {
	// About one token per five bytes of clinical text, words and
	// punctuation together: one allocation for most texts instead of a
	// slice doubled from empty.
	out := make([]token, 0, len(text)/5+1)
	i := 0
	for i < len(text) {
		r, w := utf8.DecodeRuneInString(text[i:])
		if n := fixedWordAt(text, i); n > 0 {
			out = append(out, newToken(text[i:i+n], i, i+n, true))
			i += n
			continue
		}
		if n := emptyBoxAt(text, i); n > 0 {
			out = append(out, newToken("[ ]", i, i+n, false))
			i += n
			continue
		}
		if n, ticked := boxOpeningAt(text, i); n > 0 {
			// A box opening a checklist item ("[ ] Known CAD   [x] HTN"):
			// a ticked one starts its item, a clause of its own; an empty
			// one is an option not chosen, read by the cue files as "[_]".
			t := newToken("[_]", i, i+n, false)
			if ticked {
				t = newToken("[x]", i, i+n, false)
				t.boundary = true
			}
			out = append(out, t)
			i += n
			continue
		}
		switch {
		case isWordRune(r):
			j := i + w
			skip := 0 // a possessive "'s" after the word, read as no word
			for j < len(text) {
				r2, w2 := utf8.DecodeRuneInString(text[j:])
				if isWordRune(r2) {
					j += w2
					continue
				}
				if (r2 == '\'' || r2 == '’') && possessiveAt(text, j+w2) {
					// "father's MI" is the father's: the word is "father".
					skip = w2 + 1
					break
				}
				if j+w2 < len(text) {
					next, _ := utf8.DecodeRuneInString(text[j+w2:])
					prev, _ := utf8.DecodeLastRuneInString(text[:j])
					joiner := r2 == '-' || r2 == '/' && !slashList(text, i, j) || r2 == '\'' || r2 == '’'
					decimal := (r2 == '.' || r2 == ',') && unicode.IsDigit(prev) && unicode.IsDigit(next)
					if (joiner && isWordRune(next)) || decimal {
						j += w2
						continue
					}
				}
				break
			}
			out = append(out, newToken(text[i:j], i, j, true))
			i = j + skip
		case r == '.' && i > 0 && isWordRune(prevRune(text, i)) && i+w < len(text) && (text[i+w] == ')' || text[i+w] == ',' || text[i+w] == ';'):
			// A full stop right before a closing parenthesis, a comma or a
			// semicolon ends an abbreviation ("Brother (62 y.) had a
			// stent", "aged 70 yrs., on aspirin"), not a sentence: the
			// mark after it bounds the clause.
			i += w
		case r == ',' || r == ';' || r == ':' || r == '.' || r == '!' || r == '\n' || r == '\r' || r == '•' || r == '(' || r == ')':
			// A parenthesis sets off a clause of its own: "suspected CCS
			// (PTP 45%)" does not put the likelihood in doubt.
			t := newToken(text[i:i+w], i, i+w, false)
			t.boundary = true
			out = append(out, t)
			i += w
		case (r == '-' || r == '–' || r == '—') && i > 0 && text[i-1] == ' ' && i+w < len(text) && text[i+w] == ' ':
			// A dash set off by spaces separates two clauses ("?CCS
			// worsening - crescendo angina", "suspected CCS - exertional
			// chest tightness"): the doubt of one is not the other's.
			t := newToken(text[i:i+w], i, i+w, false)
			t.boundary = true
			out = append(out, t)
			i += w
		case (r == '-' || r == '=') && i+w < len(text) && text[i+w] == '>' || r == '→':
			// An arrow of a chain ("criteria none -> not HBR", "?CCS →
			// CCTA"): one token, which closes the clause before it for a
			// cue that looks back only from a clause's end.
			n := w
			if r != '→' {
				n = 2
			}
			out = append(out, newToken(text[i:i+n], i, i+n, false))
			i += n
		case r == '/':
			// A slash between two words of a list ("chest pain/dyspnoea")
			// stands alone, so each word can be found and a cue reach both.
			out = append(out, newToken("/", i, i+w, false))
			i += w
		case r == '?' || r == '%' || r == '<' || r == '>' || r == '=' || r == '≤' || r == '≥':
			out = append(out, newToken(text[i:i+w], i, i+w, false))
			i += w
		case r == '\t' || r == ' ' && i+1 < len(text) && text[i+1] == ' ':
			// A tab or a run of spaces inside a line separates the
			// cells of a flattened table ("HIV  Negative   Syphilis
			// Reactive"): a clause boundary.
			j := i
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			t := newToken("\t", i, j, false)
			t.boundary = true
			out = append(out, t)
			i = j
		default:
			i += w // spaces, square brackets, quotes
		}
	}
	markClauses(out)
	return out
}

// readTokens tokenises a case text or a mention and bridges the
// spacing gaps that separate no cells (bridgeGaps).
func readTokens(text string) []token { return bridgeGaps(tokenize(text)) }

// isGap: the token is a cell break, a tab or a run of spaces.
func isGap(t token) bool { return !t.word && t.raw == "\t" }

// bridgeGaps drops the cell breaks that are only spacing, so that spacing
// never changes what a cue reaches: a gap beside punctuation ("Diabetes:
// no", "angina,  no MI") or at a line's start or end, and a gap after a
// cue that looks forward ("No  chest pain", "Denies  angina", "Not on
// aspirin", "PMH:  no  angina"). A cue after a cell break is that cell's
// value ("Smoker  No   Diabetes  Yes"), and a cue answering a label is
// the label's when the next cell is a field of its own ("Smoker:  no
// Diabetes:  yes", "Smoker:  no   Diabetes  yes"): those gaps stay.
func bridgeGaps(ts []token) []token {
	if len(cueRules.defs) == 0 {
		return ts // the cue data is being read
	}
	drop := make([]bool, len(ts))
	any := false
	for g := range ts {
		if !isGap(ts[g]) {
			continue
		}
		if g == 0 || g == len(ts)-1 || punct(ts[g-1]) || punct(ts[g+1]) || forwardCueBefore(ts, drop, g) {
			drop[g], any = true, true
		}
	}
	if !any {
		return ts
	}
	out := ts[:0:0]
	for i, t := range ts {
		if !drop[i] {
			out = append(out, t)
		}
	}
	markClauses(out)
	return out
}

// punct: a boundary that is no cell break (punctuation, a line break, a
// spaced dash).
func punct(t token) bool { return !t.word && t.boundary && !isGap(t) }

// forwardCueBefore: the words before gap g end a cue that looks forward,
// after at most two stopwords ("Not on  aspirin") or, in prose, two
// words, and the cue is not a
// cell's value: it does not follow a kept cell break, and after a colon
// (a label's answer) the words after the gap run to punctuation or the
// text's end, not to another cell or label.
func forwardCueBefore(ts []token, drop []bool, g int) bool {
	// Between two lower-case words the gap is a typing slip in prose
	// ("Not currently on  aspirin"), as the extractor reads it: any two
	// words may then stand between the cue and the gap.
	slip := g > 0 && g+1 < len(ts) && lowerEnd(ts[g-1].raw) && lowerStart(ts[g+1].raw)
	for end := g - 1; end >= 0 && end >= g-3; end-- {
		if end < g-1 && !(ts[end+1].word && (slip || stopwords[ts[end+1].low])) {
			return false
		}
		for j := end; j >= 0 && j > end-6; j-- {
			if !ts[j].word && ts[j].boundary {
				break // cues never span punctuation
			}
			for _, k := range cuesByFirst[ts[j].low] {
				d := &cueRules.defs[k]
				if len(d.words) != end-j+1 || d.dir&forward == 0 || d.kind == kindPseudo || d.kind == kindTermination || !wordsAt(ts, j, d.words) {
					continue
				}
				if d.opener && !opensSentence(ts, j) {
					continue
				}
				if j > 0 && isGap(ts[j-1]) && !drop[j-1] {
					return false // a cell's value
				}
				if j > 0 && ts[j-1].raw == ":" || j > 1 && isGap(ts[j-1]) && ts[j-2].raw == ":" {
					return runsToPunct(ts, g+1)
				}
				return !labelAfter(ts, g+1)
			}
		}
	}
	return false
}

func lowerEnd(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsLower(r)
}

func lowerStart(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

// wordsAt: tokens from j spell words.
func wordsAt(ts []token, j int, words []string) bool {
	for n, w := range words {
		if j+n >= len(ts) || ts[j+n].low != w {
			return false
		}
	}
	return true
}

// runsToPunct: the tokens from i reach punctuation or the text's end
// before any cell break.
func runsToPunct(ts []token, i int) bool {
	for ; i < len(ts); i++ {
		if isGap(ts[i]) {
			return false
		}
		if punct(ts[i]) {
			return ts[i].raw != ":"
		}
	}
	return true
}

// labelAfter: the words from i are a label, closed by a colon within a
// few words ("No   Diabetes:  yes").
func labelAfter(ts []token, i int) bool {
	for n := i; n < len(ts) && n < i+4; n++ {
		if ts[n].raw == ":" {
			return true
		}
		if ts[n].boundary && !ts[n].word {
			return false
		}
	}
	return false
}

// prevRune is the rune before byte i of text.
func prevRune(text string, i int) rune {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return r
}

// fixedWordAt returns the length of an abbreviation with full stops
// ("vs.", "e.g.") or a signed word ("-ve", "+ve") starting at byte i, as
// listed in cues/scope.json, or 0. The word must end there: "vs." in
// "vs.ST" is not "vs.".
func fixedWordAt(text string, i int) int {
	c := text[i]
	if c != '-' && c != '+' && !(c < utf8.RuneSelf && unicode.IsLetter(rune(c))) {
		return 0
	}
	if i > 0 {
		// Mid-word ("ST-ve", "pre-e.g.") is no start.
		if prev, _ := utf8.DecodeLastRuneInString(text[:i]); isWordRune(prev) {
			return 0
		}
	}
	for _, lists := range [][]string{scopeRules.Abbreviations, scopeRules.SignedWords} {
		for _, a := range lists {
			if len(text)-i < len(a) || !strings.EqualFold(text[i:i+len(a)], a) {
				continue
			}
			if next, _ := utf8.DecodeRuneInString(text[i+len(a):]); i+len(a) < len(text) && isWordRune(next) {
				continue
			}
			return len(a)
		}
	}
	return 0
}

// emptyBoxAt returns the length of an empty check box at text[i] ("[ ]",
// "[]") that is a form field's value: nothing but spacing follows it on
// its line before the line's end, a parenthesis or a cell break ("Known
// CHD:     [ ]", "Diabetes:  [ ]   (HbA1c 40)"). An unticked box is the
// form's "no" (a backward cue in the cue files reads it). A box before
// words on its line ("[ ] never  [x] current", "[ ] book echo") belongs
// to the option or task it opens and is not read; 0 then.
func emptyBoxAt(text string, i int) int {
	if text[i] != '[' {
		return 0
	}
	n := 1
	if strings.HasPrefix(text[i+1:], " ]") {
		n = 3
	} else if strings.HasPrefix(text[i+1:], "]") {
		n = 2
	} else {
		return 0
	}
	j := i + n
	for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
		j++
	}
	if j == len(text) || text[j] == '\n' || text[j] == '\r' || text[j] == '(' || j-(i+n) >= 2 || text[j-1] == '\t' {
		return n
	}
	return 0
}

// boxOpeningAt returns the length of a check box at text[i] that opens
// the words after it in a row of options on its line ("[x] Hypertension
// [ ] Diabetes   [ ] Known CAD/PVD/stroke"), and whether it is ticked; 0
// for a box that is a field's value (emptyBoxAt), a line's only box, or
// other brackets. "[_]" is read as an empty one too: it is the cue files'
// spelling of it.
func boxOpeningAt(text string, i int) (int, bool) {
	if text[i] != '[' {
		return 0, false
	}
	n, ticked := 0, false
	switch {
	case strings.HasPrefix(text[i:], "[ ]"), strings.HasPrefix(text[i:], "[_]"):
		n = 3
	case strings.HasPrefix(text[i:], "[]"):
		n = 2
	case strings.HasPrefix(text[i:], "[x]"), strings.HasPrefix(text[i:], "[X]"):
		n, ticked = 3, true
	case strings.HasPrefix(text[i:], "[✓]"), strings.HasPrefix(text[i:], "[✔]"):
		n, ticked = 2+len("✓"), true
	default:
		return 0, false
	}
	// Words must follow on its line after a single space: a box alone, or
	// before a run of spaces, is a field's value.
	j := i + n
	if j < len(text) && text[j] == ' ' {
		j++
	}
	if j >= len(text) || text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r' {
		if text[i+1] == '_' && j >= len(text) {
			return n, false // the cue files' "[_]"
		}
		return 0, false
	}
	// Only a row of options holds two boxes or more on its line ("[x]
	// Hypertension [ ] Diabetes"); one box per line is as often a task
	// list ("[ ] refer for stress echo"), which the plan readers judge,
	// unless the line opens with its box in a block of such lines that
	// holds a row of options: the block is then the form's list of
	// options laid out one or more to a line ("[ ] Chest pain" over
	// "[ ] Palpitations   [ ] Syncope").
	ls := strings.LastIndexByte(text[:i], '\n') + 1
	le := lineEnd(text, i)
	if boxesIn(text[ls:le]) < 2 && !(opensWithBox(text[ls:le]) && optionBlock(text, ls, le)) {
		return 0, false
	}
	return n, ticked
}

// lineEnd is the byte offset of the end of the line holding text[i].
func lineEnd(text string, i int) int {
	if le := strings.IndexByte(text[i:], '\n'); le >= 0 {
		return i + le
	}
	return len(text)
}

// opensWithBox reports whether a line's first non-space characters are a
// check box.
func opensWithBox(line string) bool {
	line = strings.TrimLeft(line, " \t")
	for _, b := range []string{"[ ]", "[]", "[x]", "[X]", "[✓]", "[✔]", "[_]"} {
		if strings.HasPrefix(line, b) {
			return true
		}
	}
	return false
}

// optionBlock reports whether the block of adjacent lines opening with a
// check box around the line text[ls:le] is a form's list of options, not
// a task list: it holds a line with two boxes or more (a row of
// options), or, under a heading that names no tasks (scope.json
// checklists.task_headings: "Plan", "Actions"), it holds a ticked box
// beside an empty one ("[x] Current smoker" over "[ ] Known CAD": the
// form's choices) or its heading asks for ticks (checklists.instructions:
// "tick all that apply"). An indented line under an item continues it
// and stays in the block.
func optionBlock(text string, ls, le int) bool {
	start := ls
	var ticked, empty bool
	look := func(line string) bool {
		if boxesIn(line) >= 2 {
			return true
		}
		t := strings.TrimLeft(line, " \t")
		ticked = ticked || strings.HasPrefix(t, "[x]") || strings.HasPrefix(t, "[X]") || strings.HasPrefix(t, "[✓]") || strings.HasPrefix(t, "[✔]")
		empty = empty || strings.HasPrefix(t, "[ ]") || strings.HasPrefix(t, "[]") || strings.HasPrefix(t, "[_]")
		return false
	}
	if look(text[ls:le]) {
		return true
	}
	for s := ls; s > 0; { // the lines above
		ps := strings.LastIndexByte(text[:s-1], '\n') + 1
		line := text[ps : s-1]
		if !opensWithBox(line) && !continuesItem(line) {
			break
		}
		if look(line) {
			return true
		}
		s, start = ps, ps
	}
	for e := le; e < len(text); { // the lines below
		ne := lineEnd(text, e+1)
		line := text[e+1 : ne]
		if !opensWithBox(line) && !continuesItem(line) {
			break
		}
		if look(line) {
			return true
		}
		e = ne
	}
	for start < len(text) && !opensWithBox(text[start:lineEnd(text, start)]) {
		start = lineEnd(text, start) + 1 // a continuation cannot open the block
	}
	heading := headingAbove(text, start)
	if phraseIn(heading, scopeRules.Checklists.TaskHeadings) {
		return false
	}
	return ticked && empty || phraseIn(heading, scopeRules.Checklists.Instructions)
}

// continuesItem reports whether a line is the indented continuation of
// the checklist item above it: spacing, then words, no box.
func continuesItem(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return len(t) < len(line) && strings.TrimSpace(t) != "" && !opensWithBox(line)
}

// headingAbove is the nearest line above the line starting at text[start]
// that holds anything but spacing; "" when there is none.
func headingAbove(text string, start int) string {
	for s := start; s > 0; {
		ps := strings.LastIndexByte(text[:s-1], '\n') + 1
		if line := text[ps : s-1]; strings.TrimSpace(line) != "" {
			return line
		}
		s = ps
	}
	return ""
}

// phraseIn reports whether one of the phrases is written in line as whole
// words, case aside.
func phraseIn(line string, phrases []string) bool {
	words := strings.FieldsFunc(strings.ToLower(line), func(r rune) bool { return !isWordRune(r) })
	if len(words) == 0 {
		return false
	}
	joined := " " + strings.Join(words, " ") + " "
	for _, p := range phrases {
		pw := strings.FieldsFunc(strings.ToLower(p), func(r rune) bool { return !isWordRune(r) })
		if len(pw) > 0 && strings.Contains(joined, " "+strings.Join(pw, " ")+" ") {
			return true
		}
	}
	return false
}

// CueWritten reports whether the cue is written in a text, as stated
// says of each spelling of it: a cue is written as it is spelled, but the
// empty box opening a checklist item, the cue files' "[_]", is written
// "[ ]" or "[]".
func CueWritten(cue string, stated func(spelling string) bool) bool {
	if cue == "[_]" {
		return stated("[ ]") || stated("[]")
	}
	return stated(cue)
}

// boxesIn counts the check boxes of a line.
func boxesIn(line string) int {
	n := 0
	for _, b := range []string{"[ ]", "[]", "[x]", "[X]", "[✓]", "[✔]"} {
		n += strings.Count(line, b)
	}
	return n
}

// slashList reports whether the slash at byte j, inside the word that
// starts at byte start, separates two list words: both sides have three
// letters or more and no digit ("pain/dyspnoea", "ACEi/ARB"), unlike
// "r/o", "w/o", "mL/min", "120/80" or "and/or".
func slashList(text string, start, j int) bool {
	left := text[start:j]
	if k := strings.LastIndexAny(left, "-/'’"); k >= 0 {
		left = left[k+1:]
	}
	right := text[j+1:]
	if k := strings.IndexFunc(right, func(r rune) bool { return !isWordRune(r) }); k >= 0 {
		right = right[:k]
	}
	plain := func(s string) bool {
		return utf8.RuneCountInString(s) >= 3 && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
	}
	if strings.EqualFold(left, "and") && strings.EqualFold(right, "or") {
		return false
	}
	return plain(left) && plain(right)
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) } // IsNumber keeps "m²" whole

func newToken(s string, start, end int, word bool) token {
	low := strings.ToLower(s)
	t := token{raw: s, low: low, norm: normalize(low), start: start, end: end, word: word}
	t.ini = tokenInitials(t)
	if mayBeNumber(low) {
		f, err := strconv.ParseFloat(low, 64)
		t.num, t.isNum = f, err == nil
	}
	t.isContent = word && !stopwords[low]
	t.acronym = acronymShape(t)
	return t
}

// spelling folds British and American spellings and plurals together so
// "ischaemia" meets "ischemia" and "stenoses" is close to "stenosis".
var spelling = strings.NewReplacer("ae", "e", "oe", "e", "’", "'")

// mayBeNumber: strconv.ParseFloat can read s only when it starts with a
// digit, a point or a sign, or spells infinity or NaN; other words skip
// it (and the error it allocates).
func mayBeNumber(s string) bool {
	if s == "" {
		return false
	}
	switch c := s[0]; {
	case '0' <= c && c <= '9', c == '.', c == '+', c == '-', c == 'i', c == 'I', c == 'n', c == 'N':
		return true
	}
	return false
}

func normalize(low string) string {
	s := low
	if strings.Contains(low, "ae") || strings.Contains(low, "oe") || strings.Contains(low, "’") {
		s = spelling.Replace(low) // Replace copies even a string it leaves as is
	}
	s = strings.TrimSuffix(s, "'s")
	if len(s) > 4 && strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && !strings.HasSuffix(s, "us") && !strings.HasSuffix(s, "is") {
		s = s[:len(s)-1]
	}
	return s
}

// Clause words and pairs end a clause (cues/scope.json). "or" is
// deliberately not one: "no diabetes or hypertension" negates both, and
// "documented or suspected" stays whole.
// markClauses numbers the clauses and marks boundary words.
func markClauses(ts []token) {
	for i := range ts {
		if ts[i].word && scopeRules.clauseWords[ts[i].low] {
			ts[i].boundary = true
		}
		for _, p := range scopeRules.ClausePairs {
			if i+1 < len(ts) && ts[i].low == p[0] && ts[i+1].low == p[1] {
				ts[i].boundary, ts[i+1].boundary = true, true
			}
		}
	}
	c, open := 0, false
	for i := range ts {
		if ts[i].boundary {
			ts[i].clause = -1
			if open {
				c++
				open = false
			}
			continue
		}
		ts[i].clause = c
		open = true
	}
}

// stopwords carry no content for locating a mention.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "in": true, "on": true, "at": true, "to": true,
	"for": true, "with": true, "and": true, "or": true, "by": true, "from": true, "as": true,
	"is": true, "was": true, "are": true, "were": true, "be": true, "been": true, "has": true,
	"have": true, "had": true, "patient": true, "patients": true, "pt": true, "individual": true,
	"individuals": true, "who": true, "that": true, "this": true, "his": true, "her": true,
	"their": true, "no": true, "not": true, "its": true, "than": true, "per": true,
}

func (t *token) content() bool { return t.isContent }

// similar reports whether two tokens are the same word up to spelling,
// plural or a shared stem ("vasospasm"/"vasospastic",
// "ischaemic"/"ischemia"); numbers must be equal.
func similar(a, b *token) bool {
	if a.norm == b.norm {
		return true
	}
	if a.isNum || b.isNum {
		return a.isNum && b.isNum && a.num == b.num
	}
	n := commonPrefix(a.norm, b.norm)
	short := min(len(a.norm), len(b.norm))
	return n >= 5 && 4*n >= 3*short
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// initials of a run of words, skipping stopwords and splitting hyphenated
// words ("non-obstructive" gives "no"), so "ischaemia with non-obstructive
// coronary arteries" gives "inoca" and "type 2 diabetes mellitus" "t2dm".
func initials(ts []token) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.ini)
	}
	return b.String()
}

// tokenInitials is one token's share of initials, computed once per token
// because the acronym searches compare initials of many runs of tokens:
// empty for a symbol or stopword, else the first letter of each part
// between hyphens and slashes.
func tokenInitials(t token) string {
	if !t.word || stopwords[t.low] {
		return ""
	}
	var b strings.Builder
	sep := true
	for _, r := range t.low {
		if r == '-' || r == '/' {
			sep = true
			continue
		}
		if sep {
			b.WriteRune(r)
			sep = false
		}
	}
	return b.String()
}

// initialsRun walks the initials of a growing run of tokens against an
// acronym without building strings: off is how much of acr the run so far
// spells; next extends it by one token and reports whether the run is
// still a prefix of acr (once it is not, no longer run can spell acr).
type initialsRun struct {
	acr string
	off int
}

func (r *initialsRun) next(t *token) bool {
	if !strings.HasPrefix(r.acr[r.off:], t.ini) {
		return false
	}
	r.off += len(t.ini)
	return true
}

// spelled reports whether the run so far spells the whole acronym.
func (r *initialsRun) spelled() bool { return r.off == len(r.acr) }

// acronymCandidate: a short word of letters (and digits) that could stand
// for the initials of a phrase. Case is not required: notes write "cabg".
func acronymCandidate(t *token) bool { return t.acronym }

// acronymShape: two to eight letters or digits, two of them letters.
func acronymShape(t token) bool {
	if !t.word || len(t.low) < 2 || len(t.low) > 8 {
		return false
	}
	letters := 0
	for _, r := range t.low {
		if unicode.IsLetter(r) {
			letters++
		} else if !unicode.IsDigit(r) {
			return false
		}
	}
	return letters >= 2
}
