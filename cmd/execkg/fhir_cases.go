package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// readFHIRDir reads every *.json file of dir as one FHIR Bundle case: the
// case id is the file name without .json, the date (YYYY-MM-DD or "")
// the one given for all. A file that is not JSON is refused before any
// work, as a bad input line is.
func readFHIRDir(dir, date string) ([]batchCase, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("%s holds no *.json FHIR bundles", dir)
	}
	var out []batchCase
	var problems []string
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		if !json.Valid(b) {
			problems = append(problems, fmt.Sprintf("%s: not valid JSON (want one FHIR R4 Bundle per file)", n))
			continue
		}
		c := batchCase{CaseID: strings.TrimSuffix(filepath.Base(n), ".json"), Date: date, Bundle: b}
		if date != "" && !validDate(c) {
			return nil, fmt.Errorf("--date %q: want YYYY-MM-DD, e.g. 2026-03-15", date)
		}
		out = append(out, c)
	}
	if len(problems) > 0 {
		if len(problems) > maxListed {
			problems = append(problems[:maxListed], fmt.Sprintf("... and %d more", len(problems)-maxListed))
		}
		return nil, fmt.Errorf("%d bad bundle file(s); nothing was run:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	return out, nil
}
