// Package report turns the text of a deep-research report into claims and
// citations with byte spans, deterministically and without a model.
//
// It reads the citation styles agents write: inline links "[t](url)" and
// "[[n]](url)", autolinks, bare URLs, numbered markers "[n]", "[n, m]",
// "[n-m]", "【n】" resolved through a reference list ("[n] url - title",
// "n. Title: url", "[n]: url", "Authors. Title. Venue, year.", the ChatGPT
// export's repeated URL lines), author–year citations "(Smith et al., 2020)"
// and "Smith and Jones (2020)" resolved through the same list by first
// author and year, footnotes "[^x]", DOIs, arXiv identifiers and title-only
// bibliography entries (IEEE, ACM, APA), whose titles are extracted for
// matching. Claims are the report's sentences (and cited table
// rows); headings, code, the reference list itself and the agent's tool
// chatter before the report ("Let me search…", "让我搜索…") are not claims.
package report

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
	"github.com/claimtrace/claimtrace/internal/lexical"
)

// Parse returns the claims and citations of a report.
//
// Every span is a pair of byte offsets into text: text[c.Start:c.End] ==
// c.Text for a claim, and the marker (or the whole list entry) for a
// citation. Citations are ordered by start offset. There is one per in-text
// marker occurrence (a group "[1, 2]" gives two, sharing the group's span),
// with the URL, DOI, arXiv id and title of the list entry it resolves to,
// and one of kind KindListEntry per reference-list entry, which no claim
// lists. A numbered marker that no entry resolves is kept without a target
// (HasTarget false) so dangling markers can be counted; so is an
// author–year marker that no entry resolves (or that several entries
// match), but only in a report where some author–year marker matched an
// entry, and only in a citation's form (see authoryear.go). An author–year
// marker spans one reference: "Smith et al., 2020" inside its parenthesis
// (without a lead-in such as "see"; with a locator such as ", p. 4"), or
// "Smith et al. (2020)" in running text. Claims are ordered,
// do not overlap, carry ids "c1", "c2", … and list the indices of the
// citations inside their span; a marker right after a sentence's end
// ("… end. [3]") belongs to that sentence.
//
// Parse never panics and runs in time linear in the text (with bounded
// look-ahead); invalid UTF-8 is tolerated. A carriage return that ends a
// line on its own ("\r" not followed by "\n") is read as a newline, the
// spans unchanged; the document's Text has it as "\n". ParseContext bounds
// the work and stops on cancellation.
func Parse(text string) claimtrace.Document {
	return newParser(splitCR(text)).parse()
}

func newParser(text string) *parser { return &parser{text: text, low: asciiLower(text)} }

func (p *parser) parse() claimtrace.Document {
	text := p.text
	p.lines = splitLines(text)
	p.blocks = buildBlocks(text, p.lines)
	sections := findReferenceSections(text, p.blocks)
	p.entries = parseEntries(text, p.lines, p.blocks, sections)
	if p.guard.stop(len(p.entries), 0) {
		return claimtrace.Document{}
	}
	p.scan()
	if p.guard.stop(len(p.cites)+len(p.entries), 0) {
		return claimtrace.Document{}
	}
	p.markPreamble()
	return p.document()
}

// parser holds the state of one Parse call.
type parser struct {
	text, low string
	lines     []line
	blocks    []block
	entries   []entry
	cites     []claimtrace.Citation
	spans     []span
	// guard, when set (ParseContext), stops the parse past a limit or on
	// cancellation.
	guard *guard
}

