package fetch

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// htmlHead is what one walk over an HTML document collects for metadata.
type htmlHead struct {
	tags      map[string][]string // lowercased meta name/property → contents in order
	title     string              // <title>
	h1        string              // first <h1>
	canonical string              // <link rel=canonical>
	jsonld    []map[string]any    // JSON-LD objects, @graph flattened
}

// scanHTML walks doc once for <meta>, <title>, <h1>, canonical link and
// JSON-LD scripts.
func scanHTML(doc *html.Node) *htmlHead {
	h := &htmlHead{tags: make(map[string][]string)}
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		if depth > 512 {
			return
		}
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Meta:
				key := strings.ToLower(strings.TrimSpace(firstAttr(n, "name", "property", "itemprop")))
				val := strings.TrimSpace(firstAttr(n, "content", "value"))
				if key != "" && val != "" && len(h.tags[key]) < 500 {
					h.tags[key] = append(h.tags[key], html.UnescapeString(val))
				}
			case atom.Title:
				if h.title == "" && !inSVG(n) {
					h.title = collapseSpaces(textOf(n))
				}
			case atom.H1:
				if h.h1 == "" {
					h.h1 = collapseSpaces(textOf(n))
				}
			case atom.Link:
				if h.canonical == "" && hasToken(attr(n, "rel"), "canonical") {
					h.canonical = strings.TrimSpace(attr(n, "href"))
				}
			case atom.Script:
				if strings.EqualFold(strings.TrimSpace(attr(n, "type")), "application/ld+json") {
					h.addJSONLD(textOf(n))
				}
				return
			case atom.Style:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	return h
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if strings.EqualFold(a.Key, key) {
			return a.Val
		}
	}
	return ""
}

func firstAttr(n *html.Node, keys ...string) string {
	for _, k := range keys {
		if v := attr(n, k); v != "" {
			return v
		}
	}
	return ""
}

func hasToken(list, tok string) bool {
	for _, f := range strings.Fields(list) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

func inSVG(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.DataAtom == atom.Svg {
			return true
		}
	}
	return false
}

// textOf concatenates the text nodes under n.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil && b.Len() < maxJSONLD; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// addJSONLD parses one JSON-LD script and keeps its typed objects.
func (h *htmlHead) addJSONLD(src string) {
	if len(src) > maxJSONLD || len(h.jsonld) > 50 {
		return
	}
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(src)), &v); err != nil {
		return
	}
	var visit func(v any, depth int)
	visit = func(v any, depth int) {
		if depth > 6 || len(h.jsonld) > 50 {
			return
		}
		switch t := v.(type) {
		case []any:
			for _, x := range t {
				visit(x, depth+1)
			}
		case map[string]any:
			for _, ty := range stringsOf(t["@type"]) {
				if jsonldRank[strings.ToLower(typeName(ty))] > 0 {
					h.jsonld = append(h.jsonld, t)
					break
				}
			}
			// Nested objects: @graph, mainEntity, hasPart, …
			for k, x := range t {
				switch x.(type) {
				case map[string]any, []any:
					if k != "author" && k != "publisher" && k != "image" {
						visit(x, depth+1)
					}
				}
			}
		}
	}
	visit(v, 0)
}

// first returns the first value of the first key present.
func (h *htmlHead) first(keys ...string) string {
	for _, k := range keys {
		for _, v := range h.tags[k] {
			if v = strings.TrimSpace(v); v != "" {
				return v
			}
		}
	}
	return ""
}

// has reports whether any key is present.
func (h *htmlHead) has(keys ...string) bool {
	for _, k := range keys {
		if len(h.tags[k]) > 0 {
			return true
		}
	}
	return false
}

