package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A README figure is a number followed by a marker naming where it comes
// from: 208<!--fig stats stats.rules--> is field stats.rules of the JSON
// `execkg stats --report` writes. Sources: stats (--report), reproduce
// (--numbers, i.e. paper_numbers.json) and grounding (grounding-eval
// --json). A path is dot-separated; [k=v,...] picks the array element
// whose fields have those values, [N] the Nth. Prose and unmarked numbers
// may change freely; a marked one must equal the command's value to the
// precision written (0.993 is the value rounded to 3 decimals).
var figureRE = regexp.MustCompile(`(-?[0-9][0-9,]*(?:\.[0-9]+)?(?:e-?[0-9]+)?)<!--fig (\w+) ([^ ]+?)-->`)

// requiredFigures must stay marked, so that deleting a marker does not
// quietly stop its check.
var requiredFigures = []string{
	"stats stats.rules", "stats stats.rows", "stats stats.tables",
	"reproduce arms[arm=kg].f1", "reproduce arms[arm=kg].tp",
	"grounding rows[kind=synonym,mode=leave-one-out,guard=false,method=score+cut,vector_threshold=0.3].acc_at_3", "grounding queries.synonym",
}

type figure struct {
	text, source, path string
	line               int
}

func readmeFigures(readme []byte) []figure {
	var out []figure
	for i, l := range strings.Split(string(readme), "\n") {
		for _, m := range figureRE.FindAllStringSubmatch(l, -1) {
			out = append(out, figure{text: m[1], source: m[2], path: m[3], line: i + 1})
		}
	}
	return out
}

// lookup follows path through decoded JSON.
func lookup(v any, path string) (any, error) {
	for _, seg := range splitPath(path) {
		name, sel := seg, ""
		if i := strings.IndexByte(seg, '['); i >= 0 && strings.HasSuffix(seg, "]") {
			name, sel = seg[:i], seg[i+1:len(seg)-1]
		}
		if name != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: not an object", name)
			}
			if v, ok = m[name]; !ok {
				return nil, fmt.Errorf("no field %q", name)
			}
		}
		if sel == "" {
			continue
		}
		arr, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: not an array", seg)
		}
		if n, err := strconv.Atoi(sel); err == nil {
			if n < 0 || n >= len(arr) {
				return nil, fmt.Errorf("%s: index out of range (%d elements)", seg, len(arr))
			}
			v = arr[n]
			continue
		}
		var found []any
		for _, el := range arr {
			m, _ := el.(map[string]any)
			all := m != nil
			for _, kv := range strings.Split(sel, ",") {
				k, want, _ := strings.Cut(kv, "=")
				if m == nil || fmt.Sprint(m[k]) != want {
					all = false
				}
			}
			if all {
				found = append(found, el)
			}
		}
		if len(found) != 1 {
			return nil, fmt.Errorf("%s: %d elements match, want 1", seg, len(found))
		}
		v = found[0]
	}
	return v, nil
}

func splitPath(p string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range p {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case '.':
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}

// matches: written (as in the README) is got rounded to the precision
// written.
func matches(written string, got float64) bool {
	s := strings.ReplaceAll(written, ",", "")
	w, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return false
	}
	mant, exp, _ := strings.Cut(s, "e")
	dec := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		dec = len(mant) - i - 1
	}
	scale := 1.0
	if exp != "" {
		e, _ := strconv.Atoi(exp)
		scale = math.Pow(10, float64(e))
	}
	return math.Abs(got-w) <= 0.5*math.Pow(10, -float64(dec))*scale*(1+1e-9)
}

func TestFigureMatching(t *testing.T) {
	assert.True(t, matches("0.993", 0.9934533551554828))
	assert.False(t, matches("0.994", 0.9934533551554828))
	assert.True(t, matches("1,268", 1268))
	assert.False(t, matches("1,194", 1268))
	assert.False(t, matches("210", 208))
	assert.True(t, matches("2.6e-26", 2.5849394142282115e-26))
	assert.False(t, matches("2.7e-26", 2.5849394142282115e-26))
	figs := readmeFigures([]byte("all 31<!--fig stats stats.tables--> tables and 0.791<!--fig grounding rows[kind=synonym,mode=x].acc_at_3-->"))
	require.Len(t, figs, 2)
	assert.Equal(t, "rows[kind=synonym,mode=x].acc_at_3", figs[1].path)
	doc := map[string]any{"rows": []any{map[string]any{"kind": "synonym", "mode": "x", "acc_at_3": 0.79}, map[string]any{"kind": "wording", "mode": "x"}}}
	v, err := lookup(doc, figs[1].path)
	require.NoError(t, err)
	assert.Equal(t, 0.79, v)
}

// The marked numbers of README.md are what the commands print now.
func TestReadmeFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs reproduce and grounding-eval")
	}
	t.Setenv("NEO4J_URI", "")
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	figs := readmeFigures(readme)
	dir := t.TempDir()
	shared, _ := offlineReproduce(t)
	src := map[string]string{
		"stats":     filepath.Join(dir, "stats.json"),
		"reproduce": filepath.Join(shared, "paper_numbers.json"),
		"grounding": filepath.Join(dir, "grounding.json"),
	}
	for name, args := range map[string][]string{
		"stats":     {"stats", "--report", src["stats"]},
		"grounding": {"grounding-eval", "--json", src["grounding"]},
	} {
		var so, se bytes.Buffer
		require.Equal(t, 0, run(args, &so, &se), "%s: %s", name, se.String())
	}
	docs := map[string]any{}
	for name, p := range src {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		var v any
		require.NoError(t, json.Unmarshal(b, &v), p)
		docs[name] = v
	}
	marked := map[string]bool{}
	for _, f := range figs {
		marked[f.source+" "+f.path] = true
		doc, ok := docs[f.source]
		if !assert.True(t, ok, "README.md:%d: unknown source %q (stats, reproduce, grounding)", f.line, f.source) {
			continue
		}
		v, err := lookup(doc, f.path)
		if !assert.NoError(t, err, "README.md:%d: %s %s", f.line, f.source, f.path) {
			continue
		}
		got, ok := v.(float64)
		if !assert.True(t, ok, "README.md:%d: %s %s is %v, not a number", f.line, f.source, f.path, v) {
			continue
		}
		assert.True(t, matches(f.text, got), "README.md:%d: %s says %s, `%s` gives %v (%s); update the README",
			f.line, f.source+" "+f.path, f.text, f.source, got, f.path)
	}
	for _, r := range requiredFigures {
		assert.True(t, marked[r], "README.md no longer marks the figure %q", r)
	}
}