// scan finds the in-text citations of every block that is not a reference
// list, a definition or code. When no bracketed number resolves and the
// report has a numbered list, it scans again reading superscript-style
// numbers glued to words.
func (p *parser) scan() {
	byLabel := map[string]int{}
	numeric := false
	for i, e := range p.entries {
		for _, l := range e.labels {
			// The first entry of a label, unless a later one has a URL or
			// an identifier where it has only a title: a list of titles
			// above the list of links does not capture the markers.
			if j, ok := byLabel[l]; !ok || !p.entries[j].identified() && e.identified() {
				byLabel[l] = i
			}
			if isNumber(l) {
				numeric = true
			}
		}
	}
	ay := newAYIndex(p.entries)
	answers := p.answerLabels(byLabel)
	run := func(glued bool) *scanner {
		s := &scanner{text: p.text, low: p.low, entries: p.entries, byLabel: byLabel, glued: glued, ay: ay, guard: p.guard}
		ai := 0
		for k, b := range p.blocks {
			if p.guard.stop(len(s.cites)+len(p.entries), 0) || p.guard.tooManySpans(len(s.spans)) {
				break
			}
			for ai < len(answers) && k >= answers[ai].first {
				s.byLabel = answers[ai].byLabel
				ai++
			}
			switch b.kind {
			case blockCode, blockRule, blockTableSep, blockDef:
				continue
			}
			if b.refs {
				continue
			}
			s.scanBlock(b.start, b.end)
		}
		s.flushAuthorYear()
		return s
	}
	s := run(false)
	if numeric && !resolvesNumbers(s.cites) {
		if g := run(true); resolvesNumbers(g.cites) {
			s = g
		}
	}
	p.cites = s.cites
	p.spans = s.spans
	sort.SliceStable(p.spans, func(i, j int) bool { return p.spans[i].start < p.spans[j].start })
}

// answer is one answer of an exported thread after the first: its first
// block and the labels of its entries, over those of the whole text.
type answer struct {
	first   int
	byLabel map[string]int
}

// answerLabels splits a thread of several answers at its export trailers
// ("Answer from Perplexity: pplx.ai/share" ends each), so that each answer's
// "[1]" resolves to its own list. It returns nil for a single answer.
func (p *parser) answerLabels(all map[string]int) []answer {
	var out []answer
	for k, b := range p.blocks {
		if k+1 < len(p.blocks) && b.trailer {
			out = append(out, answer{first: k + 1})
		}
	}
	if len(out) == 0 {
		return nil
	}
	// Answer i runs from its first block to the next answer's first.
	for i := range out {
		start := p.blocks[out[i].first].start
		end := len(p.text)
		if i+1 < len(out) {
			end = p.blocks[out[i+1].first].start
		}
		m := make(map[string]int, len(all))
		for l, e := range all {
			m[l] = e
		}
		for j, e := range p.entries {
			if e.start < start || e.start >= end {
				continue
			}
			for _, l := range e.labels {
				if k, ok := m[l]; !ok || p.entries[k].start < start || p.entries[k].start >= end || !p.entries[k].identified() && e.identified() {
					m[l] = j
				}
			}
		}
		out[i].byLabel = m
	}
	// The first answer resolves in its own list too.
	first := map[string]int{}
	for l, e := range all {
		first[l] = e
	}
	end := p.blocks[out[0].first].start
	for j, e := range p.entries {
		if e.start >= end {
			continue
		}
		for _, l := range e.labels {
			if k, ok := first[l]; !ok || p.entries[k].start >= end || !p.entries[k].identified() && e.identified() {
				first[l] = j
			}
		}
	}
	return append([]answer{{first: 0, byLabel: first}}, out...)
}

// resolvesNumbers reports whether some numbered citation has a target.
func resolvesNumbers(cs []claimtrace.Citation) bool {
	for _, c := range cs {
		if c.Kind == claimtrace.KindNumbered && c.HasTarget() {
			return true
		}
	}
	return false
}

var (
	// chatterEN and chatterZH match the agent's narration of its own
	// search ("Let me search for…", "I'll research…", "让我搜索…").
	chatterEN = lazyregexp.New(`(?i)^(?:(?:now|next|finally|first|okay|ok|great|lastly|then|alright|perfect|excellent)[,!.]?\s+)*(?:let me|let's|let us|i'll|i will|i need to|i'm going to|i am going to|i should|i want to|i'd like to|i'm now going to|i have (?:gathered|found|collected)|based on (?:my|the|this) (?:research|search(?:es)?|findings|information(?: gathered)?)[,:]?\s+(?:i'll|i will|let me|here is|here's))\b`)
	chatterZH = lazyregexp.New(`^(?:(?:现在|接下来|最后|首先|然后|好的|下面|再)[，,]?\s*)*(?:让我们?|我将|我需要|我会|我来|我想|我再|需要进一步|需要再|再搜索|最后搜索|我们来|根据(?:我)?(?:搜集|收集|搜索|检索|查询|查找)(?:到)?的(?:信息|资料|结果|数据)[，,]\s*(?:现在)?我(?:将|会|来))`)
	// chatterVerb requires search or writing vocabulary, so "Let's define X
	// as…" in a report's body is not taken for chatter.
	chatterVerb = lazyregexp.New(`(?i)search|look (?:up|for|into)|gather|find|research|query|check|explore|investigat|dig|examin|collect|retriev|compil|writ|prepar|creat|provid|analy|start|begin|continu|get |obtain|review|informat|data|report|搜索|查询|查找|检索|搜集|收集|了解|获取|调研|撰写|研究|整理|分析|提供|寻找|探索|补充|信息|资料|数据|报告`)
	// logHeader matches the header lines of an agent log that precede the
	// answer (the Onyx report logs: "Query ID:", "QUESTION:", "ANSWER:").
	logHeader = lazyregexp.New(`^(?:query id|question|prompt|task|research tasks?(?: \(\d+ total\))?)\s*:`)
)

