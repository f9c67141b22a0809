package lexical

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// Amount is a quantity as the contradiction detector compares them: a
// level or a change, one number or a range, in a normalised unit. It is the
// second view of this file's reader beside Quantity (the judge's view, one
// number at a time with a tolerance and the counted word as unit): both
// read scale words with wordMultiplier, currencies and percent signs the
// same way, and take their words from Tokenize.
type Amount struct {
	// Lo and Hi bound the value after scale words and suffixes
	// ("14-18%" → 14, 18; "70B" → 7e10, 7e10); Lo <= Hi.
	Lo, Hi float64
	// Unit is normalised: "%" (percent, per cent), "pp" (percentage
	// points), "x" (3x, 3×, -fold, times), a currency symbol, "°C", "°F",
	// "ms", "s", "min", "h", "day", "week", "month", "year", "kb", "mb",
	// "gb", "tb", "km", "kg", "K" (kelvin: "300 K", where "300K" is a
	// count); for a scaled count without a unit, "n:" and
	// the stem of the counted word ("70B parameters" → "n:paramet").
	Unit string
	// Delta marks a change ("by 5%", "5% higher", "rose 3x") rather than
	// a level ("accuracy of 92%").
	Delta bool
	// Start and End are the byte span of the amount in the text.
	Start, End int
	// Tok is the index of the last token starting before End.
	Tok int
}

// amountNumber is one literal: "6,100", "2.5", "70".
const amountNumber = `\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`

// amountRE matches a number or range with an optional sign, currency,
// scale and unit: "14-18%", "$2.5 billion", "70B", "3x", "120 ms",
// "-15 °C", "5 percentage points".
var amountRE = lazyregexp.New(`(?P<sign>[-−])?(?P<cur>[$€£])?(?P<lo>` + amountNumber + `)` +
	`(?:(?P<suf1>%|°\s?[CF]\b|℃|[KMBTk]\b|bn\b|mn\b)|\s(?P<spaced>%|K\b|[MBT]\b|bn\b|mn\b))?` +
	`(?:\s?(?:-|–|—|−|to)\s?(?P<sign2>[-−+])?[$€£]?(?P<hi>` + amountNumber + `))?` +
	`(?:\s?(?P<suf2>[KMBTk]|bn|mn)\b|\s(?i:(?P<scale>thousand|million|billion|trillion))\b)?` +
	`(?:\s?(?P<unit>%|×|°\s?[CF]\b|℃|℉|(?i:percent|per cent|percentage points?|pp|-?fold|times|ms|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?|kb|mb|gb|tb|km|kg|x)\b))?`)

// The numbers of amountRE's named groups, in the order they open:
// constants, so that the expression is not compiled at start-up to look
// them up (TestAmountGroups checks them against SubexpIndex).
const (
	reSign = iota + 1
	reCur
	reLo
	reSuf1
	reSpaced
	reSign2
	reHi
	reSuf2
	reScale
	reUnit
)

var (
	reFoldNo = lazyregexp.New(`(?i)\b(two|three|four|five|six|seven|eight|nine|ten|twelve|twenty|fifty|hundred)(?:-|\s)?fold\b`)
)

// suffixScale is the value of a scale glued to or right after a number
// ("70B", "1.5M", "3k", "2 bn").
func suffixScale(s string) float64 {
	switch s {
	case "K", "k":
		return 1e3
	case "M", "mn":
		return 1e6
	case "B", "bn":
		return 1e9
	case "T":
		return 1e12
	}
	return 1
}

// amountUnit normalises a unit spelling.
func amountUnit(s string) string {
	l := strings.ToLower(s)
	switch {
	case l == "%" || l == "percent" || l == "per cent":
		return "%"
	case strings.HasPrefix(l, "percentage point") || l == "pp":
		return "pp"
	case l == "×" || l == "x" || l == "times" || strings.HasSuffix(l, "fold"):
		return "x"
	case strings.HasPrefix(l, "°"), l == "℃", l == "℉":
		if strings.HasSuffix(l, "f") || l == "℉" {
			return "°F"
		}
		return "°C"
	case l == "ms" || strings.HasPrefix(l, "millisecond"):
		return "ms"
	case strings.HasPrefix(l, "second"):
		return "s"
	case strings.HasPrefix(l, "minute"):
		return "min"
	case strings.HasPrefix(l, "hour"):
		return "h"
	}
	return strings.TrimSuffix(l, "s") // day, week, month, year; kb, mb, gb, tb, km, kg
}

