package judge

import (
	"reflect"
	"testing"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
)

// inspectRef is inspect as it was before it memoized, across the
// ranked passages, which sentences share a claim word or number, and
// before it read the claim's words by one map (claimWordsRef): the
// reference the memoizing one must agree with.
func (j *Offline) inspectRef(ix *sourceIndex, ci *claimInfo, p passage.Passage) candidate {
	c := candidate{p: p}
	m := numberRef(ci)
	toks := ix.PassageTokens(p)
	// have[k]: the claim word of id k occurs in the passage (stop words
	// too: entities such as "WHO"); hasBigram[k]: its bigram k does.
	have := make([]bool, len(m.vocab)+len(ci.bigrams))
	hasBigram := have[len(m.vocab):]
	prev := ""
	for _, t := range toks {
		if t.Kind != passage.Number {
			if k, ok := m.vocab[t.Term]; ok {
				have[k] = true
			}
		}
		if t.Content() {
			if prev != "" {
				if k, ok := m.bigramIDs[passage.Bigram{A: prev, B: t.Term}]; ok {
					hasBigram[k] = true
				}
			}
			prev = t.Term
		}
	}
	for _, k := range m.termIDs {
		if have[k] {
			c.covHit++
		}
	}
	for _, b := range hasBigram {
		if b {
			c.bigramHit++
		}
	}
	for _, e := range m.entityIDs {
		all := true
		for _, k := range e {
			all = all && have[k]
		}
		if all {
			c.entityHit++
		}
	}
	if len(ci.quantities) > 0 {
		c.nums = checkNumbers(ci.quantities, ix.quantities(toks))
	}

	// The evidence runs from the first to the last sentence that shares a
	// claim word or number, so it stays a contiguous substring of the
	// source.
	first, last := -1, -1
	for s := p.First; s < p.Last; s++ {
		hits := 0
		for _, t := range ix.SentenceTokens(s) {
			if (t.Content() && ci.terms[t.Term]) || (t.Kind == passage.Number && numberIn(t.Term, ci.toks)) {
				hits++
			}
		}
		if hits > 0 {
			if first < 0 {
				first = s
			}
			last = s
		}
	}
	sents := ix.Sentences()
	if first < 0 {
		first, last = p.First, p.Last-1
	}
	c.evidence = passage.Span{Start: sents[first].Start, End: sents[last].End}
	return c
}

// alignedSentenceRef is alignedSentence as it was before it read each
// sentence of the overlapping passages once, and before sentenceHits read
// the claim's words by one map: the reference.
func alignedSentenceRef(ix *sourceIndex, ci *claimInfo, ps []passage.Passage) (int, int) {
	m := numberRef(ci)
	best, bestHits, bestNums := -1, 0, 0
	for _, p := range ps {
		for s := p.First; s < p.Last; s++ {
			hits, nums := sentenceHitsRef(ix.SentenceTokens(s), ci, m)
			if hits > bestHits || hits == bestHits && hits > 0 && (nums > bestNums || nums == bestNums && s < best) {
				best, bestHits, bestNums = s, hits, nums
			}
		}
	}
	return best, bestHits
}

// checkSentenceMemos holds inspect, sharing one memo across the ranked
// passages as analyze does, and alignedSentence equal to their
// references, for each claim against source.
func checkSentenceMemos(t *testing.T, j *Offline, source string, claims ...string) {
	t.Helper()
	ix := newSourceIndex(passage.NewIndex(source, j.opt))
	for _, claim := range claims {
		ci := j.readClaim(ix, claim)
		ps := ix.RankTokens(ci.toks, candidates)
		shares := make([]sentenceShare, len(ix.Sentences()))
		for _, p := range ps {
			got, want := j.inspect(ix, &ci, p, shares), j.inspectRef(ix, &ci, p)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("claim %q, passage %q: inspect %+v, reference %+v", claim, p.Text(source), got, want)
			}
		}
		m := numberRef(&ci)
		for s := range ix.Sentences() {
			toks := ix.SentenceTokens(s)
			gh, gn := sentenceHits(toks, ci.sentenceWords(ix, s), &ci)
			wh, wn := sentenceHitsRef(toks, &ci, m)
			if gh != wh || gn != wn {
				t.Fatalf("claim %q, sentence %d of %q: %d words and %d numbers, reference %d and %d", claim, s, source, gh, gn, wh, wn)
			}
			share := false
			for _, t := range toks {
				share = share || (t.Content() && ci.terms[t.Term]) || (t.Kind == passage.Number && numberIn(t.Term, ci.toks))
			}
			if got := sharesClaim(toks, ci.sentenceWords(ix, s), &ci); got != share {
				t.Fatalf("claim %q, sentence %d of %q: sharesClaim %v, reference %v", claim, s, source, got, share)
			}
		}
		gs, gh := alignedSentence(ix, &ci, ps)
		ws, wh := alignedSentenceRef(ix, &ci, ps)
		if gs != ws || gh != wh {
			t.Fatalf("claim %q on %q: aligned sentence %d with %d claim words, reference %d with %d", claim, source, gs, gh, ws, wh)
		}
	}
}

func TestSentenceMemosAgreeWithReference(t *testing.T) {
	j, err := NewDefaultOffline()
	if err != nil {
		t.Fatal(err)
	}
	source := "The clinic opened in 2015. It saw 4,000 patients in its first year. " +
		"Waiting times fell by a third after the clinic hired 12 nurses. Patients praised the nurses. " +
		"The clinic does not treat children; a second clinic opened in 2019 for them. " +
		"By 2021 the two clinics saw 9,500 patients, and waiting times rose again."
	checkSentenceMemos(t, j, source,
		"The clinic saw 4,000 patients in its first year after opening in 2015.",
		"Hiring 12 nurses cut waiting times by a third.",
		"The clinic treats children.",
		"In 2021 the clinics saw 9,500 patients.",
		"Volcanoes erupt.",
		"")
}

func FuzzSentenceMemosAgreeWithReference(f *testing.F) {
	j, err := NewDefaultOffline()
	if err != nil {
		f.Fatal(err)
	}
	f.Add("The ferry ran 12 times in 2020.", "Does the ferry run? It ran 12 times in 2020, and 14 in 2021. Doe said so. The ferry ran again.")
	f.Add("Prices rose 4% to $7.50", "Prices rose 4 % to 7.50 dollars. They rose 4% again. Prices, they said, rose.")
	f.Add("The WHO said Acme Water Ltd cut 30 jobs in Leeds.", "Acme Water cut 30 jobs. The WHO said so in Leeds; Acme Water Ltd denied it, and 30 more jobs went.")
	f.Fuzz(func(t *testing.T, claim, source string) {
		checkSentenceMemos(t, j, source, claim, claim+" "+claim)
	})
}
