package main

import (
	"bytes"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every command and subcommand: --help (and -h) prints the usage on
// standard output and exits 0; an unknown flag exits 2 with the error and
// the usage on standard error. One layout: the first line is
// "usage: execkg <command> ...".
func TestHelpAndUnknownFlags(t *testing.T) {
	var names [][]string
	for n := range commands {
		names = append(names, []string{n})
	}
	names = append(names, []string{"lexicon", "import-rf2"}, []string{"lexicon", "check"}, []string{"lexicon", "lookup"},
		[]string{"vignettes", "generate"}, []string{"vignettes", "validate"}, []string{"annotate", "index"})
	sort.Slice(names, func(i, j int) bool { return strings.Join(names[i], " ") < strings.Join(names[j], " ") })
	for _, cmd := range names {
		name := strings.Join(cmd, " ")
		for _, h := range []string{"--help", "-h"} {
			var so, se bytes.Buffer
			rc := run(append(append([]string{}, cmd...), h), &so, &se)
			assert.Equal(t, 0, rc, "%s %s: exit status; stderr %s", name, h, se.String())
			assert.True(t, strings.HasPrefix(so.String(), "usage: execkg "+cmd[0]+" "), "%s %s: stdout starts %q", name, h, firstLine(so.String()))
			assert.Empty(t, se.String(), "%s %s: nothing on stderr", name, h)
		}
		var so, se bytes.Buffer
		rc := run(append(append([]string{}, cmd...), "--no-such-flag"), &so, &se)
		assert.Equal(t, 2, rc, "%s --no-such-flag: exit status", name)
		assert.Contains(t, se.String(), "usage: execkg "+cmd[0], "%s --no-such-flag: usage on stderr", name)
	}
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }
