package documents

import "strings"

// Excerpts cuts benchmark inputs of exactly lines non-empty lines from the
// documents, read one after another as a single stream of lines, so every
// input is real clinical text and a 200-line input spans several
// documents. Of the stream's consecutive windows it takes n spread evenly
// from start to end (all of them when there are n or fewer).
func Excerpts(docs []Document, lines, n int) []string {
	var all []string
	for _, d := range docs {
		for _, l := range strings.Split(d.Text, "\n") {
			if strings.TrimSpace(l) != "" {
				all = append(all, l)
			}
		}
	}
	if lines <= 0 || n <= 0 {
		return nil
	}
	m := len(all) / lines
	var out []string
	for i := 0; i < min(n, m); i++ {
		k := i * m / min(n, m)
		out = append(out, strings.Join(all[k*lines:(k+1)*lines], "\n"))
	}
	return out
}
