package fhir_test

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine/fhir"
	"github.com/executablekg/execkg/engine/patient"
	"github.com/executablekg/execkg/rules"
	"github.com/executablekg/execkg/rules/packs"
)

var update = flag.Bool("update", false, "rewrite testdata/<case>.want.json from the reader's output (review the diff)")

type testCase struct {
	Name string `json:"name"`
	Date string `json:"date"`
}

func cases(t *testing.T) []testCase {
	t.Helper()
	b, err := os.ReadFile("testdata/cases.json")
	require.NoError(t, err)
	var f struct {
		Cases []testCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	require.NotEmpty(t, f.Cases)
	return f.Cases
}

func valueSets(t *testing.T) *rules.ValueSets {
	t.Helper()
	p, err := packs.Default()
	require.NoError(t, err)
	require.NotNil(t, p.ValueSets)
	return p.ValueSets
}

// wantFact is what a test pins of a fact (ids and texts may change).
type wantFact struct {
	Resource    string   `json:"resource"`
	Concept     string   `json:"concept"`
	Kind        string   `json:"kind"`
	Status      string   `json:"status,omitempty"`
	Certainty   string   `json:"certainty,omitempty"`
	Experiencer string   `json:"experiencer,omitempty"`
	Present     bool     `json:"present"`
	Value       *float64 `json:"value,omitempty"`
	Comparator  string   `json:"comparator,omitempty"`
	Unit        string   `json:"unit,omitempty"`
	Code        string   `json:"code,omitempty"`
	Class       string   `json:"class,omitempty"`
	When        string   `json:"when,omitempty"`
	Intention   bool     `json:"intention,omitempty"`
}

type wantDrop struct {
	Resource string `json:"resource,omitempty"`
	Reason   string `json:"reason"`
}

type want struct {
	Age     *float64   `json:"age,omitempty"`
	Sex     string     `json:"sex,omitempty"`
	Facts   []wantFact `json:"facts"`
	Dropped []wantDrop `json:"dropped,omitempty"`
}

func project(m *patient.Model) want {
	w := want{Age: m.Age, Sex: m.Sex, Facts: []wantFact{}}
	for _, f := range m.Facts {
		wf := wantFact{Resource: f.Resource, Concept: f.Concept, Kind: string(f.Kind), Status: string(f.Status), Certainty: string(f.Certainty),
			Experiencer: string(f.Experiencer), Present: f.Present, Comparator: f.Comparator, Unit: f.Unit, Code: f.Code, Class: f.Class, Intention: f.Intention}
		if f.Value != nil {
			v := math.Round(*f.Value*1000) / 1000
			wf.Value = &v
		}
		if f.When != nil {
			wf.When = f.When.From.Format("2006-01-02") + ".." + f.When.To.Format("2006-01-02")
		}
		w.Facts = append(w.Facts, wf)
	}
	for _, d := range m.Dropped {
		w.Dropped = append(w.Dropped, wantDrop{Resource: d.Resource, Reason: d.Reason})
	}
	return w
}

// Every fixture bundle reads to the facts and drops its want file pins;
// every fact keeps the resource it came from and, unless it is an age, the
// code that placed it, and names a concept of the pack.
func TestFixtures(t *testing.T) {
	vs := valueSets(t)
	for _, c := range cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", c.Name+".json"))
			require.NoError(t, err)
			date, err := time.Parse("2006-01-02", c.Date)
			require.NoError(t, err)
			m, err := fhir.Read(b, vs, fhir.Options{Date: date})
			require.NoError(t, err)
			require.NoError(t, m.Validate())
			assert.Equal(t, "fhir", m.Source)
			assert.Equal(t, c.Date, m.Date)
			for _, f := range m.Facts {
				assert.NotEmpty(t, f.Resource, "fact %s has no resource", f.ID)
				assert.NotEmpty(t, f.ConceptKey, "fact %s has no concept key", f.ID)
				assert.Equal(t, fhir.ReaderName, f.Reader)
				if f.Concept != vs.Demographics.Age.Concept {
					assert.Contains(t, f.Code, "|", "fact %s (%s) has no code", f.ID, f.Concept)
				}
			}
			got := project(m)
			path := filepath.Join("testdata", c.Name+".want.json")
			if *update {
				out, err := json.MarshalIndent(got, "", "  ")
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(path, append(out, '\n'), 0o644))
				return
			}
			wb, err := os.ReadFile(path)
			require.NoError(t, err, "missing %s (run go test ./engine/fhir -update and review it)", path)
			var w want
			require.NoError(t, json.Unmarshal(wb, &w))
			assert.Equal(t, w, got)
		})
	}
}

