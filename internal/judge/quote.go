package judge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// quoteIndex finds a model's evidence quote in a source, returning the
// exact source bytes. Models re-flow whitespace when they copy a passage
// (line breaks of extracted PDF text become spaces, double spaces become
// one), and they often type straight quotation marks, apostrophes and
// hyphens for the source's typographic ones; those differences are
// ignored when matching. Nothing else is: a quote with a changed word, an
// ellipsis inside it or a different letter case is not found. The span
// returned is always a verbatim substring of the source.
type quoteIndex struct {
	src  string
	norm string
	// start[k] and end[k] are the source byte offsets of the character
	// that produced byte k of norm.
	start, end []int32
}

func newQuoteIndex(src string) *quoteIndex {
	q := &quoteIndex{src: src}
	var b strings.Builder
	b.Grow(len(src))
	q.start = make([]int32, 0, len(src))
	q.end = make([]int32, 0, len(src))
	emit := func(s string, from, to int) {
		b.WriteString(s)
		for range len(s) {
			q.start = append(q.start, int32(from))
			q.end = append(q.end, int32(to))
		}
	}
	space := false // the last emitted byte is a space
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRuneInString(src[i:])
		if unicode.IsSpace(r) {
			if !space {
				emit(" ", i, i+size)
				space = true
			}
			i += size
			continue
		}
		space = false
		if f, ok := foldPunct(r); ok {
			emit(f, i, i+size)
		} else {
			emit(src[i:i+size], i, i+size)
		}
		i += size
	}
	q.norm = b.String()
	return q
}

// foldPunct maps typographic quotation marks, apostrophes and dashes to
// their ASCII forms.
func foldPunct(r rune) (string, bool) {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032':
		return "'", true
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033':
		return `"`, true
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2212':
		return "-", true
	}
	return "", false
}

// normalizeQuote folds a quote the way newQuoteIndex folds the source, and
// strips what models put around a quote: white space, enclosing quotation
// marks and leading or trailing ellipses.
func normalizeQuote(quote string) string {
	var b strings.Builder
	space := false
	for _, r := range quote {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		}
		space = false
		if f, ok := foldPunct(r); ok {
			b.WriteString(f)
		} else {
			b.WriteRune(r)
		}
	}
	s := b.String()
	for {
		t := strings.TrimSpace(s)
		t = strings.TrimPrefix(t, "...")
		t = strings.TrimSuffix(t, "...")
		t = strings.TrimPrefix(t, "…")
		t = strings.TrimSuffix(t, "…")
		if len(t) >= 2 && (t[0] == '"' && t[len(t)-1] == '"' || t[0] == '\'' && t[len(t)-1] == '\'') {
			t = t[1 : len(t)-1]
		}
		if t == s {
			return s
		}
		s = t
	}
}

// find returns the source span of quote, and ok false when the quote does
// not occur in the source (or is empty once normalized).
func (q *quoteIndex) find(quote string) (start, end int, ok bool) {
	n := normalizeQuote(quote)
	if n == "" {
		return 0, 0, false
	}
	k := strings.Index(q.norm, n)
	if k < 0 {
		return 0, 0, false
	}
	return int(q.start[k]), int(q.end[k+len(n)-1]), true
}

// findQuote is find on a one-off index.
func findQuote(src, quote string) (start, end int, ok bool) {
	return newQuoteIndex(src).find(quote)
}
