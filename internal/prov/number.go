package prov

import (
	"math"
	"strings"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// conflictingNumbers: quantities with the same unit, both levels or both
// changes, whose nearby content words overlap, and whose values are more
// than 10% apart.
//
// A value the other sentence states anywhere is no rival ("14.6% and 5.5%
// in ten countries and 11.1% in eight"), nor is a value within a bound
// ("up to 30%" / "22%", "at least 300" / "412").
func conflictingNumbers(a, b *analysed) (string, bool) {
	for _, qa := range a.qty {
		for _, qb := range b.qty {
			if qa.Unit != qb.Unit || qa.Delta != qb.Delta {
				continue
			}
			lo, hi := max(qa.Lo, qb.Lo), min(qa.Hi, qb.Hi)
			scale := max(math.Abs(qa.Hi), math.Abs(qb.Hi), math.Abs(qa.Lo), math.Abs(qb.Lo))
			if lo <= hi || scale == 0 || (lo-hi)/scale <= 0.1 {
				continue
			}
			if valueIn(qa, b.values) || valueIn(qb, a.values) || withinBound(a.text, qa.Start, qa.Lo, qa.Hi, qb.Lo, qb.Hi) || withinBound(b.text, qb.Start, qb.Lo, qb.Hi, qa.Lo, qa.Hi) {
				continue
			}
			if sharedContext(a, qa.Tok, b, qb.Tok) {
				if e := entityOfNumber(a, b, qa.Tok); e != "" {
					return e, true
				}
			}
		}
	}
	return "", false
}

// sharedContext reports whether a content word of the clause of token i
// of a also occurs in the clause of token j of b ("efficacy … was 70%" /
// "reported 95% efficacy"), the clauses cut at punctuation and contrast
// words. Tokens i and j, the quantities' last tokens, are their units
// ("4 mm cavity" / "1.6-mm trap"): a unit both write says nothing of what
// is measured.
func sharedContext(a *analysed, i int, b *analysed, j int) bool {
	ca, cb := numberClause(a.toks, i), numberClause(b.toks, j)
	for x := ca[0]; x < ca[1]; x++ {
		st := a.toks[x].stem
		if st == "" || direction(st) != 0 || x == i {
			continue
		}
		for y := cb[0]; y < cb[1]; y++ {
			if y != j && b.toks[y].stem == st {
				return true
			}
		}
	}
	return false
}

// numberClause returns the clause of quantity token i, joined to the next
// clause (or the one before, at the end) when it holds no other content
// word: "At 4.1 km, the estuary tunnel is the longest" measures the
// tunnel.
func numberClause(toks []token, i int) [2]int {
	c := clauseAt(toks, i)
	for x := c[0]; x < c[1]; x++ {
		if x != i && toks[x].stem != "" {
			return c
		}
	}
	if c[1] < len(toks) {
		return [2]int{c[0], clauseAt(toks, c[1])[1]}
	}
	if c[0] > 0 {
		return [2]int{clauseAt(toks, c[0]-1)[0], c[1]}
	}
	return c
}

// countVerbs are words that link a subject to a quantity ("spending reached
// $600 billion"); they are not part of what the quantity measures.
var countVerbs = lexical.WordSet(`reach reaches reached hit hits total totals totalled totaled stood stands stand amount
amounts amounted rose fell grew was were is are be about around approximately nearly almost roughly
over under only some scale scales million billion thousand trillion percent`)

// entityOfNumber names what a quantity measures: the shared content words
// after it ("92% accuracy"), else before it ("cloud services reached $600
// billion"), passing over linking verbs and scale words.
func entityOfNumber(a, b *analysed, tok int) string {
	skip := func(t token) bool { return countVerbs[t.word] || strings.HasSuffix(t.word, "ed") }
	if w := phrase(a, b, tok+1, 1, skip); w != "" {
		return w
	}
	return phrase(a, b, tok-1, -1, skip)
}

// quantities reads the amounts of a sentence with lexical's reader (ltoks
// are lexical's tokens of text) and points each at the detector's token
// nearest to its end (toks).
func quantities(text string, ltoks []lexical.Token, toks []token) []lexical.Amount {
	qs := lexical.Amounts(text, ltoks)
	for i := range qs {
		qs[i].Tok = nearestToken(toks, qs[i].End)
	}
	return qs
}

// nearestToken returns the index of the last token starting before pos.
func nearestToken(toks []token, pos int) int {
	k := 0
	for i, t := range toks {
		if t.pos < pos {
			k = i
		}
	}
	return k
}

// valueIn reports a quantity of qs with a's value (either end of a range),
// in any unit, or a range of qs that holds it: the number is stated there.
func valueIn(a lexical.Amount, qs []lexical.Quantity) bool {
	for k, q := range qs {
		for _, v := range [2]float64{a.Lo, a.Hi} {
			if math.Abs(q.Value-v) <= 1e-9*math.Max(1, math.Abs(v)) || math.Abs(q.Value-v) <= q.Tol && q.Tol > 0 {
				return true
			}
			if q.RangeTo && k+1 < len(qs) && q.Value <= v && v <= qs[k+1].Value {
				return true // "between 10 and 15 million" holds 12 million
			}
		}
	}
	return false
}

// upperBounds and lowerBounds are the words that make a number a bound.
var (
	upperBounds = []string{"up to", "as much as", "as many as", "as high as", "at most", "no more than", "less than", "fewer than", "under", "below", "maximum of"}
	lowerBounds = []string{"at least", "more than", "over", "above", "no fewer than", "upwards of", "no less than", "minimum of"}
)

// withinBound reports a bound (the number at byte start of text, lo–hi)
// that the other value (olo–ohi) meets: "up to 30%" and 22%, "at least
// 300" and 412.
func withinBound(text string, start int, lo, hi, olo, ohi float64) bool {
	lead := strings.ToLower(strings.TrimRight(text[max(0, start-16):start], " $€£"))
	for _, w := range upperBounds {
		if strings.HasSuffix(lead, " "+w) || lead == w {
			return ohi <= hi
		}
	}
	for _, w := range lowerBounds {
		if strings.HasSuffix(lead, " "+w) || lead == w {
			return olo >= lo
		}
	}
	return false
}

// conflictingValues compares the quantities lexical converts (lengths,
// masses, durations, temperatures, power, energy, data, frequencies) and
// changes as factors ("doubled" / "fell by a fifth"), which Amounts does
// not all read: one kind (lexical.SameKind), values that do not agree
// (lexical.Agree) and are more than 10% apart, neither stated in the other
// sentence, no bound met, and a content word near both.
func conflictingValues(a, b *analysed) (string, bool) {
	for i, qa := range a.values {
		fa, _, factorA := qa.Factor()
		if qa.Dim == "" && !factorA || qa.Dim == lexical.DimDate || qa.Dim == lexical.DimPoints {
			continue
		}
		for k, qb := range b.values {
			if !lexical.SameKind(qa, qb) || lexical.Agree(qa, qb) || lexical.Agree(qb, qa) {
				continue
			}
			va, vb := qa.Base, qb.Base
			if factorA {
				fb, _, _ := qb.Factor()
				va, vb = fa, fb
			}
			if scale := max(math.Abs(va), math.Abs(vb)); scale == 0 || math.Abs(va-vb)/scale <= 0.1 {
				continue
			}
			if lexical.StatedIn(qa, b.values, true) || lexical.StatedIn(qb, a.values, true) ||
				withinBound(a.text, a.valuePos[i], va, va, vb, vb) || withinBound(b.text, b.valuePos[k], vb, vb, va, va) {
				continue
			}
			if sharedContext(a, a.valueTok[i], b, b.valueTok[k]) {
				if e := entityOfNumber(a, b, a.valueTok[i]); e != "" {
					return e, true
				}
			}
		}
	}
	return "", false
}
