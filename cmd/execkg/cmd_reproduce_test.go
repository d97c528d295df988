package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shipped vignette and reference files are current: regenerating
// them from this checkout changes nothing.
func TestVignettesGenerateCheck(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"vignettes", "generate", "--check", "--root", filepath.Join("..", "..")}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"vignettes", "validate"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "coverage:") {
		t.Fatalf("validate exit %d:\n%s%s", code, stdout.String(), stderr.String())
	}
	// generate writes every file under a fresh root.
	root := t.TempDir()
	stdout.Reset()
	if code := run([]string{"vignettes", "generate", "--root", root}, &stdout, &stderr); code != 0 {
		t.Fatalf("generate exit %d: %s", code, stderr.String())
	}
	for _, p := range []string{"vignettes/data/vignettes.jsonl", "vignettes/data/excluded.json", "reference/data/reference.jsonl"} {
		got, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: fresh generation differs from the checkout", p)
		}
	}
	// A stale file is reported with the command that fixes it.
	os.WriteFile(filepath.Join(root, "vignettes/data/vignettes.jsonl"), []byte("{}\n"), 0o644)
	stderr.Reset()
	if code := run([]string{"vignettes", "generate", "--check", "--root", root}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "run `execkg vignettes generate`") {
		t.Fatalf("stale check: exit %d, %s", code, stderr.String())
	}
}

// The whole offline reproduction: both arms, every output file and
// the documents table.
func TestReproduceOffline(t *testing.T) {
	dir, out := offlineReproduce(t)
	numbers := filepath.Join(dir, "paper_numbers.json")
	csv := filepath.Join(dir, "errors.csv")
	preds := filepath.Join(dir, "preds")
	docErrs := filepath.Join(dir, "documents_errors.csv")
	var stdout, stderr bytes.Buffer
	stdout.WriteString(out)
	work := t.TempDir()
	for _, want := range []string{"TP / FP / FN", "Exact row-set match (near / synonym / paraphrase)", "Exact McNemar vs kg", "Reference: recomputed, equals the stored file.", "Documents (dev split, 618 documents)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	var n struct {
		Arms []struct {
			Arm string  `json:"arm"`
			TP  int     `json:"tp"`
			F1  float64 `json:"f1"`
		} `json:"arms"`
		McNemar []struct {
			P float64 `json:"P"`
		} `json:"mcnemar"`
		Reference struct {
			Pairs int `json:"pairs"`
		} `json:"reference"`
	}
	b, err := os.ReadFile(numbers)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	if len(n.Arms) != 2 || n.Arms[0].Arm != "kg" || len(n.McNemar) != 1 || n.Reference.Pairs == 0 {
		t.Fatalf("numbers: %s", b)
	}
	head, err := os.ReadFile(csv)
	if err != nil || !strings.HasPrefix(string(head), "case_id,row_id,kind,category,detail\n") {
		t.Fatalf("error CSV: %v %q", err, head)
	}
	// compare re-reads the written predictions and agrees with reproduce.
	stdout.Reset()
	cmpOut := filepath.Join(work, "compare.json")
	if code := run([]string{"compare", "--out", cmpOut, "kg=" + filepath.Join(preds, "kg.jsonl"), "rag=" + filepath.Join(preds, "vectorrag+margin-selector.jsonl")}, &stdout, &stderr); code != 0 {
		t.Fatalf("compare exit %d: %s", code, stderr.String())
	}
	var c struct {
		Arms []struct {
			TP int     `json:"tp"`
			F1 float64 `json:"f1"`
		} `json:"arms"`
	}
	cb, _ := os.ReadFile(cmpOut)
	if err := json.Unmarshal(cb, &c); err != nil || len(c.Arms) != 2 || c.Arms[0].TP != n.Arms[0].TP || c.Arms[1].F1 != n.Arms[1].F1 {
		t.Fatalf("compare numbers %s differ from reproduce %s", cb, b)
	}
	// The HTML report renders offline: no script, no external reference.
	html := filepath.Join(work, "report.html")
	if code := run([]string{"report", "--out", html, "--no-baseline", "--documents-errors", docErrs}, &stdout, &stderr); code != 0 {
		t.Fatalf("report exit %d: %s", code, stderr.String())
	}
	page, _ := os.ReadFile(html)
	for _, bad := range []string{"<script", "http://", "https://"} {
		if strings.Contains(strings.ReplaceAll(string(page), `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	if !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "Condition coverage") || !strings.Contains(string(page), "Real-world documents (dev split)") {
		t.Error("report lacks plots, coverage or the documents section")
	}
}

func TestCompareArguments(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"compare"}, &stdout, &stderr); code != 2 {
		t.Fatalf("no arms: exit %d", code)
	}
	if code := run([]string{"compare", "justapath.jsonl"}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "want NAME=PATH") {
		t.Fatalf("bad arm: exit %d, %s", code, stderr.String())
	}
	p := filepath.Join(t.TempDir(), "p.jsonl")
	os.WriteFile(p, []byte(`{"case_id":"near_999","predicted_row_ids":[]}`+"\n"), 0o644)
	stderr.Reset()
	if code := run([]string{"compare", "x=" + p}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "near_999") {
		t.Fatalf("foreign case: exit %d, %s", code, stderr.String())
	}
}

// The final documents split is measured once: a logged final measurement
// refuses a second unless asked, and a test measurement is appended.
func TestDocumentsFinalMeasuredOnce(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "measurements.jsonl")
	os.WriteFile(log, []byte(`{"time":"2026-12-01T00:00:00Z","commit":"abc","split":"final"}`+"\n"), 0o644)
	var stdout, stderr bytes.Buffer
	args := []string{"reproduce", "--no-baseline", "--numbers", filepath.Join(dir, "n.json"), "--errors", filepath.Join(dir, "e.csv"),
		"--documents-errors", filepath.Join(dir, "d.csv"), "--documents-log", log}
	if code := run(append(args, "--documents", "final"), &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "the final split was measured on 2026-12-01T00:00:00Z at abc") {
		t.Fatalf("second final measurement: exit %d, %s", code, stderr.String())
	}
	stderr.Reset()
	if code := run(append(args, "--documents", "test", "--documents-note", "why"), &stdout, &stderr); code != 0 {
		t.Fatalf("test measurement: exit %d, %s", code, stderr.String())
	}
	b, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `"split":"test"`) || !strings.Contains(lines[1], `"note":"why"`) || !strings.Contains(lines[1], `"must":1366`) {
		t.Fatalf("log after a test measurement:\n%s", b)
	}
}
