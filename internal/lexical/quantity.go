package lexical

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// UnitYear marks a calendar year. It cannot collide with a word stem, so
// "24 year old" (unit "year") is not compared with "2012".
const UnitYear = "(year)"

// UnitDate marks a calendar date finer than a year ("March 2021",
// "2021-03-15", "Q3 2022"); its Base is a day number and BaseTol half its
// span (DimDate).
const UnitDate = "(date)"

// Quantity is a number read from text with what it counts.
type Quantity struct {
	Lit   string  // the literal as written, for reasons ("41.3")
	Value float64 // after multipliers: "4.1 million" → 4.1e6
	// Unit is "%", a currency symbol, UnitYear for a bare four-digit year, the
	// stem of the word that follows ("260,000 volumes" → "volum"), or "".
	Unit string
	// Tol is the absolute difference still counted as the same number: half
	// a unit of the literal's last digit, or 10% when hedged ("about 300").
	Tol float64
	// Tok is the index of the number's token in the tokens read.
	Tok int
	// Unit2 is the stem of a second word after the number, when the first
	// one qualifies it ("12 transformer layers" → unit "transform", unit2
	// "layer").
	Unit2 string
	// Lead holds the stems of the (at most two) content words within four
	// words before the number ("a batch size of 32" → "size").
	Lead []string
	// Scale is the scale word after the number ("million"), if any.
	Scale string
	// RangeTo marks the low end of a range ("6 to 11", "20%–35%",
	// "between 6 and 11"); the next quantity is the high end.
	RangeTo bool
	// Last is the index of the last token of the quantity as written: the
	// number, its scale word and a unit of the unit table, a currency or
	// "percent" — not a counted noun ("260,000 volumes" ends at the
	// number). Tokens Tok…Last say nothing a source must repeat in words.
	Last int
	// Dim is the dimension of a unit Quantities converts (DimLength,
	// DimTime, DimFactor, DimDate, …), "" for others; Base is the value in
	// the dimension's base unit and BaseTol its tolerance there.
	Dim           string
	Base, BaseTol float64
	// Change is +1 or -1 when the quantity is a rise or a fall ("rose
	// 5%", "cut by 50%", "a 20% increase"), 0 for a level.
	Change int
}

