package lexical

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Span is a half-open byte range [Start, End) of a text.
type Span struct {
	Start, End int
}

// Protected is a region of a text that a sentence split never falls
// inside: a link, a code span, a citation marker. Cite marks a citation
// marker, which belongs to the sentence it directly follows ("… end. [3]").
type Protected struct {
	Start, End int
	Cite       bool
}

// abbreviations end with a period that does not end a sentence, whatever
// follows ("Fig. 3", "et al. (2020)", "e.g. Transformers"). Compared in
// lower case, without the final period.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "al": true, "vs": true, "cf": true, "viz": true, "fig": true,
	"figs": true, "eq": true, "eqs": true, "no": true, "nos": true, "vol": true, "vols": true,
	"pp": true, "p": true, "sec": true, "secs": true, "ch": true, "chap": true, "tab": true,
	"ref": true, "refs": true, "suppl": true, "approx": true, "ca": true, "dr": true, "mr": true,
	"mrs": true, "ms": true, "prof": true, "jr": true, "sr": true, "st": true, "mt": true,
	"dept": true, "univ": true, "est": true, "resp": true, "a.k.a": true, "u.s": true, "u.k": true,
	"e.u": true, "ph.d": true, "m.sc": true, "b.sc": true, "jan": true, "feb": true, "mar": true,
	"apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true,
	"nov": true, "dec": true, "incl": true, "excl": true, "op": true, "ed": true, "eds": true,
	"rev": true, "art": true, "para": true, "sect": true, "n.b": true, "w.r.t": true,
}

// beforeNumber are the abbreviations that are also words ("the answer is
// no.", "state of the art."): they abbreviate only before a number ("No. 5",
// "Art. 12", "pp. 3–9", "Vol. (2)").
var beforeNumber = map[string]bool{
	"no": true, "nos": true, "art": true, "p": true, "pp": true, "vol": true, "vols": true,
}

// numberAfter reports whether a number (or a bracket) follows i after
// blanks.
func numberAfter(text string, i int) bool {
	for i < len(text) && (text[i] == ' ' || text[i] == '\u00a0') {
		i++
	}
	return i < len(text) && (isDigitByte(text[i]) || text[i] == '(' || text[i] == '[' || text[i] == '#')
}

// maxAbbreviationBytes bounds how far a period looks back for an
// abbreviation: they are short, and an unbounded scan would make
// "a.a.a.a…" quadratic.
const maxAbbreviationBytes = 40

// EndsAbbreviation reports whether the period at text[dot] ends an
// abbreviation or an initial ("J. Smith"), and so not a sentence.
func EndsAbbreviation(text string, dot int) bool {
	k := dot
	for k > 0 && (isAlnumByte(text[k-1]) || text[k-1] == '.') {
		if dot-k > maxAbbreviationBytes {
			return false
		}
		k--
	}
	word := strings.ToLower(text[k:dot])
	if word == "" {
		return false
	}
	if abbreviations[word] && (!beforeNumber[word] || numberAfter(text, dot+1)) {
		return true
	}
	// A single capital letter is an initial, unless it follows a number:
	// then it is a unit ("at -15 C.", "25 °C.", "3 V.").
	if len(word) == 1 && text[k] >= 'A' && text[k] <= 'Z' {
		return !afterNumber(text, k)
	}
	return false
}

// afterNumber reports whether the word at k follows a number, with at most
// a blank and a degree sign or micro prefix between ("15 C", "25 °C",
// "100 μK").
func afterNumber(text string, k int) bool {
	before := text[:k]
	for _, p := range []string{"°", "μ", "µ"} {
		before = strings.TrimSuffix(before, p)
	}
	before = strings.TrimSuffix(before, " ")
	return before != "" && isDigitByte(before[len(before)-1])
}

// Sentences splits text into sentence spans, with no protected regions.
func Sentences(text string) []Span {
	return Split(text, 0, len(text), nil)
}

// Split splits text[start:end] as the zero Splitter does.
func Split(text string, start, end int, protected []Protected) []Span {
	return Splitter{}.Split(text, start, end, protected)
}

