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
	for _, s := range []string{"fell to 41.3 % in 2016", "between 6 and 11 ms", "$4.1 million, 50 000 people, 1·3 mg", "2100万人 2016年", "about 300, ~5, two exits, 1,2,3.4.5",
		"70B, 1.5M, 3k, 3x, 3×, three-fold, 5 percentage points", "from 10 to 20 ms, 10–20%, -15 °C, $2 trillion, by 5%", "10 −6 times, 0 .05 − 0.1%",
		"on 15 March 2021, in 2021-03-15, 03/2021, Q3 2022, the first half of 2023", "one in four, 7 out of every 10, two-thirds, half of them",
		"doubled, halved, tenfold, an order of magnitude, climbed from 12,000 to 36,000", "15 GW, 86 °F, 75 basis points, 400 times per second, 3.4 billion dollars"} {
		f.Add(s, int64(1234))
	}
	f.Fuzz(func(t *testing.T, text string, n int64) {
		toks := Tokenize(text)
		qs := Quantities(text, toks)
		for _, q := range qs {
			if q.Tok < 0 || q.Tok >= len(toks) {
				t.Fatalf("Tok %d out of %d tokens", q.Tok, len(toks))
			}
			if !strings.HasPrefix(text[toks[q.Tok].Start:], q.Lit) {
				t.Fatalf("Lit %q is not the text at token %d", q.Lit, q.Tok)
			}
			if math.IsNaN(q.Value) || math.IsInf(q.Value, 0) || !(q.Tol >= 0) {
				t.Fatalf("value %v tol %v", q.Value, q.Tol)
			}
			if q.Last < q.Tok || q.Last >= len(toks) {
				t.Fatalf("%q: tokens %d…%d of %d", q.Lit, q.Tok, q.Last, len(toks))
			}
			if math.IsNaN(q.Base) || math.IsInf(q.Base, 0) || !(q.BaseTol >= 0) {
				t.Fatalf("%q: base %v tol %v", q.Lit, q.Base, q.BaseTol)
			}
			StatedIn(q, qs, true) // no panic
			for _, e := range qs[:min(len(qs), 50)] {
				SameKind(q, e)
			}
		}
		for _, a := range Amounts(text, toks) {
			if a.Start < 0 || a.Start >= a.End || a.End > len(text) {
				t.Fatalf("Amounts: span [%d,%d) outside %d bytes", a.Start, a.End, len(text))
			}
			if !(a.Lo <= a.Hi) || math.IsInf(a.Lo, 0) || math.IsInf(a.Hi, 0) {
				t.Fatalf("Amounts: %q reads %v..%v", text[a.Start:a.End], a.Lo, a.Hi)
			}
			if a.Unit == "" || len(toks) > 0 && (a.Tok < 0 || a.Tok >= len(toks)) {
				t.Fatalf("Amounts: %q unit %q tok %d of %d", text[a.Start:a.End], a.Unit, a.Tok, len(toks))
			}
		}
		// Round trip: a number written in a sentence is read back.
		n %= 1_000_000
		if n < 0 {
			n = -n
		}
		s := "It counted " + strconv.FormatInt(n, 10) + " items."
		rt := Quantities(s, Tokenize(s))
		if len(rt) != 1 || rt[0].Value != float64(n) || rt[0].Lit != strconv.FormatInt(n, 10) {
			t.Fatalf("Quantities(%q) = %+v", s, rt)
		}
	})
}
