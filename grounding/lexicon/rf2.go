package lexicon

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// SNOMED CT description type ids.
const (
	TypeFSN     = "900000000000003001" // fully specified name
	TypeSynonym = "900000000000013009"
)

// rf2Columns is the header of an RF2 description file.
var rf2Columns = []string{"id", "effectiveTime", "active", "moduleId", "conceptId", "languageCode", "typeId", "term", "caseSignificanceId"}

// RF2Stats counts what an import did.
type RF2Stats struct {
	Rows     int // data rows read
	Matched  int // active FSN/synonym rows of a concept in the lexicon
	Added    int // terms added as new synonyms
	Concepts int // lexicon concepts that gained at least one synonym
}

// ImportRF2 reads a SNOMED CT RF2 description file (Snapshot or Full;
// tab-separated with the standard header) and adds every active synonym
// and fully specified name (semantic tag stripped) of a concept whose
// snomed_id is in the lexicon as a synonym of that lexicon concept. Terms
// already present (after normalisation) are skipped. In a Full release a
// description appears once per version; the row with the latest
// effectiveTime decides whether it is active. name is used in errors.
func (l *Lexicon) ImportRF2(name string, r io.Reader) (RF2Stats, error) {
	var st RF2Stats
	type desc struct {
		time, active, concept, typ, term string
	}
	latest := map[string]desc{}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if line == 1 {
			cols := strings.Split(text, "\t")
			if len(cols) != len(rf2Columns) || cols[0] != "id" || cols[4] != "conceptId" || cols[7] != "term" {
				return st, fmt.Errorf("%s line 1: not an RF2 description file; want the header %q", name, strings.Join(rf2Columns, "\\t"))
			}
			continue
		}
		if text == "" {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) != len(rf2Columns) {
			return st, fmt.Errorf("%s line %d: %d tab-separated fields, want %d", name, line, len(f), len(rf2Columns))
		}
		if f[2] != "0" && f[2] != "1" {
			return st, fmt.Errorf("%s line %d: active is %q, want 0 or 1", name, line, f[2])
		}
		st.Rows++
		d := desc{time: f[1], active: f[2], concept: f[4], typ: f[6], term: f[7]}
		old, seen := latest[f[0]]
		if !seen {
			order = append(order, f[0])
		}
		if !seen || d.time >= old.time {
			latest[f[0]] = d
		}
	}
	if err := sc.Err(); err != nil {
		return st, fmt.Errorf("read %s: %w", name, err)
	}
	if line == 0 {
		return st, fmt.Errorf("%s is empty; want an RF2 description file", name)
	}
	gained := map[int]bool{}
	for _, id := range order {
		d := latest[id]
		if d.active != "1" || (d.typ != TypeSynonym && d.typ != TypeFSN) {
			continue
		}
		idx := l.bySCT[d.concept]
		if len(idx) == 0 {
			continue
		}
		st.Matched++
		term := strings.TrimSpace(d.term)
		if d.typ == TypeFSN {
			term = StripSemanticTag(term)
		}
		k := Key(term)
		if k == "" {
			continue
		}
		for _, i := range idx {
			c := &l.Concepts[i]
			if hasTerm(c, k) {
				continue
			}
			c.Synonyms = append(c.Synonyms, term)
			st.Added++
			gained[i] = true
		}
	}
	st.Concepts = len(gained)
	return st, l.Reindex()
}

func hasTerm(c *Concept, key string) bool {
	if Key(c.Concept) == key {
		return true
	}
	for _, s := range c.Synonyms {
		if Key(s) == key {
			return true
		}
	}
	return false
}

// StripSemanticTag removes the trailing "(disorder)", "(procedure)", …
// of a fully specified name.
func StripSemanticTag(fsn string) string {
	s := strings.TrimSpace(fsn)
	if !strings.HasSuffix(s, ")") {
		return s
	}
	i := strings.LastIndex(s, " (")
	if i <= 0 {
		return s
	}
	return strings.TrimSpace(s[:i])
}