// A Splitter splits text into sentences. The zero value suits written
// prose (reports).
type Splitter struct {
	// LowerStarts lets a sentence start in lower case after a period that
	// ends no abbreviation ("… at 20 atoms. b, Raw Bell state …",
	// "… is shown in Fig. 3. ϕ(t) and Θ are …"). Text extracted from pages
	// and PDFs (captions, formulas) needs it; in written prose a period
	// before a lower-case word more often ends an abbreviation the list
	// lacks.
	LowerStarts bool
	// GluedStarts ends a sentence at a period glued to the next one, as in
	// scraped pages: a lower-case word of three or more letters, a period,
	// then a capitalized word ("technological transfer.Trinidad and
	// Tobago"). Domain names ("example.Com") are rare enough in running
	// text to accept the error.
	GluedStarts bool
}

// Split splits text[start:end] into sentence spans that cover it, in
// order. A sentence ends at ".", "!", "?" or "…" followed by the end, a
// blank and a word not in lower case (see LowerStarts), or a citation
// marker; at a CJK full
// stop; and at a line break after a colon. A period does not end an
// abbreviation ("et al.", "Fig. 3", "e.g."), an initial ("J. Smith") or a
// number ("3.5"). Closing quotes and brackets after a terminator, and
// citation markers after it, belong to the sentence. Other line breaks
// join lines: the caller cuts blocks first. protected (sorted by Start)
// are the regions no split falls inside.
func (sp Splitter) Split(text string, start, end int, protected []Protected) []Span {
	return sp.AppendSplit(nil, text, start, end, protected)
}

// AppendSplit appends the spans Split returns to out: for a caller
// splitting many pieces of text into one reused slice.
func (sp Splitter) AppendSplit(out []Span, text string, start, end int, protected []Protected) []Span {
	spans := protected
	si := sort.Search(len(spans), func(k int) bool { return spans[k].End > start })
	sentStart := start
	var quotes quoteCount // straight quotes seen in the current sentence
	i := start
	for i < end {
		for si < len(spans) && spans[si].End <= i {
			si++
		}
		if si < len(spans) && spans[si].Start <= i {
			i = spans[si].End
			continue
		}
		if plainByte(text[i]) {
			// A run of bytes that end no sentence and are no quote, up to
			// the next protected region.
			lim := end
			if si < len(spans) && spans[si].Start < lim {
				lim = spans[si].Start
			}
			for i++; i < lim && plainByte(text[i]); i++ {
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:end])
		j := i + size
		boundary := false
		quotes.see(text, i, r)
		switch r {
		case '。', '！', '？', '!', '?', '.', '…':
			j = absorbClosers(text, j, end, &quotes)
			switch r {
			case '。', '！', '？':
				boundary = true
			case '!', '?', '…':
				boundary = sp.endsSentence(text, i, j, end, spans, si, false)
			case '.':
				boundary = sp.endsSentence(text, i, j, end, spans, si, true)
			}
		case '\n':
			// A line ending in a colon introduces what follows.
			p := strings.TrimRight(text[sentStart:i], " \t\r")
			boundary = strings.HasSuffix(p, ":") || strings.HasSuffix(p, "：")
		}
		if !boundary {
			i = j
			continue
		}
		j = absorbCitations(text, j, end, spans)
		out = append(out, Span{sentStart, j})
		sentStart, i = j, j
		quotes = quoteCount{}
	}
	if sentStart < end {
		out = append(out, Span{sentStart, end})
	}
	return out
}

// plainByte reports an ASCII byte Split passes over: neither a sentence
// terminator, a line break nor a straight quote.
func plainByte(c byte) bool {
	switch c {
	case '.', '!', '?', '\n', '"', '\'':
		return false
	}
	return c < utf8.RuneSelf
}

// quoteCount counts the straight quotes of a sentence, to tell a closing
// quote after a terminator from one opening the next sentence.
type quoteCount struct{ double, single int }