// Quantities reads the numbers of text (toks are Tokenize(text)): digits,
// spelled counts ("two exits"), scale words ("4.1 million", "2100万"),
// units, years and ranges. Amounts reads the same text as the contradiction
// detector compares it (ranges whole, units normalised, changes apart from
// levels).
func Quantities(text string, toks []Token) []Quantity {
	var out []Quantity
	// read marks the tokens read as part of a date, a proportion or a
	// fraction: their numbers are not quantities of their own.
	read := make([]bool, len(toks))
	out = append(out, readDates(text, toks, read)...)
	out = append(out, readProportions(text, toks, read)...)
	for i, t := range toks {
		var v float64
		decimals := 0
		var glued gluedNumber
		if read[i] || t.Kind == Number && partOfNumber(text, toks, i) {
			continue // read with the number it continues
		}
		switch t.Kind {
		case Number:
			term := joinedNumber(text, toks, i)
			var err error
			v, err = strconv.ParseFloat(term, 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				continue // "1.2.3": a version or section number, not a quantity
			}
			if _, frac, ok := strings.Cut(term, "."); ok {
				decimals = len(frac)
			}
		case Word:
			if n, ok := spelledNumber(strings.ToLower(text[t.Start:t.End])); ok {
				v = n
				break
			}
			g, ok := gluedAt(text, t)
			if !ok {
				continue
			}
			v, decimals, glued = g.value, g.decimals, g
		default:
			continue
		}
		last := i // the last token of the number ("50 000")
		for t.Kind == Number && numberGlue(text, toks, last) != "" {
			last++
		}
		t.End = toks[last].End
		q := Quantity{Lit: text[t.Start:t.End], Value: v, Tok: i}
		mult := 1.0
		next := last + 1
		fixedUnit := ""
		switch rest := text[t.End:]; {
		case glued.suffix != "":
			// "70B parameters" reads as "70 billion parameters"; "120ms"
			// as "120 ms", its unit the suffix and never the next word.
			if mult = suffixScale(glued.suffix); mult != 1 {
				q.Scale = scaleWord(mult)
			} else {
				fixedUnit = Stem(strings.ToLower(glued.suffix))
			}
		case strings.HasPrefix(rest, "万"): // "2100万人"
			mult = 1e4
		case strings.HasPrefix(rest, "亿"):
			mult = 1e8
		case strings.HasPrefix(rest, "年"): // "2016年"
			fixedUnit = UnitYear
		case next < len(toks) && Adjacent(text, toks[last], toks[next]):
			if mult = wordMultiplier(text[toks[next].Start:toks[next].End]); mult != 1 {
				q.Scale = scaleWord(mult) // "millions", "mn" and "M" are one scale
				next++
			}
		}
		q.Value = v * mult
		if negativeSign(text, t.Start) {
			q.Value = -q.Value
		}
		q.Tol = 0.5 * math.Pow10(-decimals) * mult
		q.Last = next - 1
		before := strings.TrimRight(text[max(0, t.Start-4):t.Start], " ")
		after := text[t.End:min(len(text), t.End+2)]
		var unit unitDef
		switch {
		case fixedUnit != "":
			q.Unit = fixedUnit
			unit, _ = unitOf(glued.suffix)
		case strings.HasSuffix(before, "$"):
			q.Unit = "$"
		case strings.HasSuffix(before, "€"):
			q.Unit = "€"
		case strings.HasSuffix(before, "£"):
			q.Unit = "£"
		case strings.HasSuffix(before, "¥"):
			q.Unit = "¥"
		case strings.HasPrefix(strings.TrimLeft(after, " "), "%"):
			q.Unit = "%"
		case next < len(toks) && degreeSign(text, toks[next-1].End, toks[next]):
			// "-15 °C", "86 °F": the letter after the degree sign.
			q.Unit = toks[next].Term
			unit, _ = unitOf("°" + text[toks[next].Start:toks[next].End])
			q.Last = next
		case next < len(toks) && Adjacent(text, toks[next-1], toks[next]) && toks[next].Kind == Word:
			w := strings.ToLower(text[toks[next].Start:toks[next].End])
			var w2 string
			if n2 := next + 1; n2 < len(toks) && toks[n2].Kind == Word && Adjacent(text, toks[next], toks[n2]) {
				w2 = strings.ToLower(text[toks[n2].Start:toks[n2].End])
			}
			two, isTwo := twoWordUnits[[2]string{w, w2}]
			if isTwo && w == "times" {
				// "400 times per second" is a frequency; "3 times" alone a count.
				n3 := next + 2
				isTwo = n3 < len(toks) && strings.EqualFold(text[toks[n3].Start:toks[n3].End], "second")
			}
			switch {
			case w == "percent" || w == "per" && w2 == "cent":
				q.Unit = "%"
				q.Last = next
				if w == "per" {
					q.Last++
				}
			case isTwo && w == "times": // "400 times per second"
				q.Unit, unit, q.Last = "hz", two, next+2
			case isTwo:
				q.Unit, unit, q.Last = Stem(w2), two, next+1
			case currencyWords[w] != "" && !toks[next].Stop:
				q.Unit, q.Last = currencyWords[w], next // "3.4 billion dollars"
			case !toks[next].Stop && !isDigitByte(text[toks[next].Start]): // "10-20ms": not the unit of 10
				q.Unit = toks[next].Term
				if u, ok := unitOf(text[toks[next].Start:toks[next].End]); ok {
					unit, q.Last = u, next
				}
				if w2 != "" && !toks[next+1].Stop {
					q.Unit2 = toks[next+1].Term
				}
			}
		}
		if unit.dim != "" {
			q.Dim, q.Base, q.BaseTol = unit.dim, q.Value*unit.factor+unit.offset, q.Tol*math.Abs(unit.factor)
		}
		q.Lead = leadWords(text, toks, i)
		q.RangeTo = rangeFollows(text, toks, i, read)
		if t.Kind == Number && !IsSymbolUnit(q.Unit) && mult == 1 && decimals == 0 && !strings.Contains(q.Lit, ",") && len(t.Term) == 4 && v >= 1000 && v <= 2100 {
			q.Unit = UnitYear // "in 2016", "2016 Grammy-nominated"
		}
		if y, ok := yearRangeEnd(text, toks, i); ok {
			q.Value, q.Unit, q.Tol = y, UnitYear, 0.5 // "2018–19" ends in 2019
		}
		if q.Unit != UnitYear && Hedged(text, toks, i) {
			q.Tol = math.Max(q.Tol, 0.1*math.Abs(q.Value))
			q.BaseTol = math.Max(q.BaseTol, 0.1*math.Abs(q.Base))
		}
		if q.Unit == "" && strings.HasPrefix(strings.TrimLeft(text[t.End:], " "), "×") {
			q.Unit = "x" // "3×"
		}
		if q.Unit == "time" && timesFactor(text, toks, next+1) {
			q.Unit, q.Last = "x", next // "three times as many", "3 times higher"
		}
		if q.Unit == "x" {
			q.Dim, q.Base, q.BaseTol = DimFactor, q.Value, q.Tol // "3x", "3×", "3 times more"
		}
		q.Change = changeAround(text, toks, i, q.Last)
		out = append(out, q)
	}
	out = append(out, readMultipliers(text, toks)...)
	slices.SortStableFunc(out, func(a, b Quantity) int { return cmp.Compare(a.Tok, b.Tok) })
	for k := 0; k+1 < len(out); k++ {
		// The low end of a range takes the unit and scale of its high end:
		// "between 6 and 11 years", "10 to 20 ms", "10 to 15 million".
		lo, hi := &out[k], out[k+1]
		if lo.RangeTo && lo.Scale == "" && hi.Scale != "" && hi.Tok > lo.Tok {
			// "between 10 and 15 million": the scale too.
			if m := wordMultiplier(hi.Scale); lo.Value*m < hi.Value {
				lo.Value, lo.Tol, lo.Scale = lo.Value*m, lo.Tol*m, hi.Scale
			}
		}
		if lo.RangeTo && lo.Unit == "" && hi.Unit != "" && hi.Tok > lo.Tok {
			lo.Unit, lo.Unit2 = hi.Unit, hi.Unit2
			if hi.Dim != "" && hi.Dim != DimTemperature && hi.Dim != DimDate && hi.Value != 0 {
				f := hi.Base / hi.Value
				lo.Dim, lo.Base, lo.BaseTol = hi.Dim, lo.Value*f, lo.Tol*math.Abs(f)
			}
		}
	}
	// The factors of "from 12,000 to 36,000" come last, so that the two
	// ends of a range stay next to each other.
	return append(out, derivedFactors(text, toks, out)...)
}

