package engine

import (
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
	"github.com/executablekg/execkg/engine/eval"
	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/engine/extract"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
)

// The words that state a drug is not tolerated or not taken, the
// pack's names of intolerance concepts ("{drug} intolerance") and which
// sections list allergies or medications are pack data
// (meta/sections.json), read through extract.Reading.

// ViaSection starts the Via of an item read from the meaning of the
// section a finding lies in ("section: allergies").
const ViaSection = "section: "

// intoleranceDrops finds the evidence that a finding stating intolerance
// of a drug would wrongly give for the drug itself: "intolerant of ACE
// inhibitor" names the drug but says the patient cannot take it, and
// neither does the detail in parentheses right after it ("(cough on
// ramipril)"), nor a drug listed under an allergies heading. It returns
// the (finding, drug concept key) pairs to drop with the words that said
// so, and, for a drug under an allergies heading, the pack's intolerance
// concept of it ("statin intolerance") as evidence.
func (p *Program) intoleranceDrops(text string, findings []extract.Finding, items []evidence.Item) (map[[2]string]string, []eval.Evidence) {
	said := map[string]string{} // finding → the words stating intolerance
	listed := map[string]bool{} // findings under an allergies heading
	// stoppedFor: findings of a drug stopped for an adverse effect, whose
	// items the stopped cue read as absent.
	stoppedFor := map[string]bool{}
	for _, f := range findings {
		if k := p.doc.Kind(f); k != nil && k.Medication == rules.SectionNotTolerated {
			listed[f.ID] = true
			said[f.ID] = "under a '" + k.Kind + "' heading"
		} else if c := p.doc.Cue(rules.CueNotTolerated, f.Text); c != "" && !p.conditionalIntolerance(text, f, c) {
			said[f.ID] = "'" + f.Text + "'"
		} else if w := p.stoppedFor(text, f); w != "" {
			said[f.ID] = "'" + w + "'"
			stoppedFor[f.ID] = true
		}
	}
	// "Intolerant of ACE inhibitor (cough) and of ARNI": a finding that
	// repeats the statement's preposition after "and"/"or" continues the
	// statement before it and shares its words.
	for i, f := range findings {
		if said[f.ID] != "" || i == 0 || !elidedContinuation(f.Text) {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			g := findings[j]
			if g.End > f.Start || insideParenthesis(text, g.Start) {
				continue // a detail in parentheses between the two
			}
			if said[g.ID] != "" && joinedByAnd(text[g.End:f.Start]) {
				said[f.ID] = said[g.ID]
			}
			break
		}
	}
	drugs := map[string][]string{} // finding → drug keys it is intolerant of
	var adds []eval.Evidence
	seenAdd := map[[2]string]bool{}
	byID := map[string]extract.Finding{}
	for _, f := range findings {
		byID[f.ID] = f
	}
	for _, it := range items {
		if it.Rejected != "" && listed[it.FindingID] {
			// Under an allergies heading the heading says "not
			// tolerated": the intolerance concept of a drug the item
			// names ("statin (myalgia)") stands without the word.
			if d := p.doc.IntolerantOf(it.Concept); d != "" && !seenAdd[[2]string{it.FindingID, it.ConceptKey}] {
				f := byID[it.FindingID]
				phrases := append([]string{d}, p.phrases[p.keys[rules.NormalizeName(d)]]...)
				if ok, _ := evidence.CoversAll(f.Text, phrases); ok {
					seenAdd[[2]string{it.FindingID, it.ConceptKey}] = true
					adds = append(adds, eval.Evidence{ID: f.ID, ConceptKey: it.ConceptKey, Concept: it.Concept, Text: f.Text, Present: true,
						Via: ViaSection + f.Section + ": '" + f.Text + "' is listed as not tolerated"})
				}
			}
			continue
		}
		if it.Rejected != "" || !it.Present || said[it.FindingID] == "" {
			continue
		}
		if stoppedFor[it.FindingID] && p.medications[it.ConceptKey] {
			// "Sacubitril/valsartan stopped due to symptomatic
			// hypotension": the drug the finding stops is not tolerated.
			drugs[it.FindingID] = append(drugs[it.FindingID], it.ConceptKey)
			continue
		}
		if d := p.doc.IntolerantOf(it.Concept); d != "" {
			if k, ok := p.keys[rules.NormalizeName(d)]; ok {
				drugs[it.FindingID] = append(drugs[it.FindingID], k)
			}
			continue
		}
		if listed[it.FindingID] && p.medications[it.ConceptKey] {
			drugs[it.FindingID] = append(drugs[it.FindingID], it.ConceptKey)
			if p.hierarchy.AgentNamed(it.Concept, it.Text) != "" {
				// One agent of the class ("metoprolol"): not tolerating it
				// is no contraindication to the class.
				continue
			}
			for _, n := range p.doc.IntoleranceForms(it.Concept) {
				if k, ok := p.keys[rules.NormalizeName(n)]; ok && !seenAdd[[2]string{it.FindingID, k}] {
					seenAdd[[2]string{it.FindingID, k}] = true
					f := byID[it.FindingID]
					adds = append(adds, eval.Evidence{ID: f.ID, ConceptKey: k, Concept: p.names[k], Text: f.Text, Present: true,
						Via: ViaSection + f.Section + ": '" + f.Text + "' is listed as not tolerated"})
				}
			}
		}
	}
	// The detail in parentheses right after a statement of intolerance
	// ("intolerant of ARNI (angioedema on Entresto)") tells how the drug
	// was not tolerated: a drug it names is not taken, whether or not the
	// pack has an intolerance concept of it.
	for _, f := range findings {
		if said[f.ID] == "" || listed[f.ID] {
			continue
		}
		lo, hi := parenthesisAfter(text, f.End)
		if lo < 0 {
			continue
		}
		for _, it := range items {
			g, ok := byID[it.FindingID]
			if !ok || g.ID == f.ID || g.Start < lo || g.End > hi || it.Rejected != "" || !it.Present || !p.medications[it.ConceptKey] {
				continue
			}
			drugs[g.ID] = append(drugs[g.ID], it.ConceptKey)
			if said[g.ID] == "" {
				said[g.ID] = said[f.ID]
			}
		}
	}
	if len(drugs) == 0 {
		return nil, adds
	}
	out := map[[2]string]string{}
	for _, f := range findings {
		ks := drugs[f.ID]
		if len(ks) == 0 {
			continue
		}
		for _, k := range ks {
			out[[2]string{f.ID, k}] = said[f.ID]
		}
		lo, hi := parenthesisAfter(text, f.End)
		if lo < 0 {
			continue
		}
		for _, g := range findings {
			if g.Start >= lo && g.End <= hi {
				for _, k := range ks {
					out[[2]string{g.ID, k}] = said[f.ID]
				}
			}
		}
	}
	return out, adds
}

