package passage

import "testing"

// boostByTerms is the window boost as first written, matching terms as
// strings: the id version must give the same bonus for every window.
func boostByTerms(ix *Index, w window, query []Token) float64 {
	bigrams := make(map[Bigram]bool)
	for _, b := range Bigrams(query) {
		bigrams[b] = true
	}
	numbers := make(map[string]bool)
	for _, t := range query {
		if t.Kind == Number {
			numbers[t.Term] = true
		}
	}
	gotB := make(map[Bigram]bool)
	gotN := make(map[string]bool)
	prev := ""
	for _, t := range ix.toks[ix.sentTok[w.first]:ix.sentTok[w.last]] {
		if t.Kind == Number && numbers[t.Term] {
			gotN[t.Term] = true
		}
		if !t.Content() {
			continue
		}
		if prev != "" {
			if b := (Bigram{prev, t.Term}); bigrams[b] {
				gotB[b] = true
			}
		}
		prev = t.Term
	}
	return max(ix.opt.BigramBoost, 0)*float64(len(gotB)) + max(ix.opt.NumberBoost, 0)*float64(len(gotN))
}

func checkBoost(t *testing.T, src, query string) {
	t.Helper()
	ix := NewIndex(src, Options{})
	q := ix.Tokenize(query)
	bigrams, numbers := ix.queryPhrases(q)
	got := make([]bool, len(bigrams)+len(numbers))
	for k, w := range ix.windows {
		if g, want := ix.boost(w, bigrams, numbers, ix.phraseRoles(bigrams, numbers), got), boostByTerms(ix, w, q); g != want {
			t.Fatalf("query %q, window %d (%q): boost %v, by terms %v", query, k, src[ix.sents[w.first].Start:ix.sents[w.last-1].End], g, want)
		}
	}
}

func TestBoostByIDs(t *testing.T) {
	checkBoost(t, page, "The Tozzer Library holds 1,200 manuscripts on Maya writing since 1866.")
	checkBoost(t, "Rates rose 3% in 2021. Interest rates rose again, 3% in 2022; rates of interest fell.", "Interest rates rose 3% in 2022.")
	checkBoost(t, "", "anything at all")
}

func FuzzBoostByIDs(f *testing.F) {
	f.Add("Rates rose 3% in 2021. Interest rates rose again in 2022.", "interest rates rose 3% in 2022")
	f.Add(page, "Maya manuscripts 1866")
	f.Fuzz(func(t *testing.T, src, query string) {
		checkBoost(t, src, query)
	})
}
