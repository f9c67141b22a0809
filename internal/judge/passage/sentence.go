package passage

import (
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

// Sentences splits text into sentences and returns their byte spans, in
// order, trimmed of surrounding whitespace and never empty. Breaks are made
// after ".", "!" or "?" followed by whitespace and a character that can
// start a sentence, after CJK full stops, at blank lines and at line breaks
// unless the next line starts in lower case (a soft wrap). Initials,
// titles, "e.g.", "et al.", "Fig. 3" and similar abbreviations do not end a
// sentence.
func Sentences(text string) []Span {
	var out []Span
	start := 0
	emit := func(end int) {
		out = appendTrimmed(out, text, start, end)
		start = end
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			j := i + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r') {
				j++
			}
			if j >= len(text) || text[j] == '\n' || !softWrap(text[j:]) {
				emit(i)
			}
		case r == '。' || r == '！' || r == '？':
			emit(skipClosers(text, i+size))
			i = start
			continue
		case r == '.' || r == '!' || r == '?':
			j := skipClosers(text, i+size)
			if j >= len(text) {
				break
			}
			if c := text[j]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				if r == '.' && missingSpace(text[:i], text[j:]) {
					emit(j) // "…technological transfer.Trinidad and Tobago…"
					i = j
					continue
				}
				break // "3.5", "example.com", "U.S.A"
			}
			k := j
			for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r') {
				k++
			}
			if k >= len(text) || text[k] == '\n' {
				emit(j)
				i = j
				continue
			}
			next, _ := utf8.DecodeRuneInString(text[k:])
			if r == '.' && !breakAfterPeriod(text[:i], next) {
				break
			}
			if unicode.IsLower(next) {
				break
			}
			emit(j)
			i = j
			continue
		}
		i += size
	}
	emit(len(text))
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

// skipClosers advances over further terminal punctuation and closing quotes
// or brackets after a sentence end: `?!`, `."`, `.)`, `。」`.
func skipClosers(text string, i int) int {
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '.', '!', '?', '"', '\'', ')', ']', '’', '”', '»', '」', '』', '）', '。', '！', '？':
			i += size
		default:
			return i
		}
	}
	return i
}

// breakAfterPeriod decides whether the period ending before (at the end of
// text before) ends a sentence, given the rune that starts the next word.
func breakAfterPeriod(before string, next rune) bool {
	w := lastWord(before)
	if w == "" {
		return true
	}
	if utf8.RuneCountInString(w) == 1 {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsUpper(r) {
			return false // an initial: "J. Smith", "U.S. Army"
		}
	}
	lw := strings.ToLower(w)
	switch lw {
	case "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "gen", "col", "lt", "sgt", "rev", "hon",
		"e.g", "i.e", "cf", "vs", "al", "ca", "approx", "viz", "resp", "u.s", "u.k", "ph.d":
		return false
	case "no", "nos", "vol", "vols", "fig", "figs", "eq", "eqs", "p", "pp", "sec", "ch", "art", "ref", "tab",
		"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec":
		return !unicode.IsDigit(next)
	}
	return true
}

// maxWordBytes bounds how far lastWord looks back: abbreviations are short,
// and an unbounded scan would make "a.a.a.a…" quadratic.
const maxWordBytes = 40

// lastWord returns the run of letters and internal periods that ends text,
// or "" when that run is longer than maxWordBytes.
func lastWord(text string) string {
	i := len(text)
	for i > 0 {
		if len(text)-i > maxWordBytes {
			return ""
		}
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !unicode.IsLetter(r) && r != '.' {
			break
		}
		i -= size
	}
	return strings.Trim(text[i:], ".")
}

// missingSpace reports a sentence end glued to the next sentence, common in
// scraped pages: a lower-case word of three or more letters, a period, then
// a capitalized word ("transfer.Trinidad"). Domain names ("example.Com")
// are rare enough in running text to accept the error.
func missingSpace(before, after string) bool {
	w := lastWord(before)
	if utf8.RuneCountInString(w) < 3 || strings.Contains(w, ".") {
		return false
	}
	for _, r := range w {
		if !unicode.IsLower(r) {
			return false
		}
	}
	first, size := utf8.DecodeRuneInString(after)
	second, _ := utf8.DecodeRuneInString(after[size:])
	return unicode.IsUpper(first) && unicode.IsLower(second)
}