// changeWords near a number make it a change rather than a level.
var changeWords = WordSet(`by increase increased increases increasing decrease decreased decreases rise rose risen
fell fall falls drop dropped drops improve improved improves improvement gain gains gained reduce reduced reduces
reduction boost boosted higher lower more less fewer faster slower up down`)

// WordSet is the set of the space-separated words of s, for word lists
// written as one string.
func WordSet(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// Amounts reads the amounts of text (toks are Tokenize(text)): numbers
// and ranges with a unit or a scale. Bare numbers (counts, years, section
// numbers) are left out: without a unit two numbers are rarely about the
// same thing. A number glued to a name ("GPT-4", "H100", "v2.1") is not
// an amount.
func Amounts(text string, toks []Token) []Amount {
	if !strings.ContainsAny(text, "0123456789") {
		return amountsSpelled(text, toks, nil)
	}
	var out []Amount
	for pos := 0; pos < len(text); {
		m := amountRE.FindStringSubmatchIndex(text[pos:])
		if m == nil {
			break
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += pos
			}
		}
		pos = m[1]
		group := func(k int) string {
			if m[2*k] < 0 {
				return ""
			}
			return text[m[2*k]:m[2*k+1]]
		}
		if m[0] > 0 {
			if r, _ := utf8.DecodeLastRuneInString(text[:m[0]]); r == '-' || r == '_' || r == '.' || isNameRune(r) {
				// Part of a name ("GPT-4", "H100", "v2.1") or of a number
				// ("0 .05 − 0.1%"): read on after its first number.
				pos = m[2*reLo+1]
				continue
			}
		}
		if group(reSign) != "" {
			if r, _ := utf8.DecodeLastRuneInString(strings.TrimRight(text[:m[0]], " ")); r >= '0' && r <= '9' {
				// A minus after a number is an operator or an exponent
				// ("10 −6"), not a sign: read the number after it.
				pos = m[2*reSign+1]
				continue
			}
		}
		lo, err := strconv.ParseFloat(NormalizeNumber(group(reLo)), 64)
		if err != nil {
			continue
		}
		if group(reSign) != "" {
			lo = -lo
		}
		hi := lo
		if g := group(reHi); g != "" {
			if v, err := strconv.ParseFloat(NormalizeNumber(g), 64); err == nil {
				hi = v
				if s := group(reSign2); s == "-" || s == "−" {
					hi = -v
				}
			}
		}
		if hi < lo && strings.Contains(text[m[2*reLo+1]:m[2*reHi]], "−") {
			// "10 −6" is a power of ten in PDF text, not a range.
			pos = m[2*reLo+1]
			continue
		}
		if hi < lo {
			lo, hi = hi, lo
		}
		suf := group(reSuf1)
		unit := ""
		switch sp := group(reSpaced); {
		case sp == "K":
			unit = "K" // "300 K" is a temperature; "300K" a count
		case sp != "":
			suf = sp
		}
		switch {
		case group(reCur) != "":
			unit = group(reCur)
		case group(reUnit) != "":
			unit = amountUnit(group(reUnit))
		case suf == "%":
			unit = "%"
		case strings.HasPrefix(suf, "°") || suf == "℃": // "-10°C to +50°C"
			unit = amountUnit(suf)
		}
		scale := 1.0
		for _, s := range []float64{suffixScale(suf), suffixScale(group(reSuf2)), wordMultiplier(group(reScale))} {
			if s != 1 {
				scale = s
			}
		}
		if group(reCur) != "" && scale == 1 && m[1] < len(text) && (text[m[1]] == 'm' || text[m[1]] == 'b') {
			if r, _ := utf8.DecodeRuneInString(text[m[1]+1:]); !isNameRune(r) {
				scale = suffixScale(strings.ToUpper(text[m[1] : m[1]+1]))
				m[1]++ // "$923m", "£89m", "$13.3b": money in millions and billions
			}
		}
		if unit == "" && scale == 1 {
			continue
		}
		a := Amount{Lo: lo * scale, Hi: hi * scale, Unit: unit, Start: m[0], End: m[1]}
		if math.IsInf(a.Lo, 0) || math.IsInf(a.Hi, 0) {
			continue // 300 digits and a trillion
		}
		if a.Unit == "" {
			// A scaled count takes the noun after it as unit: "70B parameters".
			k := nextCounted(text, toks, m[1])
			if k < 0 {
				continue
			}
			a.Unit = "n:" + toks[k].Term
		}
		out = append(out, a)
	}
	return amountsSpelled(text, toks, out)
}

