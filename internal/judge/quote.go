package judge

import (
	"sort"
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
	// Byte k of norm comes from source byte at(k). Most of norm copies the
	// source byte for byte; bp lists where the offset between the two
	// changes (after a collapsed white-space run or a folded character),
	// so the index costs about the size of the source, not nine times it.
	bpNorm, bpSrc []int
}

func newQuoteIndex(src string) *quoteIndex {
	q := &quoteIndex{src: src, bpNorm: []int{0}, bpSrc: []int{0}}
	var b strings.Builder
	b.Grow(len(src))
	// mark records that norm continues 1:1 at source offset next.
	mark := func(next int) {
		last := len(q.bpNorm) - 1
		switch {
		case b.Len()-q.bpNorm[last] == next-q.bpSrc[last]:
		case q.bpNorm[last] == b.Len(): // still inside a white-space run
			q.bpSrc[last] = next
		default:
			q.bpNorm = append(q.bpNorm, b.Len())
			q.bpSrc = append(q.bpSrc, next)
		}
	}
	space := false // the last emitted byte is a space
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRuneInString(src[i:])
		switch f, folded := foldPunct(r); {
		case unicode.IsSpace(r):
			if !space {
				b.WriteByte(' ')
				space = true
			}
		case folded:
			b.WriteString(f)
			space = false
		default:
			b.WriteString(src[i : i+size])
			space = false
		}
		i += size
		mark(i)
	}
	q.norm = b.String()
	return q
}

// at returns the source offset of norm byte k.
func (q *quoteIndex) at(k int) int {
	i := sort.SearchInts(q.bpNorm, k+1) - 1
	return q.bpSrc[i] + k - q.bpNorm[i]
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
	// The quote ends on a character that is not white space: a folded one
	// ends where its source rune ends, a copied byte one byte later.
	last := q.at(k + len(n) - 1)
	end = last + 1
	if r, size := utf8.DecodeRuneInString(q.src[last:]); size > 1 {
		if f, ok := foldPunct(r); ok && f[0] == n[len(n)-1] {
			end = last + size
		}
	}
	return q.at(k), end, true
}

// findQuote is find on a one-off index.
func findQuote(src, quote string) (start, end int, ok bool) {
	return newQuoteIndex(src).find(quote)
}
