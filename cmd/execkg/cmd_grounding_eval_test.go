package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const groundingTestdata = "../../grounding/testdata"

func TestGroundingEvalCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	args := []string{"grounding-eval", "--pack", filepath.Join(groundingTestdata, "pack"), "--lexicon", filepath.Join(groundingTestdata, "lexicon.json"), "--json", out, "--sweep", "0.5"}
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	table := stdout.String()
	for _, want := range []string{"24 lexicon synonyms, 11 input-node wordings", "leave-one-out", "in-index", "score+cut", "threshold sweep"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Rows []struct {
			Kind, Mode, Method string
			Guard              bool
			N                  int     `json:"n"`
			Acc3               float64 `json:"acc_at_3"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rep.Rows {
		if r.Kind == "synonym" && r.Mode == "in-index" && r.Guard && r.Method == "score+cut" {
			found = true
			if r.N != 24 || r.Acc3 < 0.95 {
				t.Errorf("fixture in-index synonyms: n %d acc@3 %.3f", r.N, r.Acc3)
			}
		}
	}
	if !found {
		t.Errorf("JSON report lacks the default-fusion row: %s", data)
	}
}

func TestGroundingEvalTraceAndErrors(t *testing.T) {
	var stdout, stderr bytes.Buffer
	base := []string{"grounding-eval", "--pack", filepath.Join(groundingTestdata, "pack"), "--lexicon", filepath.Join(groundingTestdata, "lexicon.json")}
	if code := run(append(base, "--trace", "rapid AF with 130 bpm"), &stdout, &stderr); code != 0 {
		t.Fatalf("trace: exit %d %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), `query "rapid af"`) || !strings.Contains(stdout.String(), "1 ") || !strings.Contains(stdout.String(), "fast irregular heart rate via") {
		t.Errorf("trace output:\n%s", stdout.String())
	}
	for _, bad := range [][]string{{"--sweep", "1.5"}, {"--embedder", "word2vec"}, {"--fusion", "borda"}, {"extra"}} {
		stderr.Reset()
		if code := run(append(append([]string(nil), base...), bad...), &stdout, &stderr); code == 0 {
			t.Errorf("%v accepted", bad)
		} else if stderr.Len() == 0 {
			t.Errorf("%v: no error message", bad)
		}
	}
	// the Ollama embedder needs a model
	t.Setenv("OLLAMA_EMBED_MODEL", "")
	stderr.Reset()
	if code := run(append(append([]string(nil), base...), "--embedder", "ollama"), &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "OLLAMA_EMBED_MODEL") {
		t.Errorf("ollama without model: exit %d %s", code, stderr.String())
	}
}
