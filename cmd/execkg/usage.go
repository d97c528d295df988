package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseFlags parses a command's flags with the one usage layout of every
// command:
//
//	usage: execkg <command> <synopsis>
//
//	<what it does, when there is more to say>
//
//	flags:
//	  -name ...
//
// header is the text above "flags:", starting "usage: execkg".
// -h/--help prints it on stdout and returns (0, false); a bad or unknown
// flag prints the error and the usage on stderr and returns (2, false).
// fl.Usage is set to print the usage on stderr, for later argument errors.
func parseFlags(fl *flag.FlagSet, args []string, stdout, stderr io.Writer, header string) (int, bool) {
	print := func(w io.Writer) {
		fl.SetOutput(w)
		fmt.Fprintln(w, strings.TrimSpace(header))
		n := 0
		fl.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(w, "\nflags:")
			fl.PrintDefaults()
		}
		fl.SetOutput(stderr)
	}
	fl.SetOutput(stderr)
	// During Parse the usage waits: flag calls it for -h too, and help
	// goes to stdout.
	fl.Usage = func() {}
	err := fl.Parse(args)
	fl.Usage = func() { print(stderr) }
	if errors.Is(err, flag.ErrHelp) {
		print(stdout)
		return 0, false
	}
	if err != nil {
		print(stderr) // after flag's own line naming the bad flag
		return 2, false
	}
	return 0, true
}

// flagSet reports whether the command line set the flag.
func flagSet(fl *flag.FlagSet, name string) bool {
	set := false
	fl.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