// notToleratedFacts makes the model's facts of the drugs the text states
// not tolerated ("Aspirin allergy (urticaria)", "allergic to aspirin", a
// drug under an allergies heading): status not-tolerated, so they assert
// nothing of the drug's use and withholding reads them as for FHIR.
func (p *Program) notToleratedFacts(m *patient.Model, ev []eval.Evidence, findings []extract.Finding, doubted map[string]bool) []patient.Fact {
	byID := map[string]extract.Finding{}
	for _, f := range findings {
		byID[f.ID] = f
	}
	// A finding that states the pack's own intolerance or contraindication
	// concept ("DOAC contraindicated", "ramipril" listed as ACE inhibitor
	// intolerance) states that fact; the drug it names is no second one
	// (a DOAC contraindication says nothing against the warfarin taken).
	stated := map[string]bool{}
	for _, f := range m.Facts {
		if f.Present && (p.hierarchy.BarredDrug(f.Concept) != "" || p.doc.IntolerantOf(f.Concept) != "") {
			stated[f.ID] = true
		}
	}
	seen := map[[2]string]bool{}
	var out []patient.Fact
	for _, e := range ev {
		if seen[[2]string{e.ID, e.ConceptKey}] || stated[e.ID] {
			continue
		}
		seen[[2]string{e.ID, e.ConceptKey}] = true
		f := patient.Fact{Evidence: e, Kind: patient.KindMedication, Status: patient.StatusNotTolerated, Certainty: patient.Confirmed,
			Experiencer: patient.Self, Reader: "text"}
		if doubted[e.ID] {
			f.Certainty = patient.Suspected
		}
		if fd, ok := byID[e.ID]; ok {
			f.Section = fd.Section
			if fd.Start >= 0 && fd.End <= len(m.Text) && fd.Start < fd.End {
				f.Spans = []patient.Span{{Start: fd.Start, End: fd.End}}
			}
		}
		out = append(out, f)
	}
	return out
}

