package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServe starts `execkg serve` as a user would (built-in pack, no
// set-up), answers the README's order-sign example, serves the page, and
// stops cleanly on SIGTERM.
func TestServe(t *testing.T) {
	pr, pw := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- runServe([]string{"--addr", "127.0.0.1:0", "--feedback-log", filepath.Join(t.TempDir(), "fb.jsonl")}, pw, &stderr)
		pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	var base string
	for lines.Scan() {
		if _, rest, ok := strings.Cut(lines.Text(), "listening on "); ok {
			base = strings.Fields(rest)[0]
			break
		}
	}
	if base == "" {
		t.Fatalf("serve printed no address; stderr %s", stderr.String())
	}
	go io.Copy(io.Discard, pr)

	resp, err := http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", resp, err)
	}
	resp.Body.Close()

	req, err := os.Open("../../docs/order-sign-request.json")
	if err != nil {
		t.Fatal(err)
	}
	defer req.Close()
	resp, err = http.Post(base+"/cds-services/esc-ccs-2024-order-sign", "application/json", req)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Cards []struct {
			Indicator string `json:"indicator"`
			Source    struct {
				Label string `json:"label"`
			} `json:"source"`
		} `json:"cards"`
	}
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("order-sign: status %d, %v", resp.StatusCode, err)
	}
	if len(body.Cards) != 1 || body.Cards[0].Indicator != "critical" || !strings.Contains(body.Cards[0].Source.Label, "Recommendation Table 8 row 2") {
		t.Errorf("order-sign example answered %+v; want one critical card for Recommendation Table 8 row 2", body.Cards)
	}

	resp, err = http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(page), `<script src="app.js"`) {
		t.Errorf("the page at / is not served: %.200s", page)
	}

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case rc := <-done:
		if rc != 0 {
			t.Errorf("serve exited %d after SIGTERM; stderr %s", rc, stderr.String())
		}
		if !strings.Contains(stderr.String(), "POST /cds-services/esc-ccs-2024-order-sign 200") {
			t.Errorf("no access log line for the order-sign call; stderr %s", stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop within 20 s of SIGTERM")
	}
}

func TestAllowFHIRServers(t *testing.T) {
	if allowFHIRServers(" , ") != nil {
		t.Error("an empty --fhir-servers should allow any server")
	}
	allow := allowFHIRServers("https://ehr.example/fhir/, https://other.example/r4")
	for u, ok := range map[string]bool{
		"https://ehr.example/fhir":        true,
		"https://ehr.example/fhir/":       true,
		"https://ehr.example/fhir/tenant": true,
		"https://ehr.example/fhirx":       false,
		"https://ehr.example.evil/fhir":   false,
		"http://ehr.example/fhir":         false,
		"https://other.example/r4":        true,
	} {
		pu, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		if got := allow(pu) == nil; got != ok {
			t.Errorf("%s allowed %v, want %v", u, got, ok)
		}
	}
}
