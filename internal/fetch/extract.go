package fetch

import (
	"bytes"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability"
	"codeberg.org/readeck/go-readability/render"
	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/transform"

	"github.com/claimtrace/claimtrace"
	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// Content kinds.
const (
	KindHTML = "html"
	KindPDF  = "pdf"
	KindText = "text"
)

// Walls: reasons why a page's text is not the cited content. A claim judged
// against such a page is "unknown", never "unsupported".
const (
	WallBot     = "bot_wall"   // Cloudflare and similar challenges, captchas, "access denied"
	WallPaywall = "paywall"    // subscribe or purchase to read
	WallLogin   = "login"      // sign in to continue
	WallError   = "error_page" // an HTTP error, or a "page not found" served as 200
	WallEmpty   = "empty"      // no text worth judging (scanned PDF, empty shell)
)

// Content is what Extract learns from a page.
type Content struct {
	// Title is the best title: scholarly metadata first, then the page title
	// without its site suffix, then the readability title.
	Title string `json:"title"`
	// Text is the readable main text (readability for HTML, the text layer
	// for PDF). Evidence quotes are checked against it verbatim.
	Text string `json:"text,omitempty"`
	// Meta is the page's bibliographic metadata.
	Meta Meta `json:"meta"`
	// Kind is KindHTML, KindPDF or KindText.
	Kind string `json:"kind"`
	// Wall is "" or one of the Wall* constants.
	Wall string `json:"wall,omitempty"`
}

// Meta is bibliographic metadata found in a page.
type Meta struct {
	Title    string    `json:"title,omitempty"`
	Authors  []string  `json:"authors"`
	DOI      string    `json:"doi,omitempty"`
	ArXivID  string    `json:"arxiv_id,omitempty"`
	Date     time.Time `json:"date,omitzero"`
	Journal  string    `json:"journal,omitempty"`
	SiteName string    `json:"site_name,omitempty"`
	// Type is the schema.org, Dublin Core or Open Graph type ("ScholarlyArticle", "article", "pdf").
	Type string `json:"type,omitempty"`
	// Scholarly is true when the page carries scholarly metadata:
	// citation_* (Highwire) or PRISM tags, Dublin Core with a DOI or a
	// scholarly type, a JSON-LD ScholarlyArticle, or (PDF) an arXiv stamp,
	// a DOI or an abstract on the first page.
	Scholarly bool `json:"scholarly,omitempty"`
}

// Limits that keep extraction bounded on hostile pages.
const (
	maxReadabilityElems = 60000
	maxJSONLD           = 1 << 20
)

// Extract returns the readable text, title, metadata and wall status of p.
// It fails with claimtrace.ErrInvalid for content it cannot read (an image,
// a corrupt PDF) and with claimtrace.ErrUnreachable for a page that records
// a fetch failure. A page read from a snapshot that keeps its extracted
// content (a sidecar of this ExtractorVersion, written for this very page)
// is not extracted again: Extract returns a copy of that content.
func Extract(p *Page) (*Content, error) {
	if p == nil {
		return nil, fmt.Errorf("extract: nil page: %w", claimtrace.ErrInvalid)
	}
	if c := p.kept(); c != nil {
		return c, nil
	}
	if p.Status == 0 && p.Err != "" {
		return nil, fmt.Errorf("extract %s: no content: %s: %w", p.URL, p.Err, claimtrace.ErrUnreachable)
	}
	var (
		c   *Content
		err error
	)
	switch kind := detectKind(p); kind {
	case KindPDF:
		c, err = extractPDF(p)
	case KindHTML:
		c, err = extractHTML(p)
	case KindText:
		c, err = extractText(p)
	default:
		return nil, fmt.Errorf("extract %s: unsupported content type %q: %w", p.URL, p.ContentType, claimtrace.ErrInvalid)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// detectKind classifies the page by its declared type and its first bytes.
func detectKind(p *Page) string {
	head := bytes.TrimLeft(p.Body[:min(len(p.Body), 1024)], " \t\r\n\ufeff")
	if bytes.HasPrefix(head, []byte("%PDF-")) {
		return KindPDF
	}
	mt, _, err := mime.ParseMediaType(p.ContentType)
	if err != nil {
		mt = ""
	}
	switch {
	case mt == "application/pdf" || mt == "application/x-pdf":
		return KindPDF
	case mt == "text/html" || mt == "application/xhtml+xml":
		return KindHTML
	case strings.HasPrefix(mt, "text/") || mt == "application/json" || mt == "application/xml" ||
		strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml"):
		if looksHTML(head) {
			return KindHTML
		}
		return KindText
	case mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream":
		if len(p.Body) == 0 {
			return KindText
		}
		sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(p.Body))
		switch {
		case sniffed == "text/html":
			return KindHTML
		case sniffed == "application/pdf":
			return KindPDF
		case strings.HasPrefix(sniffed, "text/"):
			return KindText
		}
	}
	return ""
}

func looksHTML(head []byte) bool {
	h := bytes.ToLower(head[:min(len(head), 256)])
	return bytes.HasPrefix(h, []byte("<!doctype html")) || bytes.HasPrefix(h, []byte("<html")) ||
		bytes.Contains(h, []byte("<head")) || bytes.Contains(h, []byte("<body"))
}

// decodeBody converts body to UTF-8 using the declared or sniffed charset.
// Undeclared bodies that are valid UTF-8 are kept as they are.
func decodeBody(body []byte, contentType string) []byte {
	enc, _, certain := charset.DetermineEncoding(body[:min(len(body), 1024)], contentType)
	if !certain && utf8.Valid(body) {
		return body
	}
	if enc == nil {
		return body
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), body)
	if err != nil {
		return body
	}
	return out
}

// pageURL returns the URL the page was served from.
func pageURL(p *Page) *url.URL {
	if s := baseURL(p); s != "" {
		u, _ := url.Parse(s)
		return u
	}
	return nil
}

// baseURL returns the URL the page was served from as written: its final
// URL, else its URL, if one parses with a host; else "".
func baseURL(p *Page) string {
	for _, s := range []string{p.FinalURL, p.URL} {
		if u, err := url.Parse(s); err == nil && u.Host != "" {
			return s
		}
	}
	return ""
}

func extractHTML(p *Page) (*Content, error) {
	body := decodeBody(p.Body, p.ContentType)
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("extract %s: parse html: %w: %w", p.URL, claimtrace.ErrInvalid, err)
	}
	u := pageURL(p)
	host := ""
	if u != nil {
		host = u.Hostname()
	}
	head := scanHTML(doc)
	meta := head.meta(u)

	gq := goquery.NewDocumentFromNode(doc)
	// All visible text, for wall detection.
	all := innerText(gq.Find("body").First())
	// Boilerplate-free fallback text: the main or article element, else body.
	gq.Find("script, style, noscript, template, nav, footer, aside, button, select, textarea, " +
		"[role=navigation], [role=contentinfo], [aria-hidden=true]").Remove()
	gq.Find(`a[href^="#"]`).FilterFunction(func(_ int, s *goquery.Selection) bool {
		return skipLink.MatchString(s.Text())
	}).Remove()
	gq.Find("header").FilterFunction(func(_ int, s *goquery.Selection) bool {
		return s.Closest("article, main, [role=main]").Length() == 0
	}).Remove()
	scope := gq.Find("main, [role=main], article").First()
	fromMain := scope.Length() > 0
	if !fromMain {
		scope = gq.Find("body").First()
	}
	fallback := innerText(scope)

	rdTitle, rdText := readable(doc)
	text := chooseText(rdText, fallback, fromMain)

	title := meta.Title
	if title == "" {
		title = cleanTitle(rdTitle, host, meta.SiteName)
	}
	if title == "" {
		title = cleanTitle(head.h1, host, meta.SiteName)
	}
	c := &Content{Title: title, Text: text, Meta: meta, Kind: KindHTML}
	rawTitle := head.title
	if rawTitle == "" {
		rawTitle = title
	}
	c.Wall = detectWall(wallInput{
		status: p.Status,
		title:  rawTitle,
		text:   all,
		main:   text,
		raw:    body,
	})
	return c, nil
}

