package web

import (
	"bytes"
	"html"
	"html/template"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// The report is Markdown written by a model: untrusted. It is rendered
// with goldmark under three rules that keep the result inert:
//   - raw HTML is never parsed as HTML: the HTML block and inline HTML
//     parsers are left out, so "<script>" is text and shows as text;
//   - links keep their target only when it is an absolute http(s) or
//     mailto URL; images are shown as their alt text, never loaded;
//   - the output goes through a bluemonday allow-list (no script, no
//     event handler, no style, URLs http, https, mailto or relative).
// Link reference definitions ("[1]: https://…") are left as text: a
// report's reference list stays visible, and a page of the report renders
// the same whatever page holds the definitions.
//
// Claims are highlighted on the rendered text: claim spans are byte
// offsets into the raw report, and every piece of text goldmark writes
// carries its source offsets, so each text run is cut at the claims'
// offsets and the claimed pieces wrapped (an <a> to the claim's panel, or
// a <span> inside a link, since links do not nest).

// markdownParser parses report Markdown (see above), built on first use
// (every command of the binary would pay for it at start-up otherwise).
// Safe for concurrent use.
var markdownParser = sync.OnceValue(newMarkdownParser)

func newMarkdownParser() parser.Parser {
	// goldmark's defaults (parser.DefaultBlockParsers and
	// DefaultInlineParsers), less the HTML block and raw HTML parsers, and
	// no link reference definitions.
	blocks := []util.PrioritizedValue{
		util.Prioritized(parser.NewSetextHeadingParser(), 100),
		util.Prioritized(parser.NewThematicBreakParser(), 200),
		util.Prioritized(parser.NewListParser(), 300),
		util.Prioritized(parser.NewListItemParser(), 400),
		util.Prioritized(parser.NewCodeBlockParser(), 500),
		util.Prioritized(parser.NewATXHeadingParser(), 600),
		util.Prioritized(parser.NewFencedCodeBlockParser(), 700),
		util.Prioritized(parser.NewBlockquoteParser(), 800),
		util.Prioritized(parser.NewParagraphParser(), 1000),
	}
	inlines := []util.PrioritizedValue{
		util.Prioritized(parser.NewCodeSpanParser(), 100),
		util.Prioritized(parser.NewLinkParser(), 200),
		util.Prioritized(parser.NewAutoLinkParser(), 300),
		util.Prioritized(parser.NewEmphasisParser(), 500),
	}
	md := goldmark.New(
		goldmark.WithParser(parser.NewParser(parser.WithBlockParsers(blocks...), parser.WithInlineParsers(inlines...))),
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify),
	)
	return md.Parser()
}

// reportPolicy is the allow-list every rendered page of a report passes
// through, built on first use.
var reportPolicy = sync.OnceValue(newReportPolicy)

// claimIDPattern and claimAnchorPattern match what checkClaimID allows, as
// a data-claim value and an element id.
var (
	claimIDPattern     = lazyregexp.New(`^[A-Za-z0-9._:-]{1,64}$`)
	claimAnchorPattern = lazyregexp.New(`^claim-[A-Za-z0-9._:-]{1,64}$`)
)

func newReportPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote",
		"pre", "code", "em", "strong", "del", "table", "thead", "tbody", "tr", "th", "td", "span")
	p.AllowAttrs("start").Matching(bluemonday.Integer).OnElements("ol")
	p.AllowAttrs("align").Matching(bluemonday.CellAlign).OnElements("th", "td")
	p.AllowAttrs("class").Matching(bluemonday.SpaceSeparatedTokens).OnElements("a", "span", "code")
	p.AllowAttrs("data-claim").Matching(claimIDPattern.Regexp()).OnElements("a", "span")
	p.AllowAttrs("id").Matching(claimAnchorPattern.Regexp()).OnElements("a", "span")
	p.AllowAttrs("title").OnElements("a", "span")
	p.AllowAttrs("href").OnElements("a")
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowRelativeURLs(true)
	p.RequireParseableURLs(true)
	p.RequireNoReferrerOnFullyQualifiedLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return p
}

