// Package schema holds the JSON Schema of a rule-table file, generated from
// the Go types in package rules with invopop/jsonschema and committed as
// ruletable.schema.json, and validates documents against it with
// santhosh-tekuri/jsonschema.
package schema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/executablekg/execkg/rules"
)

// ID is the schema's $id.
const ID = "https://executablekg.dev/schema/ruletable.schema.json"

//go:embed ruletable.schema.json
var committed []byte

// RuleTableJSON returns the committed schema document.
func RuleTableJSON() []byte { return committed }

// Generate reflects the schema from rules.Table. The committed file must
// equal its output (a test fails when it is stale; regenerate with
// `go run ./cmd/execkg schema --write`).
func Generate() ([]byte, error) {
	r := &jsonschema.Reflector{
		// Fields without omitempty are required; unknown fields are errors
		// so a misspelt key ("clas") is caught instead of silently dropped.
		RequiredFromJSONSchemaTags: false,
		DoNotReference:             false,
	}
	s := r.Reflect(&rules.Table{})
	s.ID = jsonschema.ID(ID)
	s.Title = "ExecutableKG rule-table file"
	s.Description = "One guideline recommendation table: metadata and rows, each row encoded as executable rules."
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	// invopop marshals with HTML escaping; undo it so "<=" reads as written.
	out := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(buf.String())
	return []byte(out), nil
}

var (
	compileOnce sync.Once
	compiled    *sjs.Schema
	compileErr  error
)

func ruleTable() (*sjs.Schema, error) {
	compileOnce.Do(func() {
		doc, err := sjs.UnmarshalJSON(bytes.NewReader(committed))
		if err != nil {
			compileErr = fmt.Errorf("committed schema is not JSON: %w", err)
			return
		}
		c := sjs.NewCompiler()
		if err := c.AddResource(ID, doc); err != nil {
			compileErr = err
			return
		}
		compiled, compileErr = c.Compile(ID)
	})
	return compiled, compileErr
}

// Violation is one schema violation with its JSON pointer.
type Violation struct {
	Pointer string
	Message string
}

// Validate checks a JSON document against the rule-table schema and returns
// the leaf violations, each with the JSON pointer of the offending value.
func Validate(data []byte) ([]Violation, error) {
	s, err := ruleTable()
	if err != nil {
		return nil, err
	}
	doc, err := sjs.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	err = s.Validate(doc)
	if err == nil {
		return nil, nil
	}
	ve, ok := err.(*sjs.ValidationError)
	if !ok {
		return nil, err
	}
	var out []Violation
	collect(ve, &out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return dedupe(out), nil
}

func collect(ve *sjs.ValidationError, out *[]Violation) {
	if len(ve.Causes) == 0 {
		ptr := ""
		if len(ve.InstanceLocation) > 0 {
			ptr = "/" + strings.Join(escape(ve.InstanceLocation), "/")
		}
		*out = append(*out, Violation{Pointer: ptr, Message: ve.ErrorKind.LocalizedString(message.NewPrinter(language.English))})
		return
	}
	for _, c := range ve.Causes {
		collect(c, out)
	}
}

func escape(parts []string) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1")
	}
	return out
}

func dedupe(v []Violation) []Violation {
	seen := map[Violation]bool{}
	out := v[:0]
	for _, x := range v {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