// see counts r, found at i. An apostrophe between two letters ("it's") is
// not a quote.
func (q *quoteCount) see(text string, i int, r rune) {
	switch r {
	case '"':
		q.double++
	case '\'':
		if i > 0 && i+1 < len(text) && isAlnumByte(text[i-1]) && isAlnumByte(text[i+1]) {
			return
		}
		q.single++
	}
}

// absorbClosers moves past closing quotes, brackets and emphasis markers
// after a sentence terminator, and past repeated terminators ("?!", "...").
// A straight quote is a closer only when the sentence so far has an odd
// number of them; otherwise it opens the next sentence.
func absorbClosers(text string, j, end int, q *quoteCount) int {
	for j < end {
		r, size := utf8.DecodeRuneInString(text[j:end])
		switch r {
		case '"':
			if q.double%2 == 0 {
				return j
			}
			q.double++
			j += size
			continue
		case '\'':
			if q.single%2 == 0 {
				return j
			}
			q.single++
			j += size
			continue
		case ')', ']', '”', '’', '」', '』', '）', '》', '*', '_', '.', '!', '?', '。', '！', '？', '…':
			j += size
			continue
		}
		return j
	}
	return j
}

// endsSentence decides whether the terminator at i (ending at j after
// closers) ends a sentence: it must be followed by the end of the text, a
// blank, or a citation marker; and, for a period, not end an abbreviation,
// and not be followed by a word in lower case.
func (sp Splitter) endsSentence(text string, i, j, end int, spans []Protected, si int, period bool) bool {
	if j >= end {
		return true
	}
	for si < len(spans) && spans[si].Start < j {
		si++
	}
	if si < len(spans) && spans[si].Start == j && spans[si].Cite {
		return !period || !EndsAbbreviation(text, i)
	}
	r, _ := utf8.DecodeRuneInString(text[j:end])
	if !unicode.IsSpace(r) {
		// "3.5", "e.g.,", "Node.js": no boundary. A CJK character right
		// after a period still starts a new sentence.
		return IsCJK(r) || period && sp.GluedStarts && glued(text[:i], text[j:end])
	}
	if period && EndsAbbreviation(text, i) {
		return false
	}
	// Look at the next word.
	k := j
	for k < end {
		r, size := utf8.DecodeRuneInString(text[k:end])
		if !unicode.IsSpace(r) {
			break
		}
		k += size
	}
	if k >= end {
		return true
	}
	next, _ := utf8.DecodeRuneInString(text[k:end])
	return sp.LowerStarts || !unicode.IsLower(next)
}

// absorbCitations extends a sentence end over blanks (not newlines) and the
// citation markers that follow it: "… end. [3][4]" and "… end.[[3]](url)".
func absorbCitations(text string, j, end int, spans []Protected) int {
	si := sort.Search(len(spans), func(k int) bool { return spans[k].Start >= j })
	for {
		k := j
		for k < end && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
		if si < len(spans) && spans[si].Start == k && spans[si].Cite {
			j = spans[si].End
			si++
			for si < len(spans) && spans[si].Start < j {
				si++
			}
			continue
		}
		return j
	}
}

// glued reports a lower-case word of three or more letters ending before,
// and a capitalized word starting after.
func glued(before, after string) bool {
	n := 0
	for i := len(before); i > 0; {
		r, size := utf8.DecodeLastRuneInString(before[:i])
		if !unicode.IsLetter(r) {
			break
		}
		if !unicode.IsLower(r) || n > maxAbbreviationBytes {
			return false
		}
		n++
		i -= size
	}
	if n < 3 {
		return false
	}
	first, size := utf8.DecodeRuneInString(after)
	second, _ := utf8.DecodeRuneInString(after[size:])
	return unicode.IsUpper(first) && unicode.IsLower(second)
}

// IsCJK reports whether r is a Han, Hiragana, Katakana or Hangul character.
func IsCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3040 && r <= 0x30FF, r >= 0xAC00 && r <= 0xD7AF:
		return true
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hangul, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

func isAlnumByte(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }
