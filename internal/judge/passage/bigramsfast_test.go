package passage

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bigramsRef is Bigrams as it was before it found short lists' bigrams
// again by a scan rather than a map: the reference.
func bigramsRef(toks []Token) []Bigram {
	var out []Bigram
	seen := make(map[Bigram]bool)
	prev := ""
	for _, t := range toks {
		if !t.Content() {
			continue
		}
		if prev != "" {
			b := Bigram{prev, t.Term}
			if !seen[b] {
				seen[b] = true
				out = append(out, b)
			}
		}
		prev = t.Term
	}
	return out
}

func checkBigrams(t *testing.T, text string) {
	t.Helper()
	toks := Tokenize(text)
	if d := cmp.Diff(bigramsRef(toks), Bigrams(toks)); d != "" {
		t.Fatalf("Bigrams(%q) differs from the reference (-want +got):\n%s", text, d)
	}
}

func TestBigramsAgreeWithReference(t *testing.T) {
	checkBigrams(t, "The rate of inflation rose; the rate of inflation fell, and rates rose again.")
	checkBigrams(t, page)
	checkBigrams(t, strings.Repeat("red apples green pears blue plums ", 40)) // past the scan, with repeats
	checkBigrams(t, "")
}

func FuzzBigramsAgreeWithReference(f *testing.F) {
	f.Add("Interest rates rose 3% in 2022; interest rates fell.")
	f.Add(page)
	f.Fuzz(func(t *testing.T, text string) {
		checkBigrams(t, text)
	})
}
