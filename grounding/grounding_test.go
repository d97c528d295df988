package grounding

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/executablekg/execkg/grounding/embed"
	"github.com/executablekg/execkg/grounding/lexicon"
	"github.com/executablekg/execkg/rules"
)

func fixture(t testing.TB, includeContext bool) []Record {
	t.Helper()
	pack, err := rules.LoadFS(os.DirFS("testdata/pack"), ".")
	if err != nil {
		t.Fatal(err)
	}
	lex, err := lexicon.Load("testdata/lexicon.json")
	if err != nil {
		t.Fatal(err)
	}
	return Records(pack, lex, includeContext)
}

func newGrounder(t testing.TB, opts ...Option) *Grounder {
	t.Helper()
	g, err := New(fixture(t, false), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func concepts(as []Anchor) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Concept)
	}
	return out
}

func TestRecords(t *testing.T) {
	recs := fixture(t, false)
	if len(recs) != 11 {
		t.Fatalf("%d records, want one per condition (11)", len(recs))
	}
	seen := map[string]bool{}
	for _, r := range recs {
		if seen[r.DecisionID] {
			t.Errorf("duplicate decision id %s", r.DecisionID)
		}
		seen[r.DecisionID] = true
	}
	egfr := recs[0]
	if egfr.DecisionID != "TEST_PACK::table_01.json::row_0::rule_0::g1::s1" || egfr.RuleID != "TEST_PACK::table_01.json::row_0::rule_0" {
		t.Errorf("ids %s / %s", egfr.DecisionID, egfr.RuleID)
	}
	if egfr.ConceptKey != "name:estimated glomerular filtration rate" || egfr.Role != rules.RoleClinicalParameter {
		t.Errorf("key %s role %s", egfr.ConceptKey, egfr.Role)
	}
	// the wording "eGFR" is also a synonym: it appears once
	if egfr.Text != "eGFR; estimated glomerular filtration rate; GFR; renal function" {
		t.Errorf("text %q", egfr.Text)
	}
	if strings.Join(egfr.Aliases, "|") != "GFR|renal function" {
		t.Errorf("aliases %v", egfr.Aliases)
	}
	// ... and the record says so: the wording names the concept as the
	// synonym does (the engine's names), though its phrase is the wording's
	if !egfr.WordingSynonym {
		t.Errorf("the wording eGFR is a lexicon synonym: WordingSynonym false")
	}
	// a wording that is the concept's own name is no synonym
	if recs[1].Wording != "fast irregular heart rate" || recs[1].WordingSynonym {
		t.Errorf("%q: WordingSynonym %v, want false", recs[1].Wording, recs[1].WordingSynonym)
	}
	if egfr.Context == "" || strings.Contains(egfr.Text, egfr.Context) {
		t.Errorf("context must be kept on the record but not in the text by default: %q", egfr.Text)
	}
	withCtx := fixture(t, true)[0]
	if !strings.HasSuffix(withCtx.Text, "; "+egfr.Context) || withCtx.Phrases[len(withCtx.Phrases)-1].Source != SourceContext {
		t.Errorf("includeContext: %q", withCtx.Text)
	}
	// coded concepts key on the SNOMED CT id and find the lexicon by it
	hf := recs[len(recs)-1]
	if hf.ConceptKey != "sct:84114007" || !strings.Contains(hf.Text, "cardiac failure") {
		t.Errorf("coded record: key %s text %q", hf.ConceptKey, hf.Text)
	}
	// without a lexicon only wording and concept name remain
	pack, _ := rules.LoadFS(os.DirFS("testdata/pack"), ".")
	if r := Records(pack, nil, false)[1]; r.Text != "fast irregular heart rate" || len(r.Aliases) != 0 {
		t.Errorf("no lexicon: %q %v", r.Text, r.Aliases)
	}
}