// negativeSign reports a minus sign right before the number at byte
// start that is not a dash between numbers: "-15 °C", "a −5% change",
// not "10-20".
func negativeSign(text string, start int) bool {
	r, size := utf8.DecodeLastRuneInString(text[:start])
	if r != '-' && r != '−' {
		return false
	}
	p, _ := utf8.DecodeLastRuneInString(text[:start-size])
	return start-size == 0 || p == ' ' || p == '(' || p == '\n'
}

// degreeSign reports "°" (and spaces) between byte pos and token t, t
// being "C" or "F": "-15 °C".
func degreeSign(text string, pos int, t Token) bool {
	gap := strings.TrimSpace(text[pos:t.Start])
	w := text[t.Start:t.End]
	return gap == "°" && (w == "C" || w == "F")
}

// yearRangeEnd reads a two-digit number after a year and a dash
// ("2018–19", "1914-18") as the year it abbreviates.
func yearRangeEnd(text string, toks []Token, i int) (float64, bool) {
	t := toks[i]
	if i == 0 || t.Kind != Number || len(t.Term) != 2 {
		return 0, false
	}
	p := toks[i-1]
	if p.Kind != Number || len(p.Term) != 4 || p.End > t.Start {
		return 0, false
	}
	switch text[p.End:t.Start] {
	case "-", "–", "/":
	default:
		return 0, false
	}
	start, err1 := strconv.Atoi(p.Term)
	end, err2 := strconv.Atoi(t.Term)
	if err1 != nil || err2 != nil || start < 1000 || start > 2100 {
		return 0, false
	}
	if end <= start%100 && !(start%100 == 99 && end == 0) {
		return 0, false // "2021-03" is a month; "1999-00" ends in 2000
	}
	y := start/100*100 + end
	if y < start {
		y += 100
	}
	return float64(y), true
}

