package report

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

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

// abbreviationBefore reports whether the period at dot ends an abbreviation
// or an initial ("J. Smith").
func abbreviationBefore(text string, dot int) bool {
	k := dot
	for k > 0 && (isAlnumByte(text[k-1]) || text[k-1] == '.') {
		k--
	}
	word := strings.ToLower(text[k:dot])
	if word == "" {
		return false
	}
	if abbreviations[word] {
		return true
	}
	// A single capital letter is an initial.
	if len(word) == 1 && text[k] >= 'A' && text[k] <= 'Z' {
		return true
	}
	return false
}

// splitSentences splits text[start:end] into sentence spans. spans are the
// protected regions of the text (sorted by start): no split happens inside
// them, and citation spans directly after a sentence end (after optional
// blanks) belong to that sentence.
func splitSentences(text string, start, end int, spans []span) [][2]int {
	var out [][2]int
	si := sort.Search(len(spans), func(k int) bool { return spans[k].end > start })
	sentStart := start
	var quotes quoteCount // straight quotes seen in the current sentence
	i := start
	for i < end {
		for si < len(spans) && spans[si].end <= i {
			si++
		}
		if si < len(spans) && spans[si].start <= i {
			i = spans[si].end
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:end])
		j := i + size
		boundary := false
		quotes.see(text, i, r)
		switch r {
		case '。', '！', '？', '!', '?', '.', '…', '；':
			if r == '；' {
				break // a CJK semicolon joins clauses
			}
			j = absorbClosers(text, j, end, &quotes)
			switch r {
			case '。', '！', '？':
				boundary = true
			case '!', '?', '…':
				boundary = endsSentence(text, i, j, end, spans, si, false)
			case '.':
				boundary = endsSentence(text, i, j, end, spans, si, true)
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
		out = append(out, [2]int{sentStart, j})
		sentStart, i = j, j
		quotes = quoteCount{}
	}
	if sentStart < end {
		out = append(out, [2]int{sentStart, end})
	}
	return out
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
// closers) ends a sentence: it must be followed by the end of the block, a
// blank, or a citation marker; and, for a period, not end an abbreviation,
// and not be followed by a word in lower case.
func endsSentence(text string, i, j, end int, spans []span, si int, period bool) bool {
	if j >= end {
		return true
	}
	for si < len(spans) && spans[si].start < j {
		si++
	}
	if si < len(spans) && spans[si].start == j && spans[si].cite {
		return !period || !abbreviationBefore(text, i)
	}
	r, _ := utf8.DecodeRuneInString(text[j:end])
	if !unicode.IsSpace(r) {
		// "3.5", "e.g.,", "Node.js": no boundary. A CJK character right
		// after a period still starts a new sentence.
		return isCJK(r)
	}
	if period && abbreviationBefore(text, i) {
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
	return !unicode.IsLower(next)
}

// absorbCitations extends a sentence end over blanks (not newlines) and the
// citation markers that follow it: "… end. [3][4]" and "… end.[[3]](url)".
func absorbCitations(text string, j, end int, spans []span) int {
	si := sort.Search(len(spans), func(k int) bool { return spans[k].start >= j })
	for {
		k := j
		for k < end && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
		if si < len(spans) && spans[si].start == k && spans[si].cite {
			j = spans[si].end
			si++
			for si < len(spans) && spans[si].start < j {
				si++
			}
			continue
		}
		return j
	}
}
