package lexical

import (
	"math"
	"testing"
)

// TestAmountChangeStopsAtPunctuation: a change word past a comma makes the
// amount after it a change, not the level before the comma.
func TestAmountChangeStopsAtPunctuation(t *testing.T) {
	tests := []struct {
		text  string
		delta []bool // of each amount, in order
	}{
		{"The insurer booked premiums of $6.3 billion, up 9% on the year.", []bool{false, true}},
		{"Premiums rose 9% in the year.", []bool{true}},
		{"Output (up 4%) was worth $120 million; exports fell 3%.", []bool{true, false, true}},
		{"Sales grew by 12% in the quarter.", []bool{true}},
	}
	for _, tc := range tests {
		an := NewAnalyzer()
		got := Amounts(tc.text, an.Tokenize(tc.text))
		if len(got) != len(tc.delta) {
			t.Errorf("%q: %d amounts %+v, want %d", tc.text, len(got), got, len(tc.delta))
			continue
		}
		for i, a := range got {
			if a.Delta != tc.delta[i] {
				t.Errorf("%q: amount %d (%g %s) delta %v, want %v", tc.text, i, a.Lo, a.Unit, a.Delta, tc.delta[i])
			}
		}
	}
}

// FuzzAmounts: the detector's amounts are spans of the text, point at a
// token, and hold numbers.
func FuzzAmounts(f *testing.F) {
	for _, s := range []string{"revenue of $4.1 billion, up 28% on the year", "Output (up 4%) was worth $120 million; exports fell 3%.",
		"rose 9% to $6.3 billion", "12–15 years, 10 to 14 years", "70B, 1.5M, 3x, -15 °C, 4pp", ", up , , down 5%", "(((5%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		toks := Tokenize(text)
		for _, a := range Amounts(text, toks) {
			if a.Start < 0 || a.Start > a.End || a.End > len(text) {
				t.Fatalf("span %d…%d of %d bytes", a.Start, a.End, len(text))
			}
			if a.Tok < 0 || a.Tok >= len(toks) {
				t.Fatalf("Tok %d of %d tokens", a.Tok, len(toks))
			}
			if math.IsNaN(a.Lo) || math.IsNaN(a.Hi) {
				t.Fatalf("amount %+v", a)
			}
		}
	})
}