// numberGlue reports how token i+1 continues the number at token i: a
// group of three digits after a space ("50 000", "499 000"), or decimals
// after a raised dot ("1·3", as The Lancet writes them).
func numberGlue(text string, toks []Token, i int) string {
	if i+1 >= len(toks) || toks[i].Kind != Number || toks[i+1].Kind != Number {
		return ""
	}
	gap := text[toks[i].End:toks[i+1].Start]
	next := toks[i+1].Term
	switch gap {
	case "·":
		if !strings.ContainsAny(toks[i].Term, ".") && !strings.ContainsAny(next, ".") {
			return "."
		}
	case " ", "\u00a0", "\u2009", "\u202f":
		if len(next) == 3 && !strings.ContainsAny(next, ".") && len(toks[i].Term) <= 3 && !strings.ContainsAny(toks[i].Term, ".") {
			return " "
		}
	}
	return ""
}

// partOfNumber reports whether token i continues the number before it.
func partOfNumber(text string, toks []Token, i int) bool {
	return i > 0 && numberGlue(text, toks, i-1) != ""
}

// joinedNumber returns the numeric term starting at token i with the
// tokens that continue it.
func joinedNumber(text string, toks []Token, i int) string {
	term := toks[i].Term
	for k := i; ; k++ {
		switch numberGlue(text, toks, k) {
		case ".":
			return term + "." + toks[k+1].Term
		case " ":
			term += toks[k+1].Term
			continue
		}
		return term
	}
}

// leadWords returns the stems of at most two content words within four
// words before token i, skipping scale words and stopping at punctuation.
func leadWords(text string, toks []Token, i int) []string {
	var out []string
	for k := i - 1; k >= 0 && k >= i-4 && len(out) < 2; k-- {
		t := toks[k]
		if t.End <= toks[k+1].Start && strings.ContainsAny(text[t.End:toks[k+1].Start], ".;:!?()[]") {
			break // (CJK bigrams overlap: no gap)
		}
		if t.Kind != Word || t.Stop || wordMultiplier(text[t.Start:t.End]) != 1 {
			continue
		}
		out = append(out, t.Term)
	}
	return out
}

// rangeFollows reports whether the number at token i opens a range: the
// next number follows after "-", "–", "to", or "and" after "between",
// with at most a percent sign or scale word between.
func rangeFollows(text string, toks []Token, i int, read []bool) bool {
	isNumber := func(t Token) bool {
		_, glued := gluedAt(text, t)
		return t.Kind == Number || glued
	}
	k := i + 1
	for k < len(toks) && k <= i+3 && !isNumber(toks[k]) {
		k++
	}
	if k >= len(toks) || !isNumber(toks[k]) || read[k] {
		return false // no number, or one of a date ("2021-03")
	}
	gap := strings.ToLower(text[toks[i].End:toks[k].Start])
	for _, w := range []string{"%", "percent", "thousand", "million", "billion", "$", "€", "£"} {
		gap = strings.ReplaceAll(gap, w, " ")
	}
	switch strings.TrimSpace(gap) {
	case "-", "–", "to", "—":
		return true
	case "and":
		lead := strings.ToLower(text[max(0, toks[i].Start-9):toks[i].Start])
		return strings.Contains(lead, "between")
	}
	return false
}

// Adjacent reports whether b follows a with only spaces or one hyphen
// between ("5-year", "4.1 million").
func Adjacent(text string, a, b Token) bool {
	gap := text[a.End:b.Start]
	if len(gap) > 3 {
		return false
	}
	return strings.Trim(gap, " -\u00a0") == ""
}

// Hedged reports an approximation word just before token i: "about 300",
// "more than 260,000", "~5".
func Hedged(text string, toks []Token, i int) bool {
	lead := strings.ToLower(text[max(0, toks[i].Start-24):toks[i].Start])
	lead = strings.TrimRight(lead, " $€£")
	if strings.HasSuffix(lead, "~") || strings.HasSuffix(lead, "≈") {
		return true
	}
	for _, h := range []string{"about", "approximately", "around", "nearly", "roughly", "almost",
		"over", "more than", "less than", "fewer than", "under", "some", "up to", "at least",
		"estimated", "an estimated", "circa", "ca.", "close to", "upwards of"} {
		// lead == h, or lead ends in " "+h (without building that string)
		if strings.HasSuffix(lead, h) && (len(lead) == len(h) || lead[len(lead)-len(h)-1] == ' ') {
			return true
		}
	}
	return false
}

// IsSymbolUnit reports a unit written as a symbol: percent or a currency.
func IsSymbolUnit(u string) bool { return u == "%" || u == "$" || u == "€" || u == "£" || u == "¥" }