func TestGroundSynonymAndAnchorCoversAllRules(t *testing.T) {
	g := newGrounder(t)
	ctx := context.Background()
	as, err := g.Ground(ctx, "rapid AF")
	if err != nil {
		t.Fatal(err)
	}
	if len(as) == 0 || as[0].Concept != "fast irregular heart rate" || as[0].Rank != 1 {
		t.Fatalf("rapid AF → %v", concepts(as))
	}
	as, _ = g.Ground(ctx, "no signs of HF")
	if len(as) == 0 || as[0].ConceptKey != "sct:84114007" {
		t.Fatalf("HF → %v", concepts(as))
	}
	a := as[0]
	if len(a.RuleIDs) != 2 || len(a.DecisionIDs) != 2 {
		t.Errorf("heart failure is tested by 2 rules: anchor has rules %v decisions %v", a.RuleIDs, a.DecisionIDs)
	}
	if a.SnomedID != "84114007" || len(a.Hits) == 0 || len(a.Channels) == 0 || a.FullText == nil {
		t.Errorf("anchor trace incomplete: %+v", a)
	}
	for _, h := range a.Hits {
		if h.Phrase == "" || len(h.DecisionIDs) == 0 || len(h.Sources) == 0 || h.Rank < 1 {
			t.Errorf("hit without trace: %+v", h)
		}
	}
	// numbers and units do not disturb grounding
	as, _ = g.Ground(ctx, "eGFR of 24 mL/min/1.73 m²")
	if len(as) == 0 || as[0].Concept != "estimated glomerular filtration rate" {
		t.Errorf("eGFR of 24 → %v", concepts(as))
	}
	// a finding that is only a number has no anchors
	if as, err := g.Ground(ctx, "42 %"); err != nil || len(as) != 0 {
		t.Errorf("number only → %v, %v", concepts(as), err)
	}
}

func TestAnchorsCappedAndCut(t *testing.T) {
	g := newGrounder(t, WithFusion(Fusion{Method: MethodScore, Anchors: 2}))
	as, _ := g.Ground(context.Background(), "heart failure")
	if len(as) != 2 {
		t.Fatalf("Anchors: 2 → %d anchors %v", len(as), concepts(as))
	}
	all := newGrounder(t, WithFusion(Fusion{Method: MethodScore}))
	c, _ := all.Retrieve(context.Background(), "heart failure", all.RetrieveDefaults())
	full := all.Fuse(c, Fusion{Method: MethodScore})
	cut := all.Fuse(c, Fusion{Method: MethodScore, MinRelative: 0.9})
	if len(cut) >= len(full) || cut[0].ConceptKey != full[0].ConceptKey {
		t.Errorf("cut-off: %v of %v", concepts(cut), concepts(full))
	}
	for _, a := range cut {
		if a.Score < 0.9*cut[0].Score {
			t.Errorf("anchor %s below the cut: %v < 0.9 × %v", a.Concept, a.Score, cut[0].Score)
		}
	}
}

// TestGuardDropsRateHit is the reference system's "rate" error: the finding
// "fast irregular heart rate" must not reach eGFR through the word "rate".
func TestGuardDropsRateHit(t *testing.T) {
	for _, guard := range []bool{true, false} {
		g := newGrounder(t, WithGuard(guard))
		c, err := g.Retrieve(context.Background(), "fast irregular heart rate", g.RetrieveDefaults())
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, a := range g.Fuse(c, Fusion{Method: MethodFullText}) {
			if a.Concept == "estimated glomerular filtration rate" {
				found = true
			}
		}
		if found == guard {
			t.Errorf("guard %v: eGFR among full-text anchors = %v", guard, found)
		}
	}
}