// renderedPage is one page of the report, rendered.
type renderedPage struct {
	HTML template.HTML
	// Shown lists the claims highlighted on the page, by index.
	Shown map[int]bool
}

// renderReport renders text[from:to] of a report as Markdown with the
// claims' spans (offsets into the whole text, Ref the index into claims)
// highlighted. spans must be clean (cleanSpans).
func renderReport(text string, from, to int, spans []span, claims []claimRef) renderedPage {
	src := []byte(text[from:to])
	doc := markdownParser().Parse(text2reader(src))
	m := &marker{src: src, base: from, spans: spans, claims: claims, seen: map[int]bool{}, w: ghtml.DefaultWriter}
	r := renderer.NewRenderer(renderer.WithNodeRenderers(
		util.Prioritized(ghtml.NewRenderer(), 1000),
		util.Prioritized(extension.NewTableHTMLRenderer(), 500),
		util.Prioritized(extension.NewStrikethroughHTMLRenderer(), 500),
		util.Prioritized(m, 100),
	))
	var buf bytes.Buffer
	if err := r.Render(&buf, src, doc); err != nil {
		// Rendering into a buffer fails only on a renderer bug: show the
		// text, escaped, rather than nothing.
		buf.Reset()
		buf.WriteString("<pre>")
		buf.WriteString(html.EscapeString(string(src)))
		buf.WriteString("</pre>")
	}
	return renderedPage{HTML: template.HTML(reportPolicy().SanitizeReader(&buf).Bytes()), Shown: m.seen}
}

// marker renders the text-bearing nodes of a report with its claims
// highlighted.
type marker struct {
	src    []byte
	base   int // offset of src in the report text
	spans  []span
	claims []claimRef
	seen   map[int]bool // claims written, by index
	links  int          // depth of <a> elements open
	w      ghtml.Writer
}

// RegisterFuncs implements renderer.NodeRenderer.
func (m *marker) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindText, m.text)
	reg.Register(ast.KindCodeSpan, m.codeSpan)
	reg.Register(ast.KindCodeBlock, m.codeBlock)
	reg.Register(ast.KindFencedCodeBlock, m.codeBlock)
	reg.Register(ast.KindLink, m.link)
	reg.Register(ast.KindAutoLink, m.autoLink)
	reg.Register(ast.KindImage, m.image)
}

func (m *marker) text(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.Text)
	m.write(w, n.Segment.Start, n.Segment.Stop, n.IsRaw())
	switch {
	case n.HardLineBreak():
		w.WriteString("<br>\n")
	case n.SoftLineBreak():
		w.WriteByte('\n')
	}
	return ast.WalkContinue, nil
}

func (m *marker) codeSpan(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	w.WriteString("<code>")
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		t, ok := c.(*ast.Text)
		if !ok {
			continue
		}
		s, e := t.Segment.Start, t.Segment.Stop
		if e > s && m.src[e-1] == '\n' {
			m.write(w, s, e-1, true)
			w.WriteByte(' ')
			continue
		}
		m.write(w, s, e, true)
	}
	w.WriteString("</code>")
	return ast.WalkSkipChildren, nil
}

func (m *marker) codeBlock(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		w.WriteString("</code></pre>\n")
		return ast.WalkContinue, nil
	}
	w.WriteString("<pre><code>")
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		m.write(w, seg.Start, seg.Stop, true)
	}
	return ast.WalkContinue, nil
}

// link writes a link whose target is an absolute http(s) or mailto URL as
// a link opening in a new tab; any other target (javascript:, data:, a
// path on this server) loses its link and keeps its text.
func (m *marker) link(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	href, ok := outsideURL(string(n.Destination))
	if !ok {
		return ast.WalkContinue, nil
	}
	if !entering {
		w.WriteString("</a>")
		m.links--
		return ast.WalkContinue, nil
	}
	w.WriteString(`<a href="`)
	w.WriteString(html.EscapeString(href))
	w.WriteString(`" rel="noopener noreferrer" target="_blank">`)
	m.links++
	return ast.WalkContinue, nil
}

