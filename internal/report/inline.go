package report

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// Bounds that keep scanning linear on adversarial input: a link text, a
// link destination, a code span and a bracketed marker are looked for only
// this far ahead.
const (
	maxLinkText  = 1000
	maxLinkDest  = 4096
	maxCodeSpan  = 4096
	maxMarkerLen = 80
	maxHidden    = 16384 // a hidden element ("<span style=\"display:none\">[^1_1]…</span>")
)

// span is a protected region of a block: a citation marker, a link, an
// image or a code span. Sentences are never split inside one.
type span struct {
	start, end int
	cite       bool // a citation marker (may trail a sentence)
}

// scanner finds in-text citations.
type scanner struct {
	text, low string
	entries   []entry
	byLabel   map[string]int // numeric label, "^x" footnote label or link-definition label → entry
	glued     bool           // also read "word.12" superscript-style numbers
	cites     []claimtrace.Citation
	spans     []span

	// Author–year markers (authoryear.go).
	ay          ayIndex // entries by year; nil when no entry names authors and a year
	blockStart  int     // start of the block being scanned
	brackets    []int32 // matchBrackets of the block, made once searching costs more
	bracketWork int     // bytes the block's bracket searches have read
	ayFloor     int     // end of the last author–year citation
	ayMatched   bool    // some author–year marker matched a list entry
	ayPending   []ayPending
	ayToks      []ayTok
	ayCands     []int

	guard *guard // ParseContext's limits; nil for Parse
}

// inlineLink is a parsed markdown link or image.
type inlineLink struct {
	textStart, textEnd int
	dest               string
	end                int
	isURL              bool // dest is a URL or an identifier (not an anchor or relative path)
}

