package report

import (
	"strings"

	"github.com/claimtrace/claimtrace/internal/biblio"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// entry is one entry of a report's reference list, or one footnote or link
// definition.
type entry struct {
	labels     []string // "3", "27"; "^x" for footnotes; link-definition labels lowercased; none for bullets
	marker     string   // the labels as written ("[27] [59]", "3.", "[^x]")
	start, end int      // span of the whole entry, markers included
	url        string
	doi        string
	arxiv      string
	title      string
	key        *authorKey // first authors and years, for author–year markers; nil when the entry names none
}

// identified reports whether an entry names its work by a URL or an
// identifier rather than by a title alone.
func (e entry) identified() bool { return e.url != "" || e.doi != "" || e.arxiv != "" }

// refHeading matches the titles of reference sections, in the languages
// the reports come in.
var refHeading = lazyregexp.New(`(?i)^(?:[\w-]+\s+){0,2}(?:references?|reference list|sources?|sources cited|cited sources|bibliography|works cited|citations|cited works|literature cited|further reading|notes|footnotes|links|key citations)$|^(?:参考文献|关键引用|主要引用|参考资料|参考来源|引用来源|资料来源|信息来源|来源|引用|引用的著作|引用文献|文献|出处|參考文獻|參考資料|資料來源|引用的著作|参考文献リスト|出典)$`)

// refHeadingText reports whether a heading (or a short line on its own)
// titles a reference section, ignoring markdown emphasis, numbering and a
// trailing colon.
//
// A markdown heading may qualify the word ("Key Sources", "Further
// Reading"); a plain line must be the word alone, since plain-text exports
// also flatten tables whose column headers read "Key references".
func refHeadingText(s string) bool {
	return refTitle(s, true)
}

func refPlainTitle(s string) bool {
	return refTitle(s, false)
}

func refTitle(s string, qualified bool) bool {
	s = strings.TrimSpace(s)
	if len(s) > 60 {
		return false
	}
	s = strings.Trim(s, "*_#: ：")
	if s != "" && strings.IndexByte("0123456789IVXivx", s[0]) >= 0 {
		s = sectionNumber.ReplaceAllString(s, "")
	}
	s = strings.Trim(s, "*_: ：")
	if s == "" || len(s) > 60 {
		return false
	}
	if !qualified {
		return refPlainTitles[strings.ToLower(s)]
	}
	return refHeading.MatchString(s)
}

// sectionNumber matches a heading's numbering ("7. ", "VI) ", "4.2 ").
var sectionNumber = lazyregexp.New(`^(?:\d+(?:\.\d+)*|[IVXivx]+)[.)]?\s+`)

// refPlainTitles are the titles accepted on a plain line (every plain line
// is checked, so this is a map rather than the regexp).
var refPlainTitles = map[string]bool{
	"references": true, "reference": true, "reference list": true, "sources": true, "source": true,
	"sources cited": true, "cited sources": true, "bibliography": true, "works cited": true,
	"citations": true, "cited works": true, "literature cited": true, "further reading": true,
	"notes": true, "footnotes": true, "links": true, "key citations": true, "关键引用": true, "主要引用": true,
	"参考文献": true, "参考资料": true, "参考来源": true, "引用来源": true, "资料来源": true, "信息来源": true,
	"来源": true, "引用": true, "引用的著作": true, "引用文献": true, "文献": true, "出处": true,
	"參考文獻": true, "參考資料": true, "資料來源": true, "参考文献リスト": true, "出典": true,
}

// findReferenceSections marks the blocks that form reference lists:
// sections under a reference heading whose blocks mostly look like entries,
// and a trailing run of "[n] …" entries without a heading (ChatGPT export).
// Definition blocks are always entries. It returns the block index ranges
// [from, to) of the sections found.
func findReferenceSections(text string, blocks []block) [][2]int {
	for k, b := range blocks {
		blocks[k].trailer = (b.kind == blockPara || b.kind == blockItem) && exportTrailer(text[b.start:b.end])
	}
	var sections [][2]int
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		level := -1
		first := i + 1 // the section's first block of entries
		switch {
		case b.kind == blockHeading && refHeadingText(text[b.start:b.end]):
			level = b.level
		case (b.kind == blockPara || b.kind == blockItem) && b.first == b.last && refPlainTitle(text[b.start:b.end]):
			level = plainTitleLevel
		case b.kind == blockPara && gluedTitle(text[b.start:b.end]) > 0:
			level, first = plainTitleLevel, i // "References [1] A. Author …": the title glued to the list
		default:
			continue
		}
		// The section ends at the next heading of its level or above, or
		// at an export trailer, which ends the answer.
		j := i + 1
		for j < len(blocks) && !(blocks[j].kind == blockHeading && (level == plainTitleLevel || blocks[j].level <= level)) && !blocks[j].trailer {
			j++
		}
		if looksLikeEntries(text, blocks[first:j]) {
			sections = append(sections, [2]int{i, j})
			i = j - 1
		}
	}
	// A trailing headerless list: "[n] …" lines and URL lines at the end.
	j := len(blocks)
	start := j
	bracketed := 0 // entries: "[n]" lines, several may share a block
	var single string
	var numbered []string // "n. … url" items: their numbers
	for k := j - 1; k >= 0; k-- {
		b := blocks[k]
		if len(sections) > 0 && k < sections[len(sections)-1][1] {
			break
		}
		t := text[b.start:b.end]
		if b.kind == blockDef || b.kind == blockRule {
			start = k
			continue
		}
		if b.trailer {
			continue // "---\nAnswer from Perplexity: pplx.ai/share" below the list
		}
		if b.kind != blockPara && b.kind != blockItem {
			break
		}
		if labels, n := leadingLabels(t); n > 0 {
			bracketed += max(1, labelLines(t)) + len(gluedCuts(t))
			single = ""
			if len(labels) == 1 && strings.Contains(t, "://") {
				single = labels[0]
			}
			start = k
			continue
		}
		if isURLOnly(t) {
			start = k
			continue
		}
		if nl := strings.IndexByte(t, '\n'); nl > 0 && isURLOnly(t[:nl]) && labelLines(t[nl+1:]) > 0 {
			// A URL line glued to the "[n]" lines below it (no blank line
			// where a PDF's page ended).
			bracketed += labelLines(t)
			single = ""
			start = k
			continue
		}
		if num, ok := numberedURLItem(text[lineStart(text, b.start):b.end]); ok && b.kind == blockItem {
			numbered = append(numbered, num)
			start = k
			continue
		}
		break
	}
	// One entry is a list when it has a URL and the text before it cites
	// its number ("… as shown [1].\n\n[1] https://…"); a numbered list of
	// one-URL items is one when the text before it cites most of its
	// numbers as "[n]".
	found := bracketed >= 2
	if !found && start < len(blocks) && (bracketed == 1 && single != "" || len(numbered) > 0) {
		cited := citedNumbers(text[:blocks[start].start])
		found = bracketed == 1 && single != "" && mostIn([]string{single}, cited) || len(numbered) > 0 && mostIn(numbered, cited)
	}
	if found {
		sections = append(sections, [2]int{start, len(blocks)})
	}
	for _, s := range sections {
		for k := s[0]; k < s[1]; k++ {
			if proseCitingMany(text, blocks[k]) || notEntry(text, blocks[k]) {
				continue
			}
			blocks[k].refs = true
			blocks[k].skip = true
		}
	}
	for k, b := range blocks {
		if b.kind == blockDef || b.trailer {
			blocks[k].skip = true
		}
	}
	return sections
}

