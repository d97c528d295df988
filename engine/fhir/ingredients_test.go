package fhir_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/executablekg/execkg/engine/fhir"
)

func TestIngredients(t *testing.T) {
	b, err := os.ReadFile("testdata/ingredients.json")
	require.NoError(t, err)
	var f struct {
		Cases []struct {
			Words       string   `json:"words"`
			Ingredients []string `json:"ingredients"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &f), "testdata/ingredients.json")
	require.NotEmpty(t, f.Cases)
	for _, c := range f.Cases {
		got := fhir.Ingredients(c.Words)
		if len(c.Ingredients) == 0 {
			assert.Empty(t, got, "testdata/ingredients.json: %q", c.Words)
			continue
		}
		assert.Equal(t, c.Ingredients, got, "testdata/ingredients.json: %q", c.Words)
	}
}
