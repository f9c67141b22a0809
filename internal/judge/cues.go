package judge

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// Citation markers and links are not part of what a claim asserts: "[7]"
// must not become a number the source has to repeat.
var (
	markdownCiteRE = lazyregexp.New(`\[\[?\^?\d+(?:\s*[,–-]\s*\d+)*\]?\]\([^)\s]*\)`)
	markdownLinkRE = lazyregexp.New(`\[([^\]]*)\]\([^)\s]+\)`)
	bracketCiteRE  = lazyregexp.New(`\[\^?\d+(?:\s*[,–-]\s*\^?\d+)*\]|【\d+[^】]*】`)
	urlRE          = lazyregexp.New(`https?://[^\s)\]>]+`)
	// Citation-Integrity's placeholders: "[<|multi_cit|>]", "(<|other_cit|>)".
	placeholderRE = lazyregexp.New(`[\[(]?<\|[a-z_]*\|>[\])]?`)
)

// cleanClaim removes citation markers, links and URLs from a claim.
// An expression runs only on a claim holding the text every match of it
// holds ("](" for a markdown link, "<|" for a placeholder): most claims
// have none of them.
func cleanClaim(s string) string {
	if strings.Contains(s, "](") {
		s = markdownCiteRE.ReplaceAllString(s, " ")
		s = markdownLinkRE.ReplaceAllString(s, "$1")
	}
	if strings.ContainsAny(s, "[【") {
		s = bracketCiteRE.ReplaceAllString(s, " ")
	}
	if strings.Contains(s, "http") {
		s = urlRE.ReplaceAllString(s, " ")
	}
	if strings.Contains(s, "<|") {
		s = placeholderRE.ReplaceAllString(s, " ")
	}
	return s
}

// negated reports whether tokens (of text) contain a negation cue, or
// "hardly any" and "scarcely ever". "Not only" adds rather than denies, "not" before a negative prefix ("not
// unusual") affirms, and "without" after a comparison word names the
// baseline: none of them is a cue.
func negated(text string, toks []passage.Token) bool {
	for i, t := range toks {
		if t.Kind != passage.Word {
			continue
		}
		w := strings.ToLower(text[t.Start:t.End])
		if w == "not" && i+1 < len(toks) {
			// "not only" adds; "not unusual", "not impossible" affirm.
			next := strings.ToLower(text[toks[i+1].Start:toks[i+1].End])
			if next == "only" || negativePrefix(next) {
				continue
			}
		}
		if w == "without" && comparing(text, toks[:i]) {
			continue // "…over the same model without retrieval": the baseline, not a denial
		}
		if (w == "hardly" || w == "scarcely") && i+1 < len(toks) {
			// "hardly any households" says what "almost no household" says.
			switch strings.ToLower(text[toks[i+1].Start:toks[i+1].End]) {
			case "any", "ever", "anyone", "anything":
				return true
			}
		}
		if lexical.IsNegation(w) {
			return true
		}
	}
	return false
}

// negativePrefix reports a word whose prefix makes it the opposite of the
// rest of it ("unusual", "impossible", "insignificant", "dislike"), which
// "not" affirms. The opposites table decides, so that "not improve" and
// "not increase" stay negations.
func negativePrefix(w string) bool {
	for _, p := range []string{"un", "im", "in", "ir", "il", "dis", "non"} {
		if rest, ok := strings.CutPrefix(w, p); ok && len(rest) > 2 {
			if lexical.OppositeTable().Opposed(lexical.Stem(w), lexical.Stem(rest)) {
				return true
			}
		}
	}
	return false
}

// comparing reports a comparison word among toks: "over", "than",
// "compared", "versus", "vs", "relative". After one, "without" names the
// condition compared against ("than those without known infection").
func comparing(text string, toks []passage.Token) bool {
	for _, t := range toks {
		switch strings.ToLower(text[t.Start:t.End]) {
		case "over", "than", "compared", "versus", "vs", "relative":
			return true
		}
	}
	return false
}

// entities returns the claim's named entities, each as its content terms:
// runs of capitalized words and acronyms. A lone capitalized word that
// opens the claim is skipped ("Parents may…"), unless it is an acronym or
// has inner capitals or digits ("FFP", "iPhone", "GPT4").
func entities(text string, toks []passage.Token) [][]string {
	var out [][]string
	var cur []string
	curLen, curStrong := 0, false
	flush := func(atStart bool) {
		if len(cur) > 0 && !(atStart && curLen == 1 && !curStrong) {
			out = append(out, cur)
		}
		cur, curLen, curStrong = nil, 0, false
	}
	runStart := true
	first := true // no word seen yet: the next capitalized word opens the claim
	var prev *passage.Token
	for i := range toks {
		t := toks[i]
		if t.Kind != passage.Word {
			flush(runStart)
			prev = nil
			continue
		}
		surface := text[t.Start:t.End]
		r, _ := utf8.DecodeRuneInString(surface)
		capital := unicode.IsUpper(r)
		if !capital || (prev != nil && strings.TrimSpace(text[prev.End:t.Start]) != "") {
			flush(runStart)
		}
		if capital {
			if len(cur) == 0 {
				runStart = first
			}
			curLen++
			if strongName(surface) {
				curStrong = true
			}
			if !t.Stop || strongName(surface) { // "WHO", "US" are names
				cur = append(cur, t.Term)
			}
			prev = &toks[i]
		} else {
			prev = nil
		}
		first = false
	}
	flush(runStart)
	return out
}

// strongName reports an acronym or a word with inner capitals or digits.
func strongName(w string) bool {
	upper, letters := 0, 0
	for i, r := range w {
		if unicode.IsDigit(r) && i > 0 {
			return true
		}
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
				if i > 0 {
					return true
				}
			}
		}
	}
	return letters >= 2 && upper == letters
}
