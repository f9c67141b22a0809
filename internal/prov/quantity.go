package prov

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// quantity is a number with a unit found in a sentence.
type quantity struct {
	lo, hi float64
	unit   string
	tok    int  // index of the nearest token
	delta  bool // a change ("by 5%", "5% higher") rather than a level
}

// conflictingNumbers: quantities with the same unit, both levels or both
// changes, whose nearby content words overlap, and whose values are more
// than 10% apart.
func conflictingNumbers(a, b *analysed) (string, bool) {
	for _, qa := range a.qty {
		for _, qb := range b.qty {
			if qa.unit != qb.unit || qa.delta != qb.delta {
				continue
			}
			lo, hi := max(qa.lo, qb.lo), min(qa.hi, qb.hi)
			scale := max(math.Abs(qa.hi), math.Abs(qb.hi), math.Abs(qa.lo), math.Abs(qb.lo))
			if lo <= hi || scale == 0 || (lo-hi)/scale <= 0.1 {
				continue
			}
			if sharedContext(a, qa.tok, b, qb.tok) {
				if e := entityOfNumber(a, b, qa.tok); e != "" {
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
var countVerbs = toSet(`reach reaches reached hit hits total totals totalled totaled stood stands stand amount
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

// quantityRE matches a number or range with an optional currency, scale and
// unit: "14-18%", "$2.5 billion", "70B", "3x", "120 ms", "6,100".
var quantityRE = regexp.MustCompile(`([$€£])?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:\s?(%|[KMBT]\b))?(?:\s?(?:-|–|to)\s?[$€£]?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?))?(?:\s?([KMBT])\b|\s(?i:(thousand|million|billion|trillion))\b)?(?:\s?(%|×|(?i:(percent|per cent|percentage points?|pp|-?fold|times|ms|milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?|kb|mb|gb|tb|km|kg|x))\b))?`)

var scales = map[string]float64{
	"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12,
	"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
}

// unitNames normalises unit spellings.
var unitNames = map[string]string{
	"%": "%", "percent": "%", "per cent": "%",
	"percentage point": "pp", "percentage points": "pp", "pp": "pp",
	"×": "x", "x": "x", "fold": "x", "-fold": "x", "times": "x",
	"ms": "ms", "millisecond": "ms", "milliseconds": "ms",
	"second": "s", "seconds": "s", "minute": "min", "minutes": "min", "hour": "h", "hours": "h",
	"day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month",
	"year": "year", "years": "year", "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "km": "km", "kg": "kg",
}

// changeWords near a number make it a change rather than a level.
var changeWords = toSet(`by increase increased increases increasing decrease decreased decreases rise rose risen
fell fall falls drop dropped drops improve improved improves improvement gain gains gained reduce reduced reduces
reduction boost boosted higher lower more less fewer faster slower up down`)

// quantities finds the numbers with a unit (or a scale) in a sentence. Bare
// numbers (counts, years, section numbers) are skipped: without a unit two
// numbers are rarely about the same thing.
func quantities(text string, toks []token) []quantity {
	var out []quantity
	for _, m := range quantityRE.FindAllStringSubmatchIndex(text, -1) {
		if m[0] > 0 {
			if r, _ := utf8.DecodeLastRuneInString(text[:m[0]]); r == '-' || r == '_' || r == '.' || isWordRune(r) {
				continue // part of a name: "GPT-4", "H100", "v2.1"
			}
		}
		group := func(k int) string {
			if m[2*k] < 0 {
				return ""
			}
			return text[m[2*k]:m[2*k+1]]
		}
		lo, err := strconv.ParseFloat(strings.ReplaceAll(group(2), ",", ""), 64)
		if err != nil {
			continue
		}
		hi := lo
		if g := group(4); g != "" {
			if v, err := strconv.ParseFloat(strings.ReplaceAll(g, ",", ""), 64); err == nil {
				hi = v
			}
		}
		if hi < lo {
			lo, hi = hi, lo
		}
		unit := ""
		switch {
		case group(1) != "":
			unit = group(1)
		case group(7) != "":
			unit = unitNames[strings.ToLower(group(7))]
		case group(3) == "%":
			unit = "%"
		}
		scale := 1.0
		for _, g := range []string{group(3), group(5), strings.ToLower(group(6))} {
			if s, ok := scales[g]; ok {
				scale = s
			}
		}
		if unit == "" && scale == 1 {
			continue
		}
		tok := nearestToken(toks, m[1])
		if unit == "" {
			// A scaled count takes the noun after it as unit: "70B parameters".
			if k := nextContent(toks, m[1]); k >= 0 {
				unit = "n:" + toks[k].stem
			} else {
				continue
			}
		}
		q := quantity{lo: lo * scale, hi: hi * scale, unit: unit, tok: tok}
		for d := -3; d <= 2; d++ {
			if x := tok + d; x >= 0 && x < len(toks) && changeWords[toks[x].word] {
				q.delta = true
			}
		}
		out = append(out, q)
	}
	return out
}

func isWordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
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

// nextContent returns the first content token starting at or after pos.
func nextContent(toks []token, pos int) int {
	for i, t := range toks {
		if t.pos >= pos && t.stem != "" {
			return i
		}
	}
	return -1
}