// hasPrefix reports whether a key with prefix is present.
func (h *htmlHead) hasPrefix(prefix string) bool {
	for k := range h.tags {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// JSON-LD types by rank: scholarly works first, then articles, then pages.
var jsonldRank = map[string]int{
	"scholarlyarticle": 4, "medicalscholarlyarticle": 4, "thesis": 4,
	"article": 2, "newsarticle": 2, "blogposting": 2, "techarticle": 2, "report": 2,
	"analysisnewsarticle": 2, "reportagenewsarticle": 2, "book": 2, "chapter": 2, "dataset": 2,
	"webpage": 1, "aboutpage": 1, "itempage": 1, "collectionpage": 1,
}

var scholarlyJSONLD = map[string]bool{"scholarlyarticle": true, "medicalscholarlyarticle": true, "thesis": true}

// bestJSONLD returns the highest-ranked JSON-LD object and its type.
func (h *htmlHead) bestJSONLD() (map[string]any, string) {
	var best map[string]any
	bestType, bestRank := "", 0
	for _, o := range h.jsonld {
		for _, t := range stringsOf(o["@type"]) {
			t = typeName(t)
			if r := jsonldRank[strings.ToLower(t)]; r > bestRank {
				best, bestType, bestRank = o, t, r
			}
		}
	}
	return best, bestType
}

// typeName strips a vocabulary prefix: "schema:Article", "http://schema.org/Article".
func typeName(t string) string {
	if i := strings.LastIndexAny(t, ":/#"); i >= 0 {
		t = t[i+1:]
	}
	return strings.TrimSpace(t)
}

// stringsOf flattens a JSON-LD value to strings: a string, an array of
// strings, or objects with "name" / "@value" / "value".
func stringsOf(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			out = append(out, stringsOf(x)...)
		}
		return out
	case map[string]any:
		for _, k := range []string{"name", "@value", "value", "@id", "url"} {
			if s, ok := t[k].(string); ok {
				return []string{s}
			}
		}
	}
	return nil
}

// jsonldAuthors reads author values: strings, Person/Organization objects
// with name or givenName/familyName, or arrays of those.
func jsonldAuthors(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			out = append(out, jsonldAuthors(x)...)
		}
		return out
	case map[string]any:
		if s, ok := t["name"].(string); ok {
			return []string{s}
		}
		g, _ := t["givenName"].(string)
		f, _ := t["familyName"].(string)
		if n := strings.TrimSpace(g + " " + f); n != "" {
			return []string{n}
		}
	}
	return nil
}

// jsonldName returns the name of an object-valued property, following
// isPartOf chains (issue → volume → periodical) a few levels.
func jsonldName(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch t := v.(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s := jsonldName(x, depth+1); s != "" {
				return s
			}
		}
	case map[string]any:
		if s, ok := t["name"].(string); ok && s != "" {
			return s
		}
		if p, ok := t["isPartOf"]; ok {
			return jsonldName(p, depth+1)
		}
	}
	return ""
}

