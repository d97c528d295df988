package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/executablekg/execkg/engine/consistency"
)

func init() {
	register(command{name: "context", summary: "negation, uncertainty, qualifiers and clause of mentions in text (JSON lines in and out)", run: runContext})
}

// stdin is the input when no file is given; tests replace it.
var stdin io.Reader = os.Stdin

// contextIn is one input line.
type contextIn struct {
	Text   *string `json:"text"`
	Target *string `json:"target"`
}

// contextOut is one output line, fields in a fixed order.
type contextOut struct {
	Target     string   `json:"target"`
	Negated    bool     `json:"negated"`
	Uncertain  bool     `json:"uncertain"`
	Qualifiers []string `json:"qualifiers"`
	Cues       []string `json:"cues"`
	Clause     string   `json:"clause"`
	Found      bool     `json:"found"`
	// Hypothetical and Experiencer ("patient" or "other") came later;
	// they follow the first fields so readers of those keep working.
	Hypothetical bool   `json:"hypothetical"`
	Experiencer  string `json:"experiencer"`
}

func runContext(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("context", flag.ContinueOnError)
	fl.SetOutput(stderr)
	keepGoing := fl.Bool("keep-going", false, "report a malformed line and go on with the next (exit status 1 at the end) instead of stopping at it")
	const usage = `usage: execkg context [--keep-going] [FILE|-]

Reads JSON lines {"text": "...", "target": "..."} from FILE (or standard
input) and writes one line per input line:
{"target","negated","uncertain","qualifiers","cues","clause","found",
"hypothetical","experiencer"} (experiencer is "patient" or "other").`
	if code, ok := parseFlags(fl, args, stdout, stderr, usage); !ok {
		return code
	}
	if fl.NArg() > 1 {
		fmt.Fprintf(stderr, "execkg context: want at most one input file, got %d (%s)\n", fl.NArg(), strings.Join(fl.Args(), " "))
		return 2
	}
	in, name := stdin, "stdin"
	if p := fl.Arg(0); p != "" && p != "-" {
		f, err := os.Open(p)
		if err != nil {
			fmt.Fprintf(stderr, "execkg context: %v\n", err)
			return 2
		}
		defer f.Close()
		in, name = f, p
	}

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	bad, n := 0, 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		text, target, err := parseContextLine(line)
		if err != nil {
			bad++
			out.Flush() // keep stdout and stderr in step for a reader of both
			if bad <= maxListed {
				fmt.Fprintf(stderr, "execkg context: %s line %d: %v\n", name, n, err)
			} else if bad == maxListed+1 {
				fmt.Fprintf(stderr, "execkg context: further malformed lines are counted, not listed\n")
			}
			if !*keepGoing {
				fmt.Fprintln(stderr, "execkg context: stopped; fix the line or pass --keep-going to skip bad lines")
				return 1
			}
			continue
		}
		if err := enc.Encode(newContextOut(consistency.Analyze(text, target))); err != nil {
			fmt.Fprintf(stderr, "execkg context: write: %v\n", err)
			return 2
		}
	}
	if err := sc.Err(); err != nil {
		out.Flush()
		fmt.Fprintf(stderr, "execkg context: read %s after line %d: %v\n", name, n, err)
		return 2
	}
	if bad > 0 {
		out.Flush()
		fmt.Fprintf(stderr, "execkg context: %d malformed line(s) skipped\n", bad)
		return 1
	}
	return 0
}

func newContextOut(c consistency.Context) contextOut {
	exp := "patient"
	if c.Other {
		exp = "other"
	}
	return contextOut{Target: c.Target, Negated: c.Negated, Uncertain: c.Uncertain,
		Qualifiers: c.Qualifiers, Cues: c.Cues, Clause: c.Clause, Found: c.Found,
		Hypothetical: c.Hypothetical, Experiencer: exp}
}

// parseContextLine decodes one line; both fields are required and target
// must not be blank.
func parseContextLine(line string) (string, string, error) {
	var v contextIn
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		return "", "", fmt.Errorf(`not a JSON object {"text": ..., "target": ...}: %v`, err)
	}
	switch {
	case v.Text == nil:
		return "", "", errors.New(`field "text" is missing`)
	case v.Target == nil:
		return "", "", errors.New(`field "target" is missing`)
	case strings.TrimSpace(*v.Target) == "":
		return "", "", errors.New(`field "target" is empty; give the mention to look for`)
	}
	return *v.Text, *v.Target, nil
}
