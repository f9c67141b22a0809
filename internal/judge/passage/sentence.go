package passage

import (
	"github.com/claimtrace/claimtrace/internal/lexical"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a half-open byte range [Start, End) of a text.
type Span struct {
	Start, End int
}

// MaxSentenceBytes caps a sentence: longer runs without a sentence break
// (tables, navigation, run-on PDF text) are cut at whitespace so that one
// huge "sentence" cannot swallow a window.
const MaxSentenceBytes = 800

// splitter splits source text: a sentence may be glued to the one before
// it ("transfer.Trinidad"), as in scraped pages.
var splitter = lexical.Splitter{GluedStarts: true}

// Sentences splits text into sentences and returns their byte spans, in
// order, trimmed of surrounding whitespace and never empty. Lines are cut
// at blank lines and at line breaks unless the next line starts in lower
// case (a soft wrap); each is split with lexical's splitter (initials,
// "e.g.", "et al.", "Fig. 3" and similar abbreviations end no sentence).
func Sentences(text string) []Span {
	var out []Span
	start := 0
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' {
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
			j++
		}
		if j >= len(text) || text[j] == '\n' || !softWrap(text[j:]) {
			for _, s := range splitter.Split(text, start, i, nil) {
				out = appendTrimmed(out, text, s.Start, s.End)
			}
			start = i + 1
		}
	}
	for _, s := range splitter.Split(text, start, len(text), nil) {
		out = appendTrimmed(out, text, s.Start, s.End)
	}
	return out
}

// appendTrimmed appends [start, end) trimmed of whitespace, cut into pieces
// of at most MaxSentenceBytes at whitespace (or rune) boundaries.
func appendTrimmed(out []Span, text string, start, end int) []Span {
	for start < end && isSpaceByte(text[start]) {
		start++
	}
	for end > start && isSpaceByte(text[end-1]) {
		end--
	}
	for end-start > MaxSentenceBytes {
		cut := start + MaxSentenceBytes
		ws := strings.LastIndexAny(text[start+MaxSentenceBytes/2:cut], " \t\n")
		if ws >= 0 {
			cut = start + MaxSentenceBytes/2 + ws
		} else {
			for cut > start && !utf8.RuneStart(text[cut]) {
				cut--
			}
		}
		e := cut
		for e > start && isSpaceByte(text[e-1]) {
			e--
		}
		if e > start {
			out = append(out, Span{start, e})
		}
		start = cut
		for start < end && isSpaceByte(text[start]) {
			start++
		}
	}
	if end > start {
		out = append(out, Span{start, end})
	}
	return out
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// softWrap reports whether a line continues the previous one: it starts with
// a lower-case letter.
func softWrap(line string) bool {
	r, _ := utf8.DecodeRuneInString(line)
	return unicode.IsLower(r)
}
