package lexical

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/kljensen/snowball/english"
)

// uncachedWordOf is what wordOf computes for a word it does not remember.
func uncachedWordOf(surface string) wordTerm {
	lower := strings.ToLower(normalizeApostrophes(surface))
	w := wordTerm{term: lower, stop: IsStopWord(lower)}
	if isASCIIWord(lower) {
		w.term = english.Stem(lower, true)
	}
	return w
}

// TestWordMemo: words of every length around the entry's inline limit,
// remembered and then found again, and more words than the memo has
// slots (so that entries are replaced), give the term and stop flag of
// the uncached computation.
func TestWordMemo(t *testing.T) {
	if size := unsafe.Sizeof(wordEntry{}); size != 64 {
		t.Errorf("a word memo entry takes %d bytes, want 64 (one cache line)", size)
	}
	var words []string
	for n := 1; n <= 40; n++ {
		words = append(words, strings.Repeat("x", n), "Re"+strings.Repeat("run", n/3)+"ning", strings.Repeat("é", n))
	}
	words = append(words, "The", "the", "THE", "it’s", "it's", "Running", "running", "runs", strings.Repeat("ab", 200))
	for i := range 3 * wordSlots {
		words = append(words, fmt.Sprintf("word%dings", i))
	}
	for pass := range 2 { // the first pass fills the memo, the second reads it
		for _, w := range words {
			if got, want := wordOf(w), uncachedWordOf(w); got != want {
				t.Fatalf("pass %d: wordOf(%q) = %+v, want %+v", pass, w, got, want)
			}
		}
	}
}

// FuzzWordMemo: a word looked up twice, and a second word after it, get
// the uncached answer whatever they are.
func FuzzWordMemo(f *testing.F) {
	for _, s := range []string{"Running", "twenty-two-character", "twenty-three-characters", "naïve", "don’t", ""} {
		f.Add(s, strings.ToUpper(s))
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, w := range []string{a, b, a, b} {
			if got, want := wordOf(w), uncachedWordOf(w); got != want {
				t.Fatalf("wordOf(%q) = %+v, want %+v", w, got, want)
			}
		}
	})
}