// Malformed input fails with an error naming where (entry, resource,
// field) and what is wrong.
func TestErrors(t *testing.T) {
	b, err := os.ReadFile("testdata/errors.json")
	require.NoError(t, err)
	var f struct {
		Cases []struct {
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
			Raw   string          `json:"raw"`
			Error []string        `json:"error"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f))
	require.NotEmpty(t, f.Cases)
	vs := valueSets(t)
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			in := []byte(c.Input)
			if c.Raw != "" {
				in = []byte(c.Raw)
			}
			_, err := fhir.Read(in, vs, fhir.Options{Date: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)})
			require.Error(t, err)
			for _, part := range c.Error {
				assert.Contains(t, err.Error(), part)
			}
		})
	}
}

// Without value sets nothing can be placed, and the error says so.
func TestNoValueSets(t *testing.T) {
	_, err := fhir.Read([]byte(`{"resourceType":"Bundle","type":"collection"}`), nil, fhir.Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), rules.ValueSetsFile)
}

// A CDS Hooks prefetch (a Patient alone, then a search Bundle) reads like
// one bundle holding both; errors name the part.
func TestReadParts(t *testing.T) {
	vs := valueSets(t)
	date := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	patientPart := []byte(`{"resourceType":"Patient","id":"p","birthDate":"1950-01-01","gender":"female"}`)
	search := []byte(`{"resourceType":"Bundle","type":"searchset","entry":[{"resource":{"resourceType":"Observation","id":"o","status":"final",
		"subject":{"reference":"Patient/p"},"code":{"coding":[{"system":"http://loinc.org","code":"10230-1"}]},
		"valueQuantity":{"value":35,"unit":"%","system":"http://unitsofmeasure.org","code":"%"}}}]}`)
	m, err := fhir.ReadParts([][]byte{patientPart, search}, vs, fhir.Options{CaseID: "hook", Date: date})
	require.NoError(t, err)
	assert.Equal(t, "hook", m.CaseID)
	var concepts []string
	for _, f := range m.Facts {
		concepts = append(concepts, f.Concept+"@"+f.Resource)
	}
	assert.Equal(t, []string{"age@Patient/p", "female sex@Patient/p", "left ventricular ejection fraction@Observation/o"}, concepts)
	// The same resources again in another part are read once.
	m, err = fhir.ReadParts([][]byte{patientPart, search, patientPart, search}, vs, fhir.Options{CaseID: "hook", Date: date})
	require.NoError(t, err)
	assert.Len(t, m.Facts, 3)
	_, err = fhir.ReadParts([][]byte{patientPart, []byte(`{"resourceType":"Bundle","type":"history"}`)}, vs, fhir.Options{Date: date})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "part 1")
	assert.Contains(t, err.Error(), "history")
}

// Reader mechanisms the pack's own value sets do not reach, over a test
// pack whose value sets use a local code system: a panel's components
// each by its code (one drop for the unplaced, one for an absent value),
// the latest result winning over an undated one, a comparator kept, a unit
// the value set does not list refused, a plan and a held order, a
// statement of a drug not taken, a contained Medication found through a
// class prefix, a missing reference, an unknown status, a resolved
// allergy, a code-less condition, an empty entry.
func TestMechanisms(t *testing.T) {
	p, err := rules.LoadFS(os.DirFS("testdata/mechanism/pack"), ".")
	require.NoError(t, err)
	require.Empty(t, p.ValueSets.Check(p))
	b, err := os.ReadFile("testdata/mechanism/bundle.json")
	require.NoError(t, err)
	m, err := fhir.Read(b, p.ValueSets, fhir.Options{Date: time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)})
	require.NoError(t, err)
	got := project(m)
	path := "testdata/mechanism/want.json"
	if *update {
		out, err := json.MarshalIndent(got, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, append(out, '\n'), 0o644))
		return
	}
	wb, err := os.ReadFile(path)
	require.NoError(t, err)
	var w want
	require.NoError(t, json.Unmarshal(wb, &w))
	assert.Equal(t, w, got)
}
