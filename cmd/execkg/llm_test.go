package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeChat speaks Ollama's POST /api/chat for the two prompts of the
// pipeline: extraction (reply schema with "findings") and evidence
// formatting (reply schema with "evidence", one item per listed pair). It
// answers like a careful model: the eGFR finding, and for each pair its
// value when the concept is eGFR.
func fakeChat(t *testing.T, calls *atomic.Int64) *httptest.Server {
	pairRE := regexp.MustCompile(`(?m)^(\d+)\. finding: .*; concept: "([^"]*)"`)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Format   json.RawMessage `json:"format"`
			Messages []struct {
				Role, Content string
			} `json:"messages"`
		}
		require.NoError(t, json.Unmarshal(body, &req))
		user := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				user = m.Content
			}
		}
		var content string
		if strings.Contains(string(req.Format), `"facts"`) {
			// The reading prompt: the document into the patient model,
			// with one fact the case does not state.
			fact := func(words, kind, status string) string {
				return fmt.Sprintf(`{"words":%q,"kind":%q,"status":%q,"certainty":"confirmed","experiencer":"patient","value":null,"unit":"","comparator":"=","date":"","section":""}`, words, kind, status)
			}
			content = `{"facts":[` + fact("eGFR of 24 mL/min/1.73 m²", "measurement", "active") + "," + fact("no diabetes", "problem", "absent") + "," +
				fact("on ticagrelor", "medication", "taking") + `]}`
		} else if strings.Contains(string(req.Format), `"findings"`) {
			content = `{"findings":[{"text":"eGFR of 24 mL/min/1.73 m²"},{"text":"no diabetes"}]}`
		} else {
			var items []string
			for _, m := range pairRE.FindAllStringSubmatch(user, -1) {
				if m[2] == "estimated glomerular filtration rate" {
					items = append(items, fmt.Sprintf(`{"pair":%s,"about_concept":true,"present":true,"value":24,"unit":"mL/min/1.73 m2","comparator":"="}`, m[1]))
				} else {
					items = append(items, fmt.Sprintf(`{"pair":%s,"about_concept":false,"present":false,"value":null,"unit":"","comparator":"="}`, m[1]))
				}
			}
			content = `{"evidence":[` + strings.Join(items, ",") + `]}`
		}
		reply := map[string]any{"model": "fake", "message": map[string]string{"role": "assistant", "content": content}, "done": true}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(reply)
	}))
}

// The --llm --llm-mode steps path end to end through the CLI: steps (i)
// and (iv) go to the model, the answers are cached, and a second run makes
// no call.
func TestAskWithLLMSteps(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	var calls atomic.Int64
	srv := fakeChat(t, &calls)
	defer srv.Close()
	cache := filepath.Join(t.TempDir(), "llm_cache.jsonl")
	args := []string{"ask", "--llm", "--llm-mode", "steps", "--llm-host", srv.URL, "--llm-model", "fake", "--llm-cache", cache, "--llm-strict",
		"Patient with an eGFR of 24 mL/min/1.73 m² and no diabetes."}
	var so, se bytes.Buffer
	require.Equal(t, 0, run(args, &so, &se), se.String())
	var res struct {
		Predicted []string `json:"predicted_row_ids"`
		Findings  []struct {
			Text string `json:"text"`
		} `json:"extracted_findings"`
	}
	require.NoError(t, json.Unmarshal(so.Bytes(), &res))
	assert.Contains(t, res.Predicted, "table_08.json::row_2")
	require.Len(t, res.Findings, 2)
	assert.Equal(t, "eGFR of 24 mL/min/1.73 m²", res.Findings[0].Text)
	assert.Equal(t, int64(2), calls.Load(), "one extraction call and one formatting call per case")

	so.Reset()
	se.Reset()
	require.Equal(t, 0, run(args, &so, &se), se.String())
	assert.Equal(t, int64(2), calls.Load(), "the cached answers are reused: no new call")
}

// The --llm path (read mode, the default) end to end through the CLI: one
// call reads the case into the patient model, the engine grounds and
// checks the facts, the invented one is dropped, and a second run makes no
// call.
func TestAskWithLLMRead(t *testing.T) {
	t.Setenv("NEO4J_URI", "")
	t.Setenv("KG_LLM_MODE", "")
	var calls atomic.Int64
	srv := fakeChat(t, &calls)
	defer srv.Close()
	cache := filepath.Join(t.TempDir(), "llm_cache.jsonl")
	args := []string{"ask", "--llm", "--llm-host", srv.URL, "--llm-model", "fake", "--llm-cache", cache, "--llm-strict",
		"Patient with an eGFR of 24 mL/min/1.73 m² and no diabetes."}
	var so, se bytes.Buffer
	require.Equal(t, 0, run(args, &so, &se), se.String())
	var res struct {
		Predicted []string `json:"predicted_row_ids"`
		Patient   struct {
			Facts []struct {
				Text   string `json:"original_text"`
				Reader string `json:"reader"`
			} `json:"facts"`
			Dropped []struct {
				Text   string `json:"text"`
				Reason string `json:"reason"`
			} `json:"dropped"`
		} `json:"patient"`
	}
	require.NoError(t, json.Unmarshal(so.Bytes(), &res))
	assert.Contains(t, res.Predicted, "table_08.json::row_2")
	require.NotEmpty(t, res.Patient.Facts)
	assert.Equal(t, "eGFR of 24 mL/min/1.73 m²", res.Patient.Facts[0].Text)
	assert.Equal(t, "ollama:fake:read-v1", res.Patient.Facts[0].Reader)
	require.Len(t, res.Patient.Dropped, 1)
	assert.Equal(t, "on ticagrelor", res.Patient.Dropped[0].Text)
	assert.Equal(t, int64(1), calls.Load(), "one reading call per case")

	so.Reset()
	se.Reset()
	require.Equal(t, 0, run(args, &so, &se), se.String())
	assert.Equal(t, int64(1), calls.Load(), "the cached answer is reused: no new call")
}