func (m *marker) autoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	raw := string(n.URL(source))
	if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(raw), "mailto:") {
		raw = "mailto:" + raw
	}
	href, ok := outsideURL(raw)
	if ok {
		w.WriteString(`<a href="`)
		w.WriteString(html.EscapeString(href))
		w.WriteString(`" rel="noopener noreferrer" target="_blank">`)
		m.links++
	}
	label := n.Label(source)
	if s, isSub := offsetIn(source, label); isSub {
		m.write(w, s, s+len(label), true)
	} else {
		w.WriteString(html.EscapeString(string(label)))
	}
	if ok {
		w.WriteString("</a>")
		m.links--
	}
	return ast.WalkContinue, nil
}

// image shows an image as its alt text: a report's images are never
// loaded (a remote image tells its server who reads the report).
func (m *marker) image(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
	if entering {
		w.WriteString(`<span class="image">[image: `)
	} else {
		w.WriteString(`]</span>`)
	}
	return ast.WalkContinue, nil
}

// write writes src[s:e] as text, escaped (raw: as is; else with Markdown's
// backslash escapes and entities resolved), cut at the claims' offsets
// with each claimed piece wrapped.
func (m *marker) write(w util.BufWriter, s, e int, raw bool) {
	put := func(a, b int) {
		if raw {
			m.w.RawWrite(w, m.src[a:b])
		} else {
			m.w.Write(w, m.src[a:b])
		}
	}
	at := s
	for at < e {
		i := sort.Search(len(m.spans), func(i int) bool { return m.spans[i].End > m.base+at })
		if i == len(m.spans) || m.spans[i].Start-m.base >= e {
			put(at, e)
			return
		}
		sp := m.spans[i]
		ps, pe := max(at, sp.Start-m.base), min(e, sp.End-m.base)
		if ps > at {
			put(at, ps)
		}
		m.open(w, sp.Ref)
		put(ps, pe)
		if m.links > 0 {
			w.WriteString("</span>")
		} else {
			w.WriteString("</a>")
		}
		at = pe
	}
}

// open writes the opening tag of a piece of claim ref: the first piece of
// a claim on the page carries its id.
func (m *marker) open(w util.BufWriter, ref int) {
	c := &m.claims[ref]
	tag := "a"
	if m.links > 0 {
		tag = "span"
	}
	w.WriteString("<" + tag)
	if tag == "a" {
		w.WriteString(` href="` + html.EscapeString(c.Href) + `"`)
	}
	if !m.seen[ref] {
		m.seen[ref] = true
		w.WriteString(` id="claim-` + html.EscapeString(c.ID) + `"`)
	}
	w.WriteString(` class="` + c.Class() + `" data-claim="` + html.EscapeString(c.ID) + `" title="` + html.EscapeString(c.Title()) + `">`)
}

// Class is the class attribute of a claim's highlight.
func (c claimRef) Class() string {
	cls := "claim st-" + c.Status
	if c.Reviewed {
		cls += " reviewed"
	}
	if c.Disputed {
		cls += " disputed"
	}
	if c.Selected {
		cls += " selected"
	}
	return cls
}

// outsideURL returns u, trimmed, when it is an absolute http(s) URL with a
// host or a mailto URL.
func outsideURL(u string) (string, bool) {
	u = strings.TrimSpace(u)
	p, err := url.Parse(u)
	if err != nil {
		return "", false
	}
	switch strings.ToLower(p.Scheme) {
	case "http", "https":
		return p.String(), p.Host != ""
	case "mailto":
		return p.String(), p.Opaque != ""
	}
	return "", false
}

// offsetIn returns where sub starts in src when sub is a subslice of it.
func offsetIn(src, sub []byte) (int, bool) {
	if len(sub) == 0 || len(src) == 0 {
		return 0, false
	}
	s := cap(src) - cap(sub)
	if s < 0 || s+len(sub) > len(src) || &src[s] != &sub[0] {
		return 0, false
	}
	return s, true
}

// text2reader wraps src for the parser.
func text2reader(src []byte) text.Reader { return text.NewReader(src) }