// scanBlock scans text[start:end] for citation markers.
func (s *scanner) scanBlock(start, end int) {
	text, low := s.text, s.low
	s.blockStart, s.brackets, s.bracketWork = start, nil, 0
	check := start
	for i := start; i < end; {
		if s.guard != nil && i >= check {
			if s.guard.stop(len(s.cites), 0) || s.guard.tooManySpans(len(s.spans)) {
				return
			}
			check = i + 64<<10
		}
		c := text[i]
		switch {
		case c == '\\' && i+1 < end:
			i += 2
			continue
		case c == '`':
			if j := codeSpanEnd(text, i, end); j > 0 {
				s.spans = append(s.spans, span{start: i, end: j})
				i = j
				continue
			}
			n := i
			for n < end && text[n] == '`' {
				n++
			}
			i = n
			continue
		case c == '!' && i+1 < end && text[i+1] == '[':
			if l, ok := s.inlineLink(i+1, end); ok {
				s.spans = append(s.spans, span{start: i, end: l.end})
				i = l.end
				continue
			}
		case c == '[':
			if j := s.bracket(i, end); j > i {
				i = j
				continue
			}
		case c == '<' && i+1 < end && (strings.HasPrefix(low[i+1:end], "http://") || strings.HasPrefix(low[i+1:end], "https://") || strings.HasPrefix(low[i+1:end], "www.")):
			lim := min(end, i+maxLinkDest)
			if j := strings.IndexByte(text[i:lim], '>'); j > 0 && !strings.ContainsAny(text[i+1:i+j], " \t\n<") {
				u := text[i+1 : i+j]
				s.add(claimtrace.Citation{Marker: text[i : i+j+1], Kind: claimtrace.KindAutolink, URL: u, Start: i, End: i + j + 1}, -1)
				i += j + 1
				continue
			}
		case c == '$':
			if j := mathSpanEnd(text, i, end); j > i {
				s.spans = append(s.spans, span{start: i, end: j})
				i = j
				continue
			}
		case c == '<' && i+1 < end && (isASCIILetterByte(text[i+1]) || text[i+1] == '/'):
			if j := s.htmlTag(i, end); j > i {
				i = j
				continue
			}
		case (c == 'h' || c == 'H' || c == 'w' || c == 'W') && isURLStart(low, i) && boundaryBefore(text, i):
			j := bareURLEnd(text, i, end)
			if u := biblio.TrimURLTail(text[i:j]); len(u) > len("https://") {
				j = i + len(u)
				s.add(claimtrace.Citation{Marker: u, Kind: claimtrace.KindBareURL, URL: unescapeURL(u), Start: i, End: j}, -1)
				i = j
				continue
			}
		case (c == 'd' || c == 'D') && strings.HasPrefix(low[i:min(end, i+4)], "doi") && boundaryBefore(text, i):
			if j := s.doiTag(i, end); j > i {
				i = j
				continue
			}
		case c == '1' && i+3 < end && text[i+1] == '0' && text[i+2] == '.' && boundaryBefore(text, i):
			if j := s.bareDOI(i, i, end); j > i {
				i = j
				continue
			}
		case (c == 'a' || c == 'A') && strings.HasPrefix(low[i:min(end, i+5)], "arxiv") && boundaryBefore(text, i):
			if j := s.arxivTag(i, end); j > i {
				i = j
				continue
			}
		case c == '/' && i+8 <= end && allDigits(text[i+1:i+8]):
			s.oldArXiv(i, end)
		case c == 0xE3 && strings.HasPrefix(text[i:end], "【"):
			if j := s.lenticular(i, end); j > i {
				i = j
				continue
			}
		case c == 0xEE && strings.HasPrefix(text[i:end], "\ue200"):
			if j := s.privateCite(i, end); j > i {
				i = j
				continue
			}
		case c == '(' && s.ay != nil:
			if j := s.authorYear(i, end); j > i {
				i = j
				continue
			}
		case s.glued && c >= '1' && c <= '9':
			if j := s.gluedNumber(i, end); j > i {
				i = j
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(text[i:end])
		i += size
	}
}

// mathSpanEnd returns the end of the TeX math "$…$" or "$$…$$" opening at
// i, or i. As in Pandoc, an opening "$" is followed by a non-blank, a
// closing one follows a non-blank and is not followed by a digit, so "$5
// and $10" is money, not math.
func mathSpanEnd(text string, i, end int) int {
	d := "$"
	if strings.HasPrefix(text[i:end], "$$") {
		d = "$$"
	}
	j := i + len(d)
	if j >= end || text[j] == ' ' || text[j] == '\t' || text[j] == '\n' {
		return i
	}
	lim := min(end, j+maxCodeSpan)
	for k := j; k < lim; k++ {
		switch text[k] {
		case '\\':
			k++
		case '\n':
			if d == "$" {
				return i
			}
		case '$':
			if !strings.HasPrefix(text[k:lim], d) || text[k-1] == ' ' || text[k-1] == '\t' {
				if d == "$" {
					return i
				}
				continue
			}
			e := k + len(d)
			if e < end && text[e] >= '0' && text[e] <= '9' {
				return i
			}
			return e
		}
	}
	return i
}

// htmlElements are the HTML elements exports write into markdown: the
// logo "<img src=…>" of a Perplexity export, "<span
// style=\"display:none\">" marker lists, "<div align=\"center\">⁂</div>".
var htmlElements = map[string]bool{
	"a": true, "img": true, "div": true, "span": true, "p": true, "br": true, "hr": true, "sup": true, "sub": true,
	"b": true, "i": true, "em": true, "strong": true, "u": true, "small": true, "center": true, "font": true,
	"details": true, "summary": true, "figure": true, "figcaption": true, "picture": true, "source": true,
	"video": true, "audio": true, "iframe": true, "table": true, "tr": true, "td": true, "th": true,
	"thead": true, "tbody": true, "ul": true, "ol": true, "li": true, "section": true, "article": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "code": true, "pre": true,
	"blockquote": true, "cite": true, "mark": true, "kbd": true, "svg": true, "path": true,
}

// htmlTag handles an HTML tag at i. Its attributes are not citations (an
// image's src is a logo, not a source); "<a href=…>" is a link; an element
// hidden by "display:none" is skipped whole with its content. It returns
// the index after what it consumed, or i when the '<' opens no tag.
func (s *scanner) htmlTag(i, end int) int {
	text := s.text
	j := i + 1
	closing := j < end && text[j] == '/'
	if closing {
		j++
	}
	n := j
	for n < end && n-j < 12 && (isAlnumByte(text[n]) || text[n] == '-') {
		n++
	}
	name := s.low[j:n]
	if !htmlElements[name] || n >= end || strings.IndexByte(" \t\n/>", text[n]) < 0 {
		return i
	}
	k := strings.IndexByte(text[n:min(end, n+maxLinkDest)], '>')
	if k < 0 {
		return i
	}
	stop := n + k + 1
	tag := s.low[i:stop]
	if !closing && (strings.Contains(tag, "display:none") || strings.Contains(tag, "display: none")) {
		// The whole hidden element: "<span style=\"display:none\">[^1][^2]</span>".
		if c := strings.Index(s.low[stop:min(end, stop+maxHidden)], "</"+name+">"); c >= 0 {
			stop += c + len("</"+name+">")
		}
	}
	if !closing && name == "a" {
		if h := strings.Index(tag, "href="); h >= 0 {
			v := strings.Trim(text[i+h+len("href="):stop-1], "\"' /")
			if q := strings.IndexAny(v, "\"' "); q >= 0 {
				v = v[:q]
			}
			if hasPrefixFold(v, "http://") || hasPrefixFold(v, "https://") {
				s.add(claimtrace.Citation{Marker: text[i:stop], Kind: claimtrace.KindLink, URL: v, Start: i, End: stop}, -1)
				return stop
			}
		}
	}
	s.spans = append(s.spans, span{start: i, end: stop})
	return stop
}

// add records a citation. entryIdx, when ≥ 0, is the reference-list entry
// it resolves to; identifiers are filled from the URL and the entry.
func (s *scanner) add(c claimtrace.Citation, entryIdx int) {
	if s.guard.citationsFull(len(s.cites)) {
		return // past the limit: the guard fails the parse
	}
	s.fill(&c, entryIdx)
	s.cites = append(s.cites, c)
	s.spans = append(s.spans, span{start: c.Start, end: c.End, cite: true})
}

// fill completes a citation's target from the entry it resolves to (when
// entryIdx ≥ 0) and its identifiers from its URL.
func (s *scanner) fill(c *claimtrace.Citation, entryIdx int) {
	if entryIdx >= 0 {
		e := s.entries[entryIdx]
		if c.URL == "" {
			c.URL = e.url
		}
		if c.DOI == "" {
			c.DOI = e.doi
		}
		if c.ArXivID == "" {
			c.ArXivID = e.arxiv
		}
		if c.Title == "" {
			c.Title = e.title
		}
	}
	if c.URL != "" {
		if c.DOI == "" {
			c.DOI = biblio.DOI(c.URL)
		}
		if c.ArXivID == "" {
			c.ArXivID = biblio.ArXivID(c.URL)
		}
	}
}

// bracket handles a '[' at i: a footnote reference, a link, a reference
// link or a numbered marker group. It returns the index after what it
// consumed, or i when the bracket is plain text.
func (s *scanner) bracket(i, end int) int {
	text := s.text
	if i+1 < end && text[i+1] == '^' {
		lim := min(end, i+maxMarkerLen)
		if j := strings.IndexByte(text[i:lim], ']'); j > 2 && !strings.ContainsAny(text[i+2:i+j], " \t\n[") {
			label := "^" + text[i+2:i+j]
			idx, ok := s.byLabel[label]
			if !ok {
				idx = -1
			}
			s.add(claimtrace.Citation{Marker: text[i : i+j+1], Kind: claimtrace.KindFootnote, Start: i, End: i + j + 1}, idx)
			return i + j + 1
		}
	}
	if l, ok := s.inlineLink(i, end); ok {
		inner := text[l.textStart:l.textEnd]
		switch {
		case l.isURL:
			marker := "[" + inner + "]"
			idx := -1
			if n, ok := numberLabel(inner); ok {
				marker = "[" + n + "]"
				// "[[4]](url)" with a list entry [4] for the same URL: the
				// entry adds the title.
				if e := s.entryFor(n); e >= 0 && sameURL(s.entries[e].url, l.dest) {
					idx = e
				}
			}
			s.add(claimtrace.Citation{Marker: marker, Kind: claimtrace.KindLink, URL: l.dest, Start: i, End: l.end}, idx)
		case strings.HasPrefix(l.dest, "#"):
			// "[[3]](#ref-3)": a numbered marker linking to the list.
			if n, ok := numberLabel(inner); ok {
				s.add(claimtrace.Citation{Marker: "[" + n + "]", Kind: claimtrace.KindNumbered, Start: i, End: l.end}, s.entryFor(n))
			} else {
				s.spans = append(s.spans, span{start: i, end: l.end})
			}
		default:
			s.spans = append(s.spans, span{start: i, end: l.end})
		}
		return l.end
	}
	if j := s.numberGroup(i, end, '[', ']'); j > i {
		return j
	}
	// "[text][label]" reference link with a defined, non-numeric label.
	lim := min(end, i+maxLinkText)
	if j := strings.IndexByte(text[i:lim], ']'); j > 0 && i+j+1 < end && text[i+j+1] == '[' {
		k := strings.IndexByte(text[i+j+1:min(end, i+j+1+maxMarkerLen)], ']')
		if k > 0 {
			label := strings.ToLower(text[i+j+2 : i+j+1+k])
			if label == "" {
				label = strings.ToLower(text[i+1 : i+j])
			}
			if idx, ok := s.byLabel[label]; ok && !isNumber(label) && !strings.HasPrefix(label, "^") {
				s.add(claimtrace.Citation{Marker: text[i : i+j+1], Kind: claimtrace.KindLink, Start: i, End: i + j + 2 + k}, idx)
				return i + j + 2 + k
			}
		}
	}
	// "[label]" shortcut reference link with a defined, non-numeric label.
	if j := strings.IndexByte(text[i:min(end, i+maxMarkerLen)], ']'); j > 1 {
		label := strings.ToLower(text[i+1 : i+j])
		if idx, ok := s.byLabel[label]; ok && !isNumber(label) && !strings.HasPrefix(label, "^") && !strings.Contains(label, "[") {
			s.add(claimtrace.Citation{Marker: text[i : i+j+1], Kind: claimtrace.KindLink, Start: i, End: i + j + 1}, idx)
			return i + j + 1
		}
	}
	return i
}

// sameURL reports whether two URLs are one page after canonicalization.
func sameURL(a, b string) bool {
	ca, errA := biblio.CanonicalURL(a)
	cb, errB := biblio.CanonicalURL(b)
	return errA == nil && errB == nil && ca == cb
}

// entryFor returns the entry a numeric label resolves to, or -1.
func (s *scanner) entryFor(label string) int {
	if idx, ok := s.byLabel[label]; ok {
		return idx
	}
	return -1
}

// numberGroup parses "[3]", "[3, 5]", "[3-5]", "[3; 7]", "[4†source]" (and
// with open/close "【】") at i. Each number becomes a numbered citation
// spanning the whole group. A group is rejected when it holds a number
// above 999 that no entry resolves (a year, "[2020]"), or when
// readNumberGroup rejects it.
func (s *scanner) numberGroup(i, end int, open, close rune) int {
	nums, stop, ok := readNumberGroup(s.text, i, end, open, close)
	if !ok {
		return i
	}
	for _, n := range nums {
		v, _ := strconv.Atoi(n)
		if v > 999 || v == 0 {
			if _, ok := s.byLabel[n]; !ok {
				return i // a year "[2020]", an interval "[0, 1]"
			}
		}
	}
	if open == '[' && mathAround(s.text, i, stop, len(nums) == 2 && !strings.ContainsAny(s.text[i:stop], "-–—~")) {
		return i
	}
	for _, n := range nums {
		s.add(claimtrace.Citation{Marker: "[" + n + "]", Kind: claimtrace.KindNumbered, Start: i, End: stop}, s.entryFor(n))
	}
	return stop
}

// readNumberGroup reads the numeric marker opening at i ("[3]", "[3, 5]",
// "[3-5]", "[3; 7]", "【4†source】"): its numbers, without leading zeros,
// and its end. It is not one when it is a link ("[3](url)"), a definition
// ("[3]: …" at a line start), holds anything else, or a range that is
// reversed or wider than 50 ("[41-23]").
func readNumberGroup(text string, i, end int, open, close rune) (nums []string, stop int, ok bool) {
	j := i + utf8.RuneLen(open)
	lim := min(end, i+maxMarkerLen)
	cur := -1
	rangeFrom := -1
	for j < lim {
		r, size := utf8.DecodeRuneInString(text[j:lim])
		switch {
		case r >= '0' && r <= '9':
			k := j
			for k < lim && text[k] >= '0' && text[k] <= '9' {
				k++
			}
			if k-j > 5 {
				return nil, 0, false
			}
			n, _ := strconv.Atoi(text[j:k])
			if rangeFrom >= 0 {
				if n < rangeFrom || n-rangeFrom > 50 {
					return nil, 0, false
				}
				for m := rangeFrom + 1; m <= n; m++ {
					nums = append(nums, strconv.Itoa(m))
				}
				rangeFrom = -1
			} else {
				nums = append(nums, strconv.Itoa(n))
			}
			cur = n
			j = k
			continue
		case r == ' ' || r == ',' || r == ';' || r == '，' || r == '、' || r == '；':
			cur = -1
		case r == '-' || r == '–' || r == '—' || r == '~':
			if cur < 0 {
				return nil, 0, false
			}
			rangeFrom = cur
			cur = -1
		case r == '†' || r == ':':
			// "【4†source】", "【4:2†source】": keep the first number, skip to the close.
			if len(nums) == 0 {
				return nil, 0, false
			}
			k := strings.IndexRune(text[j:lim], close)
			if k < 0 {
				return nil, 0, false
			}
			j += k
			continue
		case r == close:
			if len(nums) == 0 || rangeFrom >= 0 {
				return nil, 0, false
			}
			stop := j + size
			if close == ']' && stop < end && (text[stop] == '(' || (text[stop] == ':' && lineStartBefore(text, i))) {
				return nil, 0, false
			}
			return nums, stop, true
		default:
			return nil, 0, false
		}
		j += size
	}
	return nil, 0, false
}

// mathAround reports whether the bracket group text[i:stop] is math rather
// than a citation: after a relation ("x ∈ [1, 3]", "= [2, 4]"; not after
// "+" or "*", which end "C++" and "**bold**"), before an operator ("[1, 4]
// × [2, 3]"), or, for a pair ("[2, 5]"), after a
// word naming an interval ("on the interval [2, 5]").
func mathAround(text string, i, stop int, pair bool) bool {
	b := i
	for b > 0 && (text[b-1] == ' ' || text[b-1] == '\t') {
		b--
	}
	prev, _ := utf8.DecodeLastRuneInString(text[:b])
	if strings.ContainsRune("∈∉=≤≥×⊂⊆⊃⊇∪∩", prev) {
		return true
	}
	w := b
	for w > 0 && isASCIILetterByte(text[w-1]) {
		w--
	}
	word := strings.ToLower(text[w:b])
	if w > 0 && text[w-1] == '\\' && (word == "in" || word == "subset" || word == "subseteq" || word == "times" || word == "to") {
		return true
	}
	if pair && (word == "interval" || word == "intervals") {
		return true
	}
	a := stop
	for a < len(text) && (text[a] == ' ' || text[a] == '\t') {
		a++
	}
	next, _ := utf8.DecodeRuneInString(text[a:])
	return strings.ContainsRune("×∪∩^", next) || strings.HasPrefix(text[a:], `\times`) || strings.HasPrefix(text[a:], `\cup`)
}

// lenticular handles "【n】" markers.
func (s *scanner) lenticular(i, end int) int {
	return s.numberGroup(i, end, '【', '】')
}

// privateCite handles ChatGPT's private-use citation markers
// ("\ue200cite\ue202turn9view0\ue202turn11view0\ue201"): one citation per
// source token, without a target (the export does not resolve them).
func (s *scanner) privateCite(i, end int) int {
	lim := min(end, i+1024)
	k := strings.Index(s.text[i:lim], "\ue201")
	if k < 0 {
		return i
	}
	stop := i + k + len("\ue201")
	parts := strings.Split(s.text[i+len("\ue200"):i+k], "\ue202")
	if len(parts) == 0 || (parts[0] != "cite" && parts[0] != "filecite") {
		s.spans = append(s.spans, span{start: i, end: stop})
		return stop
	}
	for _, p := range parts[1:] {
		if p != "" {
			s.add(claimtrace.Citation{Marker: p, Kind: claimtrace.KindNumbered, Start: i, End: stop}, -1)
		}
	}
	return stop
}

// gluedNumber handles superscript numbers flattened into the text after a
// word and a punctuation mark ("…from parent to offspring.1 This…",
// "…debate.2,5"), as in Gemini exports whose numbered list resolves them.
// Every number must resolve to an entry.
func (s *scanner) gluedNumber(i, end int) int {
	text := s.text
	if i < 2 {
		return i
	}
	p := text[i-1]
	if !strings.ContainsRune(".,;:)\"", rune(p)) {
		r, _ := utf8.DecodeLastRuneInString(text[:i])
		if r != '”' && r != '’' {
			return i
		}
	}
	before, _ := utf8.DecodeLastRuneInString(text[:i-1])
	if p == '.' || p == ',' || p == ';' || p == ':' {
		if !unicode.IsLetter(before) && before != ')' && before != '"' && before != '”' {
			return i
		}
		if p == '.' && abbreviationBefore(text, i-1) {
			return i
		}
	}
	var nums []string
	j := i
	for {
		k := j
		for k < end && k-j < 3 && text[k] >= '0' && text[k] <= '9' {
			k++
		}
		if k == j || (k < end && text[k] >= '0' && text[k] <= '9') {
			return i
		}
		n := text[j:k]
		if _, ok := s.byLabel[n]; !ok {
			return i
		}
		nums = append(nums, n)
		j = k
		if j+1 < end && text[j] == ',' && text[j+1] >= '1' && text[j+1] <= '9' {
			j++
			continue
		}
		break
	}
	if j < end {
		r, _ := utf8.DecodeRuneInString(text[j:end])
		if !unicode.IsSpace(r) && r != '[' && r != '\ue200' {
			return i
		}
	}
	for _, n := range nums {
		s.add(claimtrace.Citation{Marker: "[" + n + "]", Kind: claimtrace.KindNumbered, Start: i, End: j}, s.entryFor(n))
	}
	return j
}

// doiTag handles "doi:10.…", "DOI 10.…" and "doi.org/10.…" at i.
func (s *scanner) doiTag(i, end int) int {
	low := s.low
	j := i + 3
	if strings.HasPrefix(low[j:min(end, j+5)], ".org/") {
		j += 5
	} else {
		for j < end && (low[j] == ' ' || low[j] == ':' || low[j] == '\t') {
			j++
		}
		if strings.HasPrefix(s.text[j:end], "：") {
			j += len("：")
		}
		for j < end && low[j] == ' ' {
			j++
		}
	}
	if !strings.HasPrefix(low[j:end], "10.") {
		return i
	}
	return s.bareDOI(i, j, end)
}

// bareDOI handles a DOI starting at at, the marker starting at i.
func (s *scanner) bareDOI(i, at, end int) int {
	j := at
	for j < end {
		r, size := utf8.DecodeRuneInString(s.text[j:end])
		if unicode.IsSpace(r) || r == '"' || r == '<' || r == '>' || r == '`' || r == '|' || r == '[' || r == ']' || isCJKPunct(r) || (r >= 0x80 && !unicode.IsLetter(r)) {
			break
		}
		j += size
	}
	raw := biblio.TrimURLTail(s.text[at:j])
	d := biblio.DOI(raw)
	if d == "" {
		return i
	}
	j = at + len(raw)
	s.add(claimtrace.Citation{Marker: s.text[i:j], Kind: claimtrace.KindDOI, DOI: d, Start: i, End: j}, -1)
	return j
}

var arxivTagRE = lazyregexp.New(`(?i)^arxiv(?:\.org/(?:abs|pdf)/|\s*[:：]?\s*)((?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?)`)

// arxivTag handles "arXiv:2101.00001v2", "arXiv 2101.00001" and
// "arxiv.org/abs/…" without a scheme.
func (s *scanner) arxivTag(i, end int) int {
	m := arxivTagRE.FindStringSubmatchIndex(s.text[i:min(end, i+60)])
	if m == nil {
		return i
	}
	j := i + m[1]
	if j < end && (isAlnumByte(s.text[j]) || s.text[j] == '.' && j+1 < end && isAlnumByte(s.text[j+1])) {
		return i
	}
	id := biblio.ArXivID(s.text[i+m[2] : i+m[3]])
	if id == "" {
		return i
	}
	s.add(claimtrace.Citation{Marker: s.text[i:j], Kind: claimtrace.KindArXiv, ArXivID: id, Start: i, End: j}, -1)
	return j
}

// oldArXiv handles an old-style identifier "hep-th/9901001" whose '/' is at
// slash; the archive name precedes it.
func (s *scanner) oldArXiv(slash, end int) {
	start := slash
	for start > 0 && (isLowerByte(s.low[start-1]) || s.low[start-1] == '-' || s.low[start-1] == '.') {
		start--
	}
	if start == slash || (start > 0 && (isAlnumByte(s.text[start-1]) || s.text[start-1] == '/')) {
		return
	}
	j := slash + 8
	if j < end && s.text[j] == 'v' {
		for j+1 < end && s.text[j+1] >= '0' && s.text[j+1] <= '9' {
			j++
		}
		j++
	}
	if j < end && isAlnumByte(s.text[j]) {
		return
	}
	if len(s.cites) > 0 && s.cites[len(s.cites)-1].End > start {
		return
	}
	id := biblio.ArXivID(s.text[start:j])
	if id == "" || !strings.Contains(id, "/") {
		return
	}
	s.add(claimtrace.Citation{Marker: s.text[start:j], Kind: claimtrace.KindArXiv, ArXivID: id, Start: start, End: j}, -1)
}

// inlineLink parses the markdown link at the '[' at i of the block ending
// at end. Brackets are searched one at a time until that has read more than
// twice the block, then matched through the block's table: ordinary text
// never pays for the table, a paragraph of unclosed brackets stays linear.
func (s *scanner) inlineLink(i, end int) (inlineLink, bool) {
	size := end - s.blockStart
	if len(s.brackets) == size && i >= s.blockStart && i < end {
		return linkByTable(s.text, s.brackets, s.blockStart, i, end)
	}
	j, ok := closeBracket(s.text, i, end)
	if ok {
		s.bracketWork += j - i
	} else {
		s.bracketWork += min(end, i+maxLinkText) - i
	}
	// Searching has cost more than a pass over the block: the block's
	// brackets are matched in one pass from now on.
	if s.bracketWork > 2*size && i >= s.blockStart {
		s.brackets = matchBrackets(s.text, s.blockStart, end)
	}
	if !ok {
		return inlineLink{}, false
	}
	return inlineLinkAt(s.text, i, j, end)
}

// linkByTable is parseInlineLink with the bracket at i matched through
// the table matchBrackets made of text[start:end].
func linkByTable(text string, table []int32, start, i, end int) (inlineLink, bool) {
	switch j := int(table[i-start]); {
	case j == 0:
		return parseInlineLink(text, i, end)
	case j < 0 || j >= i+maxLinkText:
		return inlineLink{}, false
	default:
		return inlineLinkAt(text, i, j, end)
	}
}

// parseInlineLink parses a markdown link "[text](dest "title")" starting
// at the '[' at i.
func parseInlineLink(text string, i, end int) (inlineLink, bool) {
	j, ok := closeBracket(text, i, end)
	if !ok {
		return inlineLink{}, false
	}
	return inlineLinkAt(text, i, j, end)
}

// closeBracket finds the ']' closing the '[' at i: brackets nest,
// backslashes escape, a blank line or maxLinkText bytes end the search.
func closeBracket(text string, i, end int) (int, bool) {
	depth := 0
	lim := min(end, i+maxLinkText)
	j := i
	for ; j < lim; j++ {
		switch text[j] {
		case '\\':
			j++
			continue
		case '[':
			depth++
		case ']':
			depth--
		case '\n':
			if j+1 < lim && text[j+1] == '\n' {
				return 0, false
			}
		}
		if depth == 0 {
			break
		}
	}
	return j, j < lim && depth == 0
}

// matchBrackets matches the brackets of text[start:end] in one pass, with
// closeBracket's rules: close[p-start] is the ']' closing the '[' at p, -1
// when none does (before a blank line), 0 when p holds no '[' or one this
// pass reads as escaped (closeBracket then decides). A paragraph of
// thousands of unclosed brackets so costs linear time, not maxLinkText
// bytes a bracket.
func matchBrackets(text string, start, end int) []int32 {
	close := make([]int32, end-start)
	var open []int32
	for j := start; j < end; j++ {
		switch text[j] {
		case '\\':
			j++
		case '[':
			close[j-start] = -1
			open = append(open, int32(j))
		case ']':
			if n := len(open); n > 0 {
				close[int(open[n-1])-start] = int32(j)
				open = open[:n-1]
			}
		case '\n':
			if j+1 < end && text[j+1] == '\n' {
				open = open[:0]
			}
		}
	}
	return close
}

// inlineLinkAt parses the rest of a link whose text runs from the '[' at i
// to the ']' at j.
func inlineLinkAt(text string, i, j, end int) (inlineLink, bool) {
	if j+1 >= end || text[j+1] != '(' {
		return inlineLink{}, false
	}
	l := inlineLink{textStart: i + 1, textEnd: j}
	k := j + 2
	for k < end && (text[k] == ' ' || text[k] == '\t') {
		k++
	}
	dlim := min(end, k+maxLinkDest)
	var dest string
	if k < dlim && text[k] == '<' {
		e := strings.IndexByte(text[k:dlim], '>')
		if e < 0 {
			return inlineLink{}, false
		}
		dest = text[k+1 : k+e]
		k += e + 1
	} else {
		d := k
		par := 0
		for d < dlim {
			c := text[d]
			if c == '\\' && d+1 < dlim {
				d += 2
				continue
			}
			if c == ' ' || c == '\t' || c == '\n' {
				break
			}
			if c == '(' {
				par++
			} else if c == ')' {
				if par == 0 {
					break
				}
				par--
			}
			d++
		}
		if d >= dlim {
			return inlineLink{}, false
		}
		dest = text[k:d]
		k = d
	}
	for k < end && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n') {
		k++
	}
	if k < end && (text[k] == '"' || text[k] == '\'') {
		q := text[k]
		e := strings.IndexByte(text[k+1:min(end, k+1+maxLinkText)], q)
		if e < 0 {
			return inlineLink{}, false
		}
		k += e + 2
		for k < end && (text[k] == ' ' || text[k] == '\t') {
			k++
		}
	}
	if k >= end || text[k] != ')' {
		return inlineLink{}, false
	}
	l.dest = unescapeURL(dest)
	l.end = k + 1
	d := l.dest
	l.isURL = hasPrefixFold(d, "http://") || hasPrefixFold(d, "https://") || hasPrefixFold(d, "www.") || hasPrefixFold(d, "doi:") || hasPrefixFold(d, "arxiv:")
	return l, true
}

// hasPrefixFold reports whether s starts with prefix, ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// codeSpanEnd returns the end of an inline code span opened by the backtick
// run at i, or 0 when it is not closed nearby.
func codeSpanEnd(text string, i, end int) int {
	n := i
	for n < end && text[n] == '`' {
		n++
	}
	run := text[i:n]
	lim := min(end, n+maxCodeSpan)
	for k := n; k < lim; {
		j := strings.Index(text[k:lim], run)
		if j < 0 {
			return 0
		}
		j += k
		e := j + len(run)
		if e < end && text[e] == '`' {
			for e < end && text[e] == '`' {
				e++
			}
			k = e
			continue
		}
		return e
	}
	return 0
}

// isURLStart reports whether an http(s):// or www. URL starts at i.
func isURLStart(low string, i int) bool {
	r := low[i:min(len(low), i+8)]
	return strings.HasPrefix(r, "https://") || strings.HasPrefix(r, "http://") || (strings.HasPrefix(r, "www.") && len(low) > i+5 && isAlnumByte(low[i+4]))
}

// bareURLEnd returns where a bare URL starting at i ends: at white space,
// '<', '>', '"', '`', '|', a bracket, full-width punctuation, or a CJK
// character that does not directly follow a path separator (so
// "…/zh-hans/中產階級" keeps its path while "https://x.org/a以及" stops at "以").
// Trailing punctuation is trimmed by the caller.
func bareURLEnd(text string, i, end int) int {
	j := ipv6HostEnd(text, i, end)
	inCJK := false
	for j < end {
		r, size := utf8.DecodeRuneInString(text[j:end])
		if r < 0x80 {
			if r == '\\' && j+1 < end && strings.IndexByte(urlEscapable, text[j+1]) >= 0 {
				j += 2 // a markdown escape: "?a=1\\&b=2", "a\\_b"
				inCJK = false
				continue
			}
			if r <= ' ' || strings.ContainsRune("<>\"`|[]\\", r) {
				break
			}
			inCJK = false
			j += size
			continue
		}
		if unicode.IsSpace(r) || isCJKPunct(r) || r == utf8.RuneError || r == '\ue200' {
			break
		}
		if iriDash(r) {
			// "wiki/Linear–quadratic_regulator": a dash between two
			// letters of a path is the IRI's, not the prose's.
			next, _ := utf8.DecodeRuneInString(text[j+size : end])
			prev, _ := utf8.DecodeLastRuneInString(text[i:j])
			if !unicode.IsLetter(prev) && !unicode.IsDigit(prev) || !unicode.IsLetter(next) && !unicode.IsDigit(next) || strings.Count(text[i:j], "/") < 3 {
				break
			}
			j += size
			continue
		}
		if isCJK(r) && !inCJK {
			prev := text[j-1]
			if prev != '/' && prev != '=' && prev != '-' && prev != '_' {
				break
			}
			inCJK = true
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) {
			break
		}
		j += size
	}
	return j
}

// ipv6HostEnd returns where the bracketed IPv6 literal of a URL starting at
// i ends ("https://[2606:4700::1111]/x" → just after ']'), so that its
// brackets do not end the URL; i when the host is not such a literal.
func ipv6HostEnd(text string, i, end int) int {
	h := strings.Index(text[i:min(end, i+9)], "://")
	if h < 0 || i+h+3 >= end || text[i+h+3] != '[' {
		return i
	}
	start := i + h + 4
	k := start
	for k < end && k-start <= 64 && (isHexByte(text[k]) || text[k] == ':' || text[k] == '.' || text[k] == '%') {
		k++
	}
	if k < end && text[k] == ']' && strings.IndexByte(text[start:k], ':') >= 0 {
		return k + 1
	}
	return i
}

func isHexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// urlEscapable are the characters a markdown writer escapes inside a URL
// ("\\&", "\\_"); the unescaped URL is the one to fetch.
const urlEscapable = "&_*#~=?%+-./:@!$',;"

// iriDash reports whether r is a dash that Wikipedia and other IRIs hold
// in their paths (the en dash, hyphens); the em dash separates prose.
func iriDash(r rune) bool { return r == '–' || r == '‐' || r == '‑' }

// unescapeURL drops the markdown escapes of a URL taken from report text
// ("…?a=1\\&b=2" is "…?a=1&b=2").
func unescapeURL(u string) string {
	if !strings.Contains(u, `\`) {
		return u
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		if u[i] == '\\' && i+1 < len(u) && (strings.IndexByte(urlEscapable, u[i+1]) >= 0 || strings.IndexByte("()[]", u[i+1]) >= 0) {
			i++
		} else if u[i] == '\\' && i+1 == len(u) {
			break
		}
		b.WriteByte(u[i])
	}
	return b.String()
}

// boundaryBefore reports whether position i starts a token: the byte before
// it is not a letter, digit or URL-ish joiner.
func boundaryBefore(text string, i int) bool {
	if i == 0 {
		return true
	}
	c := text[i-1]
	if c >= 0x80 {
		r, _ := utf8.DecodeLastRuneInString(text[:i])
		return !unicode.IsLetter(r) || isCJK(r)
	}
	return !isAlnumByte(c) && strings.IndexByte("/.@-_=%&+~#", c) < 0
}

// lineStartBefore reports whether only blanks precede i on its line.
func lineStartBefore(text string, i int) bool {
	for k := i - 1; k >= 0; k-- {
		switch text[k] {
		case '\n':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// numberLabel reports whether a link text is a bare number ("3", "[3]",
// "^3"), returning it.
func numberLabel(s string) (string, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "^")
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	if isNumber(s) && len(s) <= 5 {
		n, _ := strconv.Atoi(s)
		return strconv.Itoa(n), true
	}
	return "", false
}

func isNumber(s string) bool { return s != "" && allDigits(s) }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isAlnumByte(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isLowerByte(c byte) bool { return c >= 'a' && c <= 'z' }

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isCJK reports whether r is a Han, Hiragana, Katakana or Hangul character
// (the text toolkit's definition, shared with the sentence splitter).
func isCJK(r rune) bool { return lexical.IsCJK(r) }

// isCJKPunct reports whether r is full-width or CJK punctuation.
func isCJKPunct(r rune) bool {
	return (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFF0F) || (r >= 0xFF1A && r <= 0xFF20) ||
		(r >= 0xFF3B && r <= 0xFF40) || (r >= 0xFF5B && r <= 0xFF65) || r == '“' || r == '”' || r == '‘' || r == '’' || r == '…'
}

// asciiLower lowercases ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
