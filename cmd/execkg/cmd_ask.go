package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"
)

func init() {
	register(command{name: "ask", summary: `answer one case: execkg ask "Patient with …" (JSON record; --explain for a readable tree)`, run: runAsk})
}

func runAsk(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("ask", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var ef engineFlags
	ef.register(fl)
	var explain explainMode
	fl.Var(&explain, "explain", "print a readable tree instead of JSON; blocked evidence is listed only where it changed a rule's outcome, --explain=all lists all of it")
	id := fl.String("id", "case", "case id in the output record")
	date := fl.String("date", "", "case date YYYY-MM-DD that time windows and relative dates count from (default today)")
	if code, ok := parseFlags(fl, args, stdout, stderr, `usage: execkg ask [flags] "Patient with …"`); !ok {
		return code
	}
	text := strings.TrimSpace(strings.Join(fl.Args(), " "))
	if text == "" {
		fl.Usage()
		return 2
	}
	var caseDate time.Time
	if *date != "" {
		d, err := time.Parse("2006-01-02", *date)
		if err != nil {
			fmt.Fprintf(stderr, "execkg ask: --date %q: want YYYY-MM-DD, e.g. 2026-03-15\n", *date)
			return 2
		}
		caseDate = d
	}
	ctx := context.Background()
	if explain != "" {
		ef.debug = true
	}
	prog, err := ef.answerer(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "execkg ask:", err)
		return 1
	}
	defer prog.Close()
	defer ef.close()
	res, err := prog.AskOn(ctx, *id, text, caseDate)
	if err != nil {
		fmt.Fprintln(stderr, "execkg ask:", err)
		return 1
	}
	if explain != "" {
		writeExplain(stdout, res, explain == "all")
		return 0
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		fmt.Fprintln(stderr, "execkg ask:", err)
		return 1
	}
	return 0
}