// labelLines counts the lines of a block that start with "[n]" labels: a
// headerless list written without blank lines is one block.
func labelLines(t string) int {
	n := 0
	for line := range strings.SplitSeq(t, "\n") {
		if k, _, _ := labelLen(line); k > 0 {
			n++
		}
	}
	return n
}

// numberedURLItem recognises an ordered list item holding a URL ("3. Title,
// https://…", from the start of its line) and returns its number.
func numberedURLItem(t string) (string, bool) {
	t = strings.TrimLeft(t, " \t")
	n := listMarker(t)
	// One URL: an item citing several sources is prose, not an entry.
	if n == 0 || t[0] < '0' || t[0] > '9' || strings.Count(t, "://") != 1 {
		return "", false
	}
	return strings.TrimRight(strings.TrimSpace(t[:n]), ".)"), true
}

// mostIn reports whether at least half of labels, and one, are in set.
func mostIn(labels []string, set map[string]bool) bool {
	n := 0
	for _, l := range labels {
		if k, ok := numberLabel(l); ok && set[k] {
			n++
		}
	}
	return n > 0 && 2*n >= len(labels)
}

// citedNumbers returns the numbers text cites as numeric markers (the
// scanner's readNumberGroup: "[3]", "[3, 5]", "[3-5]", "【3】"), in one pass.
// "[[3]](url)" links its own URL and cites no list.
func citedNumbers(text string) map[string]bool {
	set := map[string]bool{}
	for i := 0; i < len(text); i++ {
		open, close := '[', ']'
		switch {
		case text[i] == '[':
		case strings.HasPrefix(text[i:], "【"):
			open, close = '【', '】'
		default:
			continue
		}
		nums, stop, ok := readNumberGroup(text, i, len(text), open, close)
		if !ok || open == '[' && i > 0 && text[i-1] == '[' && strings.HasPrefix(text[stop:], "](") {
			continue
		}
		for _, n := range nums {
			set[n] = true
		}
	}
	return set
}

