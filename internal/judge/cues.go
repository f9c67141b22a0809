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
func cleanClaim(s string) string {
	s = markdownCiteRE.ReplaceAllString(s, " ")
	s = markdownLinkRE.ReplaceAllString(s, "$1")
	s = bracketCiteRE.ReplaceAllString(s, " ")
	s = urlRE.ReplaceAllString(s, " ")
	s = placeholderRE.ReplaceAllString(s, " ")
	return s
}

// negated reports whether tokens (of text) contain a negation cue. "Not
// only" adds rather than denies, "not" before a negative prefix ("not
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
			if next == "only" || strings.HasPrefix(next, "un") || strings.HasPrefix(next, "im") && len(next) > 6 {
				continue
			}
		}
		if w == "without" && comparing(text, toks[:i]) {
			continue // "…over the same model without retrieval": the baseline, not a denial
		}
		if lexical.IsNegation(w) {
			return true
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

// antonymPairs are word pairs whose swap reverses a claim. Both sides are
// stemmed when a judge is built.
var antonymPairs = [][2]string{
	{"increase", "decrease"}, {"increase", "decline"}, {"increase", "reduce"}, {"rise", "fall"},
	{"rise", "drop"}, {"grow", "shrink"}, {"gain", "loss"}, {"gain", "lose"}, {"higher", "lower"},
	{"more", "less"}, {"more", "fewer"}, {"larger", "smaller"}, {"largest", "smallest"},
	{"bigger", "smaller"}, {"above", "below"}, {"before", "after"}, {"earlier", "later"},
	{"first", "last"}, {"maximum", "minimum"}, {"majority", "minority"}, {"positive", "negative"},
	{"win", "lose"}, {"won", "lost"}, {"success", "failure"}, {"succeed", "fail"},
	{"accept", "reject"}, {"approve", "reject"}, {"allow", "prohibit"}, {"allow", "ban"},
	{"legal", "illegal"}, {"true", "false"}, {"alive", "dead"}, {"male", "female"},
	{"north", "south"}, {"east", "west"}, {"strong", "weak"}, {"fast", "slow"},
	{"high", "low"}, {"long", "short"}, {"old", "young"}, {"old", "new"}, {"rich", "poor"},
	{"best", "worst"}, {"better", "worse"}, {"open", "close"}, {"start", "end"},
	{"include", "exclude"}, {"support", "oppose"}, {"agree", "disagree"}, {"same", "different"},
	{"efficient", "inefficient"}, {"effective", "ineffective"}, {"safe", "unsafe"},
	{"significant", "insignificant"}, {"present", "absent"}, {"public", "private"},
	{"internal", "external"}, {"upper", "lower"}, {"overestimate", "underestimate"},
	{"rose", "fell"}, {"rose", "drop"}, {"rose", "decline"}, {"rise", "decline"}, {"raise", "lower"},
	{"raise", "reduce"}, {"grew", "shrank"}, {"grow", "decline"}, {"expand", "shrink"}, {"expand", "shrank"},
	{"improve", "worsen"}, {"improve", "impair"}, {"highest", "lowest"}, {"outperform", "underperform"},
	{"faster", "slower"}, {"longer", "shorter"}, {"greater", "smaller"}, {"gain", "lost"},
	{"increase", "lower"}, {"increase", "drop"}, {"increase", "fell"}, {"rose", "decrease"},
	{"enhance", "reduce"}, {"enhance", "impair"}, {"upregulate", "downregulate"}, {"promote", "inhibit"},
	{"promote", "suppress"}, {"activate", "inhibit"}, {"stronger", "weaker"}, {"older", "younger"},
}

// antonymIndex maps a stemmed word to the stems of its antonyms.
func antonymIndex(an *passage.Analyzer) map[string][]string {
	m := make(map[string][]string)
	for _, p := range antonymPairs {
		a, b := an.Stem(p[0]), an.Stem(p[1])
		m[a] = append(m[a], b)
		m[b] = append(m[b], a)
	}
	return m
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
