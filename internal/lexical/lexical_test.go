package lexical

import (
	"fmt"
	"testing"

	"github.com/kljensen/snowball/english"
)

func TestStem(t *testing.T) {
	for in, want := range map[string]string{"increased": "increas", "increases": "increas", "layers": "layer", "having": "have"} {
		if got := Stem(in); got != want {
			t.Errorf("Stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsStopWord(t *testing.T) {
	for w, want := range map[string]bool{"the": true, "however": true, "don't": true, "it's": true, "layer": false, "insulin": false} {
		if got := IsStopWord(w); got != want {
			t.Errorf("IsStopWord(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestIsNegation(t *testing.T) {
	for w, want := range map[string]bool{"not": true, "didn't": true, "didn’t": true, "without": true, "failed": true, "note": false, "nothing": true, "know": false} {
		if got := IsNegation(w); got != want {
			t.Errorf("IsNegation(%q) = %v, want %v", w, got, want)
		}
	}
}

// TestStemMemo: remembered stems are the stemmer's, also once a flood of
// made-up words has taken the memo's slots over.
func TestStemMemo(t *testing.T) {
	words := []string{"retrieval", "augmented", "generation", "improved", "improvement", "having", "studies", "studies"}
	check := func(when string) {
		for _, w := range words {
			if got, want := Stem(w), english.Stem(w, true); got != want {
				t.Errorf("%s: Stem(%q) = %q, want %q", when, w, got, want)
			}
		}
	}
	check("first")
	check("remembered")
	for i := range 3 * stemSlots {
		w := fmt.Sprintf("zq%dxv", i)
		if got, want := Stem(w), english.Stem(w, true); got != want {
			t.Fatalf("Stem(%q) = %q, want %q", w, got, want)
		}
	}
	check("after the flood")
}
