package lexical

import "testing"

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
