package report

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Reference lists read from a PDF arrive glued: the converter joins the
// entries of a numbered list into running lines ("…pp. 12–20. [2] D. Chen,
// …", "…[Accessed 2025-08-25].[106] Zhipu AI…", "…In: CVPR3. Ali W., …"),
// puts a label on a line of its own ("1." then the entry below) or glues it
// to the entry ("2.Sager J, …"). The entries are found again by following
// the list's numbering: once an entry numbered n has started, the next
// entry is the first "[n+1]" (or "n+1.") after a blank or a punctuation
// mark, wherever the line breaks fall. Numbers out of sequence never split
// an entry ("Scaling laws [3] revisited" inside entry 1).

// labelStyle is how a reference list numbers its entries.
type labelStyle uint8

const (
	styleNone    labelStyle = iota
	styleBracket            // [n]
	styleDot                // n. (or n))
)

// numbering is the numbering a reference list follows: its style and the
// number its next entry carries (0: no numbering seen yet).
type numbering struct {
	style labelStyle
	next  int
}

// lineLabel reads the one number label a line of a reference list starts
// with: "[n]", "n. " or "n) " (a Markdown list marker), "n." or "n)" alone
// on the line, or "n." glued to the entry's first word ("2.Sager J"). It
// returns the style, the number and the label's length; n is 0 when the
// line starts with no such label (or with several, "[27] [59]").
func lineLabel(t string) (labelStyle, int, int) {
	if n, count, v := labelLen(t); n > 0 {
		if count != 1 {
			return styleNone, 0, 0
		}
		return styleBracket, v, n
	}
	v, d := leadingNumber(t, 0)
	if d == 0 || d >= len(t) || t[d] != '.' && t[d] != ')' {
		return styleNone, 0, 0
	}
	rest := t[d+1:]
	switch {
	case strings.TrimSpace(rest) == "":
		return styleDot, v, len(t)
	case rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r':
		return styleDot, v, d + 1
	case t[d] == '.' && entryFirstRune(rest):
		return styleDot, v, d + 1
	}
	return styleNone, 0, 0
}

// leadingNumber reads a number of one to four digits, not starting with 0,
// at t[i:]: its value and the offset just past it (i when there is none).
func leadingNumber(t string, i int) (int, int) {
	v, j := 0, i
	for j < len(t) && j-i < 4 && t[j] >= '0' && t[j] <= '9' {
		v = 10*v + int(t[j]-'0')
		j++
	}
	if j == i || t[i] == '0' || j < len(t) && t[j] >= '0' && t[j] <= '9' {
		return 0, i
	}
	return v, j
}

// entryFirstRune reports whether s starts as an entry does after its
// label: an upper-case letter, a letter of a script without case (高, 김),
// or an opening quote.
func entryFirstRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsLetter(r) && !unicode.IsLower(r) || strings.ContainsRune("\"“‘'«", r)
}

// gluedCuts returns where the entries of a "[n]" list glued into one line
// or block start after its first ("[1] A. Author … 2019. [2] B. Author …"):
// each next number in sequence. It returns nil when t does not start with
// one number label. Only the bracketed style counts here: it tells a
// reference section from numbered remarks ("1. Prices are nominal. 2. …").
func gluedCuts(t string) []int {
	style, v, n := lineLabel(t)
	if style != styleBracket {
		return nil
	}
	cuts, _ := sequenceCuts(t, n, numbering{styleBracket, v + 1})
	return cuts
}

// sequenceCuts returns the offsets in t[from:] where the entries numbered
// seq.next, seq.next+1, … start, and the numbering after the last of them.
func sequenceCuts(t string, from int, seq numbering) ([]int, numbering) {
	var cuts []int
	for seq.style != styleNone {
		at := nextLabel(t, from, seq)
		if at < 0 {
			break
		}
		cuts = append(cuts, at)
		from = at + 1
		seq.next++
	}
	return cuts, seq
}

// nextLabel returns the offset of the first label numbered seq.next in
// t[from:] that can start an entry, or -1.
func nextLabel(t string, from int, seq numbering) int {
	num := itoa(seq.next)
	for i := from; i < len(t); {
		k := strings.Index(t[i:], num)
		if k < 0 {
			return -1
		}
		at := i + k
		i = at + 1
		end := at + len(num)
		switch seq.style {
		case styleBracket:
			if at == 0 || t[at-1] != '[' || end >= len(t) || t[end] != ']' {
				continue
			}
			if at-1 == 0 || labelFollows(t[at-2]) && !strings.HasPrefix(t[end+1:], "(") && !strings.HasPrefix(t[end+1:], ":") {
				return at - 1
			}
		case styleDot:
			if end >= len(t) || t[end] != '.' || !dotLabelAt(t, at, end) {
				continue
			}
			return at
		}
	}
	return -1
}

// labelFollows reports whether a "[n]" label may follow byte c: a blank,
// or a mark that ends the previous entry ("2019.[2]", "(2020)[3]").
func labelFollows(c byte) bool {
	return c == ' ' || c == '\t' || strings.IndexByte(".,;:)]}>\"'", c) >= 0 || c >= 0x80
}

