package patient

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// testdata/models.json: models in, the evidence evaluation must read out.
func TestEvidenceFromModels(t *testing.T) {
	b, err := os.ReadFile("testdata/models.json")
	require.NoError(t, err)
	var cases []struct {
		Name  string `json:"name"`
		Model Model  `json:"model"`
		Want  []struct {
			ID      string `json:"id"`
			Present bool   `json:"present"`
		} `json:"evidence"`
	}
	require.NoError(t, json.Unmarshal(b, &cases))
	require.NotEmpty(t, cases)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			require.NoError(t, c.Model.Validate())
			ev := c.Model.Evidence()
			require.Len(t, ev, len(c.Want))
			for i, w := range c.Want {
				require.Equal(t, w.ID, ev[i].ID)
				require.Equal(t, w.Present, ev[i].Present, w.ID)
			}
		})
	}
}

func TestFactJSONRoundTrip(t *testing.T) {
	v := 35.0
	f := Fact{Kind: KindMeasurement, Status: StatusActive, Spans: []Span{{3, 9}}, Resource: "Observation/a", Reader: "fhir", Section: "investigations"}
	f.ID, f.ConceptKey, f.Value, f.Unit, f.Present = "f1", "name:lvef", &v, "%", true
	b, err := json.Marshal(f)
	require.NoError(t, err)
	var g Fact
	require.NoError(t, json.Unmarshal(b, &g))
	require.Equal(t, f, g)
}

func TestValidateNamesTheFact(t *testing.T) {
	m := Model{CaseID: "c1", Text: "abc", Facts: []Fact{{Kind: KindProblem, Reader: "x", Spans: []Span{{0, 9}}}}}
	m.Facts[0].ID = "f1"
	err := m.Validate()
	require.ErrorContains(t, err, "outside the 3-byte text")
	m.Facts[0].Spans = nil
	m.Facts[0].Status = "maybe"
	require.ErrorContains(t, m.Validate(), `status "maybe"`)
}
