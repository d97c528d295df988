package grounding

import (
	"context"
	"math"
	"reflect"
	"sort"
	"testing"
)

// TestFuseMatchesReference: Fuse, which ranks concepts by their channel
// standings and builds anchors only for those it keeps, returns exactly
// what referenceFuse (Fuse as first written: every concept an anchor with
// all its hits, then sorted and cut) returns, for every corpus finding
// and every fusion method, with and without the cut-offs.
func TestFuseMatchesReference(t *testing.T) {
	fs := corpusFindings(t)
	if testing.Short() {
		var some []string
		for i := 0; i < len(fs); i += 8 {
			some = append(some, fs[i])
		}
		fs = some
	}
	g, err := New(packRecords(t), WithCacheSize(0))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var fusions []Fusion
	for _, m := range Methods {
		fusions = append(fusions,
			Fusion{Method: m, RRFK: DefaultRRFK, Anchors: DefaultAnchors, MinRelative: DefaultMinRelative},
			Fusion{Method: m},
			Fusion{Method: m, Anchors: 5, Threshold: 0.45, MinRelative: 0.2})
	}
	ctx := context.Background()
	compared := 0
	for _, f := range fs {
		c, err := g.Retrieve(ctx, f, g.RetrieveDefaults())
		if err != nil {
			t.Fatal(err)
		}
		for _, fu := range fusions {
			got, want := g.Fuse(c, fu), g.referenceFuse(c, fu)
			if len(got) == 0 && len(want) == 0 {
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Fuse(%q, %+v):\n got %+v\nwant %+v", f, fu, got, want)
			}
			compared++
		}
	}
	if compared < len(fs) {
		t.Fatalf("only %d non-empty fusions compared", compared)
	}
}

// referenceFuse is Fuse as first written.
func (g *Grounder) referenceFuse(c *Candidates, f Fusion) []Anchor {
	if f.RRFK <= 0 {
		f.RRFK = DefaultRRFK
	}
	anchors := map[string]*Anchor{}
	get := func(key string) *Anchor {
		a := anchors[key]
		if a == nil {
			con := g.concepts[key]
			a = &Anchor{ConceptKey: key, Concept: con.name, SnomedID: con.snomedID, DecisionIDs: con.decisionIDs, RuleIDs: con.ruleIDs}
			anchors[key] = a
		}
		return a
	}
	collect := func(channel string, hits []PhraseHit) {
		rank := 0
		for _, h := range hits {
			if channel == ChannelVector && f.Threshold > 0 && h.Score < f.Threshold {
				continue
			}
			for _, cr := range g.elems[h.Element].byConcept {
				a := get(cr.key)
				a.Hits = append(a.Hits, Hit{Channel: channel, Rank: h.Rank, Score: h.Score, Phrase: h.Phrase, Sources: cr.sources, DecisionIDs: cr.decisionIDs})
				cs := &a.FullText
				if channel == ChannelVector {
					cs = &a.Vector
				}
				if *cs == nil {
					rank++
					*cs = &ChannelScore{Rank: rank, Score: h.Score}
					a.Channels = append(a.Channels, channel)
				}
			}
		}
	}
	if f.Method != MethodVector {
		collect(ChannelFullText, c.FullText)
	}
	if f.Method != MethodFullText {
		collect(ChannelVector, c.Vector)
	}

	var maxFT float64
	for _, a := range anchors {
		if a.FullText != nil {
			maxFT = math.Max(maxFT, a.FullText.Score)
		}
	}
	tau := f.Threshold
	if tau <= 0 {
		tau = g.cfg.threshold
	}
	out := make([]Anchor, 0, len(anchors))
	for _, a := range anchors {
		if a.FullText != nil && maxFT > 0 {
			a.FullText.Norm = a.FullText.Score / maxFT
		}
		if a.Vector != nil && tau < 1 {
			a.Vector.Norm = math.Max(0, (a.Vector.Score-tau)/(1-tau))
		}
		switch f.Method {
		case MethodRRF:
			for _, cs := range []*ChannelScore{a.FullText, a.Vector} {
				if cs != nil {
					a.Score += 1 / (f.RRFK + float64(cs.Rank))
				}
			}
		case MethodScore:
			a.Score = normSum(a)
		case MethodFullText:
			a.Score = a.FullText.Score
		case MethodVector:
			a.Score = a.Vector.Score
		}
		out = append(out, *a)
	}
	// Ties (equal fused score) go to the better normalised evidence, then
	// to the concept key, so rankings are reproducible.
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		ni, nj := normSum(&out[i]), normSum(&out[j])
		if ni != nj {
			return ni > nj
		}
		return out[i].ConceptKey < out[j].ConceptKey
	})
	if f.Method == MethodScore && f.MinRelative > 0 && len(out) > 0 {
		best := out[0].Score
		n := 0
		for n < len(out) && out[n].Score >= f.MinRelative*best {
			n++
		}
		out = out[:n]
	}
	if f.Anchors > 0 && len(out) > f.Anchors {
		out = out[:f.Anchors]
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}
