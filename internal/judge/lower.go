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
		if len(x) == len(w) && asciiFoldedIs(w, x) {
			return true
		}
	}
	return false
}

// asciiFoldedIs reports whether ASCII w lowercased is lower, of its length.
func asciiFoldedIs(w, lower string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
