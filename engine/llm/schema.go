package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// replySchema is a JSON Schema generated from a Go reply type. Its bytes go
// into the chat request's "format", so the server constrains decoding to
// it; its compiled form validates every reply before use, because not every
// server or model honours "format" (and a cached reply may predate a
// schema change).
type replySchema struct {
	raw      json.RawMessage
	compiled *jsonschema.Schema
}

// newReplySchema reflects v (a pointer to the reply type) into a schema
// without $ref/$defs (constrained decoders handle inline schemas best),
// lets patch adjust it per call, and compiles it for validation.
func newReplySchema(v any, patch func(*invopop.Schema)) (*replySchema, error) {
	r := invopop.Reflector{Anonymous: true, DoNotReference: true, ExpandedStruct: true}
	s := r.Reflect(v)
	if patch != nil {
		patch(s)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode reply schema for %T: %w", v, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("reread reply schema for %T: %w", v, err)
	}
	c := jsonschema.NewCompiler()
	const loc = "mem://reply.schema.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("load reply schema for %T: %w", v, err)
	}
	compiled, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("compile reply schema for %T: %w", v, err)
	}
	return &replySchema{raw: raw, compiled: compiled}, nil
}

// marshalPlain is json.Marshal without HTML escaping, for JSON that ends
// up inside a prompt (where "\u003c" would reach the model literally) or
// in a file people read.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// ReplyError is a reply that arrived but cannot be used: not JSON, or JSON
// that violates the reply schema. It is never retried: at temperature 0
// with a fixed seed the model would give the same answer.
type ReplyError struct {
	Problem string // "not valid JSON" or "violates the reply schema"
	Detail  string
	Reply   string // the reply, shortened
}

func (e *ReplyError) Error() string {
	return fmt.Sprintf("reply %s: %s (reply: %s)", e.Problem, e.Detail, e.Reply)
}

// decode parses content, validates it against the schema and unmarshals it
// into out.
func (s *replySchema) decode(content []byte, out any) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(content))
	if err != nil {
		return &ReplyError{Problem: "is not valid JSON", Detail: err.Error(), Reply: shorten(string(content), 200)}
	}
	if err := s.compiled.Validate(doc); err != nil {
		detail := err.Error()
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			detail = flattenValidation(ve)
		}
		return &ReplyError{Problem: "violates the reply schema", Detail: detail, Reply: shorten(string(content), 200)}
	}
	if err := json.Unmarshal(content, out); err != nil {
		// The schema admits only what the Go type can hold; this is a bug
		// in the schema generation, not in the model.
		return fmt.Errorf("decode schema-valid reply into %T: %w", out, err)
	}
	return nil
}

// flattenValidation turns the validator's indented tree into one line of
// "at '<json pointer>': <message>" leaves, dropping the header that names
// the in-memory schema URL.
func flattenValidation(ve *jsonschema.ValidationError) string {
	var leaves []string
	for _, l := range strings.Split(ve.Error(), "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "- "))
		if l == "" || strings.HasPrefix(l, "jsonschema validation failed") {
			continue
		}
		leaves = append(leaves, l)
	}
	if len(leaves) == 0 {
		return ve.Error()
	}
	return strings.Join(leaves, "; ")
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	// Cut at a rune boundary.
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
