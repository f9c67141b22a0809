package prov

import (
	"math"
	"strings"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// conflictingNumbers: quantities with the same unit, both levels or both
// changes, whose nearby content words overlap, and whose values are more
// than 10% apart.
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
			if sharedContext(a, qa.Tok, b, qb.Tok) {
				if e := entityOfNumber(a, b, qa.Tok); e != "" {
					return e, true
				}
			}
		}
	}
	return "", false
}

// sharedContext reports whether a content word within four tokens of token
// i of a also occurs within four tokens of token j of b.
func sharedContext(a *analysed, i int, b *analysed, j int) bool {
	for x := max(i-4, 0); x <= i+4 && x < len(a.toks); x++ {
		st := a.toks[x].stem
		if st == "" || directions[st] != 0 {
			continue
		}
		for y := max(j-4, 0); y <= j+4 && y < len(b.toks); y++ {
			if b.toks[y].stem == st {
				return true
			}
		}
	}
	return false
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
