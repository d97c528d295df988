package llm

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	invopop "github.com/invopop/jsonschema"

	"github.com/executablekg/execkg/engine/evidence"
	"github.com/executablekg/execkg/rules/units"
)

// FormatPromptVersion names the formatting prompt and reply schema. Bump it
// whenever either changes: it is part of the cache key and the formatter's
// Name.
const FormatPromptVersion = "format-v1"

// The prompt is data (prompts/format.txt): its examples are clinical words, which
// the engine's Go code does not hold.
//
//go:embed prompts/format.txt
var formatSystem string

// formatReply is the reply of the formatting prompt; its JSON Schema is
// generated from it, with the pair range and item count set per call.
type formatReply struct {
	Evidence []evidenceReply `json:"evidence"`
}

// evidenceReply is one evidence item. AboutConcept lets the model reject a
// near-miss anchor without claiming the concept is absent: the reference
// system's "rejected by the LLM" outcome, which produced no evidence.
type evidenceReply struct {
	Pair         int      `json:"pair" jsonschema:"minimum=0"`
	AboutConcept bool     `json:"about_concept"`
	Present      bool     `json:"present"`
	Value        *float64 `json:"value" jsonschema:"nullable"`
	Unit         string   `json:"unit"`
	Comparator   string   `json:"comparator"`
}

// Comparators a reply may use.
var comparators = []any{"=", "<", "<=", ">", ">="}

// JSONSchemaExtend adds the comparator enum (invopop's tag syntax cannot
// spell "=").
func (evidenceReply) JSONSchemaExtend(s *invopop.Schema) {
	if p, ok := s.Properties.Get("comparator"); ok && p != nil {
		p.Enum = comparators
	}
}

// formatSchema is the reply schema for n pairs: pair indices 0..n-1 and
// exactly n items, so a constrained decoder cannot leave a pair out or
// invent one, and the validator rejects a reply that does.
func formatSchema(n int) (*replySchema, error) {
	return newReplySchema(&formatReply{}, func(s *invopop.Schema) {
		ev, _ := s.Properties.Get("evidence")
		u := uint64(n)
		ev.MinItems, ev.MaxItems = &u, &u
		pair, _ := ev.Items.Properties.Get("pair")
		pair.Maximum = json.Number(strconv.Itoa(n - 1))
	})
}

// Formatter is step (iv) with an LLM: one call per case serves every
// finding–anchor pair. Get one from Client.Formatter.
type Formatter struct {
	c *Client
}

// Name identifies the formatter in caches and traces:
// "ollama:<model>:format-v1".
func (f *Formatter) Name() string { return "ollama:" + f.c.cfg.Model + ":" + FormatPromptVersion }