// markPreamble marks as non-claims the header of an agent log before its
// "ANSWER:" line and the tool chatter before the first cited block.
func (p *parser) markPreamble() {
	// Agent log header.
	if len(p.blocks) > 0 && logHeader.MatchString(strings.ToLower(strings.TrimSpace(p.text[p.blocks[0].start:p.blocks[0].end]))) {
		for k, b := range p.blocks {
			ln := p.lines[b.first]
			first := strings.ToLower(strings.TrimSpace(p.text[ln.start:ln.end]))
			if first != "answer:" && first != "final answer:" && first != "report:" && first != "response:" {
				continue
			}
			for m := 0; m < k; m++ {
				p.blocks[m].skip = true
			}
			if b.first == b.last {
				p.blocks[k].skip = true
			} else {
				// "ANSWER:" directly followed by the text: drop the label line.
				p.blocks[k].first++
				p.blocks[k].start = p.lines[b.first+1].content
			}
			break
		}
	}
	firstCite := len(p.text)
	for _, c := range p.cites {
		if c.Start < firstCite {
			firstCite = c.Start
		}
	}
	for k, b := range p.blocks {
		if b.start >= firstCite {
			break
		}
		if b.kind != blockPara && b.kind != blockItem {
			continue
		}
		t := strings.TrimSpace(p.text[b.start:b.end])
		if len(t) > 600 {
			continue
		}
		if (chatterEN.MatchString(t) || chatterZH.MatchString(t)) && chatterVerb.MatchString(t) {
			p.blocks[k].skip = true
		}
	}
}

