package fetch

import (
	"net/url"
	"strings"
)

// canonicalKey is the conservative canonicalizer used when Options.Canon
// is nil: it lowercases scheme and host, unifies http and https, drops
// "www.", default ports, the fragment and a trailing slash, and keeps the
// query (which may identify the work, as in openreview.net/forum?id=…).
func canonicalKey(raw string) string {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	host := strings.ToLower(u.Hostname())
	host = strings.TrimSuffix(host, ".")
	host = strings.TrimPrefix(host, "www.")
	port := u.Port()
	scheme := strings.ToLower(u.Scheme)
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if scheme == "http" {
		scheme = "https"
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	p := strings.TrimRight(u.EscapedPath(), "/")
	q := ""
	if u.RawQuery != "" {
		q = "?" + u.RawQuery
	}
	return scheme + "://" + host + p + q
}
