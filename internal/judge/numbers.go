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
}

// quantities reads the numbers of text (tokens from the same text).
func quantities(text string, toks []passage.Token) []quantity {
	var out []quantity
	for i, t := range toks {
		var v float64
		decimals := 0
		switch t.Kind {
		case passage.Number:
			var err error
			v, err = strconv.ParseFloat(t.Term, 64)
			if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
				continue // "1.2.3": a version or section number, not a quantity
			}
			if _, frac, ok := strings.Cut(t.Term, "."); ok {
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
		q := quantity{lit: text[t.Start:t.End], value: v}
		mult := 1.0
		next := i + 1
		cjkUnit := ""
		switch rest := text[t.End:]; {
		case strings.HasPrefix(rest, "万"): // "2100万人"
			mult = 1e4
		case strings.HasPrefix(rest, "亿"):
			mult = 1e8
		case strings.HasPrefix(rest, "年"): // "2016年"
			cjkUnit = unitYear
		case next < len(toks) && adjacent(text, toks[i], toks[next]):
			if mult = wordMultiplier(text[toks[next].Start:toks[next].End]); mult != 1 {
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
			}
		}
		if t.Kind == passage.Number && !isSymbolUnit(q.unit) && mult == 1 && decimals == 0 && !strings.Contains(q.lit, ",") && len(t.Term) == 4 && v >= 1000 && v <= 2100 {
			q.unit = unitYear // "in 2016", "2016 Grammy-nominated"
		}
		if q.unit != unitYear && hedged(text, toks, i) {
			q.tol = math.Max(q.tol, 0.1*math.Abs(q.value))
		}
		out = append(out, q)
	}
	return out
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
