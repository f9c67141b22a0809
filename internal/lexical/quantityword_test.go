package lexical

import (
	"strings"
	"testing"
)

// mayHoldQuantity is the test IsQuantityWord is for: a digit, a Number
// token or a quantity word.
func mayHoldQuantity(text string, toks []Token) bool {
	if strings.ContainsAny(text, "0123456789") {
		return true
	}
	for _, t := range toks {
		if t.Kind == Number || t.Kind == Word && IsQuantityWord(strings.ToLower(text[t.Start:t.End])) {
			return true
		}
	}
	return false
}

func TestIsQuantityWord(t *testing.T) {
	for _, w := range []string{"two", "twelve", "dozen", "hundred", "half", "thirds", "quarters", "doubled", "halving",
		"quadrupling", "tenfold", "fold", "threefold", "magnitude"} {
		if !IsQuantityWord(w) {
			t.Errorf("IsQuantityWord(%q) = false", w)
		}
	}
	for _, w := range []string{"", "a", "an", "one", "the", "ferry", "double", "order", "quartered", "tw", "folder"} {
		if IsQuantityWord(w) {
			t.Errorf("IsQuantityWord(%q) = true", w)
		}
	}
	// The readers' own word lists.
	for w := range fractionWords {
		if !IsQuantityWord(w) {
			t.Errorf("fraction %q is no quantity word", w)
		}
	}
	for w := range multiplierWords {
		if !IsQuantityWord(w) {
			t.Errorf("multiplier %q is no quantity word", w)
		}
	}
}

// TestNoQuantityWithoutQuantityWord: texts without a digit or a quantity
// word read as none; with one, they do read some (the test is not
// vacuous).
func TestNoQuantityWithoutQuantityWord(t *testing.T) {
	an := NewAnalyzer()
	for _, tc := range []struct {
		text string
		some bool
	}{
		{"The ferry carried more passengers than the year before.", false},
		{"One of the reviewers, a Dr. Ilse Varga, objected to the order of the chapters.", false},
		{"Ridership on the tram line doubled after the fare was dropped.", true},
		{"About half of the surveyed growers planted rye.", true},
		{"The toll bridge saw a tenfold rise in cyclists.", true},
		{"Costs fell by an order of magnitude.", true},
		{"Twelve bakeries closed in the old town.", true},
	} {
		toks := an.Tokenize(tc.text)
		got := len(Quantities(tc.text, toks)) > 0 || len(Amounts(tc.text, toks)) > 0
		if may := mayHoldQuantity(tc.text, toks); !may && got || may != tc.some {
			t.Errorf("%q: a quantity word %v, quantities read %v, want %v", tc.text, may, got, tc.some)
		}
	}
}

// FuzzNoQuantityWithoutQuantityWord: a text with no digit, no Number token
// and no quantity word holds no quantity Quantities or Amounts reads.
func FuzzNoQuantityWithoutQuantityWord(f *testing.F) {
	for _, s := range []string{
		"Freight on the canal halved; a third of the barges stood idle.",
		"The TWO reactors were shut, a threefold cut in output.",
		"One in four riders came by bus.",
		"Exports grew by an order of magnitude over the decade.",
		"Between May and June the toll was raised.",
		"٣ أشخاص ٢٠٢١",
		"Ｔｗｏ ferries; ２０２０年; 三成",
		"The \u212Aelvin scale and the ſeventh quarter.",
	} {
		f.Add(s)
	}
	an := NewAnalyzer()
	f.Fuzz(func(t *testing.T, text string) {
		toks := an.Tokenize(text)
		if mayHoldQuantity(text, toks) {
			return
		}
		if q := Quantities(text, toks); len(q) > 0 {
			t.Fatalf("%q: no quantity word, yet Quantities read %+v", text, q)
		}
		if a := Amounts(text, toks); len(a) > 0 {
			t.Fatalf("%q: no quantity word, yet Amounts read %+v", text, a)
		}
	})
}