// meta assembles Meta from the collected tags, most specific source first.
func (h *htmlHead) meta(u *url.URL) Meta {
	ld, ldType := h.bestJSONLD()
	host := ""
	if u != nil {
		host = u.Hostname()
	}
	var m Meta
	m.SiteName = h.first("og:site_name", "application-name")
	if m.SiteName == "" {
		_, m.SiteName = splitTitle(h.title, host, "")
	}
	if m.SiteName == "" && ld != nil {
		m.SiteName = jsonldName(ld["publisher"], 0)
	}

	// Identifiers.
	for _, v := range append(append(append(h.tags["citation_doi"], h.tags["prism.doi"]...),
		h.tags["bepress_citation_doi"]...), append(h.tags["dc.identifier"], h.tags["dcterms.identifier"]...)...) {
		if d := cleanDOI(v); d != "" {
			m.DOI = d
			break
		}
	}
	dcDOI := false
	for _, v := range append(h.tags["dc.identifier"], h.tags["dcterms.identifier"]...) {
		if cleanDOI(v) != "" {
			dcDOI = true
		}
	}
	if m.DOI == "" && ld != nil {
		for _, k := range []string{"identifier", "sameAs", "@id", "url"} {
			// Strings, doi.org URLs and PropertyValue {"propertyID": "DOI", "value": …}.
			for _, v := range stringsOf(ld[k]) {
				if d := cleanDOI(v); d != "" {
					m.DOI = d
					break
				}
			}
			if m.DOI != "" {
				break
			}
		}
	}
	m.ArXivID = arXivFromString(h.first("citation_arxiv_id"))
	if m.ArXivID == "" {
		m.ArXivID = arXivFromDOI(m.DOI)
	}
	if m.ArXivID == "" {
		for _, s := range []string{h.canonical, h.first("og:url"), h.first("citation_abstract_html_url"), urlString(u)} {
			if id := arXivFromURL(s); id != "" {
				m.ArXivID = id
				break
			}
		}
	}

	// Title.
	switch {
	case h.first("citation_title") != "":
		m.Title = collapseSpaces(h.first("citation_title"))
	case h.first("dc.title", "dcterms.title") != "":
		m.Title = cleanTitle(h.first("dc.title", "dcterms.title"), host, m.SiteName)
	case ld != nil && scholarlyJSONLD[strings.ToLower(ldType)] && len(stringsOf(ld["headline"])) > 0:
		m.Title = collapseSpaces(stringsOf(ld["headline"])[0])
	case ld != nil && scholarlyJSONLD[strings.ToLower(ldType)] && firstString(ld["name"]) != "":
		m.Title = collapseSpaces(firstString(ld["name"]))
	case h.first("og:title") != "":
		m.Title = cleanTitle(h.first("og:title"), host, m.SiteName)
	case ld != nil && len(stringsOf(ld["headline"])) > 0:
		m.Title = cleanTitle(stringsOf(ld["headline"])[0], host, m.SiteName)
	default:
		m.Title = cleanTitle(h.title, host, m.SiteName)
	}

	// Authors.
	authors := h.tags["citation_author"]
	if len(authors) == 0 {
		for _, v := range h.tags["citation_authors"] {
			authors = append(authors, strings.Split(v, ";")...)
		}
	}
	if len(authors) == 0 {
		authors = append(h.tags["dc.creator"], h.tags["dcterms.creator"]...)
	}
	if len(authors) == 0 && ld != nil {
		authors = jsonldAuthors(ld["author"])
	}
	if len(authors) == 0 {
		for _, v := range h.tags["author"] {
			authors = append(authors, strings.Split(v, ";")...)
		}
	}
	m.Authors = cleanAuthors(authors)

	// Date.
	dates := []string{
		h.first("citation_publication_date"), h.first("citation_date"), h.first("citation_online_date"),
		h.first("citation_cover_date"), h.first("prism.publicationdate"), h.first("dc.date.issued"),
		h.first("dcterms.issued"), h.first("dc.date"), h.first("dcterms.date"),
	}
	if ld != nil {
		dates = append(dates, firstString(ld["datePublished"]), firstString(ld["dateCreated"]))
	}
	dates = append(dates, h.first("article:published_time"), h.first("citation_year"))
	for _, d := range dates {
		if t, ok := parseDate(d); ok {
			m.Date = t
			break
		}
	}

	// Venue.
	m.Journal = h.first("citation_journal_title", "citation_conference_title", "citation_inbook_title",
		"citation_book_title", "prism.publicationname")
	if m.Journal == "" && ld != nil {
		m.Journal = jsonldName(ld["isPartOf"], 0)
	}
	if m.Journal == "" {
		if s := h.first("dc.source", "dcterms.source"); s != "" && !strings.Contains(s, "://") {
			m.Journal = s
		}
	}
	m.Journal = collapseSpaces(m.Journal)

	// Type.
	dcType := h.first("dc.type", "dcterms.type")
	switch {
	case ldType != "":
		m.Type = ldType
	case dcType != "":
		m.Type = dcType
	default:
		m.Type = h.first("og:type")
	}

	m.Scholarly = h.has("citation_title", "citation_doi", "citation_arxiv_id", "citation_journal_title",
		"citation_conference_title", "citation_pdf_url", "citation_technical_report_institution",
		"citation_dissertation_institution") ||
		h.hasPrefix("prism.") ||
		dcDOI || scholarlyDCType(dcType) ||
		scholarlyJSONLD[strings.ToLower(ldType)]
	return m
}

func firstString(v any) string {
	if s := stringsOf(v); len(s) > 0 {
		return strings.TrimSpace(s[0])
	}
	return ""
}

func urlString(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.String()
}

