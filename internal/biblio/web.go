package biblio

import "strings"

// webDomains are hosts (and their subdomains) whose pages are not papers:
// encyclopedias, code hosts, video, social media, blogging platforms and
// news. A page on one of them that cannot be read is still a web page.
var webDomains = []string{
	"wikipedia.org", "wikimedia.org", "wikiwand.com", "britannica.com", "investopedia.com",
	"github.com", "gitlab.com", "github.io", "stackoverflow.com", "stackexchange.com",
	"youtube.com", "youtu.be", "vimeo.com", "twitter.com", "x.com", "linkedin.com", "facebook.com",
	"reddit.com", "quora.com", "medium.com", "substack.com", "wordpress.com", "blogspot.com",
	"nytimes.com", "washingtonpost.com", "wsj.com", "ft.com", "bloomberg.com", "reuters.com",
	"apnews.com", "bbc.com", "bbc.co.uk", "theguardian.com", "cnn.com", "cnbc.com", "forbes.com",
	"economist.com", "theverge.com", "techcrunch.com", "wired.com", "arstechnica.com",
	"theatlantic.com", "newyorker.com", "axios.com", "businessinsider.com", "time.com",
	"venturebeat.com", "zdnet.com", "statista.com",
}

// IsWebHost reports whether a URL is on a site whose pages are web pages,
// not papers (IsScholarlyURL is checked first by callers: a site never
// appears in both lists).
func IsWebHost(raw string) bool {
	host, _, ok := canonicalHostPath(raw)
	if !ok {
		return false
	}
	for _, d := range webDomains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// CanonicalHost returns the host of a URL's canonical form ("www." and the
// port dropped, lower case), or "" when raw is not a URL.
func CanonicalHost(raw string) string {
	host, _, _ := canonicalHostPath(raw)
	return host
}

// canonicalHostPath splits a URL's canonical form into its host and the
// rest (path, query).
func canonicalHostPath(raw string) (host, path string, ok bool) {
	c, err := CanonicalURL(raw)
	if err != nil {
		return "", "", false
	}
	host = strings.TrimPrefix(c, "https://")
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host, path = host[:i], host[i:]
	}
	return host, path, true
}
