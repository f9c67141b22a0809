package lexical

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestQuantitiesRange(t *testing.T) {
	text := "accuracy rose from 20%–35% to about 4.1 million users in 2018–19"
	qs := Quantities(text, Tokenize(text))
	var got []string
	for _, q := range qs {
		got = append(got, q.Lit+" "+q.Unit+" "+strconv.FormatFloat(q.Value, 'g', 6, 64)+" "+strconv.FormatBool(q.RangeTo))
	}
	want := "20 % 20 true|35 % 35 false|4.1 user 4.1e+06 false|2018 (year) 2018 true|19 (year) 2019 false"
	if strings.Join(got, "|") != want {
		t.Errorf("Quantities(%q) =\n%s\nwant\n%s", text, strings.Join(got, "|"), want)
	}
}

func FuzzQuantities(f *testing.F) {
	for _, s := range []string{"fell to 41.3 % in 2016", "between 6 and 11 ms", "$4.1 million, 50 000 people, 1·3 mg", "2100万人 2016年", "about 300, ~5, two exits, 1,2,3.4.5"} {
		f.Add(s, int64(1234))
	}
	f.Fuzz(func(t *testing.T, text string, n int64) {
		toks := Tokenize(text)
		for _, q := range Quantities(text, toks) {
			if q.Tok < 0 || q.Tok >= len(toks) {
				t.Fatalf("Tok %d out of %d tokens", q.Tok, len(toks))
			}
			if !strings.HasPrefix(text[toks[q.Tok].Start:], q.Lit) {
				t.Fatalf("Lit %q is not the text at token %d", q.Lit, q.Tok)
			}
			if math.IsNaN(q.Value) || math.IsInf(q.Value, 0) || !(q.Tol >= 0) {
				t.Fatalf("value %v tol %v", q.Value, q.Tol)
			}
		}
		// Round trip: a number written in a sentence is read back.
		n %= 1_000_000
		if n < 0 {
			n = -n
		}
		s := "It counted " + strconv.FormatInt(n, 10) + " items."
		qs := Quantities(s, Tokenize(s))
		if len(qs) != 1 || qs[0].Value != float64(n) || qs[0].Lit != strconv.FormatInt(n, 10) {
			t.Fatalf("Quantities(%q) = %+v", s, qs)
		}
	})
}