// notEntry reports whether a block inside a reference section is no entry:
// a table row, an export trailer, or a paragraph or list item citing
// sources inline; it stays text (its markers are read, it may be a claim).
func notEntry(text string, b block) bool {
	if b.kind == blockTableRow || b.kind == blockTableSep {
		return true
	}
	if b.kind != blockPara && b.kind != blockItem {
		return false
	}
	if b.trailer {
		return true
	}
	t := text[b.start:b.end]
	if at := gluedTitle(t); at > 0 {
		t = t[at:]
	}
	n, _, _ := labelLen(t)
	return n == 0 && !strings.Contains(t, "\n") && citesInline(t)
}

// proseCitingMany reports whether a block in a reference section is a
// sentence citing several sources inline ("All citations correspond to …:
// market sizing [[1]](…)[[2]](…), …") rather than an entry: it does not
// start like an entry and holds three links or more.
func proseCitingMany(text string, b block) bool {
	if b.kind != blockPara {
		return false
	}
	t := text[b.start:b.end]
	if n, _, _ := labelLen(t); n > 0 || strings.HasPrefix(t, "[") || strings.HasPrefix(t, `\[`) || strings.HasPrefix(t, "<") || isURLOnly(t) {
		return false
	}
	return b.first == b.last && strings.Count(t, "](http") >= 3
}

// looksLikeEntries reports whether at least half of a section's blocks
// (and at least one) look like bibliography entries, so a "Data sources"
// or "Notes" section of prose, bullets or tables is not taken for a
// reference list, whatever its heading.
//
// A block that only continues a glued "[n]" list (it starts inside an
// entry and holds the next numbers in sequence, "Lindqvist, “Small…” 2024.
// [10] T. Iyer …") counts as entries; a block without text (the form feed
// a converter puts between pages) or a fragment does not count.
func looksLikeEntries(text string, bs []block) bool {
	n, yes := 0, 0
	var seq numbering
	for _, b := range bs {
		if b.kind == blockRule || b.kind == blockTableSep || b.start >= b.end || b.kind == blockPara && fragment(text[b.start:b.end]) {
			continue
		}
		n++
		continued := false
		if b.kind == blockPara || b.kind == blockItem {
			t := text[b.start:b.end]
			if at := gluedTitle(t); at > 0 {
				t = t[at:]
			}
			from := 0
			if style, v, k := lineLabel(t); style == styleBracket {
				continued = seq.style == styleBracket && v == seq.next
				seq, from = numbering{styleBracket, v + 1}, k
			}
			var cuts []int
			cuts, seq = sequenceCuts(t, from, seq)
			continued = continued || len(cuts) > 0
		}
		if continued || entryLike(text, b) {
			yes++
		}
	}
	return n > 0 && yes*2 >= n
}

// fragment reports whether a block is a scrap of a line that a converter
// cut off ("Energy", "Build.", "2023;288:113012."): fewer than three words
// and no URL. It is neither an entry nor prose.
func fragment(t string) bool {
	return len(t) < 40 && len(strings.Fields(t)) < 3 && !strings.Contains(t, "://")
}