// document assembles the claims and the citation list.
func (p *parser) document() claimtrace.Document {
	text := p.text
	cites := p.cites
	for _, e := range p.entries {
		cites = append(cites, claimtrace.Citation{
			Marker: e.marker, Kind: claimtrace.KindListEntry,
			URL: e.url, DOI: e.doi, ArXivID: e.arxiv, Title: e.title,
			Start: e.start, End: e.end,
		})
	}
	sort.SliceStable(cites, func(i, j int) bool { return cites[i].Start < cites[j].Start })
	// In-text citation starts, for attaching them to claims.
	type pos struct{ start, end, idx int }
	var inText []pos
	for i, c := range cites {
		if c.Kind != claimtrace.KindListEntry {
			inText = append(inText, pos{c.Start, c.End, i})
		}
	}
	doc := claimtrace.Document{Text: text, Citations: cites, Claims: []claimtrace.Claim{}}
	if doc.Citations == nil {
		doc.Citations = []claimtrace.Citation{}
	}
	ci := 0
	lastEnd := 0
	addClaim := func(start, end int) {
		if p.guard != nil && len(doc.Claims) > p.guard.limits.Claims {
			return // past the limit: the guard fails the parse
		}
		start, end = trimSpan(text, start, end)
		if start >= end || start < lastEnd {
			return
		}
		for ci < len(inText) && inText[ci].start < start {
			ci++
		}
		var idx []int
		for k := ci; k < len(inText) && inText[k].start < end; k++ {
			if inText[k].end <= end {
				idx = append(idx, inText[k].idx)
			}
		}
		if len(idx) == 0 && !substantive(text[start:end]) {
			return
		}
		if idx == nil {
			idx = []int{}
		}
		doc.Claims = append(doc.Claims, claimtrace.Claim{
			ID: "c" + strconv.Itoa(len(doc.Claims)+1), Text: text[start:end],
			Start: start, End: end, Citations: idx,
		})
		lastEnd = end
	}
	citedIn := func(start, end int) bool {
		k := sort.Search(len(inText), func(k int) bool { return inText[k].start >= start })
		return k < len(inText) && inText[k].start < end
	}
	protected := protectedSpans(p.spans)
	for _, b := range p.blocks {
		if p.guard.stop(0, len(doc.Claims)) {
			return claimtrace.Document{}
		}
		if b.skip {
			continue
		}
		switch b.kind {
		case blockTableRow:
			if citedIn(b.start, b.end) {
				s, e := b.start, b.end
				for s < e && (text[s] == '|' || text[s] == ' ') {
					s++
				}
				for e > s && (text[e-1] == '|' || text[e-1] == ' ') {
					e--
				}
				addClaim(s, e)
			}
			continue
		case blockPara, blockItem, blockQuote:
		default:
			continue
		}
		if b.first == b.last && !citedIn(b.start, b.end) && (emphasisOnly(text[b.start:b.end]) || b.kind == blockPara && headingLike(text[b.start:b.end])) {
			continue
		}
		sents := lexical.Split(text, b.start, b.end, protected)
		// A "sentence" that is only markers and punctuation joins the
		// previous one ("… end.\n[3]"); one without a marker either (an
		// HTML tag, a hidden element, code) is dropped.
		for k := 0; k < len(sents); k++ {
			if k > 0 && !hasWordOutside(text, sents[k].Start, sents[k].End, p.spans) {
				if citedIn(sents[k].Start, sents[k].End) {
					sents[k-1].End = sents[k].End
				}
				sents = append(sents[:k], sents[k+1:]...)
				k--
			}
		}
		for _, s := range sents {
			cited := citedIn(s.Start, s.End)
			if !cited && emphasisOnly(text[s.Start:s.End]) {
				continue // a run-in heading: "**Hardware acceleration.** Recent work…"
			}
			if cited || hasWordOutside(text, s.Start, s.End, p.spans) {
				addClaim(s.Start, s.End)
			}
		}
	}
	if p.guard.stop(0, len(doc.Claims)) {
		return claimtrace.Document{}
	}
	return doc
}

// hasWordOutside reports whether text[start:end] has a letter or digit
// outside the protected spans.
func hasWordOutside(text string, start, end int, spans []span) bool {
	si := sort.Search(len(spans), func(k int) bool { return spans[k].end > start })
	for i := start; i < end; {
		for si < len(spans) && spans[si].end <= i {
			si++
		}
		if si < len(spans) && spans[si].start <= i {
			i = spans[si].end
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:end])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
		i += size
	}
	return false
}

// substantive reports whether an uncited unit says enough to be a claim:
// three words, or six CJK characters.
func substantive(s string) bool {
	words, cjk := 0, 0
	inWord := false
	for _, r := range s {
		switch {
		case isCJK(r):
			cjk++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				words++
			}
			inWord = true
		default:
			inWord = false
		}
	}
	return words >= 3 || cjk >= 6
}

// emphasisOnly reports whether a line is wholly bold ("**Key Findings**",
// "__Summary:__"), the way reports title their sub-sections.
func emphasisOnly(s string) bool {
	s = strings.TrimSpace(s)
	for _, m := range []string{"**", "__"} {
		if len(s) > 2*len(m) && strings.HasPrefix(s, m) && strings.HasSuffix(s, m) && !strings.Contains(s[len(m):len(s)-len(m)], m) {
			return true
		}
	}
	return false
}

// headingLike reports whether a one-line paragraph is a title rather than a
// statement: fully emphasised ("**Executive Summary**"), or short without a
// final punctuation mark (plain-text exports lose the "#").
func headingLike(s string) bool {
	s = strings.TrimSpace(s)
	if emphasisOnly(s) {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	if strings.ContainsRune(".!?。！？:：;；)）]\"”", last) {
		return false
	}
	words, cjk := 0, 0
	for _, f := range strings.Fields(s) {
		words++
		for _, r := range f {
			if isCJK(r) {
				cjk++
			}
		}
	}
	if cjk > 0 {
		return cjk <= 20
	}
	return words <= 12
}