// skipLink matches accessibility links such as "Skip to main content".
var skipLink = lazyregexp.New(`(?i)^\s*(skip|jump) to\b`)

// innerText renders the first node of sel as text with block structure.
func innerText(sel *goquery.Selection) string {
	if sel.Length() == 0 {
		return ""
	}
	return cleanText(render.InnerText(sel.Nodes[0]))
}

// readable runs readability, which panics on some malformed documents; a
// panic is treated as "no readable article" and the fallback text is used.
func readable(doc *html.Node) (title, text string) {
	defer func() {
		if recover() != nil {
			title, text = "", ""
		}
	}()
	ps := readability.NewParser()
	ps.DisableJSONLD = true
	ps.MaxElemsToParse = maxReadabilityElems
	art, err := ps.ParseAndMutate(doc, nil)
	if err != nil {
		return "", ""
	}
	return strings.TrimSpace(art.Title), cleanText(art.TextContent)
}

// chooseText prefers the readability article unless it is a small,
// probably wrong, part of the main content, or spills beyond the page's
// own main element (readability falls back to the whole body when it
// finds no article).
func chooseText(readable, fallback string, fromMain bool) string {
	r, f := utf8.RuneCountInString(readable), utf8.RuneCountInString(fallback)
	switch {
	case r == 0:
		return fallback
	case fromMain && f > 0 && float64(r) > 1.1*float64(f):
		return fallback
	case r >= 500 || float64(r) >= 0.3*float64(f):
		return readable
	default:
		return fallback
	}
}

