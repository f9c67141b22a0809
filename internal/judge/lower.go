package judge

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// lowerIn reports whether strings.ToLower(w) is one of words, ASCII words
// in lower case, without making the lower-case copy of a capitalized w:
// the cue readers test every word of a sentence against a few such words.
func lowerIn(w string, words ...string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return slices.Contains(words, strings.ToLower(w))
		}
	}
	for _, x := range words {
		if strings.EqualFold(w, x) { // ASCII against ASCII: case folding is lowercasing
			return true
		}
	}
	return false
}
