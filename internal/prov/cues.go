package prov

import (
	"strings"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// cues are what a sentence holds that compare needs in it, or in the
// other sentence of a pair, to find a conflict: a negation cue (a
// polarity conflict reads a negated scope of one sentence against the
// other), a change word up or down (a direction conflict needs opposite
// ones, one in each), a number (a number conflict needs one in each).
// They are read from the tokens the sentence is analysed with, so the
// pairs that cannot conflict are told apart before either sentence is
// completed: most candidate pairs are such pairs.
type cues uint8

const (
	cueNegation cues = 1 << iota // a word negationScopes may start a scope at
	cueUp                        // a change word up (directions)
	cueDown                      // a change word down
	cueNumber                    // something Amounts or Quantities may read
)

// cuesOf reads the cues of a sentence: text, lexical's tokens of it and
// the detector's (tokenize). Each is a necessary condition only ("not"
// in "not only" counts): cues.mayConflict may let through a pair compare
// finds nothing in, never the other way.
func cuesOf(text string, ltoks []lexical.Token, toks []token) cues {
	var c cues
	if strings.ContainsAny(text, "0123456789") {
		c |= cueNumber // Amounts reads digits only
	} else {
		for _, t := range ltoks {
			if t.Kind == lexical.Number {
				c |= cueNumber
				break
			}
		}
	}
	for _, tk := range toks {
		// negationScopes starts a scope at a negation word, "non" or
		// "fail(s|ed) to".
		switch w := tk.word; {
		case lexical.IsNegation(w) || w == "non" || w == "fail":
			c |= cueNegation
		case c&cueNumber == 0 && lexical.IsQuantityWord(w):
			// The detector's word is lexical's lower-cased (a "…n't"
			// word is split, and a quantity word has no apostrophe).
			c |= cueNumber
		}
		if tk.stem == "" {
			continue
		}
		switch d := directions[tk.stem]; {
		case d > 0:
			c |= cueUp
		case d < 0:
			c |= cueDown
		}
	}
	return c
}

// mayConflict reports whether compare may find a conflict between
// sentences with cues c and d, compared for polarity and direction, for
// numbers, or both (candidate): a negation in either, opposite change
// words, or numbers in both.
func (c cues) mayConflict(d cues, polarity, numbers bool) bool {
	if polarity && ((c|d)&cueNegation != 0 || c&cueUp != 0 && d&cueDown != 0 || c&cueDown != 0 && d&cueUp != 0) {
		return true
	}
	return numbers && c&d&cueNumber != 0
}
