package judge

import (
	"reflect"
	"testing"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
)

// sentenceHitsByMap is sentenceHits as first written, with a map of the
// sentence's terms: the numbered version must count the same.
func sentenceHitsByMap(toks []passage.Token, ci *claimInfo) (hits, nums int) {
	seen := make(map[string]bool, len(toks))
	for _, t := range toks {
		if seen[t.Term] {
			continue
		}
		seen[t.Term] = true
		switch {
		case t.Content() && ci.terms[t.Term]:
			hits++
		case t.Kind == passage.Number && numberIn(t.Term, ci.toks):
			nums++
		}
	}
	return hits, nums
}

// checkSourceIndex compares, for every sentence of source, the numbered
// sentenceHits with the map version, and the cached quantities of every
// sentence and passage with sentenceQuantities read afresh.
func checkSourceIndex(t *testing.T, j *Offline, claim, source string) {
	t.Helper()
	ix := newSourceIndex(passage.NewIndex(source, j.opt))
	ci := j.readClaim(ix, claim)
	for s := range ix.Sentences() {
		toks := ix.SentenceTokens(s)
		gh, gn := sentenceHits(toks, ci.tokenWords(toks, nil), &ci)
		wh, wn := sentenceHitsByMap(toks, &ci)
		if gh != wh || gn != wn {
			t.Fatalf("claim %q, sentence %q: hits %d numbers %d, by map %d and %d", claim, source[ix.Sentences()[s].Start:ix.Sentences()[s].End], gh, gn, wh, wn)
		}
	}
	for range 2 { // the second round reads the cache
		for _, p := range ix.RankTokens(ci.toks, 5) {
			toks := ix.PassageTokens(p)
			if got, want := ix.quantities(toks), sentenceQuantities(source, toks); !reflect.DeepEqual(got, want) {
				t.Fatalf("passage %q: quantities %v, afresh %v", p.Text(source), got, want)
			}
		}
	}
}

func TestSentenceHitsNumbered(t *testing.T) {
	j, err := NewDefaultOffline()
	if err != nil {
		t.Fatal(err)
	}
	source := "The ferry does not run in winter. Doe Island's ferry ran 12 times in 2019 and 12 times in 2020. " +
		"Ticket prices rose 4% to $7.50. Residents of Doe Island asked for 14 crossings; the council offered 12."
	for _, claim := range []string{
		"The Doe Island ferry ran 12 times in 2020.",
		"Ferry tickets cost $7.50 after a 4% rise.",
		"The council offered 14 crossings a week to residents.",
		"It does run in winter.",
		"",
	} {
		checkSourceIndex(t, j, claim, source)
	}
}

func FuzzSentenceHitsNumbered(f *testing.F) {
	j, err := NewDefaultOffline()
	if err != nil {
		f.Fatal(err)
	}
	f.Add("The ferry ran 12 times in 2020.", "Does the ferry run? It ran 12 times in 2020, and 14 in 2021. Doe said so.")
	f.Add("Prices rose 4% to $7.50", "Prices rose 4 % to 7.50 dollars; they rose 4% again.")
	f.Fuzz(func(t *testing.T, claim, source string) {
		checkSourceIndex(t, j, claim, source)
	})
}
