package report

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// blockKind classifies a block of Markdown-ish report text.
type blockKind int

const (
	blockPara     blockKind = iota // paragraph (consecutive text lines)
	blockHeading                   // ATX "# …" or setext heading
	blockItem                      // list item, with its continuation lines
	blockQuote                     // "> …" lines
	blockTableRow                  // "| … |" row
	blockTableSep                  // "|---|---|" separator row
	blockCode                      // fenced or indented code, fences included
	blockRule                      // thematic break
	blockDef                       // "[^x]: …" footnote or "[x]: url" link definition
)

// plainTitleLevel is the level given to a reference-section title written
// as a plain line: its section ends at the next heading of any level.
const plainTitleLevel = 7

// block is a run of lines of one kind. start/end span its content: list,
// quote and heading markers are outside it.
type block struct {
	kind       blockKind
	start, end int
	first      int // index of the first line
	last       int // index of the last line (inclusive)
	level      int // heading level; 0 for a plain-line title
	label      string
	skip       bool // not a source of claims: reference list, chatter, preamble
	refs       bool // inside a reference section
	trailer    bool // an export trailer ("Answer from Perplexity: pplx.ai/share")
}

// line is one line of the text, without its newline.
type line struct {
	start, end int
	content    int // start of the content after leading markers and spaces
}

// splitLines returns the lines of text. A final line without a newline is
// included; "\r\n" endings leave the "\r" outside the line.
func splitLines(text string) []line {
	lines := make([]line, 0, strings.Count(text, "\n")+1)
	for start := 0; start <= len(text); {
		end := strings.IndexByte(text[start:], '\n')
		next := 0
		if end < 0 {
			end = len(text)
			next = len(text) + 1
		} else {
			end += start
			next = end + 1
		}
		e := end
		if e > start && text[e-1] == '\r' {
			e--
		}
		lines = append(lines, line{start: start, end: e, content: start})
		start = next
	}
	return lines
}

// buildBlocks groups lines into blocks.
func buildBlocks(text string, lines []line) []block {
	var blocks []block
	open := -1 // index of a block that continuation lines may extend
	inFence := false
	var fence string
	for i := range lines {
		ln := &lines[i]
		s := text[ln.start:ln.end]
		trimmed := strings.TrimLeft(s, " \t")
		indent := len(s) - len(trimmed)
		ln.content = ln.start + indent
		if inFence {
			blocks[len(blocks)-1].last = i
			blocks[len(blocks)-1].end = ln.end
			// A closing fence; models sometimes put a citation after it
			// ("``` [21]"), which CommonMark would not accept as a close.
			if strings.HasPrefix(trimmed, fence) && !strings.ContainsAny(strings.TrimLeft(trimmed, fence[:1]), "`~") && (strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" || !isASCIILetterByte(strings.TrimLeft(trimmed, fence[:1])[0])) {
				inFence = false
			}
			continue
		}
		if trimmed == "" {
			open = -1
			continue
		}
		if f := fenceOf(trimmed); f != "" && indent < 4 {
			blocks = append(blocks, block{kind: blockCode, start: ln.start, end: ln.end, first: i, last: i})
			inFence, fence, open = true, f, -1
			continue
		}
		if level, cs := atxHeading(trimmed); level > 0 && indent < 4 {
			b := block{kind: blockHeading, level: level, first: i, last: i}
			b.start, b.end = trimSpan(text, ln.content+cs, ln.end)
			b.end = trimClosingHashes(text, b.start, b.end)
			blocks = append(blocks, b)
			open = -1
			continue
		}
		if isRule(trimmed) && indent < 4 {
			// "Text\n---" and "Text\n===" are setext headings.
			if open >= 0 && blocks[open].kind == blockPara && (trimmed[0] == '-' || trimmed[0] == '=') && !strings.ContainsAny(trimmed, " \t*_") {
				blocks[open].kind = blockHeading
				blocks[open].level = 2
				if trimmed[0] == '=' {
					blocks[open].level = 1
				}
				blocks[open].last = i
				open = -1
				continue
			}
			blocks = append(blocks, block{kind: blockRule, start: ln.content, end: ln.end, first: i, last: i})
			open = -1
			continue
		}
		if trimmed[0] == '|' || (open >= 0 && (blocks[open].kind == blockTableRow || blocks[open].kind == blockTableSep) && strings.Contains(trimmed, "|")) {
			kind := blockTableRow
			if isTableSep(trimmed) {
				kind = blockTableSep
			}
			b := block{kind: kind, first: i, last: i}
			b.start, b.end = trimSpan(text, ln.content, ln.end)
			blocks = append(blocks, b)
			open = len(blocks) - 1
			continue
		}
		if label, cs, ok := definition(trimmed); ok && indent < 4 {
			b := block{kind: blockDef, label: label, first: i, last: i}
			b.start, b.end = trimSpan(text, ln.content+cs, ln.end)
			blocks = append(blocks, b)
			open = len(blocks) - 1
			continue
		}
		if cs := listMarker(trimmed); cs > 0 {
			b := block{kind: blockItem, first: i, last: i}
			b.start, b.end = trimSpan(text, ln.content+cs, ln.end)
			blocks = append(blocks, b)
			open = len(blocks) - 1
			continue
		}
		if trimmed[0] == '>' {
			cs := 1
			if len(trimmed) > 1 && trimmed[1] == ' ' {
				cs = 2
			}
			if open >= 0 && blocks[open].kind == blockQuote {
				blocks[open].last = i
				blocks[open].end = ln.end
				continue
			}
			b := block{kind: blockQuote, first: i, last: i}
			b.start, b.end = trimSpan(text, ln.content+cs, ln.end)
			blocks = append(blocks, b)
			open = len(blocks) - 1
			continue
		}
		if indent >= 4 && open < 0 && (len(blocks) == 0 || blocks[len(blocks)-1].kind != blockItem) {
			// An indented code block (not a continuation of a list item).
			if n := len(blocks); n > 0 && blocks[n-1].kind == blockCode && blocks[n-1].last == i-1 && !inFence {
				blocks[n-1].last, blocks[n-1].end = i, ln.end
			} else {
				blocks = append(blocks, block{kind: blockCode, start: ln.start, end: ln.end, first: i, last: i})
			}
			continue
		}
		if len(trimmed) <= 80 && refPlainTitle(trimmed) {
			// "References", "参考文献：", "**Sources**" on a line of their
			// own title a reference list even without a "#".
			b := block{kind: blockHeading, level: plainTitleLevel, first: i, last: i}
			b.start, b.end = trimSpan(text, ln.content, ln.end)
			blocks = append(blocks, b)
			open = -1
			continue
		}
		if open >= 0 && blocks[open].kind == blockPara && gluedTitle(trimmed) > 0 {
			open = -1 // "References [1] …" glued by a converter starts the list's block
		}
		if open >= 0 && blocks[open].kind != blockTableRow && blocks[open].kind != blockTableSep {
			blocks[open].last = i
			_, blocks[open].end = trimSpan(text, blocks[open].start, ln.end)
			continue
		}
		b := block{kind: blockPara, first: i, last: i}
		b.start, b.end = trimSpan(text, ln.content, ln.end)
		blocks = append(blocks, b)
		open = len(blocks) - 1
	}
	return blocks
}

