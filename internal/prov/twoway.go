package prov

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// Entailment is the verdict of a natural-language-inference model on a
// (premise, hypothesis) pair: three probabilities summing to about 1.
type Entailment struct {
	Entail, Neutral, Contradict float64
}

// Entailer judges whether a premise entails or contradicts a hypothesis: an
// NLI cross-encoder or an LLM prompt. It is the seam for model-based
// contradiction detection.
type Entailer interface {
	Entail(ctx context.Context, premise, hypothesis string) (Entailment, error)
}

// TwoWay is a Detector that tests entailment in both directions (AAR §4.3:
// "testing entailment bidirectionally") on the sentence pairs the offline
// detector would compare, and reports a conflict when the contradiction
// probability exceeds Threshold both ways.
type TwoWay struct {
	Entailer Entailer
	// Threshold on the contradiction probability (default 0.5).
	Threshold float64
	// MaxPairs bounds the model calls at 2·MaxPairs (default 200); the
	// pairs sharing the most words go first.
	MaxPairs int
	// Candidates tunes which sentence pairs are compared.
	Candidates Offline
}

// Detect asks the Entailer about each candidate pair, both ways.
func (t TwoWay) Detect(ctx context.Context, texts []SourceText) ([]Conflict, error) {
	if t.Entailer == nil {
		return nil, fmt.Errorf("two-way detector: no entailer")
	}
	th := t.Threshold
	if th <= 0 {
		th = 0.5
	}
	maxPairs := t.MaxPairs
	if maxPairs <= 0 {
		maxPairs = 200
	}
	o := t.Candidates.withDefaults()
	sents := o.analyse(texts)
	found, err := o.candidates(ctx, sents)
	if err != nil {
		return nil, err
	}
	// The model reads the pairs close enough for the polarity cues
	// (MinShared, MinOverlap), as before the looser number pairs.
	var cands [][2]int32
	for _, c := range found {
		if c.polarity {
			cands = append(cands, c.pair)
		}
	}
	shared := func(p [2]int32) int {
		n := 0
		for _, st := range sents[p[0]].stems {
			if _, ok := slices.BinarySearch(sents[p[1]].stems, st); ok {
				n++
			}
		}
		return n
	}
	slices.SortStableFunc(cands, func(x, y [2]int32) int { return shared(y) - shared(x) })
	if len(cands) > maxPairs {
		cands = cands[:maxPairs]
	}
	var out []Conflict
	seen := make(map[[3]string]bool)
	an := lexical.NewAnalyzer()
	for _, p := range cands {
		a, b := &sents[p[0]], &sents[p[1]]
		ab, err := t.Entailer.Entail(ctx, a.text, b.text)
		if err != nil {
			return nil, fmt.Errorf("entail %s → %s: %w", texts[a.src].ID, texts[b.src].ID, err)
		}
		if ab.Contradict <= th {
			continue
		}
		ba, err := t.Entailer.Entail(ctx, b.text, a.text)
		if err != nil {
			return nil, fmt.Errorf("entail %s → %s: %w", texts[b.src].ID, texts[a.src].ID, err)
		}
		if ba.Contradict <= th {
			continue
		}
		fa, fb := a.analysis(an), b.analysis(an)
		entity := entityNear(fa, fb, firstShared(fa, fb))
		c := Conflict{A: texts[a.src].ID, B: texts[b.src].ID, Entity: entity,
			SnippetA: snippet(a.text), SnippetB: snippet(b.text), Kind: "entailment", Detector: "two-way"}
		k := [3]string{c.A, c.B, strings.ToLower(entity)}
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// firstShared returns the index of the first token of a whose stem b has,
// minus one, so that entityNear starts its phrase there.
func firstShared(a, b *analysed) int {
	for i, tk := range a.toks {
		if _, ok := slices.BinarySearch(b.stems, tk.stem); ok && tk.stem != "" {
			return max(i-1, 0)
		}
	}
	return 0
}
