package fetch

import (
	"strings"
	"unicode"

	"github.com/claimtrace/claimtrace/internal/lazyregexp"
)

// titleSeps separate a page title from the site name around it.
var titleSeps = []string{" | ", " - ", " — ", " – ", " :: ", " · ", " • ", " « ", " » ", " ~ "}

// siteWords are site names that do not spell their host and segments that
// are never part of a work's title ("Request PDF" on ResearchGate). Keys
// are lowercased letters and digits only.
var siteWords = map[string]bool{
	"wikipedia": true, "ieeexplore": true, "springerlink": true, "sciencedirect": true,
	"acmdigitallibrary": true, "arxiv": true, "arxivorg": true, "pmc": true, "pubmed": true,
	"researchgate": true, "semanticscholar": true, "googlescholar": true, "openreview": true,
	"oxfordacademic": true, "wileyonlinelibrary": true, "tandfonline": true, "jstor": true,
	"ssrn": true, "biorxiv": true, "medrxiv": true, "aclanthology": true, "github": true,
	"requestpdf": true, "pdf": true, "fulltext": true, "html": true,
}

// Host labels that say nothing about the site's name.
var genericLabels = map[string]bool{
	"www": true, "com": true, "org": true, "net": true, "edu": true, "gov": true, "ac": true,
	"co": true, "uk": true, "io": true, "de": true, "fr": true, "cn": true, "jp": true, "en": true,
	"m": true, "web": true, "blog": true, "blogs": true,
}

// arXiv abs pages are titled "[1706.03762] Attention Is All You Need".
var bracketID = lazyregexp.New(`^\[(\d{4}\.\d{4,5}|[a-z\-]+(\.[A-Z]{2})?/\d{7})(v\d+)?\]\s+`)

// cleanTitle returns a page title without the site name around it: a
// trailing (or leading) " | X", " - X", " — X" segment is dropped when X
// looks like the site — it equals the page's site name, spells a label of
// the host ("Wikipedia" on en.wikipedia.org, "SpringerLink" on
// link.springer.com), or is a well-known site word.
func cleanTitle(raw, host, siteName string) string {
	t, _ := splitTitle(raw, host, siteName)
	return t
}

// splitTitle is cleanTitle that also returns the site segment it removed.
func splitTitle(raw, host, siteName string) (title, removedSite string) {
	t := collapseSpaces(raw)
	t = bracketID.ReplaceAllString(t, "")
	t = strings.TrimPrefix(t, "(PDF) ")
	labels := hostLabels(host)
	site := alnumLower(siteName)
	removed := ""
	for range 3 {
		if head, tail, ok := cutSep(t, true); ok && looksLikeSite(tail, labels, site) && alnumLower(head) != "" {
			t, removed = head, tail
			continue
		}
		if head, tail, ok := cutSep(t, false); ok && looksLikeSite(head, labels, site) && alnumLower(tail) != "" {
			t, removed = tail, head
			continue
		}
		break
	}
	if siteWords[alnumLower(removed)] && !strings.ContainsAny(removed, " ") && len(removed) <= 4 {
		removed = "" // "PDF", "HTML": not a site name
	}
	return strings.TrimSpace(t), removed
}

// cutSep splits t at its last (or first) separator.
func cutSep(t string, last bool) (head, tail string, ok bool) {
	at, width := -1, 0
	for _, s := range titleSeps {
		var i int
		if last {
			i = strings.LastIndex(t, s)
		} else {
			i = strings.Index(t, s)
		}
		if i < 0 {
			continue
		}
		if at < 0 || (last && i > at) || (!last && i < at) {
			at, width = i, len(s)
		}
	}
	if at < 0 {
		return "", "", false
	}
	return strings.TrimSpace(t[:at]), strings.TrimSpace(t[at+width:]), true
}

// looksLikeSite reports whether a title segment names the site.
func looksLikeSite(seg string, labels []string, site string) bool {
	if len(seg) > 60 {
		return false
	}
	s := alnumLower(seg)
	if s == "" {
		return false
	}
	if siteWords[s] || (site != "" && s == site) {
		return true
	}
	if len(labels) == 0 {
		return false
	}
	if s == strings.Join(labels, "") || s == strings.Join(reversed(labels), "") {
		return true
	}
	for _, l := range labels {
		switch {
		case s == l:
			return true
		case len(l) >= 3 && strings.HasPrefix(s, l) && len(s) <= len(l)+20:
			return true // "ACM Digital Library" on dl.acm.org
		case len(l) >= 5 && strings.Contains(s, l) && len(s) <= len(l)+20:
			return true // "Oxford Academic" on academic.oup.com
		}
	}
	return false
}

// hostLabels returns the meaningful labels of host, without the TLD.
func hostLabels(host string) []string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	parts := strings.Split(host, ".")
	if len(parts) < 2 {
		return nil
	}
	var out []string
	for _, p := range parts[:len(parts)-1] {
		if p = alnumLower(p); p != "" && !genericLabels[p] {
			out = append(out, p)
		}
	}
	return out
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[len(s)-1-i] = x
	}
	return out
}

// alnumLower keeps the lowercased letters and digits of s.
func alnumLower(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
