package biblio

import (
	"github.com/claimtrace/claimtrace"
)

// Key returns the identity of a work: "arxiv:<version-less id>",
// "doi:<lowercased doi>", "url:<canonical url>" or "title:<TitleKey>", the
// first that can be derived, or "" for a work with nothing to go on.
//
// Identifiers are taken from the work's fields and, failing those, from its
// URLs, so an arXiv pdf link, its abs page and its 10.48550/arXiv DOI are one
// key. Titles are keyed without spaces (see TitleKey).
func Key(w claimtrace.Work) string {
	if id := workArXiv(w); id != "" {
		return "arxiv:" + id
	}
	if d := workDOI(w); d != "" {
		return "doi:" + d
	}
	for _, u := range workURLs(w) {
		if c, err := CanonicalURL(u); err == nil {
			return "url:" + c
		}
	}
	if t := TitleKey(w.Title); t != "" {
		return "title:" + t
	}
	return ""
}

// workArXiv returns the arXiv id of a work from its id field, its DOI
// (10.48550/arXiv.…) or its URLs.
func workArXiv(w claimtrace.Work) string {
	if id := ArXivID(w.ArXivID); id != "" {
		return id
	}
	if id := ArXivID(w.DOI); id != "" {
		return id
	}
	for _, u := range workURLs(w) {
		if id := ArXivID(u); id != "" {
			return id
		}
	}
	return ""
}

// workDOI returns the DOI of a work from its DOI field or its URLs.
func workDOI(w claimtrace.Work) string {
	if d := DOI(w.DOI); d != "" {
		return d
	}
	for _, u := range workURLs(w) {
		if d := DOI(u); d != "" {
			return d
		}
	}
	return ""
}

// workURLs lists the work's URL followed by its other URLs.
func workURLs(w claimtrace.Work) []string {
	if w.URL == "" {
		return w.URLs
	}
	return append([]string{w.URL}, w.URLs...)
}
