package grounding

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Fusion methods.
const (
	// MethodRRF is reciprocal rank fusion: Σ 1/(k + rank) over the channels
	// that found the concept. It ignores scores, so a concept found by both
	// channels at middling ranks outranks one that only one channel found,
	// however much better (the reference system's near_003 error).
	MethodRRF = "rrf"
	// MethodScore fuses normalised scores and sums them (0 to 2). The
	// full-text share is the concept's BM25 score over the finding's best
	// BM25 score; BM25 has no absolute scale, but the ratio keeps the gap
	// (10.95 vs 2.66 stays 1.0 vs 0.24). The vector share is how far the
	// cosine clears the threshold, (cos − t)/(1 − t): cosines are absolute,
	// so a mediocre vector hit adds little even when it is the channel's
	// best. A concept far ahead on one channel thus keeps its lead over a
	// mediocre one found by both (the reference system's near_003 error),
	// and agreement still counts. With MinRelative it also drops anchors
	// far behind the best one.
	MethodScore = "score"
	// MethodFullText and MethodVector rank by one channel alone (for
	// evaluation and traces).
	MethodFullText = ChannelFullText
	MethodVector   = ChannelVector
)

// Methods lists the fusion methods.
var Methods = []string{MethodScore, MethodRRF, MethodFullText, MethodVector}

// Fusion configures how channel hits become ranked anchors.
type Fusion struct {
	Method string
	// RRFK is k of reciprocal rank fusion.
	RRFK float64
	// Anchors is how many anchors to keep (0: all).
	Anchors int
	// Threshold drops vector hits below this cosine before fusing (0: keep
	// every retrieved hit). Lets evaluation sweep thresholds over one
	// retrieval.
	Threshold float64
	// MinRelative drops anchors whose fused score is below this share of
	// the best anchor's (score fusion only; 0 keeps all).
	MinRelative float64
}

// DefaultMinRelative is the default anchor cut-off of score fusion: an
// anchor must reach 40% of the best anchor's fused score. Measured with
// grounding-eval on the shipped pack and lexicon (builtin embedder, guard
// off): for in-index findings the right concept stays in the top 3 exactly
// as often while wrong anchors in the top 3 drop from 1.9 to 0.2 per
// finding; for held-out phrasings accuracy@3 falls by 2 points (0.812 →
// 0.793) and wrong anchors by 37%. 0 keeps 3 anchors always, like the
// reference system.
const DefaultMinRelative = 0.4

// DefaultFusion is the fusion Ground uses unless configured: score-aware
// fusion with the relative cut-off, at most 3 anchors.
// The default keeps fewer anchors than RRF where the others are far behind.
func DefaultFusion() Fusion {
	return Fusion{Method: MethodScore, RRFK: DefaultRRFK, Anchors: DefaultAnchors, MinRelative: DefaultMinRelative}
}

func (f Fusion) validate() error {
	for _, m := range Methods {
		if f.Method == m {
			if f.Method == MethodRRF && f.RRFK <= 0 {
				return fmt.Errorf("grounding: RRF k must be positive, got %v", f.RRFK)
			}
			if f.Anchors < 0 {
				return fmt.Errorf("grounding: anchors per finding must be ≥ 0, got %d", f.Anchors)
			}
			if f.MinRelative < 0 || f.MinRelative > 1 {
				return fmt.Errorf("grounding: relative anchor cut-off must be between 0 and 1, got %v", f.MinRelative)
			}
			return nil
		}
	}
	return fmt.Errorf("grounding: unknown fusion method %q; use one of %v", f.Method, Methods)
}

// Anchor is one concept a finding may mean. It stands for every
// DecisionNode that tests the concept, and so for every rule that does.
type Anchor struct {
	Rank       int // 1-based
	ConceptKey string
	Concept    string
	SnomedID   string `json:",omitempty"`
	// Score is the fused score (RRF sum or normalised-score sum).
	Score float64
	// Channels that found the concept.
	Channels []string
	// FullText and Vector are the concept's rank and best score in each
	// channel (nil when that channel did not find it).
	FullText *ChannelScore `json:",omitempty"`
	Vector   *ChannelScore `json:",omitempty"`
	// Hits are the phrases that found the concept, per channel.
	Hits []Hit
	// DecisionIDs and RuleIDs are all DecisionNodes and rules testing the
	// concept (found or not); shared with the Grounder, do not modify.
	DecisionIDs []string
	RuleIDs     []string
}