// drugStatement returns the words by which a finding's clause speaks of a drug
// without saying the patient takes it ("aspirin is contraindicated",
// "consider starting ranolazine", "Avoid colchicine, ivabradine"), or "".
// A medication list states what is taken: there only the item's own words
// count. The cue words are the pack's (cues "not-taken", "not-tolerated").
func (p *Program) drugStatement(text string, f extract.Finding, clause string) string {
	for _, kind := range []string{rules.CueNotTaken, rules.CueNotTolerated} {
		if c := p.doc.Cue(kind, clause); c != "" {
			return c
		}
	}
	if k := p.doc.Kind(f); k != nil && k.Medication == rules.SectionTaking || f.Start < 0 {
		return ""
	}
	// An imperative heads a list: "Avoid colchicine, ivabradine".
	if s := sentenceBefore(text, f.Start); s != "" {
		for _, kind := range []string{rules.CueNotTaken, rules.CueNotTolerated} {
			if c := p.doc.Cue(kind, s); c != "" && firstWord(s) == firstWord(c) {
				return c
			}
		}
	}
	return ""
}

// stoppedItem: a medication finding says the drug was stopped ("aspirin
// stopped after 1 week"; the pack's stopped cues, meta/reading.json). A
// list item states its drug's status after a dash ("Sitagliptin - STOPPED
// -> semaglutide"), which the splitter made a fragment of its own: the
// item runs on to the next arrow, comma, semicolon or line end.
func (p *Program) stoppedItem(text string, f extract.Finding) bool {
	if p.stopped(f.Text) {
		return true
	}
	if f.End < 0 || f.End > len(text) {
		return false
	}
	rest := text[f.End:]
	if p.stoppedNext(text, f) {
		return true
	}
	if !strings.HasPrefix(rest, " - ") && !strings.HasPrefix(rest, " – ") {
		return false
	}
	end := len(rest)
	for _, stop := range []string{"\n", ",", ";", " -> ", " → ", ". "} {
		if i := strings.Index(rest, stop); i >= 0 && i < end {
			end = i
		}
	}
	return p.stopped(rest[:end])
}

// stoppedNext: the words right after a drug's mention open with a
// stopped cue, past a comma, a parenthesis that glosses the mention and a
// "then":
// "DAPT (aspirin + prasugrel) finished 05/2024", "warfarin then stopped
// 2019". A mention inside such a parenthesis shares the cue after it:
// the parenthesis names what the course was made of.
func (p *Program) stoppedNext(text string, f extract.Finding) bool {
	if p.reading.stopped == nil || f.Start < 0 || f.End > len(text) || f.Start >= f.End {
		return false
	}
	opens := func(at int) bool {
		rest := strings.TrimLeft(text[at:], " ")
		if strings.HasPrefix(rest, ", ") {
			// "clarithromycin for chest infection, FINISHED 2/52 ago":
			// the cue right after the comma is the item's status.
			rest = strings.TrimLeft(rest[1:], " ")
		}
		if len(rest) > 5 && strings.EqualFold(rest[:5], "then ") {
			rest = strings.TrimLeft(rest[5:], " ")
		}
		return p.reading.stopped.OpensString(rest)
	}
	if opens(f.End) {
		return true
	}
	if insideParenthesis(text, f.Start) {
		shut := strings.IndexByte(text[f.End:], ')')
		if shut >= 0 && !strings.ContainsAny(text[f.End:f.End+shut], "(\n") && opens(f.End+shut+1) {
			return true
		}
		return shut >= 0 && !strings.ContainsAny(text[f.End:f.End+shut], "(\n") && p.stoppedBeforeGloss(text, strings.LastIndexByte(text[:f.Start], '('), f.End+shut)
	}
	_, hi := parenthesisAfter(text, f.End)
	return hi >= 0 && opens(hi+1)
}

// stoppedBeforeGloss: the parenthesis from open to shut glosses a course
// its clause before it says is over ("Completed 12 months of DAPT
// (aspirin + ticagrelor)", "finished DAPT (aspirin/prasugrel)"): what it
// names is what the course was made of, stopped with it. Not where the
// parenthesis or that clause says what is taken now ("stopped aspirin
// (now on clopidogrel)"): a now cue, or a current order, in either.
func (p *Program) stoppedBeforeGloss(text string, open, shut int) bool {
	if open <= 0 || shut <= open || shut > len(text) {
		return false
	}
	clause := sentenceBefore(text, open)
	if i := strings.LastIndexByte(clause, ','); i >= 0 {
		clause = clause[i+1:]
	}
	gloss := text[open+1 : shut]
	if clause == "" || !p.stopped(clause) {
		return false
	}
	for _, s := range []string{clause, gloss} {
		if p.reading.now != nil && p.reading.now.MatchString(s) || p.doc.Cue(rules.CueStart, s) != "" {
			return false
		}
	}
	return true
}

// sentenceBefore returns the sentence text on the line of pos up to pos.
func sentenceBefore(text string, pos int) string {
	if pos <= 0 || pos > len(text) {
		return ""
	}
	lo := strings.LastIndexAny(text[:pos], ".;\n") + 1
	return strings.TrimSpace(text[lo:pos])
}