// scholarlyDCType reports Dublin Core types of scholarly works
// ("Text.Serial.Journal", "article", "Journal Article", "Thesis", …).
func scholarlyDCType(t string) bool {
	t = strings.ToLower(t)
	for _, w := range []string{"journal", "article", "thesis", "dissertation", "preprint", "conference", "paper"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

var doiPattern = lazyregexp.New(`(?i)\b(10\.\d{4,9}/[^\s"'<>]+)`)

// cleanDOI extracts a DOI from a bare DOI, a doi: / info:doi/ URI or a
// doi.org URL, without trailing punctuation. It returns "" if there is none.
func cleanDOI(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if u, err := url.PathUnescape(s); err == nil {
		s = u
	}
	low := strings.ToLower(s)
	for _, p := range []string{"https://doi.org/", "http://doi.org/", "https://dx.doi.org/", "http://dx.doi.org/",
		"doi.org/", "info:doi/", "urn:doi:", "doi:", "doi "} {
		if strings.HasPrefix(low, p) {
			s = strings.TrimSpace(s[len(p):])
			break
		}
	}
	if !strings.HasPrefix(s, "10.") {
		return ""
	}
	m := doiPattern.FindString(s)
	if m == "" {
		return ""
	}
	return strings.TrimRight(m, ".,;:)]}")
}

var (
	arXivNew = lazyregexp.New(`^(\d{4}\.\d{4,5})(v\d+)?$`)
	arXivOld = lazyregexp.New(`^([a-z][a-z\-]*(\.[A-Z]{2})?/\d{7})(v\d+)?$`)
	// arXivInText finds a stamped or cited id in running text.
	arXivInText = lazyregexp.New(`(?i)arXiv:\s?(\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(v\d+)?`)
)

// arXivFromString normalizes an arXiv id ("arXiv:1706.03762v5" → "1706.03762").
func arXivFromString(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 6 && strings.EqualFold(s[:6], "arxiv:") {
		s = strings.TrimSpace(s[6:])
	}
	if m := arXivNew.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	if m := arXivOld.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// arXivFromDOI reads the id of an arXiv DataCite DOI (10.48550/arXiv.X).
func arXivFromDOI(doi string) string {
	const prefix = "10.48550/arxiv."
	if len(doi) > len(prefix) && strings.EqualFold(doi[:len(prefix)], prefix) {
		return arXivFromString(doi[len(prefix):])
	}
	return ""
}

// arXivFromURL reads the id of an arxiv.org abs, pdf or html URL.
func arXivFromURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return ""
	}
	host := strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
	if host != "arxiv.org" && host != "export.arxiv.org" {
		return ""
	}
	for _, p := range []string{"/abs/", "/pdf/", "/html/"} {
		if rest, ok := strings.CutPrefix(u.Path, p); ok {
			rest = strings.TrimSuffix(strings.TrimSuffix(rest, "/"), ".pdf")
			return arXivFromString(rest)
		}
	}
	return ""
}

// cleanAuthors trims, deduplicates and reorders "Family, Given" names.
func cleanAuthors(in []string) []string {
	var out []string
	seen := make(map[string]bool)
	for _, a := range in {
		a = collapseSpaces(a)
		if a == "" || strings.Contains(a, "://") || len(a) > 200 {
			continue
		}
		if strings.Count(a, ",") == 1 {
			family, given, _ := strings.Cut(a, ",")
			if g := strings.TrimSpace(given); g != "" && !strings.ContainsAny(g, "0123456789") {
				a = g + " " + strings.TrimSpace(family)
			}
		}
		if k := strings.ToLower(a); !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
		if len(out) >= 500 {
			break
		}
	}
	return out
}

var dateLayouts = []string{
	time.RFC3339, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", "2006-01-02 15:04:05",
	"2006-01-02", "2006/01/02", "2006/1/2", "2006-1-2", "2006.01.02", "2006-01", "2006/01", "2006",
	"2 January 2006", "January 2, 2006", "January 2 2006", "Jan 2, 2006", "2 Jan 2006", "Jan. 2, 2006",
	"January 2006", "Jan 2006", time.RFC1123, time.RFC1123Z, "20060102",
}

// parseDate reads the date formats found in meta tags. Years outside
// 1600–2200 are rejected as garbage.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return time.Time{}, false
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1600 || t.Year() > 2200 {
				return time.Time{}, false
			}
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
