// Package passage locates the passages of a source text that are most
// relevant to a claim, so that a judge reads a few hundred words instead of a
// whole page.
//
// A source is split into sentences (byte spans into the source), sentences
// are grouped into overlapping windows, and windows are ranked against the
// claim with BM25 over stemmed content words, re-ranked with a boost for
// claim bigrams and numbers that the window repeats. Every passage returned
// is a span of the source, so its text is always a verbatim substring.
//
// The analysis (Tokenize) is shared with the offline judge so that ranking
// and judging see the same terms: lowercased English words stemmed with the
// Snowball stemmer, numbers without thousands separators, and overlapping
// character bigrams for Chinese, Japanese and Korean text.
package passage

import "github.com/claimtrace/claimtrace/internal/lexical"

// Kind classifies a token (lexical.Kind).
type Kind = lexical.Kind

// Token kinds.
const (
	Word   = lexical.Word
	Number = lexical.Number
	CJK    = lexical.CJK
)

// Token is one unit of analysed text (lexical.Token).
type Token = lexical.Token

// Analyzer tokenizes text (lexical.Analyzer).
type Analyzer = lexical.Analyzer

// NewAnalyzer returns an Analyzer with an empty stem cache.
func NewAnalyzer() *Analyzer { return lexical.NewAnalyzer() }

// Tokenize is a convenience for NewAnalyzer().Tokenize(text).
func Tokenize(text string) []Token { return lexical.Tokenize(text) }

// NormalizeNumber removes thousands separators from a numeric literal
// (lexical.NormalizeNumber).
func NormalizeNumber(lit string) string { return lexical.NormalizeNumber(lit) }