func firstWord(s string) string {
	if w := rules.CueWords(s); len(w) > 0 {
		return w[0]
	}
	return ""
}

// parenthesisAfter returns the inside of a parenthesis that opens right
// after end (spaces allowed), or -1, -1.
func parenthesisAfter(text string, end int) (int, int) {
	if end < 0 || end > len(text) {
		return -1, -1
	}
	i := end
	for i < len(text) && text[i] == ' ' {
		i++
	}
	if i >= len(text) || text[i] != '(' {
		return -1, -1
	}
	j := strings.IndexByte(text[i:], ')')
	if j < 0 {
		return -1, -1
	}
	return i + 1, i + j
}

// elidedContinuation reports whether a finding opens with the preposition
// of a statement it continues ("of ARNI" after "intolerant of ACE
// inhibitor and"): generic words of English, no clinical vocabulary.
func elidedContinuation(words string) bool {
	w := strings.ToLower(firstWord(words))
	return w == "of" || w == "to"
}

// joinedByAnd reports whether the text between two findings, its
// parentheses left out, is only a coordinating "and"/"or" or a comma.
func joinedByAnd(between string) bool {
	rest := strings.ToLower(strings.Trim(extract.StripParens(between), " ,"))
	return rest == "and" || rest == "or" || rest == "" && strings.Contains(between, ",")
}

// insideParenthesis reports whether pos lies inside an open parenthesis.
func insideParenthesis(text string, pos int) bool {
	open := strings.LastIndexByte(text[:pos], '(')
	return open >= 0 && strings.LastIndexByte(text[:pos], ')') < open
}

// stoppedFor: the words of a drug's list item that say it was stopped
// for an adverse effect ("ramipril stopped - cough", "bisoprolol
// discontinued due to bradycardia"): a stopped cue in the finding, then
// an effect of the pack's stopped_for list after it in the same item.
// "" when the item says no such thing ("aspirin stopped after 1 week").
func (p *Program) stoppedFor(text string, f extract.Finding) string {
	r := p.reading
	if r.stoppedFor == nil || r.stopped == nil || f.Start < 0 || f.End > len(text) || f.Start >= f.End {
		return ""
	}
	m := r.stopped.FindStringIndex(text[f.Start:f.End])
	if m == nil {
		return ""
	}
	_, hi := listItemBounds(text, f.Start, f.End)
	if hi <= f.Start+m[1] {
		return ""
	}
	rest := text[f.Start+m[1] : hi]
	e := r.stoppedFor.FindStringIndex(rest)
	if e == nil || p.riskNoun(rest[e[1]:]) {
		// "stopped before surgery - bleeding risk": a risk avoided, no
		// effect suffered.
		return ""
	}
	return strings.TrimSpace(text[f.Start : f.Start+m[1]+e[1]])
}

// riskNoun reports whether s opens with a risk noun of the consistency
// cues' compounds ("risk", "risks"): the words before it name a risk.
func (p *Program) riskNoun(s string) bool {
	w := strings.ToLower(strings.TrimLeft(s, " -"))
	return strings.HasPrefix(w, "risk")
}

// conditionalIntolerance: the finding's not-tolerated words (cue) lie in
// the scope of a hypothetical cue ("clopidogrel the alternative if aspirin
// intolerance", "should she prove intolerant of statins"): a contingency
// the document plans for, no intolerance it states.
func (p *Program) conditionalIntolerance(text string, f extract.Finding, cue string) bool {
	if f.Start < 0 || f.End > len(text) {
		return false
	}
	ct := consistency.Shared(text).At(f.Start)
	if !ct.HypotheticalIn(f.Text) {
		return false
	}
	ws := rules.CueWords(cue)
	if len(ws) == 0 {
		return false
	}
	stem := strings.TrimSuffix(ws[0], "*")
	lower := strings.ToLower(f.Text)
	for i := 0; i < len(lower); {
		j := strings.Index(lower[i:], stem)
		if j < 0 {
			return false
		}
		j += i
		if j == 0 || !isWordByte(lower[j-1]) {
			e := j
			for e < len(lower) && isWordByte(lower[e]) {
				e++
			}
			// A cue written onto the drug ("<drug>-intolerant") is one
			// token to the context analyser: judge the whole token.
			b := j
			for b > 0 && (isWordByte(lower[b-1]) || lower[b-1] == '-') {
				b--
			}
			return ct.AnalyzeAt(f.Text, f.Text[b:e]).Hypothetical
		}
		i = j + len(stem)
	}
	return false
}