// entryLike reports whether a block looks like a bibliography entry: a
// definition; a block naming a URL or an identifier that does not cite
// others inline; or one with a year and a bibliographic shape (a quoted
// title, "et al.", authors first, a venue, or, for a short list item,
// three or more fields or a title ending with "(year)"). Table
// rows, export trailers and prose citing sources ("Costs fell 80% [2].")
// are not entries.
func entryLike(text string, b block) bool {
	t := text[b.start:b.end]
	if at := gluedTitle(t); at > 0 {
		t = t[at:] // "References [1] …": the list starts at its label
	}
	switch {
	case b.kind == blockDef:
		return true
	case b.kind != blockPara && b.kind != blockItem:
		return false
	case len(gluedCuts(t)) > 0:
		return true
	case b.trailer:
		return false
	}
	if n, _, _ := labelLen(t); n == 0 && citesInline(t) {
		return false // "[12] …" starts an entry, whatever it holds
	}
	if strings.Contains(t, "://") {
		return true
	}
	if low := asciiLower(t); strings.Contains(low, "doi:") || strings.Contains(low, "doi.org") || strings.Contains(low, "arxiv") {
		return true
	}
	if !yearRE.MatchString(t) || len(t) > 600 {
		return false
	}
	n, _, _ := labelLen(t)
	if style, _, k := lineLabel(t); n == 0 && style == styleDot {
		n = k // "8." on a line of its own above the entry, as converters write it
	}
	body := t[n:]
	return strings.Contains(body, "et al") || strings.ContainsAny(body, "“\"《「") || venueRE.MatchString(body) ||
		authorLike(sentenceSegments(body)[0]) || (n > 0 || b.kind == blockItem) && len(body) < 300 && (fieldCount(body) >= 3 || titleYear.MatchString(body))
}

// titleYear matches a title followed by its year in parentheses, the
// whole of a short entry: "Long low-loss LNOI waveguides (2018)".
var titleYear = lazyregexp.New(`^[^.!?]{8,200}\((?:19|20)\d\d[a-z]?\)\.?$`)

// venueRE matches the words that name where a work appeared.
var venueRE = lazyregexp.New(`(?i)\b(?:proceedings|proc\.|journal|conference|symposium|workshop|transactions|vol\.|pp\.|in:|press|preprint|report no)`)

// fieldCount counts the comma- and period-separated fields of an entry
// ("Lazard, Levelized Cost of Energy, 2024." has three; full-width commas
// count).
func fieldCount(s string) int {
	n := 1 + strings.Count(s, "，")
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == ',' || s[i] == '.') && s[i+1] == ' ' {
			n++
		}
	}
	return n
}

// citesInline reports whether a block, past the labels each of its lines
// starts with, cites sources inline as prose does: "[2]", "[2, 5]",
// "[[3]](url)", "[3](url)", "[^x]", "【3】" after a line's first word.
func citesInline(t string) bool {
	for line := range strings.SplitSeq(t, "\n") {
		if lineCitesInline(strings.TrimLeft(line, " \t")) {
			return true
		}
	}
	return false
}

func lineCitesInline(t string) bool {
	if n := listMarker(t); n > 0 {
		t = t[n:]
	}
	n, _, _ := labelLen(t)
	n += numberLinkLen(t[n:])
	for i := n + 1; i < len(t); i++ {
		switch {
		case t[i] == '[' && i+1 < len(t) && t[i+1] == '^':
			return true
		case t[i] == '[' && t[i-1] != '[':
			if _, _, ok := readNumberGroup(t, i, len(t), '[', ']'); ok {
				return true
			}
			if numberLinkLen(t[i:]) > 0 {
				return true
			}
		case t[i] == 0xE3 && strings.HasPrefix(t[i:], "【"):
			if _, _, ok := readNumberGroup(t, i, len(t), '【', '】'); ok {
				return true
			}
		}
	}
	return false
}

// numberLinkLen returns the length of the numbered link opening t
// ("[[3]](", "[3](": linkLabelRE, without a regexp, as it runs at every
// bracket of a candidate section), or 0.
func numberLinkLen(t string) int {
	i := 1
	if len(t) < 4 || t[0] != '[' {
		return 0
	}
	if t[1] == '[' {
		i++
	}
	d := i
	for i < len(t) && i-d < 4 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == d || i >= len(t) || t[i] != ']' {
		return 0
	}
	i++
	if i < len(t) && t[i] == ']' {
		i++
	}
	if i >= len(t) || t[i] != '(' {
		return 0
	}
	return i + 1
}

