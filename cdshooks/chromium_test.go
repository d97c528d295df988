package cdshooks_test

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium finds a headless-capable Chromium: $CHROMIUM, else the
// distribution's binary (Debian: apt-get install -y chromium).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("Chromium not found: install it (Debian: apt-get install -y chromium) or set CHROMIUM to its path to check the page in a headless browser")
	return ""
}

// runChromium loads the page headless and returns what it printed. The
// virtual time budget lets the page's fetch finish before the dump.
func runChromium(t *testing.T, bin string, extra ...string) []byte {
	t.Helper()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=20000"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, extra...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return out
}

// pageURL is the page with a case in its fragment, which it asks on load.
func pageURL(base, text, date string) string {
	v := url.Values{}
	v.Set("text", text)
	v.Set("date", date)
	return base + "/#" + v.Encode()
}

// TestPageInChromium: the page, loaded with a case in its URL, shows the
// cards with class, level and intent, the patient's words highlighted, and
// the near misses. With SCREENSHOT=path it also saves a screenshot (the
// README's docs/serve.png).
func TestPageInChromium(t *testing.T) {
	bin := chromium(t)
	ts, _ := startServer(t, nil)
	text := "68-year-old man with CCS, PCI with DES to the proximal LAD 3 months ago, high bleeding risk, on aspirin and clopidogrel. LVEF 30%. Atrial fibrillation on apixaban."
	u := pageURL(ts.URL, text, "2026-12-01")
	dom := string(runChromium(t, bin, "--dump-dom", u))
	cards := regexp.MustCompile(`<article class="card (info|warning|critical)`).FindAllStringSubmatch(dom, -1)
	if len(cards) == 0 {
		t.Fatalf("the page shows no card; DOM:\n%s", dom)
	}
	for _, want := range []string{
		`Class III`, `Level C`, `avoid`, // a card's class, level and intent
		`table_17.json::row_18`,                     // the source row
		`Recommendation Table 17 row 18`,            // the citation
		`<mark data-cards=`,                         // highlighted words in the case
		`>Atrial fibrillation on apixaban</mark>`,   // the patient's words
		`would apply if:`,                           // near misses
		`https://doi.org/10.1093/eurheartj/ehae177`, // the source link
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if !regexp.MustCompile(`<article class="card warning`).MatchString(dom) {
		t.Errorf("no warning card for the class III rows")
	}
	// A FHIR bundle in the fragment: the cards cite the resources.
	bundle, err := os.ReadFile("testdata/patients/pci_ckd.json")
	if err != nil {
		t.Fatal(err)
	}
	v := url.Values{}
	v.Set("bundle", string(bundle))
	v.Set("date", "2026-06-01")
	dom = string(runChromium(t, bin, "--dump-dom", ts.URL+"/#"+v.Encode()))
	for _, want := range []string{`<article class="card warning`, `<code>Observation/egfr-2</code>`, `Recommendation Table 8 row 2`,
		`Patient model: `, `<td>estimated glomerular filtration rate</td>`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page with a FHIR bundle lacks %q", want)
		}
	}
	if path := os.Getenv("SCREENSHOT"); path != "" {
		runChromium(t, bin, "--hide-scrollbars", "--window-size=1100,1500", "--screenshot="+path, u)
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Fatalf("no screenshot at %s: %v", path, err)
		}
		t.Logf("screenshot written to %s", path)
	}
}
