package passage

import (
	"math"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rankTokensRef is RankTokens as it was before it sorted with
// slices.SortFunc and boosted only the tokens that play a part in the
// query's phrases: the reference the fast one must agree with.
func rankTokensRef(ix *Index, query []Token, k int) []Passage {
	if k <= 0 || len(ix.windows) == 0 {
		return nil
	}
	seen := make(map[string]bool)
	scores := make([]float64, len(ix.windows))
	hit := make([]bool, len(ix.windows))
	var cands []int
	nw := float64(len(ix.windows))
	for _, t := range query {
		if !indexed(t) || seen[t.Term] {
			continue
		}
		seen[t.Term] = true
		id, ok := ix.vocab[t.Term]
		if !ok {
			continue
		}
		ps := ix.posts[ix.postStart[id]:ix.postStart[id+1]]
		df := float64(len(ps))
		idf := math.Log(1 + (nw-df+0.5)/(df+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := ix.opt.K1 * (1 - ix.opt.B + ix.opt.B*float64(ix.windows[p.window].length)/ix.avgLen)
			scores[p.window] += idf * tf * (ix.opt.K1 + 1) / (tf + norm)
			if !hit[p.window] {
				hit[p.window] = true
				cands = append(cands, int(p.window))
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	byScore := func(c []int) {
		sort.Slice(c, func(a, b int) bool {
			if scores[c[a]] != scores[c[b]] {
				return scores[c[a]] > scores[c[b]]
			}
			return c[a] < c[b]
		})
	}
	byScore(cands)
	if len(cands) > ix.opt.Rerank {
		cands = cands[:ix.opt.Rerank]
	}
	bigrams, numbers := ix.queryPhrases(query)
	if len(bigrams) > 0 || len(numbers) > 0 {
		for _, w := range cands {
			scores[w] += boostByTerms(ix, ix.windows[w], query)
		}
		byScore(cands)
	}
	if len(cands) > k {
		cands = cands[:k]
	}
	out := make([]Passage, len(cands))
	for i, w := range cands {
		win := ix.windows[w]
		out[i] = Passage{
			Span:  Span{ix.sents[win.first].Start, ix.sents[win.last-1].End},
			First: win.first,
			Last:  win.last,
			Score: scores[w],
		}
	}
	return out
}

func checkRankTokens(t *testing.T, src, query string, k int) {
	t.Helper()
	ref := NewIndex(src, Options{})
	ref.buildPostings()
	ix := NewIndex(src, Options{})
	q := ix.Tokenize(query)
	want := rankTokensRef(ref, q, k)
	// The first ranking reads the query's postings by a scan, the second
	// the inverted index it builds.
	for _, how := range []string{"scanned", "indexed"} {
		if d := cmp.Diff(want, ix.RankTokens(q, k)); d != "" {
			t.Fatalf("RankTokens(%q, %d) on %q, %s, differs from the reference (-want +got):\n%s", query, k, src, how, d)
		}
	}
	// Indexed up front, before the first ranking.
	up := NewIndex(src, Options{})
	up.IndexTerms()
	if d := cmp.Diff(want, up.RankTokens(q, k)); d != "" {
		t.Fatalf("RankTokens(%q, %d) on %q, indexed up front, differs from the reference (-want +got):\n%s", query, k, src, d)
	}
}

func TestRankTokensAgreesWithReference(t *testing.T) {
	checkRankTokens(t, page, "The Tozzer Library holds 1,200 manuscripts on Maya writing since 1866.", 5)
	checkRankTokens(t, page, "library library books Harvard", 40)
	checkRankTokens(t, "Rates rose 3% in 2021. Interest rates rose again, 3% in 2022; rates of interest fell. Rates rose.", "Interest rates rose 3% in 2022.", 3)
	checkRankTokens(t, "", "anything at all", 5)
}

func FuzzRankTokensAgreesWithReference(f *testing.F) {
	f.Add("Rates rose 3% in 2021. Interest rates rose again in 2022. Rates of interest rose 3%.", "interest rates rose 3% in 2022", 2)
	f.Add(page, "Maya manuscripts 1866 library", 5)
	f.Fuzz(func(t *testing.T, src, query string, k int) {
		checkRankTokens(t, src, query, k%50)
	})
}
