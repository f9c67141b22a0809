package judge

import (
	"github.com/claimtrace/claimtrace/internal/judge/passage"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
	"github.com/claimtrace/claimtrace/internal/prompts"
)

// The claim readers of the offline judge, exported for the other stages
// that read a report's claims (internal/factcheck): one reading of a claim
// for every stage.

// CleanClaim removes citation markers ("[7]", "[[2]](url)", "【3†L1】",
// Citation-Integrity's "<|multi_cit|>"), Markdown links (keeping their
// text) and bare URLs from a claim: they are not part of what it asserts.
func CleanClaim(s string) string { return cleanClaim(s) }

var spaceBeforePunctRE = lazyregexp.New(` +([.,;:!?])`)

// ClaimText is a claim as a model is shown it: citation markers and URLs
// removed (CleanClaim), on one line, no space left before punctuation.
func ClaimText(s string) string {
	return spaceBeforePunctRE.ReplaceAllString(prompts.OneLine(cleanClaim(s)), "$1")
}

// Entities returns the named entities of a claim (text, tokenized by
// passage.Tokenize), each as its content terms: runs of capitalized words
// and acronyms. A lone capitalized word that opens the claim is skipped
// ("Parents may…") unless it is an acronym or has inner capitals or digits
// ("FFP", "iPhone", "GPT4").
func Entities(text string, toks []passage.Token) [][]string { return entities(text, toks) }
