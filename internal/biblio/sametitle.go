package biblio

import (
	"slices"
	"strings"
)

// minTruncatedWords is the fewest words a title cut short (by a reference
// list, a page title, an ellipsis) keeps for its words to still name the
// longer title they begin.
const minTruncatedWords = 5

// TitlesDisagree reports whether the title a report gives a cited work
// (stated) and the title the work resolved to (found) name different
// papers, under the strict title test: after normalization (NormalizeTitle)
// they agree when their keys are equal, when they are one typo apart as
// Index.Match's fuzzy step accepts, when one is the other's main title
// (its part before ": " or " - "), when one is the start of the other and
// keeps at least five words and the words it drops are not a number, a
// Roman numeral or a single letter ("Learning Widgets from Small Data" is
// not "… Data II"), or when the found title, of two words or more, stands
// whole inside the stated one (a reference list's title often keeps its
// authors or venue: "Li, B. Dense widget retrieval"). Anything else
// disagrees: a stated title that is only part of the found one is another
// paper ("Deep residual learning" is not "… for image recognition"). An
// empty title disagrees with nothing: there is nothing to compare.
func TitlesDisagree(stated, found string) bool {
	a, b := NormalizeTitle(stated), NormalizeTitle(found)
	if a == "" || b == "" {
		return false
	}
	ka, kb := strings.ReplaceAll(a, " ", ""), strings.ReplaceAll(b, " ", "")
	if ka == kb {
		return false
	}
	ra, rb := []rune(ka), []rune(kb)
	if min(len(ra), len(rb)) >= minFuzzyRunes {
		k := allowedEdits(max(len(ra), len(rb)))
		if d := boundedLevenshtein(ra, rb, k); d <= k && fuzzyAcceptable(ra, rb, strings.Fields(a), strings.Fields(b)) {
			return false
		}
	}
	if mainTitle(stated) == kb || mainTitle(found) == ka {
		return false
	}
	if wf := strings.Fields(b); len(wf) >= 2 && len(kb) >= minFuzzyRunes/2 && strings.Contains(" "+a+" ", " "+b+" ") {
		return false
	}
	wa, wb := strings.Fields(a), strings.Fields(b)
	if len(wa) > len(wb) {
		wa, wb = wb, wa
	}
	if len(wa) >= minTruncatedWords && len(wa) < len(wb) && slices.Equal(wa, wb[:len(wa)]) {
		for _, w := range wb[len(wa):] {
			if len([]rune(w)) == 1 || romanNumerals[w] || strings.ContainsAny(w, "0123456789") {
				return true
			}
		}
		return false
	}
	return true
}

// mainTitle is the key of a title's part before its subtitle (": ", " - ",
// " — "), or "" when it has none.
func mainTitle(t string) string {
	i := -1
	for _, sep := range []string{": ", " - ", " – ", " — "} {
		if j := strings.Index(t, sep); j > 0 && (i < 0 || j < i) {
			i = j
		}
	}
	if i < 0 {
		return ""
	}
	return TitleKey(t[:i])
}