// amountsSpelled adds the spelled multipliers ("three-fold") to the amounts
// read from digits, and points every amount at its token and says whether
// it is a change.
func amountsSpelled(text string, toks []Token, out []Amount) []Amount {
	if strings.Contains(text, "fold") || strings.Contains(text, "FOLD") {
		for _, m := range reFoldNo.FindAllStringSubmatchIndex(text, -1) {
			v, _ := spelledNumber(strings.ToLower(text[m[2]:m[3]]))
			out = append(out, Amount{Lo: v, Hi: v, Unit: "x", Start: m[0], End: m[1]})
		}
	}
	for i := range out {
		out[i].Tok = lastTokenBefore(toks, out[i].End)
		out[i].Delta = changeNear(text, toks, out[i].Tok)
	}
	// In text order: the spelled "-fold" ones are read in a second pass.
	slices.SortStableFunc(out, func(a, b Amount) int { return cmp.Compare(a.Start, b.Start) })
	return out
}

func isNameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// lastTokenBefore returns the index of the last token starting before pos.
func lastTokenBefore(toks []Token, pos int) int {
	k := 0
	for i, t := range toks {
		if t.Start >= pos {
			break
		}
		k = i
	}
	return k
}

// nextCounted returns the first content word at or after pos in the same
// clause: not a stop word, a negation, a single letter or mostly digits.
func nextCounted(text string, toks []Token, pos int) int {
	for i, t := range toks {
		if t.Start < pos {
			continue
		}
		if strings.ContainsAny(text[pos:t.Start], ",;:()[]") {
			return -1
		}
		if t.Kind != Word || t.Stop || len(t.Term) < 2 {
			continue
		}
		if w := strings.ToLower(text[t.Start:t.End]); IsNegation(w) || mostlyDigits(w) {
			continue
		}
		return i
	}
	return -1
}

func mostlyDigits(w string) bool {
	digits := 0
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			digits++
		}
	}
	return digits > 0 && digits*2 >= len(w)
}

// changeNear reports a change word from three tokens before token i to two
// after it, in the same stretch of text: a comma, semicolon, colon or
// bracket between them ends the search ("revenue of $4.1 billion, up 28%"
// is a level beside a change).
func changeNear(text string, toks []Token, i int) bool {
	if i < 0 || i >= len(toks) {
		return false
	}
	for x := i; x >= max(i-3, 0); x-- {
		if x < i && punctBetween(text, toks[x], toks[x+1]) {
			break
		}
		if t := toks[x]; t.Kind == Word && changeWords[strings.ToLower(text[t.Start:t.End])] {
			return true
		}
	}
	for x := i + 1; x <= i+2 && x < len(toks); x++ {
		if punctBetween(text, toks[x-1], toks[x]) {
			break
		}
		if t := toks[x]; t.Kind == Word && changeWords[strings.ToLower(text[t.Start:t.End])] {
			return true
		}
	}
	return false
}

// punctBetween reports a comma, semicolon, colon or bracket between two
// tokens.
func punctBetween(text string, a, b Token) bool {
	return a.End <= b.Start && strings.ContainsAny(text[a.End:b.Start], ",;:()[]")
}