// exportTrailer reports whether a short block is a line chat exports
// append to an answer: the Perplexity share line ("Answer from Perplexity:
// pplx.ai/share"), "Shared via Grok". It is neither an entry nor a claim.
// Every short block is tested, so this is byte comparisons, not a regexp.
func exportTrailer(t string) bool {
	if len(t) >= 300 {
		return false
	}
	// The share link ends the line ("Réponse de Perplexity:
	// pplx.ai/share"), or a link to the thread ("[pplx.ai/share](…)").
	if e := strings.TrimRight(t, " *_"); strings.HasSuffix(e, "pplx.ai/share") || strings.HasSuffix(e, ")") && strings.Contains(e, "pplx.ai/share") {
		return true
	}
	t = strings.TrimLeft(t, "*_#> \t-")
	if len(t) < 12 || (t[0] != 'A' && t[0] != 'a' && t[0] != 'S' && t[0] != 's') {
		return false
	}
	if hasPrefixFold(t, "answer from perplexity") {
		return true
	}
	for _, p := range []string{"shared via ", "shared from ", "share from "} {
		if hasPrefixFold(t, p) {
			for _, name := range []string{"perplexity", "grok", "chatgpt", "gemini"} {
				if hasPrefixFold(t[len(p):], name) {
					return true
				}
			}
		}
	}
	return false
}

var (
	yearRE      = lazyregexp.New(`\b(?:19|20)\d\d\b`)
	linkLabelRE = lazyregexp.New(`^\[\[?(\d{1,4})\]?\]\(`)
)

// leadingLabels parses the labels an entry line starts with: "[3]",
// "[27] [59]", "【3】", "^3". It returns the labels and the byte length of
// the label prefix (0 when there is none).
func leadingLabels(t string) ([]string, int) {
	var labels []string
	n, count, _ := scanLabels(t, &labels)
	if count == 0 {
		return nil, 0
	}
	return labels, n
}

// labelLen is leadingLabels without the labels: the length of the label
// prefix, the number of labels and the first one's value, without
// allocating (it runs on every line of a candidate reference section).
func labelLen(t string) (n, count, first int) {
	return scanLabels(t, nil)
}

// scanLabels reads the labels t starts with, appending them to labels when
// it is not nil.
func scanLabels(t string, labels *[]string) (n, count, first int) {
	i := 0
	for {
		j := i
		for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
			j++
		}
		open, close := "[", "]"
		if strings.HasPrefix(t[j:], "【") {
			open, close = "【", "】"
		}
		if !strings.HasPrefix(t[j:], open) {
			break
		}
		k := j + len(open)
		d := k
		v := 0
		for d < len(t) && d-k < 5 && t[d] >= '0' && t[d] <= '9' {
			v = 10*v + int(t[d]-'0')
			d++
		}
		if d == k || !strings.HasPrefix(t[d:], close) {
			break
		}
		if strings.HasPrefix(t[d+len(close):], "(") || strings.HasPrefix(t[d+len(close):], ":") {
			break // a link "[3](url)" or a definition
		}
		if labels != nil {
			*labels = append(*labels, t[k:d])
		}
		if count == 0 {
			first = v
		}
		count++
		i = d + len(close)
	}
	if count == 0 {
		return 0, 0, 0
	}
	return i, count, first
}

// isURLOnly reports whether a block is a single URL (the ChatGPT export
// repeats each reference's URL on a line of its own), one that a PDF's
// line wraps broke over several lines included.
func isURLOnly(t string) bool {
	t = strings.TrimSpace(t)
	l := asciiLower(t[:min(len(t), 8)])
	if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") && !strings.HasPrefix(l, "<http") {
		return false
	}
	if !strings.ContainsAny(t, " \t\n") {
		return true
	}
	if t[0] == '<' {
		return false
	}
	_, end := entryURL(t, 0)
	return end == len(t)
}

// parseEntries splits reference sections and definition blocks into
// entries.
func parseEntries(text string, lines []line, blocks []block, sections [][2]int) []entry {
	var entries []entry
	for _, s := range sections {
		entries = append(entries, sectionEntries(text, lines, blocks[s[0]:s[1]])...)
	}
	for _, b := range blocks {
		if b.kind != blockDef || b.refs {
			continue
		}
		entries = append(entries, defEntry(text, lines, b))
	}
	return entries
}