// ChannelScore is a concept's standing in one channel.
type ChannelScore struct {
	Rank  int     // rank among the concepts this channel found
	Score float64 // best hit score (BM25 or cosine)
	Norm  float64 // the share used by score fusion (see MethodScore)
}

// Hit is one grounding phrase that found the anchor's concept.
type Hit struct {
	Channel string
	Rank    int // the phrase's rank in the channel's hit list
	Score   float64
	Phrase  string
	// Sources are the grounding-text channels the phrase came from
	// (wording, concept, synonym, context).
	Sources []string
	// DecisionIDs are the concept's DecisionNodes whose text holds the
	// phrase. Sources and DecisionIDs are shared with the Grounder: read,
	// do not modify.
	DecisionIDs []string
}

// Fuse ranks the concepts found in c, which must come from this Grounder's
// Retrieve. Ground calls it with the configured fusion; evaluation calls it
// with several. An RRF k of 0 means DefaultRRFK.
//
// It ranks every concept found by its channel standings alone and builds
// anchors, with their hits, only for the few it keeps.
func (g *Grounder) Fuse(c *Candidates, f Fusion) []Anchor {
	if f.RRFK <= 0 {
		f.RRFK = DefaultRRFK
	}
	// Not deferred: a panic must not return slots that are not all -1.
	slots := g.conceptSlots()
	fp, _ := g.fusing.Get().(*[]fused)
	if fp == nil {
		fp = new([]fused)
	}
	found := (*fp)[:0]
	useVector := func(h PhraseHit) bool { return !(f.Threshold > 0 && h.Score < f.Threshold) }
	// A concept's rank in a channel counts the concepts that channel found
	// before it; its score there is its first (best) hit's.
	collect := func(vector bool, hits []PhraseHit) {
		rank := 0
		for _, h := range hits {
			if vector && !useVector(h) {
				continue
			}
			for _, cr := range g.elems[h.Element].byConcept {
				j := (*slots)[cr.idx]
				if j < 0 {
					j = int32(len(found))
					(*slots)[cr.idx] = j
					found = append(found, fused{con: g.conList[cr.idx]})
				}
				cs := &found[j].ft
				if vector {
					cs = &found[j].vec
				}
				if !cs.set {
					rank++
					*cs = channelStanding{set: true, ChannelScore: ChannelScore{Rank: rank, Score: h.Score}}
					found[j].channels++
				}
			}
		}
	}
	if f.Method != MethodVector {
		collect(false, c.FullText)
	}
	if f.Method != MethodFullText {
		collect(true, c.Vector)
	}
	for i := range found {
		(*slots)[found[i].con.idx] = -1
	}

	var maxFT float64
	for i := range found {
		if found[i].ft.set {
			maxFT = math.Max(maxFT, found[i].ft.Score)
		}
	}
	tau := f.Threshold
	if tau <= 0 {
		tau = g.cfg.threshold
	}
	for i := range found {
		a := &found[i]
		if a.ft.set && maxFT > 0 {
			a.ft.Norm = a.ft.Score / maxFT
		}
		if a.vec.set && tau < 1 {
			a.vec.Norm = math.Max(0, (a.vec.Score-tau)/(1-tau))
		}
		a.norm = a.normSum()
		switch f.Method {
		case MethodRRF:
			for _, cs := range []*channelStanding{&a.ft, &a.vec} {
				if cs.set {
					a.score += 1 / (f.RRFK + float64(cs.Rank))
				}
			}
		case MethodScore:
			a.score = a.norm
		case MethodFullText:
			a.score = a.ft.Score
		case MethodVector:
			a.score = a.vec.Score
		}
	}
	// Ties (equal fused score) go to the better normalised evidence, then
	// to the concept key, so rankings are reproducible.
	slices.SortFunc(found, func(x, y fused) int {
		if x.score != y.score {
			return cmpDesc(x.score, y.score)
		}
		if x.norm != y.norm {
			return cmpDesc(x.norm, y.norm)
		}
		return strings.Compare(x.con.key, y.con.key)
	})
	if f.Method == MethodScore && f.MinRelative > 0 && len(found) > 0 {
		best := found[0].score
		n := 0
		for n < len(found) && found[n].score >= f.MinRelative*best {
			n++
		}
		found = found[:n]
	}
	if f.Anchors > 0 && len(found) > f.Anchors {
		found = found[:f.Anchors]
	}

	out := make([]Anchor, len(found))
	for i := range found {
		a, con := &found[i], found[i].con
		out[i] = Anchor{Rank: i + 1, ConceptKey: con.key, Concept: con.name, SnomedID: con.snomedID, Score: a.score, DecisionIDs: con.decisionIDs, RuleIDs: con.ruleIDs}
		o := &out[i]
		// The full-text channel is read first.
		o.Channels = make([]string, 0, a.channels)
		if a.ft.set {
			o.Channels = append(o.Channels, ChannelFullText)
		}
		if a.vec.set {
			o.Channels = append(o.Channels, ChannelVector)
		}
		if a.ft.set {
			cs := a.ft.ChannelScore
			o.FullText = &cs
		}
		if a.vec.set {
			cs := a.vec.ChannelScore
			o.Vector = &cs
		}
		(*slots)[con.idx] = int32(i)
	}
	// The kept anchors' hits, in the order the channels were read: counted
	// first, so each anchor's list is allocated once.
	var cb [16]int
	count := cb[:0]
	if len(out) > len(cb) {
		count = make([]int, len(out))
	} else {
		count = cb[:len(out)]
	}
	hits := func(channel string, hs []PhraseHit, add bool) {
		for _, h := range hs {
			if channel == ChannelVector && !useVector(h) {
				continue
			}
			for _, cr := range g.elems[h.Element].byConcept {
				if j := (*slots)[cr.idx]; j >= 0 {
					if add {
						out[j].Hits = append(out[j].Hits, Hit{Channel: channel, Rank: h.Rank, Score: h.Score, Phrase: h.Phrase, Sources: cr.sources, DecisionIDs: cr.decisionIDs})
					} else {
						count[j]++
					}
				}
			}
		}
	}
	for _, add := range [2]bool{false, true} {
		if f.Method != MethodVector {
			hits(ChannelFullText, c.FullText, add)
		}
		if f.Method != MethodFullText {
			hits(ChannelVector, c.Vector, add)
		}
		if !add {
			for j, n := range count {
				if n > 0 {
					out[j].Hits = make([]Hit, 0, n)
				}
			}
		}
	}
	for i := range found {
		(*slots)[found[i].con.idx] = -1
	}
	g.slots.Put(slots)
	*fp = found[:0]
	g.fusing.Put(fp)
	return out
}

// fused is a concept's standing while Fuse ranks the concepts found.
type fused struct {
	con      *concept
	ft, vec  channelStanding
	channels int // channels that found it
	// vecSecond: the full-text channel had found it when the vector
	// channel did (Anchor.Channels lists the channels in that order).
	vecSecond   bool
	score, norm float64
}

type channelStanding struct {
	set bool
	ChannelScore
}

// normSum is normSum of the anchor the concept becomes.
func (a *fused) normSum() float64 {
	var s float64
	if a.ft.set {
		s += a.ft.Norm
	}
	if a.vec.set {
		s += a.vec.Norm
	}
	return s
}

func cmpDesc(x, y float64) int {
	if x > y {
		return -1
	}
	return 1
}

// conceptSlots is a per-concept scratch array, all -1.
func (g *Grounder) conceptSlots() *[]int32 {
	if s, ok := g.slots.Get().(*[]int32); ok {
		return s
	}
	s := make([]int32, len(g.conList))
	for i := range s {
		s[i] = -1
	}
	return &s
}

func normSum(a *Anchor) float64 {
	var s float64
	if a.FullText != nil {
		s += a.FullText.Norm
	}
	if a.Vector != nil {
		s += a.Vector.Norm
	}
	return s
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
