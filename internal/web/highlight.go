package web

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// span marks bytes [Start, End) of a text; Ref says what the span is (a
// claim's index, an evidence passage).
type span struct {
	Start, End int
	Ref        int
}

// piece is a run of text, marked (Marked, Ref of its span) or not. The
// pieces of a text concatenate back to it.
type piece struct {
	Text   string
	Marked bool
	Ref    int
}

// split cuts text into pieces at the spans' byte offsets. Spans out of
// bounds, empty, cutting a UTF-8 sequence or overlapping a span kept before
// them (in order of start, then longest first) are dropped: a corrupt
// offset in stored data loses its highlight, never text.
func split(text string, spans []span) []piece {
	ok := cleanSpans(text, spans)
	var out []piece
	at := 0
	for _, s := range ok {
		if s.Start > at {
			out = append(out, piece{Text: text[at:s.Start]})
		}
		out = append(out, piece{Text: text[s.Start:s.End], Marked: true, Ref: s.Ref})
		at = s.End
	}
	if at < len(text) {
		out = append(out, piece{Text: text[at:]})
	}
	return out
}

// cleanSpans returns the spans split keeps, sorted by start and not
// overlapping: those in bounds, not empty, on UTF-8 boundaries and not
// overlapping a span kept before them (in order of start, then longest
// first).
func cleanSpans(text string, spans []span) []span {
	ok := make([]span, 0, len(spans))
	for _, s := range spans {
		if s.Start < 0 || s.End > len(text) || s.Start >= s.End || !boundary(text, s.Start) || !boundary(text, s.End) {
			continue
		}
		ok = append(ok, s)
	}
	slices.SortStableFunc(ok, func(a, b span) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return b.End - a.End
	})
	out, at := ok[:0], 0
	for _, s := range ok {
		if s.Start < at {
			continue
		}
		out = append(out, s)
		at = s.End
	}
	return out
}

// boundary reports whether offset i of text starts a UTF-8 sequence (or is
// the end of the text).
func boundary(text string, i int) bool {
	return i == len(text) || utf8.RuneStart(text[i])
}

// locate finds quote in text and returns its byte span. It tries the exact
// bytes first, then the quote with every run of white space matching any
// run of white space (a judge's evidence re-flowed across lines), so the
// passage highlighted is always a real substring of the source text.
func locate(text, quote string) (start, end int, ok bool) {
	quote = strings.TrimSpace(quote)
	if quote == "" {
		return 0, 0, false
	}
	if i := strings.Index(text, quote); i >= 0 {
		return i, i + len(quote), true
	}
	words := strings.Fields(quote)
	if len(words) == 0 {
		return 0, 0, false
	}
	from := 0
	for from < len(text) {
		i := strings.Index(text[from:], words[0])
		if i < 0 {
			return 0, 0, false
		}
		start = from + i
		if end, ok := matchWords(text, start+len(words[0]), words[1:]); ok {
			return start, end, true
		}
		from = start + len(words[0])
	}
	return 0, 0, false
}

// matchWords matches words at text[at:], each after at least one white
// space, and returns the end of the last.
func matchWords(text string, at int, words []string) (int, bool) {
	for _, w := range words {
		n := spaceRun(text[at:])
		if n == 0 || !strings.HasPrefix(text[at+n:], w) {
			return 0, false
		}
		at += n + len(w)
	}
	return at, true
}

// spaceRun returns the length in bytes of the white space opening s.
func spaceRun(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !unicode.IsSpace(r) {
			break
		}
		n += size
	}
	return n
}

// window returns the bounds of the context shown around text[start:end]:
// about radius bytes either side, moved to white space (or, failing that,
// a rune boundary) so no word or UTF-8 sequence is cut.
func window(text string, start, end, radius int) (from, to int) {
	from = max(0, start-radius)
	if from > 0 {
		if i := strings.IndexFunc(text[from:start], unicode.IsSpace); i >= 0 {
			from += i
		}
		for from < start && !utf8.RuneStart(text[from]) {
			from++
		}
	}
	to = min(len(text), end+radius)
	if to < len(text) {
		if i := strings.LastIndexFunc(text[end:to], unicode.IsSpace); i >= 0 {
			to = end + i
		}
		for to > end && !boundary(text, to) {
			to--
		}
	}
	return from, to
}
