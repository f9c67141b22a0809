package lexical

import "strings"

// IsQuantityWord reports whether Quantities or Amounts may read a
// quantity from the word lower (lower-cased) in a text with no digit: a
// spelled count ("two", "dozen"), a fraction ("half", "thirds"), a
// multiplier ("doubled", "halving"), a "-fold" word ("threefold",
// "fold") or "magnitude" ("an order of magnitude"). A text with no digit,
// no Number token and none of these words holds no quantity either reads,
// so a caller that only needs to know whether it might skips reading it.
// (The fraction and multiplier words are those of fractionWords and
// multiplierWords, listed again: a switch costs less than two lookups.)
func IsQuantityWord(lower string) bool {
	if len(lower) < 3 {
		return false
	}
	if _, ok := spelledNumber(lower); ok {
		return true
	}
	switch lower {
	case "magnitude",
		// fractionWords
		"half", "halves", "third", "thirds", "quarter", "quarters", "fourth", "fourths",
		"fifth", "fifths", "sixth", "sixths", "eighth", "eighths", "tenth", "tenths",
		// multiplierWords
		"doubled", "doubling", "doubles", "tripled", "tripling", "triples", "trebled",
		"quadrupled", "quadrupling", "quadruples", "halved", "halving":
		return true
	}
	return strings.HasSuffix(lower, "fold")
}
