package lexical

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// fractionWords are the denominators spelled as words ("a third",
// "two-thirds", "three quarters").
var fractionWords = map[string]float64{
	"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4,
	"fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "eighth": 8, "eighths": 8, "tenth": 10, "tenths": 10,
}

// numeralWord reads a small count for a proportion or a fraction: digits,
// a spelled number, and "one" or "a" ("one in four", "a third").
func numeralWord(text string, t Token) (float64, bool) {
	w := strings.ToLower(text[t.Start:t.End])
	switch {
	case w == "one" || w == "a" || w == "an":
		return 1, true
	case t.Kind == Number:
		v, err := strconv.ParseFloat(t.Term, 64)
		return v, err == nil && !math.IsInf(v, 0)
	}
	return spelledNumber(w)
}

// readProportions reads proportions as percentages: "one in four" (25%),
// "7 out of 10" and "two out of every five" (70%, 40%), and fractions
// written as words: "half" (50%), "a third", "two-thirds", "three
// quarters of", "a fifth of", "by a third". "The first half", "the third
// quarter", "three quarters in a row" and "half-life" are not
// proportions. The counts of a proportion are marked
// in read, not quantities of their own.
func readProportions(text string, toks []Token, read []bool) []Quantity {
	var out []Quantity
	word := func(k int) string {
		if k < 0 || k >= len(toks) {
			return ""
		}
		return strings.ToLower(text[toks[k].Start:toks[k].End])
	}
	emit := func(first, last int, pct float64) {
		q := Quantity{Lit: text[toks[first].Start:toks[last].End], Value: pct, Unit: "%", Tol: 0.5, Tok: first, Last: last}
		if Hedged(text, toks, first) {
			q.Tol = math.Max(q.Tol, 0.1*pct)
		}
		q.Lead = leadWords(text, toks, first)
		q.Change = changeAround(text, toks, first, last)
		out = append(out, q)
		for k := first; k <= last; k++ {
			read[k] = true
		}
	}
	for i := 0; i < len(toks); i++ {
		if read[i] {
			continue
		}
		w := word(i)
		// "one in four", "7 out of 10", "two out of every five"
		if n, ok := numeralWord(text, toks[i]); ok && w != "a" && w != "an" {
			k := i + 1
			switch {
			case word(k) == "in":
				k++
			case word(k) == "out" && word(k+1) == "of":
				k += 2
				if word(k) == "every" {
					k++
				}
			default:
				k = -1
			}
			if k > 0 && k < len(toks) {
				if d, ok := numeralWord(text, toks[k]); ok && d > n && d > 1 && d <= 1000 && word(k) != "a" && word(k) != "one" {
					emit(i, k, 100*n/d)
					i = k
					continue
				}
			}
		}
		// "half", "a third", "two-thirds", "three quarters"
		d, ok := fractionWords[w]
		if !ok || toks[i].Kind != Word {
			continue
		}
		prev := word(i - 1)
		if ordinals[prev] > 0 || prev == "the" || prev == "latter" || prev == "former" || prev == "each" {
			continue // "the first half", "the third quarter": a part of a period, an ordinal
		}
		if next := i + 1; next < len(toks) && text[toks[i].End:toks[next].Start] == "-" && word(next) != "of" {
			continue // "half-life", "quarter-final"
		}
		if d == 2 && (w == "half" || w == "halves") {
			if prev == "two" || w == "halves" {
				continue // "the two halves"
			}
			first := i
			if prev == "a" || prev == "one" {
				first = i - 1
			}
			emit(first, i, 50)
			continue
		}
		if i == 0 {
			continue
		}
		n, ok := numeralWord(text, toks[i-1])
		if !ok || n >= d || (strings.HasSuffix(w, "s") != (n > 1)) {
			continue // "a third" and "two thirds", not "the third" or "two third"
		}
		// A share of something: "a third of", "two-thirds", "by a third";
		// not "for three quarters in a row" (periods).
		hyphen := text[toks[i-1].End:toks[i].Start] == "-"
		if !hyphen && word(i+1) != "of" && word(i-2) != "by" && word(i-2) != "to" {
			continue
		}
		emit(i-1, i, 100*n/d)
	}
	return out
}

// multiplierWords are the verbs of a multiplied level.
var multiplierWords = map[string]float64{
	"doubled": 2, "doubling": 2, "doubles": 2, "tripled": 3, "tripling": 3, "triples": 3, "trebled": 3,
	"quadrupled": 4, "quadrupling": 4, "quadruples": 4, "halved": 0.5, "halving": 0.5,
}

