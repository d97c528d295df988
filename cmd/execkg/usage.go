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
//	usage: execkg <synopsis>
//
//	<about>
//
//	flags:
//	  -name ...
//
// -h/--help prints it on stdout and returns (0, false); a bad or unknown
// flag prints the error and the usage on stderr and returns (2, false).
// fl.Usage is set to print the usage on stderr, for later argument errors.
func parseFlags(fl *flag.FlagSet, args []string, stdout, stderr io.Writer, synopsis, about string) (int, bool) {
	print := func(w io.Writer) {
		fl.SetOutput(w)
		fmt.Fprintln(w, "usage: "+synopsis)
		if about = strings.TrimSpace(about); about != "" {
			fmt.Fprintln(w, "\n"+about)
		}
		n := 0
		fl.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(w, "\nflags:")
			fl.PrintDefaults()
		}
		fl.SetOutput(stderr)
	}
	fl.SetOutput(stderr)
	fl.Usage = func() { print(stderr) }
	err := fl.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		print(stdout)
		return 0, false
	}
	if err != nil {
		return 2, false // flag has printed the error and the usage on stderr
	}
	return 0, true
}
