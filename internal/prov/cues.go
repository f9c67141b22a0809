package prov

import (
	"slices"
	"strings"

	"github.com/claimtrace/claimtrace/internal/lexical"
)

// cues are what a sentence holds that compare needs in it, or in the
// other sentence of a pair, to find a conflict: a change word up or down
// (a direction conflict needs opposite ones, one in each), a number (a
// number conflict needs one in each). With the heads of its negated
// scopes (negationHeads) they are read from the tokens the sentence is
// analysed with, so the pairs that cannot conflict (mayConflict) are told
// apart before either sentence is completed: most candidate pairs are
// such pairs.
type cues uint8

const (
	cueUp     cues = 1 << iota // a change word up (direction)
	cueDown                    // a change word down
	cueNumber                  // something Amounts or Quantities may read
)

// cuesOf reads the cues of a sentence: text, lexical's tokens of it and
// the detector's (tokenize). Each is a necessary condition only (a change
// word may be negated): mayConflict may let through a pair compare finds
// nothing in, never the other way. negation reports a word a negated
// scope may start at (negationScopes), worth looking for its heads.
func cuesOf(text string, ltoks []lexical.Token, toks []token) (c cues, negation bool) {
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
		if c&cueNumber == 0 && lexical.IsQuantityWord(tk.word) {
			// The detector's word is lexical's lower-cased (a "…n't"
			// word is split, and a quantity word has no apostrophe).
			c |= cueNumber
		}
		// negationScopes starts a scope at a negation word (which has
		// no stem: stemOf), "non" or "fail(s|ed) to".
		negation = negation || tk.word == "non" || tk.word == "fail"
		if tk.stem == "" {
			negation = negation || lexical.IsNegation(tk.word)
			continue
		}
		switch d := direction(tk.stem); {
		case d > 0:
			c |= cueUp
		case d < 0:
			c |= cueDown
		}
	}
	return c, negation
}

// negationHeads appends to out the stems of the heads of the negated
// scopes of toks (negationScopes): a polarity conflict reads one of them
// in the other sentence. scope and head are scratch space, all false and
// as long as toks.
func negationHeads(out []string, toks []token, scope, head []bool) []string {
	markNegationScopes(scope, head, toks)
	for i, h := range head {
		if h {
			out = append(out, toks[i].stem)
		}
	}
	return out
}

// falses returns b as n false values.
func falses(b []bool, n int) []bool {
	b = slices.Grow(b[:0], n)[:n]
	clear(b)
	return b
}

// mayConflict reports whether compare may find a conflict between
// sentences a and b, compared for polarity and direction, for numbers, or
// both (candidate): the head of a negated scope of either among the
// other's stems (negatedAssertion looks for the scope's stems in the
// other sentence, the head first), opposite change words, or numbers in
// both.
func mayConflict(a, b *indexed, polarity, numbers bool) bool {
	if polarity && (a.cues&cueUp != 0 && b.cues&cueDown != 0 || a.cues&cueDown != 0 && b.cues&cueUp != 0 ||
		anyIn(a.heads, b.stems) || anyIn(b.heads, a.stems)) {
		return true
	}
	return numbers && a.cues&b.cues&cueNumber != 0
}

// anyIn reports whether one of stems is in sorted.
func anyIn(stems, sorted []string) bool {
	for _, st := range stems {
		if _, ok := slices.BinarySearch(sorted, st); ok {
			return true
		}
	}
	return false
}