// defEntry turns a definition block into an entry.
func defEntry(text string, lines []line, b block) entry {
	start := lines[b.first].content
	e := entry{start: start, end: b.end, marker: "[" + b.label + "]"}
	if strings.HasPrefix(b.label, "^") {
		e.labels = []string{b.label}
	} else {
		e.labels = []string{strings.ToLower(b.label)}
	}
	fillEntry(&e, text[b.start:b.end])
	return e
}

// sectionEntries splits the lines of one reference section into entries.
// A line starting with labels ("[3]", "3.", "- ", "[^x]:") starts an entry;
// other lines continue the current one. In a labelled list a blank line does
// not end an entry (the ChatGPT export puts each URL a blank line below its
// label); in an unlabelled bibliography each paragraph is an entry.
func sectionEntries(text string, lines []line, bs []block) []entry {
	var entries []entry
	var cur *entry
	var seq numbering // the list's numbering, followed across lines and blocks
	labelled := false
	gap := false
	contentStart := 0
	flush := func() {
		if cur == nil {
			return
		}
		_, cur.end = trimSpan(text, cur.start, cur.end)
		// A bare marker ("- " alone) trims to before its content start.
		content := text[min(contentStart, cur.end):cur.end]
		fillEntry(cur, content)
		if cur.start < cur.end && !(len(cur.labels) == 0 && !cur.identified() && notAWork(content)) {
			entries = append(entries, *cur)
		}
		cur = nil
	}
	for bi, b := range bs {
		if !b.refs {
			continue
		}
		switch b.kind {
		case blockHeading, blockRule, blockCode, blockTableSep:
			if bi > 0 || b.kind != blockHeading {
				flush()
			}
			continue
		}
		if bi == 0 && b.first == b.last && refHeadingText(text[b.start:b.end]) {
			continue // the section's own title line
		}
		for _, sg := range splitGlued(text, lines[b.first:b.last+1], &seq) {
			ln := sg.line
			t := text[ln.content:ln.end]
			if sg.title {
				continue // "References" glued before the list's first label
			}
			if strings.TrimSpace(t) == "" {
				gap = true
				continue
			}
			var labels []string
			var n int
			var marker string
			if !sg.cont {
				labels, n, marker = entryStart(t, b.kind == blockDef && ln.start == lines[b.first].start, b.label)
			}
			if n > 0 || marker != "" {
				flush()
				if len(labels) > 0 {
					labelled = true
				}
				cur = &entry{labels: labels, marker: marker, start: ln.content, end: ln.end}
				contentStart = ln.content + n
				gap = false
				continue
			}
			if cur != nil && (labelled || !gap && continuesEntry(text, ln, *cur)) {
				cur.end = ln.end
				continue
			}
			flush()
			cur = &entry{start: ln.content, end: ln.end}
			contentStart = ln.content
			gap = false
		}
		gap = true
	}
	flush()
	return entries
}

// continuesEntry reports whether line li continues the current entry of
// an unlabelled bibliography (where each line, and each paragraph, is
// otherwise an entry): it is
// indented further than the entry's first line, or it is a URL alone and
// the entry has none yet.
func continuesEntry(text string, ln line, cur entry) bool {
	if ln.content-ln.start > 1 && cur.start-lineStart(text, cur.start) < ln.content-ln.start {
		return true
	}
	return isURLOnly(text[ln.content:ln.end]) && !strings.Contains(text[cur.start:cur.end], "://")
}

// lineStart returns the offset of the start of the line holding i.
func lineStart(text string, i int) int {
	return strings.LastIndexByte(text[:i], '\n') + 1
}

