package judge

import (
	"math"
	"strconv"
	"strings"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
)

// unitYear marks a calendar year. It cannot collide with a word stem, so
// "24 year old" (unit "year") is not compared with "2012".
const unitYear = "(year)"

// quantity is a number read from text with what it counts.
type quantity struct {
	lit   string  // the literal as written, for reasons ("41.3")
	value float64 // after multipliers: "4.1 million" → 4.1e6
	// unit is "%", a currency symbol, unitYear for a bare four-digit year, the
	// stem of the word that follows ("260,000 volumes" → "volum"), or "".
	unit string
	// tol is the absolute difference still counted as the same number: half
	// a unit of the literal's last digit, or 10% when hedged ("about 300").
	tol float64
	// tok is the index of the number's token in the tokens read.
	tok int
	// unit2 is the stem of a second word after the number, when the first
	// one qualifies it ("12 transformer layers" → unit "transform", unit2
	// "layer").
	unit2 string
	// lead holds the stems of the (at most two) content words within four
	// words before the number ("a batch size of 32" → "size").
	lead []string
	// scale is the scale word after the number ("million"), if any.
	scale string
	// rangeTo marks the low end of a range ("6 to 11", "20%–35%",
	// "between 6 and 11"); the next quantity is the high end.
	rangeTo bool
}

// quantities reads the numbers of text (tokens from the same text).
func quantities(text string, toks []passage.Token) []quantity {
	var out []quantity
	for i, t := range toks {
		var v float64
		decimals := 0
		if t.Kind == passage.Number && partOfNumber(text, toks, i) {
			continue // read with the number it continues
		}
		switch t.Kind {
		case passage.Number:
			term := joinedNumber(text, toks, i)
			var err error
			v, err = strconv.ParseFloat(term, 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				continue // "1.2.3": a version or section number, not a quantity
			}
			if _, frac, ok := strings.Cut(term, "."); ok {
				decimals = len(frac)
			}
		case passage.Word:
			n, ok := spelledNumber(strings.ToLower(text[t.Start:t.End]))
			if !ok {
				continue
			}
			v = n
		default:
			continue
		}
		last := i // the last token of the number ("50 000")
		for t.Kind == passage.Number && numberGlue(text, toks, last) != "" {
			last++
		}
		t.End = toks[last].End
		q := quantity{lit: text[t.Start:t.End], value: v, tok: i}
		mult := 1.0
		next := last + 1
		cjkUnit := ""
		switch rest := text[t.End:]; {
		case strings.HasPrefix(rest, "万"): // "2100万人"
			mult = 1e4
		case strings.HasPrefix(rest, "亿"):
			mult = 1e8
		case strings.HasPrefix(rest, "年"): // "2016年"
			cjkUnit = unitYear
		case next < len(toks) && adjacent(text, toks[last], toks[next]):
			if mult = wordMultiplier(text[toks[next].Start:toks[next].End]); mult != 1 {
				q.scale = strings.ToLower(text[toks[next].Start:toks[next].End])
				next++
			}
		}
		q.value = v * mult
		q.tol = 0.5 * math.Pow10(-decimals) * mult
		before := strings.TrimRight(text[max(0, t.Start-4):t.Start], " ")
		after := text[t.End:min(len(text), t.End+2)]
		switch {
		case cjkUnit != "":
			q.unit = cjkUnit
		case strings.HasSuffix(before, "$"):
			q.unit = "$"
		case strings.HasSuffix(before, "€"):
			q.unit = "€"
		case strings.HasSuffix(before, "£"):
			q.unit = "£"
		case strings.HasPrefix(strings.TrimLeft(after, " "), "%"):
			q.unit = "%"
		case next < len(toks) && adjacent(text, toks[next-1], toks[next]) && toks[next].Kind == passage.Word:
			w := strings.ToLower(text[toks[next].Start:toks[next].End])
			switch {
			case w == "percent" || w == "per" && next+1 < len(toks) && strings.EqualFold(text[toks[next+1].Start:toks[next+1].End], "cent"):
				q.unit = "%"
			case !toks[next].Stop:
				q.unit = toks[next].Term
				if n2 := next + 1; n2 < len(toks) && toks[n2].Kind == passage.Word && !toks[n2].Stop && adjacent(text, toks[next], toks[n2]) {
					q.unit2 = toks[n2].Term
				}
			}
		}
		q.lead = leadWords(text, toks, i)
		q.rangeTo = rangeFollows(text, toks, i)
		if t.Kind == passage.Number && !isSymbolUnit(q.unit) && mult == 1 && decimals == 0 && !strings.Contains(q.lit, ",") && len(t.Term) == 4 && v >= 1000 && v <= 2100 {
			q.unit = unitYear // "in 2016", "2016 Grammy-nominated"
		}
		if y, ok := yearRangeEnd(text, toks, i); ok {
			q.value, q.unit, q.tol = y, unitYear, 0.5 // "2018–19" ends in 2019
		}
		if q.unit != unitYear && hedged(text, toks, i) {
			q.tol = math.Max(q.tol, 0.1*math.Abs(q.value))
		}
		out = append(out, q)
	}
	return out
}