func isASCIILetterByte(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// fenceOf returns the fence ("```", "~~~~", …) a line opens, or "".
func fenceOf(t string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 {
			if c == '`' && strings.IndexByte(t[n:], '`') >= 0 {
				return "" // "```code```" on one line is inline code
			}
			return t[:n]
		}
	}
	return ""
}

// atxHeading returns the level of an ATX heading and the offset of its
// content, or 0.
func atxHeading(t string) (int, int) {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 {
		return 0, 0
	}
	if n == len(t) {
		return n, n
	}
	if t[n] != ' ' && t[n] != '\t' {
		return 0, 0
	}
	return n, n + 1
}

// trimClosingHashes drops an ATX heading's optional closing "###".
func trimClosingHashes(text string, start, end int) int {
	e := end
	for e > start && text[e-1] == '#' {
		e--
	}
	if e == start || (e < end && (text[e-1] == ' ' || text[e-1] == '\t')) {
		_, e = trimSpan(text, start, e)
		return e
	}
	return end
}

// isRule reports whether a line is a thematic break ("---", "* * *", "___")
// or a setext underline ("===").
func isRule(t string) bool {
	t = strings.TrimRight(t, " \t")
	if len(t) < 3 {
		return false
	}
	c := t[0]
	if c != '-' && c != '*' && c != '_' && c != '=' {
		return false
	}
	n := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case c:
			n++
		case ' ', '\t':
			if c == '=' {
				return false
			}
		default:
			return false
		}
	}
	return n >= 3
}

// isTableSep reports whether a table line is a separator row ("|---|:-:|").
func isTableSep(t string) bool {
	dash := false
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '-':
			dash = true
		case '|', ':', ' ', '\t':
		default:
			return false
		}
	}
	return dash
}

// definition recognises "[^label]: …" footnote definitions and
// "[label]: <url>" link reference definitions, returning the label ("^x" for
// footnotes) and the offset of the definition's content.
func definition(t string) (string, int, bool) {
	if len(t) < 4 || t[0] != '[' {
		return "", 0, false
	}
	end := strings.IndexByte(t, ']')
	if end < 2 || end > 100 || end+1 >= len(t) || t[end+1] != ':' {
		return "", 0, false
	}
	label := t[1:end]
	if strings.ContainsAny(label, "[\n") {
		return "", 0, false
	}
	cs := end + 2
	for cs < len(t) && (t[cs] == ' ' || t[cs] == '\t') {
		cs++
	}
	if label[0] != '^' {
		// A link definition must be followed by a destination.
		rest := strings.ToLower(t[cs:])
		if !strings.HasPrefix(rest, "http") && !strings.HasPrefix(rest, "<http") && !strings.HasPrefix(rest, "www.") && !strings.HasPrefix(rest, "doi:") {
			return "", 0, false
		}
	}
	return label, cs, true
}

// listMarker returns the offset of a list item's content ("- ", "* ", "+ ",
// "• ", "1. ", "1) "), or 0 when the line is not a list item.
func listMarker(t string) int {
	if len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t') {
		return 2
	}
	if strings.HasPrefix(t, "• ") {
		return len("• ")
	}
	n := 0
	for n < len(t) && n < 4 && t[n] >= '0' && t[n] <= '9' {
		n++
	}
	if n > 0 && n < len(t)-1 && (t[n] == '.' || t[n] == ')') && (t[n+1] == ' ' || t[n+1] == '\t') {
		return n + 2
	}
	return 0
}

// trimSpan narrows [start, end) to exclude leading and trailing white space
// (including U+3000 and NBSP), staying on rune boundaries.
func trimSpan(text string, start, end int) (int, int) {
	for start < end {
		r, size := utf8.DecodeRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	for end > start {
		r, size := utf8.DecodeLastRuneInString(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= size
	}
	return start, end
}
