package factcheck

import (
	"strings"
	"unicode"

	"github.com/claimtrace/claimtrace/internal/judge"
	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// Phrase lists of CheckWorthy. They are matched on the lowercased claim
// with word boundaries (see hasPhrase).
var (
	firstPersonOpinion = []string{"i think", "i believe", "i feel", "we believe", "we think", "we feel",
		"in my opinion", "in our opinion", "in my view", "in our view", "personally", "arguably",
		"to my mind", "it is my view", "we argue", "i argue"}
	evaluative = []string{"remarkable", "impressive", "exciting", "fascinating", "amazing", "beautiful",
		"interesting", "unfortunately", "fortunately", "promising", "crucial", "essential", "vital",
		"invaluable", "paramount", "groundbreaking", "revolutionary", "game-changer", "game changer",
		"compelling", "elegant", "disappointing", "terrible", "excellent", "wonderful", "stunning"}
	hedges = []string{"may", "might", "could", "possibly", "perhaps", "likely", "unlikely", "potentially",
		"probably", "presumably", "appears to", "appear to", "seems to", "seem to", "it seems",
		"is thought to", "is believed to", "conceivably", "plausibly"}
	recommendations = []string{"should", "must", "ought to", "we recommend", "it is recommended",
		"is advisable", "it is advisable", "is recommended", "recommended to", "it is important to",
		"it is essential to", "it is crucial to", "needs to", "need to", "make sure", "be sure to",
		"consider", "let us", "let's"}
	imperatives = []string{"use", "ensure", "avoid", "consider", "try", "remember", "make", "keep",
		"check", "choose", "focus", "prioritize", "prioritise", "invest", "adopt", "implement",
		"review", "monitor", "verify", "follow", "don't", "note", "see", "look", "begin", "stop"}
	// nounFollowers after a leading imperative-like word mean it is a noun:
	// "Use of antibiotics rose…", "Review articles are…".
	nounFollowers = []string{"of", "is", "are", "was", "were", "has", "have", "had", "rate", "rates", "cases", "articles"}
	attributions  = []string{"according to", "reported", "reports that", "announced", "stated", "said",
		"says", "found that", "find that", "finds that", "showed that", "shows that", "show that",
		"demonstrated", "published", "estimated", "estimates", "concluded", "observed", "measured",
		"documented", "confirmed", "revealed", "released", "introduced", "proposed", "founded",
		"acquired", "launched", "was born", "died"}
	comparatives = []string{"more than", "less than", "fewer than", "greater than", "higher than",
		"lower than", "larger than", "smaller than", "faster than", "slower than", "better than",
		"worse than", "outperform", "outperforms", "outperformed", "surpass", "surpassed", "exceeds",
		"exceeded", "largest", "smallest", "highest", "lowest", "biggest", "fastest", "slowest",
		"oldest", "newest", "earliest", "latest", "first", "the only", "the most", "the least", "best", "worst",
		"majority", "twice", "double", "half", "doubled", "tripled", "halved"}
	questionWords = []string{"what", "why", "how", "when", "where", "who", "which", "whom", "whose"}
	months        = []string{"january", "february", "march", "april", "may", "june", "july", "august",
		"september", "october", "november", "december"}

	bulletRE     = lazyregexp.New(`^\s*(?:[-*•+]|\d{1,3}[.)])\s+`)
	comparisonRE = lazyregexp.New(`\b[a-z]{3,}er than\b`)
)

// CheckWorthy reports whether a claim without a citation is worth
// fact-checking, by the paper's rules (seed §2.2 and prompt A.4.2): it must
// make a specific, verifiable assertion — a number, a date, a named entity,
// a comparison or superlative, or an attribution ("according to …") — and
// must not be a heading, a question, a recommendation, an opinion or a
// hedged statement. The reason names the deciding rule.
//
// It is a lexical filter: it cannot tell common knowledge from a
// contestable fact when both carry specifics ("Water boils at 100 °C"), and
// it only recognises the phrasings listed in this file.
func CheckWorthy(claim string) (bool, string) {
	text := strings.TrimSpace(judge.CleanClaim(claim))
	if text == "" {
		return false, "empty"
	}
	if strings.HasPrefix(text, "#") {
		return false, "heading"
	}
	text = strings.TrimSpace(bulletRE.ReplaceAllString(text, ""))
	text = strings.Trim(text, "*_ ")
	toks := passage.Tokenize(text)
	if len(toks) < 4 { // words, numbers and CJK bigrams alike
		return false, "too short to assert a checkable fact"
	}
	if strings.HasSuffix(text, ":") {
		return false, "heading or lead-in"
	}
	if looksLikeHeading(text, toks) {
		return false, "heading"
	}
	lower := strings.ToLower(text)
	if strings.HasSuffix(text, "?") || strings.HasSuffix(text, "？") || startsWithAny(lower, questionWords) && !strings.ContainsAny(text, ".!") {
		return false, "question"
	}
	if p := firstPhrase(lower, firstPersonOpinion); p != "" {
		return false, "opinion (" + p + ")"
	}
	attributed := firstPhrase(lower, attributions) != ""
	if p := firstPhrase(lower, recommendations); p != "" && !attributed {
		return false, "recommendation (" + p + ")"
	}
	if first, second := leadingWords(toks, text); contains(imperatives, first) && !contains(nounFollowers, second) {
		return false, "recommendation (imperative " + first + ")"
	}
	if p := firstPhrase(lower, hedges); p != "" && !attributed && !(p == "may" && monthDate(lower)) {
		return false, "hedged (" + p + ")"
	}
	if p := firstPhrase(lower, evaluative); p != "" && !attributed {
		return false, "opinion (" + p + ")"
	}

	var why []string
	qs := lexical.Quantities(text, toks)
	date := monthDate(lower)
	for _, q := range qs {
		if q.Unit == lexical.UnitYear || q.Unit == lexical.UnitDate {
			date = true
		}
	}
	if date {
		why = append(why, "date")
	}
	for _, q := range qs {
		if q.Unit != lexical.UnitYear && q.Unit != lexical.UnitDate {
			why = append(why, "number")
			break
		}
	}
	if len(judge.Entities(text, toks)) > 0 {
		why = append(why, "named entity")
	}
	if firstPhrase(lower, comparatives) != "" || comparisonRE.MatchString(lower) {
		why = append(why, "comparison")
	}
	if attributed {
		why = append(why, "attribution")
	}
	if len(why) == 0 {
		return false, "no specific, verifiable detail (number, date, name, comparison or attribution)"
	}
	return true, "specific: " + strings.Join(why, ", ")
}

// looksLikeHeading: short, no sentence punctuation, and every content word
// capitalized ("Market Overview and Key Players").
func looksLikeHeading(text string, toks []passage.Token) bool {
	if strings.ContainsAny(text[len(text)-1:], ".!?。") || len(toks) > 12 {
		return false
	}
	content := 0
	for _, t := range toks {
		if t.Kind != passage.Word || t.Stop {
			continue
		}
		content++
		r := []rune(text[t.Start:t.End])[0]
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return content > 0
}

// hasPhrase reports whether phrase occurs in lower at word boundaries.
func hasPhrase(lower, phrase string) bool {
	for i := 0; ; {
		k := strings.Index(lower[i:], phrase)
		if k < 0 {
			return false
		}
		at := i + k
		end := at + len(phrase)
		if (at == 0 || !isWordByte(lower[at-1])) && (end == len(lower) || !isWordByte(lower[end])) {
			return true
		}
		i = at + 1
	}
}

func isWordByte(c byte) bool {
	return c == '_' || c == '\'' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 0x80
}

func firstPhrase(lower string, phrases []string) string {
	for _, p := range phrases {
		if hasPhrase(lower, p) {
			return p
		}
	}
	return ""
}

func startsWithAny(lower string, words []string) bool {
	for _, w := range words {
		if strings.HasPrefix(lower, w+" ") {
			return true
		}
	}
	return false
}

// leadingWords returns the first two tokens, lowercased, when the claim
// opens with a word.
func leadingWords(toks []passage.Token, text string) (string, string) {
	if len(toks) < 2 || toks[0].Kind != passage.Word {
		return "", ""
	}
	return strings.ToLower(text[toks[0].Start:toks[0].End]), strings.ToLower(text[toks[1].Start:toks[1].End])
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// monthDate reports a month name next to a day or year number
// ("December 2012", "2 November", "May 5").
func monthDate(lower string) bool {
	for _, m := range months {
		for i := 0; ; {
			k := strings.Index(lower[i:], m)
			if k < 0 {
				break
			}
			at, end := i+k, i+k+len(m)
			if (at == 0 || !isWordByte(lower[at-1])) && (end == len(lower) || !isWordByte(lower[end])) {
				after := strings.TrimLeft(lower[end:], " ")
				before := strings.TrimRight(lower[:at], " ")
				if after != "" && after[0] >= '0' && after[0] <= '9' || before != "" && before[len(before)-1] >= '0' && before[len(before)-1] <= '9' {
					return true
				}
			}
			i = at + 1
		}
	}
	return false
}
