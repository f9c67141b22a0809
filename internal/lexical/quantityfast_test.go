package lexical

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hedgedRef is Hedged as it was before it matched " "+hedge without
// building the string: the reference the new one must agree with.
func hedgedRef(text string, toks []Token, i int) bool {
	lead := strings.ToLower(text[max(0, toks[i].Start-24):toks[i].Start])
	lead = strings.TrimRight(lead, " $€£")
	if strings.HasSuffix(lead, "~") || strings.HasSuffix(lead, "≈") {
		return true
	}
	for _, h := range []string{"about", "approximately", "around", "nearly", "roughly", "almost",
		"over", "more than", "less than", "fewer than", "under", "some", "up to", "at least",
		"estimated", "an estimated", "circa", "ca.", "close to", "upwards of"} {
		if strings.HasSuffix(lead, " "+h) || lead == h {
			return true
		}
	}
	return false
}

// readMultipliersRef is readMultipliers as it was before it skipped
// lowercasing words that cannot end as a multiplier word does: the
// reference the new one must agree with.
func readMultipliersRef(text string, toks []Token) []Quantity {
	var out []Quantity
	emit := func(first, last int, f, tol float64) {
		q := Quantity{Lit: text[toks[first].Start:toks[last].End], Value: f, Unit: "x", Tol: tol, Tok: first, Last: last,
			Dim: DimFactor, Base: f, BaseTol: tol, Change: 1}
		if f < 1 {
			q.Change = -1
		}
		q.Lead = leadWords(text, toks, first)
		out = append(out, q)
	}
	for i, t := range toks {
		if t.Kind != Word {
			continue
		}
		w := strings.ToLower(text[t.Start:t.End])
		if f, ok := multiplierWords[w]; ok {
			emit(i, i, f, 0.01)
			continue
		}
		if base, ok := strings.CutSuffix(w, "fold"); ok && base != "" { // "threefold", "tenfold"
			if n, ok := spelledNumber(base); ok {
				emit(i, i, n, 0.01)
			}
			continue
		}
		if w == "fold" && i > 0 { // "3-fold", "three-fold", "2 fold"
			if n, ok := numeralWord(text, toks[i-1]); ok && n > 1 && Adjacent(text, toks[i-1], t) {
				emit(i-1, i, n, 0.01)
			}
			continue
		}
		if w == "order" && i+2 < len(toks) && strings.EqualFold(text[toks[i+1].Start:toks[i+1].End], "of") &&
			strings.EqualFold(text[toks[i+2].Start:toks[i+2].End], "magnitude") {
			first := i
			if i > 0 && strings.EqualFold(text[toks[i-1].Start:toks[i-1].End], "an") {
				first = i - 1
			}
			emit(first, i+2, 10, 3)
		}
	}
	return out
}

func checkQuantityReaders(t *testing.T, text string) {
	t.Helper()
	toks := Tokenize(text)
	for i := range toks {
		if got, want := Hedged(text, toks, i), hedgedRef(text, toks, i); got != want {
			t.Fatalf("Hedged(%q, token %d %q) = %v, reference %v", text, i, text[toks[i].Start:toks[i].End], got, want)
		}
	}
	if d := cmp.Diff(readMultipliersRef(text, toks), readMultipliers(text, toks)); d != "" {
		t.Fatalf("readMultipliers(%q) differs from the reference (-want +got):\n%s", text, d)
	}
}

func TestQuantityReadersAgreeWithReference(t *testing.T) {
	for _, s := range []string{
		"Output roughly DOUBLED to about 40 tonnes, nearly tripling in a year; costs Halved.",
		"A threefold rise, a 3-fold rise, a two-fold gain and an Order of Magnitude more.",
		"Some 12 wards, upwards of 300 beds, ca. 15 staff, ~20 visits, More than 5 sites.",
		"Under 4 hours; at least 7 nurses; estimated 9 deaths; about-face 10.",
		"The KELVIN sign K and the word ſold, quadruples, QUADRUPLING 5.",
	} {
		checkQuantityReaders(t, s)
	}
}

func FuzzQuantityReadersAgreeWithReference(f *testing.F) {
	f.Add("Sales doubled, then nearly 30% of stores tripled output about 5-fold.")
	f.Add("an order of magnitude; Approximately 3 km; close to 8 in 10")
	f.Fuzz(func(t *testing.T, text string) {
		if strings.Count(text, " ") > 2000 {
			return
		}
		checkQuantityReaders(t, text)
	})
}