// TestScoreFusionRespectsGaps replays near_003: the right concept is found by
// full text only, far ahead (BM25 10.95); a mediocre concept is found by both
// channels (BM25 2.66, cosine just over the threshold). RRF ranks the
// mediocre one first, score fusion the right one.
func TestScoreFusionRespectsGaps(t *testing.T) {
	g := newGrounder(t, WithThreshold(0.80))
	right, wrong := -1, -1
	for i, e := range g.elems {
		switch e.norm {
		case "st segment depression on the resting ecg":
			right = i
		case "intermediate stenosis in a proximal or mid coronary segment":
			wrong = i
		}
	}
	if right < 0 || wrong < 0 {
		t.Fatal("fixture phrases missing")
	}
	c := &Candidates{
		FullText: []PhraseHit{{Element: right, Rank: 1, Score: 10.95}, {Element: wrong, Rank: 2, Score: 2.66}},
		Vector:   []PhraseHit{{Element: wrong, Rank: 1, Score: 0.83}},
	}
	rrf := g.Fuse(c, Fusion{Method: MethodRRF, RRFK: 60})
	score := g.Fuse(c, Fusion{Method: MethodScore})
	if rrf[0].Concept != "intermediate coronary artery stenosis" {
		t.Errorf("RRF should show the reference error, got %v", concepts(rrf))
	}
	if score[0].Concept != "resting ST-segment depression" {
		t.Errorf("score fusion ranks %v", concepts(score))
	}
	if score[1].Vector == nil || score[1].Vector.Norm > 0.2 || score[1].FullText.Norm > 0.25 {
		t.Errorf("shares of the mediocre concept: %+v %+v", score[1].FullText, score[1].Vector)
	}
	if strings.Join(score[1].Channels, "+") != "fulltext+vector" || strings.Join(score[0].Channels, "+") != "fulltext" {
		t.Errorf("channels %v / %v", score[0].Channels, score[1].Channels)
	}
	// single-channel rankings
	if v := g.Fuse(c, Fusion{Method: MethodVector}); len(v) != 1 || v[0].Concept != "intermediate coronary artery stenosis" {
		t.Errorf("vector only: %v", concepts(v))
	}
}

func TestLeaveOneOutHidesOwnPhrase(t *testing.T) {
	g := newGrounder(t)
	o := g.RetrieveDefaults()
	o.Hide = "morbid obesity"
	c, err := g.Retrieve(context.Background(), "morbid obesity", o)
	if err != nil {
		t.Fatal(err)
	}
	for _, hs := range [][]PhraseHit{c.FullText, c.Vector} {
		for _, h := range hs {
			if h.Phrase == "morbid obesity" {
				t.Fatalf("hidden phrase found: %+v", h)
			}
		}
	}
	as := g.Fuse(c, g.Fusion())
	if len(as) == 0 || as[0].Concept != "severe obesity" {
		t.Errorf("morbid obesity (hidden) → %v; 'obesity' in the other names should still find it", concepts(as))
	}
}

func TestAbbreviationFromIndex(t *testing.T) {
	// "ADHF" is a synonym; hidden, the long form "acute decompensated heart
	// failure" found in the index still expands it.
	for _, abbrev := range []bool{true, false} {
		g := newGrounder(t, WithAbbreviations(abbrev))
		o := g.RetrieveDefaults()
		o.Hide = "ADHF"
		c, _ := g.Retrieve(context.Background(), "ADHF", o)
		as := g.Fuse(c, g.Fusion())
		ok := len(as) > 0 && as[0].Concept == "decompensated heart failure"
		if ok != abbrev {
			t.Errorf("abbreviations %v: ADHF → %v (variants %v)", abbrev, concepts(as), c.Variants)
		}
	}
	a := newAcronyms([]element{{norm: "body mass index"}, {norm: "myocardial infarction"}, {norm: "guideline directed medical therapy"}, {norm: "diabetes mellitus"}})
	if v := a.variants("MI", "mi", nil); len(v) != 2 || v[1] != "myocardial infarction" {
		t.Errorf("MI variants %v (mass index must not count: it is inside a phrase)", v)
	}
	if v := a.variants("DM", "dm", nil); len(v) != 2 || v[1] != "diabetes mellitus" {
		t.Errorf("DM variants %v", v)
	}
	if v := a.variants("aged MI", "aged mi", map[int]bool{1: true}); len(v) != 1 {
		t.Errorf("hidden long forms used: %v", v)
	}
	// a word the index holds is matched literally, not expanded
	b := newAcronyms([]element{{norm: "ica"}, {norm: "invasive coronary angiography"}, {norm: "inadequately controlled angina"}})
	if v := b.variants("ICA", "ica", nil); len(v) != 1 {
		t.Errorf("indexed abbreviation expanded: %v", v)
	}
	if v := b.variants("ICA", "ica", map[int]bool{0: true}); len(v) != 3 {
		t.Errorf("hidden abbreviation not expanded to both long forms: %v", v)
	}
	// A pronoun is no abbreviation, though its letters are a phrase's
	// initials ("her teenage son" is no high event risk); written in
	// capitals it may be one.
	h := newAcronyms([]element{{norm: "high event risk"}})
	if v := h.variants("her teenage son", "her teenage son", nil); len(v) != 1 {
		t.Errorf("pronoun expanded as an abbreviation: %v", v)
	}
	if v := h.variants("HER", "her", nil); len(v) != 2 {
		t.Errorf("capitals not expanded: %v", v)
	}
}

