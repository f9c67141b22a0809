package lexical

import "strings"

// IsQuantityWord reports whether Quantities or Amounts may read a
// quantity from the word lower (lower-cased) in a text with no digit: a
// spelled count ("two", "dozen"), a fraction ("half", "thirds"), a
// multiplier ("doubled", "halving"), a "-fold" word ("threefold",
// "fold") or "magnitude" ("an order of magnitude"). A text with no digit,
// no Number token and none of these words holds no quantity either reads,
// so a caller that only needs to know whether it might skips reading it.
func IsQuantityWord(lower string) bool {
	if len(lower) < 3 {
		return false
	}
	if _, ok := spelledNumber(lower); ok {
		return true
	}
	if fractionWords[lower] != 0 || multiplierWords[lower] != 0 {
		return true
	}
	return strings.HasSuffix(lower, "fold") || lower == "magnitude"
}