// entryStart recognises the start of an entry on a line and returns its
// labels, the length of the label prefix and the marker as written.
func entryStart(t string, def bool, defLabel string) ([]string, int, string) {
	if def {
		end := strings.IndexByte(t, ':') + 1
		for end < len(t) && (t[end] == ' ' || t[end] == '\t') {
			end++
		}
		label := defLabel
		if !strings.HasPrefix(label, "^") {
			label = strings.ToLower(label)
		}
		return []string{label}, end, "[" + defLabel + "]"
	}
	if labels, n := leadingLabels(t); n > 0 {
		return labels, n, strings.TrimSpace(t[:n])
	}
	if m := linkLabelRE.FindStringSubmatch(t); m != nil {
		// "[[3]](url) Title": the label is the link text; the link stays
		// in the content, where it gives the URL.
		n, _ := numberLabel(m[1])
		return []string{n}, 0, "[" + m[1] + "]"
	}
	if style, v, n := lineLabel(t); style == styleDot && listMarker(t) == 0 {
		// "1." alone on its line, or glued to the entry ("2.Sager J").
		return []string{itoa(v)}, n, strings.TrimSpace(t[:n])
	}
	if n := listMarker(t); n > 0 {
		m := strings.TrimSpace(t[:n])
		if m[0] >= '0' && m[0] <= '9' {
			return []string{strings.TrimRight(m, ".)")}, n, m
		}
		// "- [3] …": a bullet followed by labels.
		if labels, k := leadingLabels(t[n:]); k > 0 {
			return labels, n + k, strings.TrimSpace(t[n : n+k])
		}
		return nil, n, m
	}
	return nil, 0, ""
}

// fillEntry extracts an entry's URL, DOI, arXiv id and title from its
// content (the entry text after its labels).
func fillEntry(e *entry, content string) {
	links := findEntryURLs(content)
	for _, l := range links {
		if e.url == "" && l.url != "" {
			e.url = l.url
		}
	}
	for _, l := range links {
		if e.doi == "" {
			e.doi = biblio.DOI(l.url)
		}
		if e.arxiv == "" {
			e.arxiv = biblio.ArXivID(l.url)
		}
	}
	stripped := stripURLs(content, links)
	if e.doi == "" {
		e.doi = biblio.DOI(stripped)
	}
	if e.arxiv == "" {
		e.arxiv = biblio.ArXivID(stripped)
	}
	e.title = entryTitle(stripped, links)
	e.key = entryAuthorKey(content, links)
}

// entryLink is a URL found in an entry, with the span it occupies and the
// text of its markdown link, if any.
type entryLink struct {
	url        string
	start, end int
	text       string
}

// findEntryURLs finds the URLs of an entry: markdown links, autolinks and
// bare URLs, rejoining a bare URL that a space has broken
// ("https://doi. org/10.1/x", "…/long/ path.pdf").
func findEntryURLs(s string) []entryLink {
	var out []entryLink
	low := asciiLower(s)
	for i := 0; i < len(s); {
		switch {
		case s[i] == '[':
			if l, ok := parseInlineLink(s, i, len(s)); ok && l.isURL {
				out = append(out, entryLink{url: l.dest, start: i, end: l.end, text: s[l.textStart:l.textEnd]})
				i = l.end
				continue
			}
		case s[i] == '<' && (strings.HasPrefix(low[i+1:], "http://") || strings.HasPrefix(low[i+1:], "https://")):
			if j := strings.IndexByte(s[i:], '>'); j > 0 && !strings.ContainsAny(s[i:i+j], " \t\n") {
				out = append(out, entryLink{url: s[i+1 : i+j], start: i, end: i + j + 1})
				i += j + 1
				continue
			}
		case isURLStart(low, i):
			u, end := entryURL(s, i)
			t := biblio.TrimURLTail(u)
			out = append(out, entryLink{url: unescapeURL(t), start: i, end: end - (len(u) - len(t))})
			i = end
			continue
		}
		i++
	}
	return out
}

// stripURLs removes the URLs found in s (keeping markdown link texts), and
// "doi:"/"arXiv:" tags, for title extraction.
func stripURLs(s string, links []entryLink) string {
	var b strings.Builder
	prev := 0
	for _, l := range links {
		if l.start < prev {
			continue
		}
		b.WriteString(s[prev:l.start])
		b.WriteString(" ")
		if _, num := numberLabel(l.text); l.text != "" && !looksLikeURL(l.text) && !num && !authorDateLabel.MatchString(strings.TrimSpace(l.text)) {
			b.WriteString("[")
			b.WriteString(l.text)
			b.WriteString("]")
		}
		b.WriteString(" ")
		prev = l.end
	}
	b.WriteString(s[prev:])
	return b.String()
}

func looksLikeURL(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "www.")
}