func TestConcurrentGround(t *testing.T) {
	g := newGrounder(t)
	findings := []string{"rapid AF", "HF", "eGFR 24", "morbid obesity", "suspected stable CAD", "ST depression at rest"}
	want := map[string]string{}
	for _, f := range findings {
		as, err := g.Ground(context.Background(), f)
		if err != nil || len(as) == 0 {
			t.Fatalf("%s: %v %v", f, as, err)
		}
		want[f] = as[0].ConceptKey
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				f := findings[(i+j)%len(findings)]
				as, err := g.Ground(context.Background(), f)
				if err != nil || len(as) == 0 || as[0].ConceptKey != want[f] {
					t.Errorf("concurrent %s: %v %v", f, concepts(as), err)
					return
				}
			}
		}(i)
	}
	wg.Wait()
}

func TestOptionsAndErrors(t *testing.T) {
	recs := fixture(t, false)
	if _, err := New(nil); err == nil || !strings.Contains(err.Error(), "Records") {
		t.Errorf("no records: %v", err)
	}
	if _, err := New(recs, WithFusion(Fusion{Method: "borda"})); err == nil || !strings.Contains(err.Error(), "borda") {
		t.Errorf("bad fusion: %v", err)
	}
	if _, err := New(recs, WithK(0)); err == nil {
		t.Error("K=0 accepted")
	}
	bad := append([]Record(nil), recs...)
	bad[0].ConceptKey = ""
	if _, err := New(bad); err == nil || !strings.Contains(err.Error(), bad[0].DecisionID) {
		t.Errorf("record without key: %v", err)
	}
	// the built-in embedder brings its measured threshold; others get 0.80
	if g := newGrounder(t); g.Threshold() != embed.BuiltinThreshold {
		t.Errorf("builtin threshold %v", g.Threshold())
	}
	if g := newGrounder(t, WithEmbedder(plainEmbedder{embed.NewBuiltin(64)})); g.Threshold() != DefaultThreshold {
		t.Errorf("default threshold %v", g.Threshold())
	}
	// on-disk index and embedding cache
	dir := t.TempDir()
	g := newGrounder(t, WithIndexPath(filepath.Join(dir, "ft")), WithCacheDir(filepath.Join(dir, "cache")))
	if as, err := g.Ground(context.Background(), "morbid obesity"); err != nil || len(as) == 0 {
		t.Fatalf("on-disk grounder: %v %v", as, err)
	}
	if _, err := os.Stat(embed.NewCache(g.Embedder(), filepath.Join(dir, "cache")).Path()); err != nil {
		t.Errorf("embedding cache not written: %v", err)
	}
}

// plainEmbedder hides DefaultThreshold, like any non-builtin embedder.
type plainEmbedder struct{ e embed.Embedder }

func (p plainEmbedder) Embed(ctx context.Context, t []string) ([][]float32, error) {
	return p.e.Embed(ctx, t)
}
func (p plainEmbedder) Name() string { return "plain:" + p.e.Name() }
func (p plainEmbedder) Dim() int     { return p.e.Dim() }

func TestTextFuncMatchesRecords(t *testing.T) {
	pack, _ := rules.LoadFS(os.DirFS("testdata/pack"), ".")
	lex, _ := lexicon.Load("testdata/lexicon.json")
	recs := Records(pack, lex, true)
	f := TextFunc(lex, true)
	i := 0
	for _, r := range pack.Rules() {
		for _, c := range r.Conditions() {
			text, aliases := f(c)
			if text != recs[i].Text || strings.Join(aliases, "|") != strings.Join(recs[i].Aliases, "|") {
				t.Errorf("%s: TextFunc %q %v, Records %q %v", c.DecisionID, text, aliases, recs[i].Text, recs[i].Aliases)
			}
			i++
		}
	}
}
