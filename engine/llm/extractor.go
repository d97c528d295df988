package llm

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/executablekg/execkg/engine/extract"
)

// ExtractPromptVersion names the extraction prompt and reply schema. Bump
// it whenever either changes: it is part of the cache key and the
// extractor's Name.
const ExtractPromptVersion = "extract-v1"

const extractSystem = `You read a patient case for a clinical guideline decision-support system and list the patient's findings. You do not see the guideline and you do not judge anything.

Rules:
1. Extract only what the case states about the patient. Do not infer diagnoses, add findings, or add medical knowledge.
2. Keep the patient's wording: copy each finding as a contiguous phrase of the case text. Do not paraphrase, translate, expand abbreviations, convert units or correct spelling.
3. One finding per clinical fact. Split a list of distinct conditions into separate findings ("diabetes and hypertension" gives "diabetes" and "hypertension").
4. Keep a measurement atomic: the quantity with its comparator, value and unit is one finding ("an LVEF of 37%", "eGFR < 30 mL/min/1.73 m²", "BMI of 42 kg/m²").
5. Keep the words that change the meaning of a finding inside it: negation ("no diabetes", "without angina"), uncertainty ("suspected chronic coronary syndrome"), time ("history of myocardial infarction", "scheduled for CABG"), severity and course ("severe", "chronic", "stable", "decompensated").
6. Extract negated findings as written, negation word included ("no diabetes").
7. Leave out lead-ins that state no finding ("Patient with", "The patient presents with"); keep age and sex when given ("67-year-old man").

Reply with JSON only, in this form, listing findings in the order they appear:
{"findings":[{"text":"<finding>"}]}
If the case states no finding, reply {"findings":[]}.`

// extractReply is the reply of the extraction prompt; its JSON Schema is
// generated from it.
type extractReply struct {
	Findings []extractedFinding `json:"findings"`
}

type extractedFinding struct {
	Text string `json:"text" jsonschema:"minLength=1"`
}

var extractSchema = mustSchema(newReplySchema(&extractReply{}, nil))

func mustSchema(s *replySchema, err error) *replySchema {
	if err != nil {
		panic(err) // the reply types are fixed: a failure is a programming error
	}
	return s
}

// Extractor is step (i) with an LLM: the model lists the findings, Go
// locates each in the case text. Get one from Client.Extractor.
type Extractor struct {
	c *Client
	// fallback is used in lenient mode when the call fails.
	fallback extract.Clauses
}

// Name identifies the extractor in caches and traces:
// "ollama:<model>:extract-v1".
func (e *Extractor) Name() string { return "ollama:" + e.c.cfg.Model + ":" + ExtractPromptVersion }

// Extract asks the model for the findings of text. When the call fails,
// strict mode returns the *CallError; lenient mode logs it and returns the
// deterministic clause extractor's findings instead.
func (e *Extractor) Extract(ctx context.Context, text string) ([]extract.Finding, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil // nothing to read; no call
	}
	q := question{kind: "extract", version: ExtractPromptVersion, caseText: text,
		system: extractSystem, user: "Case:\n" + text, schema: extractSchema}
	var r extractReply
	if _, err := e.c.ask(ctx, q, &r); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("llm extract: case %s: %w", caseHash(text), ctx.Err())
		}
		if e.c.cfg.Strict {
			if lerr := e.c.logFailure("extract", ExtractPromptVersion, text, "", err, ""); lerr != nil {
				return nil, fmt.Errorf("%w (and %v)", err, lerr)
			}
			return nil, err
		}
		e.c.fallbacks.Add(1)
		if lerr := e.c.logFailure("extract", ExtractPromptVersion, text, "", err, e.fallback.Name()); lerr != nil {
			return nil, lerr
		}
		return e.fallback.Extract(ctx, text)
	}
	return locateAll(text, r.Findings), nil
}

// locateAll turns the reply into findings placed in text. A finding found
// in the case (ignoring case and runs of white space) takes the case's own
// wording and offsets; a reworded one keeps the model's text with
// Start = End = -1. Empty and repeated findings are dropped.
func locateAll(text string, fs []extractedFinding) []extract.Finding {
	var out []extract.Finding
	seen := map[string]bool{}
	from := 0
	for _, f := range fs {
		t := strings.TrimFunc(f.Text, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune(".,;:", r) })
		if t == "" {
			continue
		}
		s, en := locate(text, t, from)
		if s >= 0 {
			t = text[s:en]
			from = en
		}
		k := fmt.Sprintf("%d:%d:%s", s, en, t)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, extract.Finding{ID: fmt.Sprintf("f%d", len(out)), Text: t, Start: s, End: en})
	}
	return out
}

// locate finds phrase in text, case-insensitively, with any white space
// between words and at word boundaries, searching from `from` first (the
// model lists findings in order, so a repeated phrase maps to its next
// occurrence) and then from the start. It returns -1, -1 when absent.
func locate(text, phrase string, from int) (int, int) {
	words := strings.Fields(phrase)
	if len(words) == 0 {
		return -1, -1
	}
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	pat := `(?i)` + strings.Join(words, `\s+`)
	if isWordRune(firstRune(phrase)) {
		pat = `(?i)\b` + pat[4:]
	}
	if isWordRune(lastRune(phrase)) {
		pat += `\b`
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return -1, -1
	}
	if from > len(text) {
		from = len(text)
	}
	if loc := re.FindStringIndex(text[from:]); loc != nil {
		return from + loc[0], from + loc[1]
	}
	if loc := re.FindStringIndex(text); loc != nil {
		return loc[0], loc[1]
	}
	return -1, -1
}

func firstRune(s string) rune {
	for _, r := range s {
		return r
	}
	return 0
}

func lastRune(s string) rune {
	r := []rune(s)
	if len(r) == 0 {
		return 0
	}
	return r[len(r)-1]
}

// isWordRune matches what regexp's \b treats as a word character (ASCII).
func isWordRune(r rune) bool {
	return r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
}