func extractText(p *Page) (*Content, error) {
	text := cleanText(string(decodeBody(p.Body, p.ContentType)))
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	title := ""
	for _, line := range strings.SplitN(text, "\n", 8) {
		line = strings.TrimSpace(strings.TrimLeft(line, "#"))
		if line != "" {
			if utf8.RuneCountInString(line) <= 200 {
				title = line
			}
			break
		}
	}
	c := &Content{Title: title, Text: text, Kind: KindText}
	c.Wall = detectWall(wallInput{status: p.Status, title: title, text: text, main: text})
	return c, nil
}

// cleanText normalizes whitespace: no-break spaces become spaces, runs of
// spaces and tabs collapse, lines are trimmed and blank lines collapse.
// It reads s once: each line is collapseSpaces of it, and lines are
// joined by one newline, or by two where blank lines stood between them.
func cleanText(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	// inLine: the current line has text; space: horizontal space since its
	// last character; blank: the lines without text before it.
	inLine, space, blank := false, false, 0
	put := func(c string) {
		switch {
		case !inLine:
			if b.Len() > 0 {
				if blank > 0 {
					b.WriteString("\n\n")
				} else {
					b.WriteByte('\n')
				}
			}
			inLine, blank = true, 0
		case space:
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(c)
	}
	for i := 0; i < len(s); {
		if j := i + textRun(s[i:]); j > i {
			put(s[i:j])
			i = j
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case '\n':
				if !inLine {
					blank++
				}
				inLine, space = false, false
			case ' ', '\t', '\f', '\v':
				space = true
			}
			continue // '\r' is dropped
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r != '\u200b' && r != '\ufeff' {
			space = true // unicode.IsSpace(r), or textRun would have taken it
		}
	}
	return b.String()
}

// textRun is the length of the text at the start of s that cleanText
// copies as it is: up to the first space (unicode.IsSpace), carriage
// return, zero-width space or byte order mark, past single spaces between
// two ASCII characters ("of the").
func textRun(s string) int {
	for j := 0; j < len(s); {
		c := s[j]
		if c < utf8.RuneSelf {
			switch c {
			case ' ':
				if j > 0 && j+1 < len(s) && plainASCII(s[j+1]) {
					j += 2
					continue
				}
				return j
			case '\n', '\r', '\t', '\f', '\v':
				return j
			}
			j++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[j:])
		if r == '\u200b' || r == '\ufeff' || unicode.IsSpace(r) {
			return j
		}
		j += n
	}
	return len(s)
}

// plainASCII reports an ASCII byte that is neither space nor a carriage
// return.
func plainASCII(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '\v':
		return false
	}
	return c < utf8.RuneSelf
}

// collapseSpaces trims s and folds runs of horizontal space into one space.
func collapseSpaces(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case '\r':
				continue
			case ' ', '\t', '\n', '\f', '\v':
				space = true
				continue
			}
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteByte(c)
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '\u200b' || r == '\ufeff':
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteString(s[i-n : i])
	}
	return b.String()
}

// wordCount counts words; each CJK character counts as one word, since
// those scripts do not separate words with spaces.
func wordCount(s string) int { return wordCountUpTo(s, -1) }

// wordCountUpTo is wordCount that stops counting at limit (if >= 0).
func wordCountUpTo(s string, limit int) int {
	n, in := 0, false
	for i := 0; i < len(s) && (limit < 0 || n < limit); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			if ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
				if !in {
					n++
				}
				in = true
			} else if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				in = false
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r >= 0x1100 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
			unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)):
			n++
			in = false
		case unicode.IsSpace(r):
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !in {
				n++
			}
			in = true
		}
	}
	return n
}