// spelledNumber reads the number words that reports and pages use for
// counts ("two exits", "five Hollywood trades"). "One" is left out: it is
// more often a pronoun than a count.
func spelledNumber(w string) (float64, bool) {
	switch w {
	case "two":
		return 2, true
	case "three":
		return 3, true
	case "four":
		return 4, true
	case "five":
		return 5, true
	case "six":
		return 6, true
	case "seven":
		return 7, true
	case "eight":
		return 8, true
	case "nine":
		return 9, true
	case "ten":
		return 10, true
	case "eleven":
		return 11, true
	case "twelve":
		return 12, true
	case "fifteen":
		return 15, true
	case "twenty":
		return 20, true
	case "thirty":
		return 30, true
	case "forty":
		return 40, true
	case "fifty":
		return 50, true
	case "hundred":
		return 100, true
	case "dozen":
		return 12, true
	}
	return 0, false
}

// wordMultiplier returns the value of a scale word after a number
// ("4.1 million"), or 1.
func wordMultiplier(w string) float64 {
	switch strings.ToLower(w) {
	case "thousand":
		return 1e3
	case "million", "millions", "mn":
		return 1e6
	case "billion", "billions", "bn":
		return 1e9
	case "trillion", "trillions":
		return 1e12
	}
	return 1
}

// gluedNumber is a number with a scale or unit glued to it in one word
// token: "70B", "1.5M", "3k", "120ms", "100km", "3x", "3.6GB".
type gluedNumber struct {
	value    float64
	decimals int
	suffix   string
}

// gluedSuffixes are the suffixes a glued number may carry: the scales
// Amounts reads ("K" glued is a count, not kelvin) and units that cannot
// be read otherwise. Ambiguous ones are left out: "s" ("the 1990s"), "m"
// (metres or millions) and "b" unless after money (gluedAt), "h", and
// anything else ("3D", "2nd", "5G").
var gluedSuffixes = WordSet(`K k M B T bn mn x X pp PP ms km kg mg cm mm kb KB mb MB gb GB tb TB
W kW MW GW TW Wh kWh MWh GWh TWh Hz kHz MHz GHz Mt Gt kt ft lb lbs µg μg ng µm μm nm min mins hr hrs`)

// gluedAt reads token t as a glued number ("Llama-2-70B" is a model, though
// its size is still read). A word right after a digit and a comma or point
// is the tail of a longer literal, not a number of its own; a number part
// that does not parse ("1.2.5M", a version) is none.
func gluedAt(text string, t Token) (gluedNumber, bool) {
	if t.Kind != Word || !isDigitByte(text[t.Start]) {
		return gluedNumber{}, false
	}
	if t.Start >= 2 && (text[t.Start-1] == ',' || text[t.Start-1] == '.') && isDigitByte(text[t.Start-2]) {
		return gluedNumber{}, false // the tail of a longer literal
	}
	w := text[t.Start:t.End]
	n := 0
	for n < len(w) && (isDigitByte(w[n]) || (w[n] == '.' || w[n] == ',') && n+1 < len(w) && isDigitByte(w[n+1])) {
		n++
	}
	suffix := w[n:]
	for _, p := range []string{"'s", "’s"} {
		suffix = strings.TrimSuffix(suffix, p) // "the $2B's"
	}
	if (suffix == "m" || suffix == "b") && strings.ContainsAny(text[max(0, t.Start-3):t.Start], "$€£") {
		suffix = strings.ToUpper(suffix) // "$923m", "$13.3b": money in millions and billions, not metres
	}
	if !gluedSuffixes[suffix] {
		return gluedNumber{}, false
	}
	v, err := strconv.ParseFloat(NormalizeNumber(w[:n]), 64)
	if err != nil || math.IsInf(v, 0) {
		return gluedNumber{}, false
	}
	g := gluedNumber{value: v, suffix: suffix}
	if _, frac, ok := strings.Cut(w[:n], "."); ok {
		g.decimals = len(frac)
	}
	return g, true
}

// scaleWord names a scale value as Quantity.Scale spells it, so that "70B"
// and "70 billion" have the same scale.
func scaleWord(mult float64) string {
	switch mult {
	case 1e3:
		return "thousand"
	case 1e6:
		return "million"
	case 1e9:
		return "billion"
	case 1e12:
		return "trillion"
	}
	return ""
}
