package jsonl

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type rec struct {
	ID string `json:"id"`
	N  int    `json:"n"`
}

func TestRoundTripAndErrors(t *testing.T) {
	b, err := Marshal([]rec{{"a<b", 1}, {"c", 2}})
	require.NoError(t, err)
	assert.Equal(t, "{\"id\":\"a<b\",\"n\":1}\n{\"id\":\"c\",\"n\":2}\n", string(b))
	got, err := Read[rec]("f", strings.NewReader(string(b)+"\n  \n"), Options{}, nil)
	require.NoError(t, err)
	assert.Equal(t, []rec{{"a<b", 1}, {"c", 2}}, got)

	_, err = Read[rec]("f.jsonl", strings.NewReader(`{"id":"a"}`+"\n"+`{"id":"b","x":1}`), Options{Strict: true, Want: `{"id","n"}`}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `f.jsonl:2: json: unknown field "x" (want {"id","n"})`)

	_, err = Read[rec]("f.jsonl", strings.NewReader(`{"id":""}`), Options{}, func(line int, v *rec) error {
		if v.ID == "" {
			return errors.New("id is empty")
		}
		return nil
	})
	require.EqualError(t, err, "f.jsonl:1: id is empty")
}
