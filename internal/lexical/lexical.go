// Package lexical is the one home of the text facts the readers share:
// what a stem, a stop word, a negation, a sentence, a token and a quantity
// are. The report parser, the passage ranker, the offline judge, prov's
// contradiction detector and the dataset builder read them from here, so
// that parsing, ranking, judging and contradiction detection agree (see
// docs/judges.md for what each caller asks of them).
package lexical

import (
	"strings"

	"github.com/kljensen/snowball/english"
)

// Stem returns the Snowball (Porter2) stem of a lowercased English word.
// Stop words are stemmed too, so "having" and "have" meet.
func Stem(lower string) string {
	return english.Stem(lower, true)
}

// IsStopWord reports English function words: Snowball's list plus modal
// and discourse words that carry no checkable content, and contractions
// of function words ("it's", "don't").
func IsStopWord(lower string) bool {
	if english.IsStopWord(lower) {
		return true
	}
	switch lower {
	case "also", "would", "could", "may", "might", "must", "shall", "can",
		"however", "thus", "therefore", "although", "though", "yet", "via",
		"etc", "e.g", "i.e", "among", "per", "within", "whose", "whether",
		"upon", "onto", "us", "'s", "s", "let", "like", "many", "much",
		"well", "even", "still", "since", "including", "additionally", "furthermore", "moreover",
		"overall", "instead", "meanwhile", "hence", "indeed", "namely", "i", "thereby", "whereas":
		return true
	}
	if i := strings.IndexByte(lower, '\''); i > 0 {
		return english.IsStopWord(lower[:i]) || strings.HasSuffix(lower, "n't")
	}
	return false
}

// IsNegation reports a lowercased word that negates what it governs:
// "not", "no", "never", "without", "cannot", "failed", and every "…n't"
// contraction (with a straight or curly apostrophe).
func IsNegation(lower string) bool {
	switch lower {
	case "not", "no", "never", "none", "neither", "nor", "nobody", "nothing", "nowhere",
		"cannot", "without", "unable", "lacks", "lacked", "failed", "fails":
		return true
	}
	return strings.HasSuffix(lower, "n't") || strings.HasSuffix(lower, "n’t")
}