// FormatCase asks the model once for the evidence of every pair and maps
// the items back to the pairs by index. The concept is always the pair's
// anchor, so evidence and condition match exactly; a negated pair never
// yields presence or a value, whatever the model said; a pair the model
// says is not about its concept yields no item.
//
// When the call fails, or the reply leaves a pair without an item, strict
// mode returns a *CallError naming the case (and finding); lenient mode
// logs it and keeps each affected finding as present without a value
// (absent if negated), as the reference system did.
func (f *Formatter) FormatCase(ctx context.Context, caseText string, pairs []evidence.Pair) ([]evidence.Item, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	schema, err := formatSchema(len(pairs))
	if err != nil {
		return nil, err
	}
	q := question{kind: "format", version: FormatPromptVersion, caseText: caseText,
		system: formatSystem, user: formatUser(caseText, pairs), schema: schema}
	var r formatReply
	if _, err := f.c.ask(ctx, q, &r); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("llm format: case %s: %w", caseHash(caseText), ctx.Err())
		}
		if f.c.cfg.Strict {
			if lerr := f.c.logFailure("format", FormatPromptVersion, caseText, "", err, ""); lerr != nil {
				return nil, fmt.Errorf("%w (and %v)", err, lerr)
			}
			return nil, err
		}
		f.c.fallbacks.Add(1)
		if lerr := f.c.logFailure("format", FormatPromptVersion, caseText, "", err, fallbackName); lerr != nil {
			return nil, lerr
		}
		out := make([]evidence.Item, 0, len(pairs))
		for _, p := range pairs {
			out = append(out, fallbackItem(p))
		}
		return out, nil
	}

	// The schema bounds the indices and the count; a repeated index still
	// leaves another pair unanswered. The first item of a pair wins.
	byPair := make([]*evidenceReply, len(pairs))
	for i := range r.Evidence {
		if e := &r.Evidence[i]; byPair[e.Pair] == nil {
			byPair[e.Pair] = e
		}
	}
	var out []evidence.Item
	for i, p := range pairs {
		e := byPair[i]
		if e == nil {
			err := &CallError{Kind: "format", Host: f.c.host, Model: f.c.cfg.Model, CaseHash: caseHash(caseText),
				Case: shorten(caseText, 60), Finding: p.FindingID,
				Err: fmt.Errorf("the reply has no item for pair %d (%q → %q)", i, p.Text, p.Anchor.Concept)}
			if f.c.cfg.Strict {
				if lerr := f.c.logFailure("format", FormatPromptVersion, caseText, p.FindingID, err, ""); lerr != nil {
					return nil, errors.Join(err, lerr)
				}
				return nil, err
			}
			f.c.fallbacks.Add(1)
			if lerr := f.c.logFailure("format", FormatPromptVersion, caseText, p.FindingID, err, fallbackName); lerr != nil {
				return nil, lerr
			}
			out = append(out, fallbackItem(p))
			continue
		}
		if !e.AboutConcept {
			f.c.rejected.Add(1)
			continue
		}
		out = append(out, toItem(p, *e))
	}
	return out, nil
}

const fallbackName = "present without a value"

// fallbackItem is the lenient stand-in for a failed pair.
func fallbackItem(p evidence.Pair) evidence.Item {
	note := "LLM formatter failed (see the failure log); kept as present without a value"
	if p.Negated {
		note = "LLM formatter failed (see the failure log); negated, so kept as absent"
	}
	return evidence.Item{FindingID: p.FindingID, Text: p.Text, ConceptKey: p.Anchor.ConceptKey, Concept: p.Anchor.Concept,
		Present: !p.Negated, Note: note}
}

// toItem applies the rules Go keeps for itself: the anchor's concept, no
// presence or value under negation, a value only for a concept with
// numeric conditions and only when present, units in canonical spelling.
func toItem(p evidence.Pair, e evidenceReply) evidence.Item {
	it := evidence.Item{FindingID: p.FindingID, Text: p.Text, ConceptKey: p.Anchor.ConceptKey, Concept: p.Anchor.Concept,
		Present: e.Present}
	if p.Negated {
		if e.Present || e.Value != nil {
			it.Note = "negated in the case text; the model's presence or value is overridden"
		}
		it.Present = false
		return it
	}
	if e.Value == nil || !e.Present || len(p.Anchor.Units) == 0 {
		return it
	}
	v := *e.Value
	it.Value = &v
	it.Comparator = e.Comparator
	if it.Comparator == "" {
		it.Comparator = "="
	}
	switch u := strings.TrimSpace(e.Unit); {
	case u == "" && len(p.Anchor.Units) == 1:
		it.Unit = p.Anchor.Units[0]
		it.Note = "unit not written; assumed " + it.Unit + " from the guideline condition"
	default:
		it.Unit = units.Canonical(u)
	}
	return it
}

// formatUser lists the case and the pairs. Strings are JSON-quoted so a
// quote in a finding cannot break the list.
func formatUser(caseText string, pairs []evidence.Pair) string {
	var b strings.Builder
	b.WriteString("Case:\n")
	b.WriteString(caseText)
	b.WriteString("\n\nPairs:\n")
	for i, p := range pairs {
		us := "none"
		if len(p.Anchor.Units) > 0 {
			q := make([]string, len(p.Anchor.Units))
			for j, u := range p.Anchor.Units {
				q[j] = quoteJSON(u)
			}
			us = strings.Join(q, ", ")
		}
		fmt.Fprintf(&b, "%d. finding: %s; concept: %s; units: %s\n", i, quoteJSON(p.Text), quoteJSON(p.Anchor.Concept), us)
	}
	return b.String()
}

func quoteJSON(s string) string {
	b, _ := marshalPlain(s)
	return string(b)
}