// dotLabelAt reports whether "n." at t[at:end+1] starts an entry: not part
// of a longer number ("2.3.", "13."), not a volume, page or issue number
// ("vol. 12. Springer"), and followed by the entry's first word.
func dotLabelAt(t string, at, end int) bool {
	if at > 0 {
		c := t[at-1]
		if c >= '0' && c <= '9' || c == '.' && at > 1 && t[at-2] >= '0' && t[at-2] <= '9' || c == '-' || c == '/' || c == ':' {
			return false
		}
		if numberWord(t[:at]) {
			return false
		}
	}
	// Inside a line a label is followed by a blank ("CVPR3. Ali W.");
	// only at a line's start may it be glued ("2.Sager J", lineLabel).
	rest := t[end+1:]
	trimmed := strings.TrimLeft(rest, " \t")
	return len(trimmed) < len(rest) && entryFirstRune(trimmed)
}

// numberWords are the words a number follows without being a list label.
var numberWords = map[string]bool{
	"vol": true, "volume": true, "no": true, "nr": true, "num": true, "number": true, "issue": true,
	"p": true, "pp": true, "page": true, "pages": true, "ch": true, "chap": true, "chapter": true,
	"sec": true, "section": true, "fig": true, "figure": true, "table": true, "part": true,
	"ed": true, "edn": true, "edition": true, "v": true, "version": true, "art": true, "step": true,
}

// numberWord reports whether the text before a number ends with one of
// numberWords, glued or followed by a blank or a period ("vol. 12",
// "Vol12").
func numberWord(before string) bool {
	before = strings.TrimSuffix(strings.TrimRight(before, " \t"), ".")
	i := len(before)
	for i > 0 && isASCIILetterByte(before[i-1]) {
		i--
	}
	return i < len(before) && numberWords[strings.ToLower(before[i:])]
}

// itoa formats a small non-negative number.
func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	var b [8]byte
	i := len(b)
	for n > 0 && i > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// segment is a line of a reference section, or the part of a line that
// one entry of a glued list starts (or ends) in.
type segment struct {
	line
	// cont is set on a line whose leading number continues an entry
	// rather than starting one: "315. [11] A. Petrov" (a page range cut by
	// the line break) in a "[n]" list, "2024. Available from: …" in a
	// list whose next entry is 6.
	cont bool
	// title is set on a reference section's title glued before the list's
	// first label ("References [1] …", "参考文献： [1]"): no entry.
	title bool
}

// gluedTitle returns the offset of the first label of a list glued to its
// section title on one line ("References [1] A. Author …", "参考文献：
// [1] https://…", "Sources 1. Smith J …", as a converter joins a heading
// and the list under it), or 0 when t does not start so.
func gluedTitle(t string) int {
	// The label is the first bracket or digit: a title holds neither. It
	// runs on every line of a paragraph, so the title is looked up only
	// when the label, "[1]" or "1", is there.
	i := strings.IndexAny(t[:min(len(t), 48)], "[0123456789")
	if i < 1 || t[i] == '0' {
		return 0
	}
	if style, v, _ := lineLabel(t[i:]); style == styleNone || v != 1 || !refPlainTitle(t[:i]) {
		return 0
	}
	return i
}

// splitGlued returns the lines of a reference section's block with each
// line holding the starts of several numbered entries split at them. seq
// carries the list's numbering from line to line and block to block, so a
// line that continues an entry ("Lindqvist, “Small query…” 2024. [10] T.
// Iyer …") is split where the next entry starts.
func splitGlued(text string, lines []line, seq *numbering) []segment {
	out := make([]segment, 0, len(lines))
	for k, ln := range lines {
		t := text[ln.content:ln.end]
		if k == 0 {
			if at := gluedTitle(t); at > 0 {
				_, e := trimSpan(text, ln.content, ln.content+at)
				out = append(out, segment{line: line{start: ln.start, content: ln.content, end: e}, title: true})
				ln.content += at
				ln.start = ln.content
				t = t[at:]
			}
		}
		from := 0
		cont := false
		switch style, v, n := lineLabel(t); {
		case style == styleDot && seq.next > 0 && (seq.style == styleBracket || v > seq.next+10):
			cont = true // a number the list does not follow
		case style != styleNone:
			*seq, from = numbering{style, v + 1}, n
		default:
			if _, count, _ := labelLen(t); count > 1 {
				*seq = numbering{} // "[27] [59]": no sequence to follow
			}
		}
		var cuts []int
		cuts, *seq = sequenceCuts(t, from, *seq)
		prev := segment{line: ln, cont: cont}
		for _, c := range cuts {
			at := ln.content + c
			if at > prev.content {
				_, e := trimSpan(text, prev.content, at)
				prev.end = e
				out = append(out, prev)
			}
			prev = segment{line: line{start: at, content: at, end: ln.end}}
		}
		out = append(out, prev)
	}
	return out
}