// readMultipliers reads changes written as words, as factors (DimFactor):
// "doubled" (2), "tripled" (3), "halved" (0.5), "threefold" and "3-fold"
// (3), "an order of magnitude" (10).
func readMultipliers(text string, toks []Token) []Quantity {
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
		if t.Kind != Word || !endsInAny(text[t.Start:t.End], "dgsr") {
			continue // every word read below ends so: "doubled", "halving", "triples", "fold", "order"
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

// endsInAny reports whether strings.ToLower(w) may end in one of the
// lowercase ASCII letters of set: false only where it cannot, so a caller
// skips lowercasing a word that could not match. A word ending in a
// non-ASCII character may (the Kelvin sign lowercases to k).
func endsInAny(w, set string) bool {
	if w == "" {
		return false
	}
	c := w[len(w)-1]
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c >= utf8.RuneSelf || strings.IndexByte(set, c) >= 0
}

// timesFactor reports "N times" followed by a comparison: "three times as
// many", "3 times higher", "five times the size" (k is the token after
// "times").
func timesFactor(text string, toks []Token, k int) bool {
	if k <= 0 || k > len(toks) || !strings.EqualFold(text[toks[k-1].Start:toks[k-1].End], "times") {
		return false
	}
	if k == len(toks) {
		return false
	}
	w := strings.ToLower(text[toks[k].Start:toks[k].End])
	switch w {
	case "as", "more", "less", "higher", "lower", "larger", "smaller", "greater", "faster", "slower", "bigger", "the", "that", "what":
		return true
	}
	return strings.HasSuffix(w, "er") && len(w) > 4
}

// changeSign is the direction of the words that make a number a change:
// "rose 5%", "a 5% increase", "cut by 5%".
var changeSign = map[string]int{
	"increase": 1, "increased": 1, "increases": 1, "increasing": 1, "rise": 1, "rose": 1, "risen": 1, "rises": 1,
	"rising": 1, "grow": 1, "grew": 1, "grown": 1, "grows": 1, "growth": 1, "gain": 1, "gained": 1, "gains": 1,
	"climb": 1, "climbed": 1, "climbs": 1, "jump": 1, "jumped": 1, "surge": 1, "surged": 1, "soared": 1,
	"boost": 1, "boosted": 1, "raise": 1, "raised": 1, "raises": 1, "up": 1, "higher": 1, "more": 1,
	"improve": 1, "improved": 1, "improvement": 1, "expanded": 1, "lifted": 1, "added": 1,
	"decrease": -1, "decreased": -1, "decreases": -1, "decreasing": -1, "fall": -1, "fell": -1, "fallen": -1,
	"falls": -1, "falling": -1, "drop": -1, "dropped": -1, "drops": -1, "decline": -1, "declined": -1,
	"declines": -1, "reduce": -1, "reduced": -1, "reduces": -1, "reduction": -1, "cut": -1, "cuts": -1,
	"lower": -1, "lowered": -1, "less": -1, "fewer": -1, "down": -1, "shrank": -1, "shrunk": -1,
	"contracted": -1, "slashed": -1, "plunged": -1, "slumped": -1, "lost": -1, "loss": -1, "eased": -1, "dipped": -1,
}

// changeAround returns +1 or -1 when the quantity of tokens first…last is
// a change: "by" before it after a change word ("fell by 5%"), a change
// word just before it ("rose 5%", not "rose to 5%"), or one just after it
// ("a 5% increase", "5% lower"); 0 for a level.
func changeAround(text string, toks []Token, first, last int) int {
	word := func(k int) string { return strings.ToLower(text[toks[k].Start:toks[k].End]) }
	k := first - 1
	for k >= 0 && first-k <= 3 && (Hedged(text, toks, k+1) && toks[k].Kind == Word || word(k) == "a" || word(k) == "an" || word(k) == "some") {
		k-- // "by about 5%", "by some 5%"
	}
	if k >= 0 {
		switch w := word(k); {
		case w == "by":
			for x := k - 1; x >= 0 && k-x <= 3; x-- {
				if s := changeSign[word(x)]; s != 0 {
					return s
				}
			}
		case changeSign[w] != 0 && w != "more" && w != "less" && w != "fewer" && w != "up" && w != "down":
			return changeSign[w]
		}
	}
	if n := last + 1; n < len(toks) {
		if s := changeSign[word(n)]; s != 0 && word(n) != "up" && word(n) != "down" {
			return s
		}
	}
	return 0
}

// changedBefore reports a verb of change within three words before token
// k: "climbed from", "went from", "fell sharply from".
func changedBefore(text string, toks []Token, k int) bool {
	for x := k - 1; x >= 0 && k-x <= 3; x-- {
		switch w := strings.ToLower(text[toks[x].Start:toks[x].End]); {
		case changeSign[w] != 0, w == "went", w == "moved", w == "changed", w == "shifted", w == "going":
			return true
		}
	}
	return false
}

// derivedFactors adds the factor of a change written as two levels after
// a verb of change: "climbed from 12,000 to 36,000" (3), "went from 2.4%
// to 1.2%" (0.5).
func derivedFactors(text string, toks []Token, qs []Quantity) []Quantity {
	var out []Quantity
	for k := 0; k+1 < len(qs); k++ {
		lo, hi := qs[k], qs[k+1]
		if !lo.RangeTo || lo.Tok == 0 || lo.Value == 0 || lo.Dim == DimDate || lo.Unit == UnitYear || hi.Unit == UnitYear {
			continue
		}
		if !strings.EqualFold(text[toks[lo.Tok-1].Start:toks[lo.Tok-1].End], "from") || strings.Contains(text[toks[lo.Last].End:toks[hi.Tok].Start], "–") {
			continue
		}
		if !changedBefore(text, toks, lo.Tok-1) {
			continue // "ages from 6 to 11" is a range, not a change
		}
		if lo.Unit != hi.Unit && lo.Unit != "" && hi.Unit != "" {
			continue
		}
		f := hi.Value / lo.Value
		if f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		q := Quantity{Lit: text[toks[lo.Tok].Start:toks[hi.Last].End], Value: f, Unit: "x", Tol: 0.05 * f, Tok: lo.Tok, Last: hi.Last,
			Dim: DimFactor, Base: f, BaseTol: 0.05 * f, Change: 1}
		if f < 1 {
			q.Change = -1
		}
		q.Lead = lo.Lead
		out = append(out, q)
	}
	return out
}