// yearRangeEnd reads a two-digit number after a year and a dash
// ("2018–19", "1914-18") as the year it abbreviates.
func yearRangeEnd(text string, toks []passage.Token, i int) (float64, bool) {
	t := toks[i]
	if i == 0 || t.Kind != passage.Number || len(t.Term) != 2 {
		return 0, false
	}
	p := toks[i-1]
	if p.Kind != passage.Number || len(p.Term) != 4 || p.End > t.Start {
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
	y := start/100*100 + end
	if y < start {
		y += 100
	}
	return float64(y), true
}

// numberGlue reports how token i+1 continues the number at token i: a
// group of three digits after a space ("50 000", "499 000"), or decimals
// after a raised dot ("1·3", as The Lancet writes them).
func numberGlue(text string, toks []passage.Token, i int) string {
	if i+1 >= len(toks) || toks[i].Kind != passage.Number || toks[i+1].Kind != passage.Number {
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
func partOfNumber(text string, toks []passage.Token, i int) bool {
	return i > 0 && numberGlue(text, toks, i-1) != ""
}

// joinedNumber returns the numeric term starting at token i with the
// tokens that continue it.
func joinedNumber(text string, toks []passage.Token, i int) string {
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
func leadWords(text string, toks []passage.Token, i int) []string {
	var out []string
	for k := i - 1; k >= 0 && k >= i-4 && len(out) < 2; k-- {
		t := toks[k]
		if t.End <= toks[k+1].Start && strings.ContainsAny(text[t.End:toks[k+1].Start], ".;:!?()[]") {
			break // (CJK bigrams overlap: no gap)
		}
		if t.Kind != passage.Word || t.Stop || wordMultiplier(text[t.Start:t.End]) != 1 {
			continue
		}
		out = append(out, t.Term)
	}
	return out
}

// rangeFollows reports whether the number at token i opens a range: the
// next number follows after "-", "–", "to", or "and" after "between",
// with at most a percent sign or scale word between.
func rangeFollows(text string, toks []passage.Token, i int) bool {
	k := i + 1
	for k < len(toks) && k <= i+3 && toks[k].Kind != passage.Number {
		k++
	}
	if k >= len(toks) || toks[k].Kind != passage.Number {
		return false
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

// adjacent reports whether b follows a with only spaces or one hyphen
// between ("5-year", "4.1 million").
func adjacent(text string, a, b passage.Token) bool {
	gap := text[a.End:b.Start]
	if len(gap) > 3 {
		return false
	}
	return strings.Trim(gap, " -\u00a0") == ""
}

// hedged reports an approximation word just before token i: "about 300",
// "more than 260,000", "~5".
func hedged(text string, toks []passage.Token, i int) bool {
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

// numberCheck compares the claim's quantities with a passage's.
type numberCheck struct {
	total, matched int
	// conflict is set when a claim number is absent from the passage while
	// the passage states a different number of the same unit.
	conflict string
}

func checkNumbers(claim, evidence []quantity) numberCheck {
	nc := numberCheck{total: len(claim)}
	for _, q := range claim {
		found := false
		var rival *quantity
		for k := range evidence {
			e := &evidence[k]
			if math.Abs(q.value-e.value) <= q.tol+1e-9*math.Max(1, math.Abs(q.value)) {
				found = true
				break
			}
			if rival == nil && q.unit != "" && e.unit == q.unit {
				rival = e
			}
		}
		switch {
		case found:
			nc.matched++
		case rival != nil && nc.conflict == "":
			nc.conflict = q.lit + " vs " + rival.lit
		}
	}
	return nc
}

func isSymbolUnit(u string) bool { return u == "%" || u == "$" || u == "€" || u == "£" }

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
