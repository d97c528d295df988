package llm

import (
	"context"
	_ "embed"
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

// The prompt is data (prompts/extract.txt): its examples are clinical words, which
// the engine's Go code does not hold.
//
//go:embed prompts/extract.txt
var extractSystem string

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
